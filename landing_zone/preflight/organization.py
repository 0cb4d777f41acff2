"""Reading the organization (management account or a delegated administrator): the root and the policy types enabled
on it, the path root -> OUs -> node of every target and governed account (``ListParents``), the SCPs attached to each
node of those paths (``ListPoliciesForTarget``, ``DescribePolicy``) and the delegated administrators
(``ListDelegatedAdministrators``, ``ListDelegatedServicesForAccount``).

Each SCP is classified by who owns it: ``FullAWSAccess`` (AWS managed), AWS Control Tower (``aws-guardrails-*``: "AWS
Control Tower ... has detected that the managed service control policy 'aws-guardrails-012345 ...' ... has been
modified", https://docs.aws.amazon.com/controltower/latest/userguide/drift.html), Landing Zone Accelerator
(``AcceleratorGuardrails*``), this landing zone (an earlier deploy) or the customer.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from landing_zone.preflight import intent
from landing_zone.preflight.reading import Context, Unread, ask

__all__ = [
    "CONTROL_TOWER",
    "CUSTOMER",
    "FULL_AWS_ACCESS",
    "LANDING_ZONE",
    "LANDING_ZONE_ACCELERATOR",
    "Delegated",
    "Organization",
    "Scp",
    "read_organization",
]

SCP_TYPE = "SERVICE_CONTROL_POLICY"
FULL_AWS_ACCESS = "FullAWSAccess"
CONTROL_TOWER = "Control Tower"
LANDING_ZONE_ACCELERATOR = "Landing Zone Accelerator"
LANDING_ZONE = "this landing zone"
CUSTOMER = "customer"
# ListParents' answers for an ID the organization does not have (Organizations API reference, ListParents: Errors)
NOT_FOUND = (
    "ChildNotFoundException",
    "AccountNotFoundException",
    "OrganizationalUnitNotFoundException",
    "InvalidInputException",
)
MAX_DEPTH = 7  # root + at most five levels of OUs + the account (Organizations quotas: OU nesting depth five)


@dataclass(frozen=True)
class Scp:
    id: str
    name: str
    kind: str
    document: Mapping[str, Any] | None  # None: the content is not a JSON object


@dataclass(frozen=True)
class Delegated:
    account: str
    name: str
    services: tuple[str, ...]


@dataclass
class Organization:
    id: str | None = None
    management_account: str | None = None
    root: str | None = None
    policy_types: tuple[str, ...] = ()  # enabled on the root
    paths: dict[str, tuple[str, ...]] = field(default_factory=dict)  # node -> (root, OU..., node)
    attached: dict[str, tuple[Scp, ...]] = field(default_factory=dict)  # node -> SCPs attached directly
    delegated: tuple[Delegated, ...] = ()
    missing: tuple[str, ...] = ()  # targets or accounts the organization does not have

    def levels(self, node: str) -> list[tuple[str, tuple[Scp, ...]]] | None:
        """The SCPs of every level of ``node``'s path, root first; None when a level could not be read."""
        path = self.paths.get(node)
        if path is None or any(level not in self.attached for level in path):
            return None
        return [(level, self.attached[level]) for level in path]


def classify(ctx: Context, summary: Mapping[str, Any]) -> str:
    name = str(summary.get("Name") or "")
    if summary.get("AwsManaged") and name == FULL_AWS_ACCESS:
        return FULL_AWS_ACCESS
    if name.startswith("aws-guardrails-"):
        return CONTROL_TOWER
    if name.startswith("AcceleratorGuardrails"):
        return LANDING_ZONE_ACCELERATOR
    if intent.is_landing_zone_policy(ctx.plan, name):
        return LANDING_ZONE
    return CUSTOMER


def read_organization(ctx: Context, nodes: Iterable[str]) -> Organization | None:
    """The organization as far as it could be read (None when not even the root could); ``nodes``: the targets and
    governed accounts whose paths and SCPs are needed."""
    org = Organization()
    try:
        described = _ask(ctx, "describe_organization")["Organization"]
        org.id, org.management_account = described.get("Id"), described.get("MasterAccountId")
        root = _ask(ctx, "list_roots", key="Roots")[0]
    except Unread:
        return None
    org.root = root["Id"]
    org.policy_types = tuple(sorted(t["Type"] for t in root.get("PolicyTypes") or [] if t.get("Status") == "ENABLED"))
    with contextlib.suppress(Unread):  # recorded as unchecked
        org.delegated = _read_delegated(ctx)
    wanted = list(nodes)
    missing = [node for node in dict.fromkeys(wanted) if _read_path(ctx, org, node) is False]
    for admin in org.delegated:  # where each delegated administrator sits (inside a target or not)
        if admin.account not in org.paths:
            _read_path(ctx, org, admin.account)
    org.missing = tuple(missing)
    policies: dict[str, Scp] = {}
    for level in dict.fromkeys(level for node in wanted for level in org.paths.get(node, ())):
        _read_attached(ctx, org, level, policies)
    return org


def _ask(ctx: Context, operation: str, *, key: str | None = None, absent: tuple[str, ...] = (), **params: Any) -> Any:
    return ask(
        ctx, ctx.management, "organizations", operation, check="organization", where="organization", key=key,
        management=True, absent=absent, **params,
    )  # fmt: skip


def _read_path(ctx: Context, org: Organization, node: str) -> bool | None:
    """Record ``node``'s path; False when the organization has no such node, None when it could not be asked."""
    assert org.root is not None
    path = [node]
    child = node
    while child != org.root and len(path) <= MAX_DEPTH:
        try:
            parents = _ask(ctx, "list_parents", key="Parents", absent=NOT_FOUND, ChildId=child)
        except Unread:
            return None
        if not parents:
            return False
        child = parents[0]["Id"]
        path.append(child)
    org.paths[node] = tuple(reversed(path))
    return True


def _read_attached(ctx: Context, org: Organization, level: str, cache: dict[str, Scp]) -> None:
    try:
        summaries = _ask(ctx, "list_policies_for_target", key="Policies", TargetId=level, Filter=SCP_TYPE)
        scps = []
        for summary in summaries:
            if summary["Id"] not in cache:
                content = _ask(ctx, "describe_policy", PolicyId=summary["Id"])["Policy"].get("Content")
                cache[summary["Id"]] = Scp(summary["Id"], summary["Name"], classify(ctx, summary), _document(content))
            scps.append(cache[summary["Id"]])
    except Unread:
        return
    org.attached[level] = tuple(scps)


def _document(content: object) -> Mapping[str, Any] | None:
    try:
        document = json.loads(content) if isinstance(content, str) else None
    except ValueError:
        return None
    return document if isinstance(document, dict) else None


def _read_delegated(ctx: Context) -> tuple[Delegated, ...]:
    out = []
    for admin in _ask(ctx, "list_delegated_administrators", key="DelegatedAdministrators"):
        services = _ask(ctx, "list_delegated_services_for_account", key="DelegatedServices", AccountId=admin["Id"])
        out.append(
            Delegated(admin["Id"], str(admin.get("Name") or ""), tuple(sorted(s["ServicePrincipal"] for s in services)))
        )
    return tuple(sorted(out, key=lambda d: d.account))
