"""The cross-account grants the landing zone means: the one place a policy may name another account, with why.

Every stack must be deployable in its own account, so a policy (key, bucket, topic, trust, identity, endpoint,
SCP, log resource policy, ...) names no account but its stack's own — except where the plan intends a grant across
accounts.  Each such grant is declared here, as data: the stack, the kinds of policy, what it may name there
(``role``, ``root``, ``user``, ``policy``, ``iam`` (another IAM resource), ``log-group``, ``bucket``, ``key``,
``alias``, or ``account`` for a bare account ID in a principal or an account condition key), the accounts, and
the reason.  The review rule ``LZ-FOREIGN-ACCOUNT`` (:mod:`landing_zone.review.deployability`) admits exactly these
and lists each one, with its reason and the statements that use it, in the report.

To add a grant (a new policy that must name another account): add a :class:`CrossAccountGrant` to
:func:`cross_account_grants` with the reason a reviewer reads; nothing else admits it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from landing_zone.core import naming
from landing_zone.core.applications import ApplicationPlan
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.perimeter import perimeter

__all__ = ["NAME_KINDS", "CrossAccountGrant", "cross_account_grants"]

# What a policy can name of an account: an IAM principal (root, role, user), a resource (log group, bucket, key,
# alias), or the bare account ID (a principal, aws:SourceAccount / aws:PrincipalAccount / aws:ResourceAccount ...).
NAME_KINDS = frozenset(
    {"root", "role", "user", "policy", "iam", "log-group", "bucket", "key", "alias", "account", "event-bus"}
)


@dataclass(frozen=True)
class CrossAccountGrant:
    """Policies of ``policy_kinds`` (the review inventory's kinds: ``scp``, ``trust``, ``endpoint`` ...) in the
    stack ``stack`` may name ``names`` of ``accounts``, because ``reason``."""

    id: str
    stack: str
    policy_kinds: tuple[str, ...]
    names: tuple[str, ...]
    accounts: tuple[str, ...]
    reason: str

    def __post_init__(self) -> None:
        unknown = set(self.names) - NAME_KINDS
        if unknown:
            raise ValueError(f"grant {self.id}: names {sorted(unknown)} (known: {', '.join(sorted(NAME_KINDS))})")

    def admits(self, stack: str, policy_kind: str, name_kind: str, account: str) -> bool:
        return (
            stack == self.stack
            and policy_kind in self.policy_kinds
            and name_kind in self.names
            and account in self.accounts
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "stack": self.stack,
            "policy_kinds": list(self.policy_kinds),
            "names": list(self.names),
            "accounts": list(self.accounts),
            "reason": self.reason,
        }


def _accounts_of(arns: Iterable[str]) -> set[str]:
    """The 12-digit accounts of IAM ARNs (a wildcard account names none)."""
    out = set()
    for arn in arns:
        parts = arn.split(":")
        if len(parts) > 4 and parts[4].isdigit():
            out.add(parts[4])
    return out


def _scp_grant(config: LandingZoneConfig) -> CrossAccountGrant | None:
    """The SCPs live in the management account and bind the member accounts, where the landing zone's own roles act:
    the CDK bootstrap roles of the account that deploys, its automation and log-delivery roles, and the configured
    deployment and deployer principals (``landing_zone.policies.guardrails.exemptions``), and the kill switch's
    reset principals, whose role the SCP guards from everyone else."""
    if config.organization is None:
        return None
    g = config.policy_guardrails
    deploy = config.stackset_administrator_account if config.member_baseline.enabled else config.deployment_account
    accounts = {deploy} | _accounts_of(
        (
            *g.deployment_principal_arns,
            *g.deployer_principal_arns,
            *config.cost.kill_switch_reset_principal_arns,
            *config.cost.alert_subscriber_principal_arns,
        )
    )
    accounts -= {config.organization.management_account_id}  # the stack's own account needs no grant
    if not accounts:
        return None
    return CrossAccountGrant(
        id="scp-landing-zone-roles",
        stack=naming.stack_name(config.name, "guardrails"),
        policy_kinds=("scp",),
        names=("role",),
        accounts=tuple(sorted(accounts)),
        reason="the SCPs, in the management account, bind the workload accounts; they exempt (and protect) by ARN the "
        "roles the landing zone itself acts with there: the CDK bootstrap roles of the account that deploys, the "
        "automation and log-delivery roles, policy_guardrails.deployment_principal_arns / "
        "deployer_principal_arns, and cost.kill_switch_reset_principal_arns (the only principals the kill switch's "
        "reset role trusts, so the SCP protects that role from everyone else); the documented alert subscribers "
        "(cost.alert_subscriber_principal_arns) are named where the SCP lets them add recipients",
    )


def _perimeter_grant(config: LandingZoneConfig) -> CrossAccountGrant | None:
    """The perimeter SCP (on a shared target) spares the governed accounts by ``aws:PrincipalAccount``."""
    perim = perimeter(config)
    if perim is None or not perim.shared_targets or not perim.accounts:
        return None
    return CrossAccountGrant(
        id="scp-governed-accounts",
        stack=naming.stack_name(config.name, "guardrails"),
        policy_kinds=("scp",),
        names=("account",),
        accounts=perim.accounts,
        reason="the perimeter SCP, on the targets that may hold other teams' accounts, denies the landing zone's "
        "models to every account but the governed ones (deployment account and accounts[]), which it names in "
        "aws:PrincipalAccount so that every call of those models is logged, alarmed and budgeted (prove: PO1, PO2)",
    )


def _invoker_grants(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> list[CrossAccountGrant]:
    """An application called from another account (``applications[].account``): its invoker role's trust policy
    names that account's root and the principals it narrows to (``trusted_principal_arns``, SSO roles)."""
    grants = []
    for app in applications:
        accounts = ({app.caller_account_id} | _accounts_of(app.app.trusted_principal_arns)) - {
            config.deployment_account
        }
        accounts = {a for a in accounts if a.isdigit()}  # the member baseline's caller is the member itself
        if not accounts:
            continue
        grants.append(
            CrossAccountGrant(
                id=f"invoker-trust-{app.app.name}",
                stack=naming.stack_name(config.name, "access"),
                policy_kinds=("trust",),
                names=("root", "role"),
                accounts=tuple(sorted(accounts)),
                reason=f"application {app.app.name} is called from account {app.caller_account_id} "
                "(applications[].account): its invoker role trusts that account's principals, narrowed to "
                "trusted_principal_arns / sso_permission_sets when given",
            )
        )
    return grants


def _endpoint_grant(config: LandingZoneConfig) -> CrossAccountGrant | None:
    """The deployment account's VPC endpoints serve every configured account (organization-wide access): their
    policies may bound the resources and principals to those accounts."""
    others = tuple(a for a in config.account_ids if a != config.deployment_account)
    if config.member_baseline.enabled or not others:
        return None
    return CrossAccountGrant(
        id="endpoints-configured-accounts",
        stack=naming.stack_name(config.name, "network"),
        policy_kinds=("endpoint",),
        names=("account", "role", "root"),
        accounts=others,
        reason="the VPC endpoints in the deployment account carry the traffic of every configured account "
        "(accounts[]): their policies admit those accounts' principals and resources, and no one else's",
    )


def _detection_grants(config: LandingZoneConfig) -> list[CrossAccountGrant]:
    """Detection on in organization mode: the management account forwards Organizations' policy events to the
    deployment account's default bus in ``home_region``; that bus admits it."""
    if config.organization is None or not config.detection.on(True) or config.member_baseline.enabled:
        return []
    management, deploy = config.organization.management_account_id, config.deployment_account
    if management == deploy:
        return []
    return [
        CrossAccountGrant(
            id="detection-management-forwards",
            stack=naming.stack_name(config.name, "detection-management"),
            policy_kinds=("managed",),
            names=("event-bus",),
            accounts=(deploy,),
            reason="no SCP binds the management account, so its Organizations policy and policy-type changes are "
            "detected there and forwarded to the deployment account's default bus in home_region, where the "
            "detection rules alert the alerts topic (events:PutEvents on that bus only)",
        ),
        CrossAccountGrant(
            id="detection-home-bus-admits-management",
            stack=naming.stack_name(config.name, "detection"),
            policy_kinds=("resource",),
            names=("root",),
            accounts=(management,),
            reason="the deployment account's default bus in home_region admits the management account's forwarded "
            "detection events (events:PutEvents from that account)",
        ),
    ]


def _central_bus_grants(config: LandingZoneConfig) -> list[CrossAccountGrant]:
    """``detection.central_event_bus_arn``: the roles of the detection stacks may put events on that bus, in the
    central account: ``<name>-detection``'s central forwarder, and the forwarding stacks' forwarder (the management
    account's, unless it is the central account itself; us-east-1's and the other source Regions', the stacks
    :func:`landing_zone.plan.detection.workload_forwarders` plans, a test compares them).  The validated configuration
    refuses the bus outside organization mode, with the member baseline and in the deployment account."""
    arn = config.detection.central_event_bus_arn
    if arn is None or config.organization is None or config.member_baseline.enabled:
        return []
    central, home = arn.split(":")[4], config.home_region
    parts = ["detection"] + (["detection-global"] if home != "us-east-1" else [])
    parts += [naming.detection_region_stack_part(r) for r in sorted(set(config.source_regions) - {home, "us-east-1"})]
    parts += ["detection-management"] if config.organization.management_account_id != central else []
    role = naming.detection_central_forwarder_role_name(config.name)
    return [
        CrossAccountGrant(
            id="detection-central-bus" if part == "detection" else f"{part}-central-bus",
            stack=naming.stack_name(config.name, part),
            policy_kinds=("managed",),
            names=("event-bus",),
            accounts=(central,),
            reason=f"detection.central_event_bus_arn: the detection rules deliver their CloudTrail events to the "
            f"central account's bus {arn} (events:PutEvents on that bus only: "
            + (f"the role {role}" if part == "detection" else "the forwarder role, beside the home bus")
            + "); the bus's own policy, written by the central account, must admit them",
        )
        for part in parts
        if central != config.deployment_account
    ]


def _kill_switch_reset_grant(config: LandingZoneConfig) -> CrossAccountGrant | None:
    """``cost.kill_switch_reset_principal_arns`` may live in another account (a FinOps on-call role in a billing
    account outside the targets): the reset role's trust names that account's root, narrowed by ``aws:PrincipalArn``
    to exactly those roles."""
    if not config.cost.kill_switch:
        return None
    accounts = _accounts_of(config.cost.kill_switch_reset_principal_arns) - {config.deployment_account}
    if not accounts:
        return None
    return CrossAccountGrant(
        id="kill-switch-reset-principals",
        stack=naming.stack_name(config.name, "cost"),
        policy_kinds=("trust",),
        names=("root", "role"),
        accounts=tuple(sorted(accounts)),
        reason="the kill switch's reset role (docs/COST.md, 'Resetting the kill switch') trusts exactly "
        "cost.kill_switch_reset_principal_arns, which may sit in another account: its trust policy names that "
        "account's root, narrowed by aws:PrincipalArn to those roles",
    )


def _alert_subscriber_grant(config: LandingZoneConfig) -> CrossAccountGrant | None:
    """``cost.alert_subscriber_principal_arns`` of another account: the alerts topic's policy admits them to
    ``sns:Subscribe`` (a cross-account request needs the resource side's grant)."""
    accounts = _accounts_of(config.cost.alert_subscriber_principal_arns) - {config.deployment_account}
    if not accounts:
        return None
    return CrossAccountGrant(
        id="alerts-topic-subscribers",
        stack=naming.stack_name(config.name, "cost"),
        policy_kinds=("topic",),
        names=("root", "role"),
        accounts=tuple(sorted(accounts)),
        reason="cost.alert_subscriber_principal_arns may add recipients to the alerts topic (sns:Subscribe, e-mail or "
        "HTTPS): its topic policy admits those roles, from their own accounts, and no one else",
    )


def cross_account_grants(
    config: LandingZoneConfig, applications: Sequence[ApplicationPlan]
) -> tuple[CrossAccountGrant, ...]:
    """Every cross-account grant the configuration means (empty for a single account that calls itself)."""
    grants: list[CrossAccountGrant | None] = [
        _scp_grant(config),
        _perimeter_grant(config),
        *_invoker_grants(config, applications),
        _endpoint_grant(config),
        _kill_switch_reset_grant(config),
        _alert_subscriber_grant(config),
        *_detection_grants(config),
        *_central_bus_grants(config),
    ]
    return tuple(g for g in grants if g is not None)
