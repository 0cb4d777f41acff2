"""The requests the landing zone will make in a governed account, stated for the evaluator
(:class:`landing_zone.policies.evaluator.Request`), all derived from the plan:

* **inference** — for every compliant path of the routing decision callable from ``inference_source_regions``, what
  its invoker roles send (IAM User Guide / Bedrock user guide, inference-profiles-prereq.html and
  global-cross-region-inference.html): the inference profile in the source Region; the foundation model in every
  destination Region with ``bedrock:InferenceProfileArn``; for a global profile also the Region-less foundation model
  with ``aws:RequestedRegion = unspecified``; the foundation model in its Region for an in-Region path; Mantle's
  ``CreateInference`` in its Region with ``bedrock-mantle:Model``;
* **deploy** — the deploy's own calls in the account: CloudFormation change sets on its stacks (CDK deploy role),
  the IAM roles it creates (CloudFormation execution role; IAM is a global service whose requests carry
  ``aws:RequestedRegion = us-east-1``, https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-requestedregion),
  and every Allow of each custom-resource handler's own policy (its account-level settings) in ``home_region``.

Each request carries the principal's ``aws:PrincipalARN``, ``aws:PrincipalAccount``, ``aws:PrincipalOrgID`` (when the
organization was read) and the ``landing-zone`` principal tag the stacks put on every role.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from landing_zone.core import arns, naming
from landing_zone.core.applications import cost_allocation_tags_stack
from landing_zone.core.routing import PathKind, Route
from landing_zone.plan import Plan
from landing_zone.plan.deployment import stack_placements
from landing_zone.policies.evaluator import Request
from landing_zone.preflight import intent

__all__ = ["Call", "deploy_calls", "inference_calls"]

IAM_REGION = "us-east-1"
PROFILE_KEY = "bedrock:InferenceProfileArn"
MANTLE_MODEL_KEY = "bedrock-mantle:Model"
INVOKE = "bedrock:InvokeModel"
MANTLE_INVOKE = "bedrock-mantle:CreateInference"
# A stack's ARN ends in a UUID CloudFormation draws at creation; no policy of this landing zone keys on it.
STACK_ID = "00000000-0000-0000-0000-000000000000"


@dataclass(frozen=True)
class Call:
    """One request, with what it is for: ``route`` for inference (None for the deploy's own calls)."""

    label: str  # e.g. "eu.moonshotai.kimi-k3.1-pro destination eu-south-2"
    request: Request
    route: Route | None = None

    @property
    def region(self) -> str:
        return str(self.request.context.get("aws:RequestedRegion", ""))


def _context(plan: Plan, principal: str, region: str, org_id: str | None, **extra: Any) -> dict[str, Any]:
    account = principal.split(":")[4]
    context: dict[str, Any] = {
        "aws:RequestedRegion": region,
        "aws:PrincipalARN": principal,
        "aws:PrincipalAccount": account,
        "aws:PrincipalTag/landing-zone": plan.config.name,
        "aws:SecureTransport": True,
    }
    if org_id:
        context["aws:PrincipalOrgID"] = org_id
    return context | extra


def inference_calls(plan: Plan, principal: str, org_id: str | None) -> list[Call]:
    """Every request the invoker ``principal`` makes on the compliant paths (see the module docstring)."""
    account = principal.split(":")[4]
    sources = set(plan.config.source_regions)
    calls: list[Call] = []
    for route in plan.routing.compliant_routes():
        for source in sorted(sources & set(route.source_regions)):
            calls += [
                Call(label, Request(action, resource, _context(plan, principal, region, org_id, **extra)), route)
                for label, action, resource, region, extra in _legs(route, source, account)
            ]
    return calls


def _legs(route: Route, source: str, account: str) -> Iterator[tuple[str, str, str, str, dict[str, Any]]]:
    model = route.model_id
    if route.kind is PathKind.IN_REGION:
        yield f"{model} in-Region {source}", INVOKE, arns.foundation_model(source, model), source, {}
        return
    if route.kind is PathKind.MANTLE:
        project = f"arn:aws:bedrock-mantle:{source}:{account}:project/default"
        yield f"{model} on Mantle in {source}", MANTLE_INVOKE, project, source, {MANTLE_MODEL_KEY: route.invoke_id}
        return
    profile = arns.inference_profile(source, account, route.require_profile_id())
    yield f"{route.invoke_id} from {source}", INVOKE, profile, source, {}
    for destination in route.destination_regions:
        fm = arns.foundation_model(destination, model)
        yield f"{route.invoke_id} destination {destination}", INVOKE, fm, destination, {PROFILE_KEY: profile}
    if route.kind is PathKind.GLOBAL_PROFILE:
        fm = arns.global_foundation_model(model)
        yield f"{route.invoke_id} Region-less leg", INVOKE, fm, "unspecified", {PROFILE_KEY: profile}


def deploy_calls(plan: Plan, account: str, org_id: str | None) -> list[Call]:
    """The deploy's own calls in ``account`` (see the module docstring)."""
    cfg = plan.config
    home, lz = cfg.home_region, cfg.name
    deployer, executor = intent.deploy_principals(plan, account)
    calls: list[Call] = []
    if not cfg.member_baseline.enabled:  # StackSets create the members' stacks themselves
        for placement in stack_placements(plan):
            if placement.account != account:
                continue
            stack = f"arn:aws:cloudformation:{home}:{account}:stack/{placement.name}/{STACK_ID}"
            for action in ("cloudformation:CreateChangeSet", "cloudformation:ExecuteChangeSet"):
                request = Request(action, stack, _context(plan, deployer, home, org_id))
                calls.append(Call(f"deploy {placement.name} ({action})", request))
    roles = [naming.invoker_role_name(lz, a.app.name) for a in plan.applications]
    roles += [naming.automation_role_name(lz, handler) for handler in _handlers(plan)]
    if cfg.invocation_logging.enabled:
        roles.append(naming.invocation_logging_role_name(lz))
    for role in dict.fromkeys(roles):
        request = Request(
            "iam:CreateRole", f"arn:aws:iam::{account}:role/{role}", _context(plan, executor, IAM_REGION, org_id)
        )
        calls.append(Call(f"deploy role {role} (iam:CreateRole)", request))
    for handler in _handlers(plan):
        calls += _handler_calls(plan, account, handler, org_id)
    return calls


def _handlers(plan: Plan) -> list[str]:
    """The custom-resource handlers deployed in the workload accounts (the cost-allocation tags are activated in
    the management account with an organization)."""
    elsewhere = cost_allocation_tags_stack(plan.config, plan.applications) == "guardrails"
    return [h for h in plan.policies.automation if not (elsewhere and h == "cost-allocation-tags")]


def _handler_calls(plan: Plan, account: str, handler: str, org_id: str | None) -> list[Call]:
    """Each Allow of the handler's own policy as one request per action (its ``StringEquals`` values in the context;
    resources with deploy-time values other than the stack's environment and the logging role are left out)."""
    home, lz = plan.config.home_region, plan.config.name
    principal = f"arn:aws:iam::{account}:role/{naming.automation_role_name(lz, handler)}"
    values = {
        "${lz:partition}": "aws",
        "${lz:region}": home,
        "${lz:account}": account,
        "${lz:logging-role-arn}": f"arn:aws:iam::{account}:role/{naming.invocation_logging_role_name(lz)}",
    }
    calls = []
    for stmt in plan.policies.automation[handler].handler["Statement"]:
        resources = [_fill(r, values) for r in _many(stmt.get("Resource"))]
        actions = [a for a in _many(stmt.get("Action")) if "*" not in a]
        if stmt.get("Effect") != "Allow" or any("${" in r for r in resources):
            continue
        extra = {k: v for k, v in (stmt.get("Condition") or {}).get("StringEquals", {}).items() if isinstance(v, str)}
        for action in actions:
            for resource in resources:
                request = Request(
                    action,
                    resource.replace(":log-stream:*", ":log-stream:s"),
                    _context(plan, principal, home, org_id, **extra),
                )
                calls.append(Call(f"{handler} custom resource ({action})", request))
    return calls


def _many(value: object) -> list[str]:
    return [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]


def _fill(text: str, values: Mapping[str, str]) -> str:
    for marker, value in values.items():
        text = text.replace(marker, value)
    return text
