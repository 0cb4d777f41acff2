"""The SCP layout: one named SCP per concern, each attached where the governed perimeter says.

Concerns (:data:`CONCERNS`; the statements are :mod:`landing_zone.policies.guardrails`'s, each assigned to its concern
by Sid in :data:`CONCERN_OF_SID`):

=================  ===============================================================  ===============================
concern            what it denies                                                   binds
=================  ===============================================================  ===============================
regions            Bedrock, Mantle, AgentCore (and the model-calling services)      the perimeter; everyone under the
                   outside the compliant Regions                                    targets with ``confine_to_...``
models             models that are not allowed, non-compliant paths                 the perimeter; everyone with
                                                                                    ``restrict_other_models``
api-keys           Bedrock API keys (``api_keys``)                                  the perimeter
service-tiers      service tiers outside ``allowed_service_tiers``                  the perimeter
agentcore          AgentCore without inbound authorization or VPC                   the perimeter
tamper             changes to what the landing zone owns                            the perimeter
account-settings   the account-level singletons (logging, guardrail, retention)     the perimeter
perimeter          the landing zone's models, to every principal of an account      the accounts outside the
                   outside the perimeter                                            perimeter (shared targets only)
=================  ===============================================================  ===============================

Attachment (:class:`landing_zone.core.perimeter.Perimeter`): an SCP that binds the perimeter attaches to the governed
targets and to the governed accounts no governed target covers; with an opt-in it attaches to the shared targets too.
The perimeter SCP attaches to the shared targets only, and names the governed accounts (``aws:PrincipalAccount``) and
member-baseline OUs (``aws:PrincipalOrgPaths``) it leaves alone.

Quotas (catalog ``scp_max_per_target``, ``scp_max_characters``; 10 and 10,240 since 15 May 2026): a concern too large
for one SCP is split into parts; when a target would carry more than its quota (FullAWSAccess and
``other_scps_per_target`` counted), the two smallest SCPs that attach to the same targets are merged, until it fits or
nothing can be merged (then :class:`GuardrailSizeError` says which policies could move to a parent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from landing_zone.core import naming
from landing_zone.core.catalog import Catalog
from landing_zone.core.catalog.action_space import load_action_space
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.perimeter import Perimeter, perimeter
from landing_zone.core.routing import RoutingDecision
from landing_zone.policies import sids
from landing_zone.policies.common import document, minified, statement
from landing_zone.policies.guardrails import PARTITION, GuardrailSizeError, guardrail_statements
from landing_zone.policies.invoke import MANTLE_INVOKE_ACTIONS, MANTLE_MODEL_KEY

__all__ = [
    "BINDS_OUTSIDE",
    "BINDS_PERIMETER",
    "CONCERNS",
    "CONCERN_OF_SID",
    "Scp",
    "ScpSet",
    "pack_statements",
    "perimeter_statements",
    "scp_documents",
]

Document = dict[str, Any]

BINDS_PERIMETER = "perimeter"  # the governed accounts only
BINDS_ORGANIZATION = "organization"  # every account under the targets (an outside_perimeter opt-in)
BINDS_OUTSIDE = "outside"  # the accounts under the shared targets that are not governed
ANY_TARGET = "(a target)"  # the slot count when organization.target_ids is empty

# concern -> what a reviewer reads it for (the SCP's description)
CONCERNS: dict[str, str] = {
    "regions": "Bedrock, Mantle and AgentCore only in the compliant Regions",
    "models": "only the allowed models, on compliant paths",
    "api-keys": "no Bedrock API keys beyond policy_guardrails.api_keys",
    "service-tiers": "only the allowed service tiers",
    "agentcore": "AgentCore gateways with inbound authorization, runtimes in a VPC",
    "tamper": "nobody but the exempt principals changes what the landing zone owns",
    "account-settings": "the account-level settings (invocation logging, enforced guardrail, data retention) stay set",
    "perimeter": "the landing zone's models are invoked in the governed accounts only",
}

CONCERN_OF_SID: dict[str, str] = {
    **dict.fromkeys(
        (
            sids.REGIONS,
            sids.CALLERS,
            sids.SOURCES,
            sids.DIRECT_SOURCES,
            sids.BATCH_MANTLE_SOURCES,
            sids.PROFILE_SOURCES,
            sids.GLOBAL,
            sids.ALL_SERVICES,
        ),
        "regions",
    ),
    **dict.fromkeys(
        (
            sids.MODELS,
            sids.MODEL_SOURCES,
            sids.DATA_AUTOMATION,
            sids.MANTLE_MODELS,
            sids.MANTLE_NO_MODEL,
        ),
        "models",
    ),
    **dict.fromkeys(
        (
            sids.API_KEYS,
            sids.BEARER,
            sids.LONG_TERM_BEARER,
            sids.LONG_TERM_MANTLE_BEARER,
            sids.UNLISTED_BEARER,
        ),
        "api-keys",
    ),
    **dict.fromkeys((sids.TIERS, sids.MANTLE_TIERS), "service-tiers"),
    **dict.fromkeys((sids.GATEWAY_AUTH, sids.AGENTCORE_VPC), "agentcore"),
    **dict.fromkeys(
        (
            sids.TAKEOVER,
            sids.ASSUME,
            sids.NAMED,
            sids.TAGGED,
            sids.LOG_FORGERY,
            sids.TAGGED_LOG_FORGERY,
            sids.RETAG,
            sids.EVENT_SOURCES,
            sids.LEAVE,
            # who changes the alert topics' subscribers (landing_zone/policies/alert_subscriptions.py)
            sids.ALERT_SUBSCRIBE,
            "DenyAlertSubscribeByTag",
            sids.ALERT_PROTOCOLS,
            "DenyAlertSubscribeProtocolsByTag",
            sids.ALERT_UNSUBSCRIBE,
            # landing_zone.policies.org_structure and network_guardrails (issue 35, deliverables 1 and 3)
            sids.POLICY_TYPES,
            sids.MOVE_ACCOUNTS,
            "DenyRemovingTargetedAccounts",
            sids.PRIVATE_ZONES,
            sids.ROUTE53_PROFILES,
            sids.LATTICE,
            sids.RAM_SUBNETS,
        ),
        "tamper",
    ),
    **dict.fromkeys(
        (sids.SETTINGS, sids.RETENTION, sids.MANTLE_RETENTION),
        "account-settings",
    ),
    **dict.fromkeys(
        (
            sids.OUTSIDE_MODELS,
            sids.OUTSIDE_MANTLE,
            "DenyMantleInferenceWithoutModelOutsidePerimeter",
        ),
        "perimeter",
    ),
}


@dataclass(frozen=True)
class Scp:
    """One SCP as Organizations receives it: ``name`` (CreatePolicy Name), the ``concerns`` it carries, its
    ``document`` and minified ``size``, the ``targets`` it attaches to and whom it ``binds``."""

    name: str
    concerns: tuple[str, ...]
    document: Document
    size: int
    targets: tuple[str, ...]
    binds: str

    @property
    def description(self) -> str:
        return "; ".join(CONCERNS[c] for c in self.concerns)

    @property
    def content(self) -> str:
        return minified(self.document)


@dataclass(frozen=True)
class ScpSet:
    """The SCP layout of a configuration: ``policies`` in order, the quotas it was built against, the perimeter."""

    policies: tuple[Scp, ...]
    max_characters: int
    max_per_target: int
    other_scps_per_target: int
    perimeter: Perimeter

    @property
    def documents(self) -> tuple[Document, ...]:
        return tuple(p.document for p in self.policies)

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(p.size for p in self.policies)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.policies)

    @property
    def targets(self) -> tuple[str, ...]:
        """Every target some SCP attaches to, in first-attached order."""
        return tuple(dict.fromkeys(t for p in self.policies for t in p.targets))

    def attached_to(self, target: str) -> tuple[Scp, ...]:
        """Our SCPs attached directly to ``target`` (:data:`ANY_TARGET`: all of them)."""
        return tuple(p for p in self.policies if target in p.targets or target == ANY_TARGET)

    def per_target(self) -> dict[str, int]:
        """SCPs attached directly to each target after the deploy: ours + FullAWSAccess + the others'.  Without
        targets (``organization.target_ids`` empty: attached to nothing yet), all of ours as if on one target."""
        targets = self.targets or (ANY_TARGET,)
        return {t: len(self.attached_to(t)) + 1 + self.other_scps_per_target for t in targets}

    @property
    def attached_per_target(self) -> int:
        """The most SCPs any target carries (ours + FullAWSAccess + others')."""
        return max(self.per_target().values())

    @property
    def inside_documents(self) -> tuple[Document, ...]:
        """The documents that bind a principal of a governed account (what P1-P6 are proven on)."""
        return tuple(p.document for p in self.inside)

    @property
    def inside(self) -> tuple[Scp, ...]:
        """The SCPs that bind a governed account (all but the perimeter SCP, which never does: prove PO2)."""
        return tuple(p for p in self.policies if p.binds != BINDS_OUTSIDE)

    @property
    def outside(self) -> tuple[Scp, ...]:
        """The SCPs that bind an account outside the perimeter under a shared target."""
        return tuple(p for p in self.policies if p.binds != BINDS_PERIMETER)


def _allowed_model_ids(routing: RoutingDecision) -> list[str]:
    return sorted({mr.model.id for mr in routing.models})


def _allowed_mantle_ids(routing: RoutingDecision) -> list[str]:
    return sorted({mr.model.mantle_name for mr in routing.models if mr.model.mantle_regions and mr.model.mantle_name})


def perimeter_statements(perim: Perimeter, routing: RoutingDecision) -> list[Document]:
    """The perimeter SCP: every path to the landing zone's models, denied to the principals of accounts outside it.

    * ``DenyLandingZoneModelsOutsidePerimeter`` — every action that uses a model and is authorised on a foundation
      model or a system profile (IAM action database: ``foundation_model_actions`` of
      ``core/catalog/action_space.yaml``) on an allowed model's foundation-model ARN in any Region
      (and Region-less) or a system profile of it.  Every invocation path is authorised on the foundation model too:
      a profile's legs (system or application profile) on the model in each destination, a batch job on the model
      (inference-profiles-prereq.html; IAM action database), a Bedrock agent, flow or knowledge base through its
      service role, which is a role of the account;
    * ``DenyLandingZoneMantleModelsOutsidePerimeter`` — any Mantle action whose ``bedrock-mantle:Model`` is an
      allowed model's Mantle name; ``DenyMantleInferenceWithoutModelOutsidePerimeter`` — Mantle inference that
      carries no model key (fail closed, as inside).

    Each statement spares the governed accounts' principals: ``aws:PrincipalAccount`` not one of them and (member
    baseline) ``aws:PrincipalOrgPaths`` under none of its OUs.
    """
    spare: dict[str, dict[str, Any]] = {"StringNotEquals": {"aws:PrincipalAccount": list(perim.accounts)}}
    if perim.ous:
        spare["ForAllValues:StringNotLike"] = {"aws:PrincipalOrgPaths": list(perim.org_path_patterns)}
    models = _allowed_model_ids(routing)
    resources = [f"arn:{PARTITION}:bedrock:*::foundation-model/{m}" for m in models]
    resources += [f"arn:{PARTITION}:bedrock:*:*:inference-profile/*.{m}" for m in models]
    stmts = [
        statement(
            sids.OUTSIDE_MODELS,
            effect="Deny",
            actions=load_action_space().foundation_model_actions,
            resources=resources,
            condition=spare,
        )
    ]
    mantle = _allowed_mantle_ids(routing)
    if mantle:
        stmts.append(
            statement(
                sids.OUTSIDE_MANTLE,
                effect="Deny",
                actions=["bedrock-mantle:*"],
                resources=["*"],
                # Null false: any Mantle action that carries the key (also ones added later), as inside
                condition={**spare, "Null": {MANTLE_MODEL_KEY: "false"}, "StringEquals": {MANTLE_MODEL_KEY: mantle}},
            )
        )
    stmts.append(
        statement(
            "DenyMantleInferenceWithoutModelOutsidePerimeter",
            effect="Deny",
            actions=[*MANTLE_INVOKE_ACTIONS, "bedrock-mantle:CreateFineTuningJob"],
            resources=["*"],
            condition={**spare, "Null": {MANTLE_MODEL_KEY: "true"}},
        )
    )
    return stmts


def _by_concern(statements: Sequence[Document]) -> dict[str, list[Document]]:
    out: dict[str, list[Document]] = {c: [] for c in CONCERNS}
    for stmt in statements:
        concern = CONCERN_OF_SID.get(stmt["Sid"])
        if concern is None:
            raise ValueError(f"guardrail statement {stmt['Sid']!r} has no concern: add it to CONCERN_OF_SID")
        out[concern].append(stmt)
    return out


def _binds(concern: str, perim: Perimeter) -> str:
    if concern == "perimeter":
        return BINDS_OUTSIDE
    if (concern == "models" and perim.restrict_other_models) or (
        concern == "regions" and perim.confine_to_compliant_regions
    ):
        return BINDS_ORGANIZATION
    return BINDS_PERIMETER


def _targets(binds: str, perim: Perimeter) -> tuple[str, ...]:
    if not perim.targets:
        return ()  # organization.target_ids empty: created, attached to nothing (a warning says so)
    if binds == BINDS_OUTSIDE:
        return perim.shared_targets
    if binds == BINDS_ORGANIZATION:
        return tuple(dict.fromkeys((*perim.targets, *perim.account_attachments)))
    return perim.inside_targets


def pack_statements(
    statements: Sequence[Document], *, max_characters: int, blame: tuple[str, object] = ("models", None)
) -> list[Document]:
    """Split statements into as few documents as fit ``max_characters`` each (minified JSON).

    First-fit in the given order keeps related statements together and the result deterministic.  ``blame``: the
    configuration key (and value) a statement too large for any document is reported at.
    """
    documents: list[list[Document]] = []
    for stmt in statements:
        single = len(minified(document([stmt])))
        if single > max_characters:
            raise GuardrailSizeError(
                f"guardrail statement {stmt['Sid']!r} alone is {single} characters, over the SCP limit of "
                f"{max_characters} by {single - max_characters}: allow fewer models or Regions, or raise "
                "policy_guardrails.scp_max_characters if your organization has the larger quota",
                path=blame[0],
                got=blame[1],
            )
        for doc in documents:
            if len(minified(document([*doc, stmt]))) <= max_characters:
                doc.append(stmt)
                break
        else:
            documents.append([stmt])
    return [document(d) for d in documents]


def _size_key(config: LandingZoneConfig, keys: Sequence[str]) -> tuple[str, object]:
    """The first of ``keys`` (policy_guardrails fields) the configuration sets, else ``models``."""
    g = config.policy_guardrails
    for key in keys:
        if key in g.model_fields_set and getattr(g, key):
            return f"policy_guardrails.{key}", getattr(g, key)
    return "models", list(config.models)


def _scp(lz: str, concerns: tuple[str, ...], doc: Document, targets: tuple[str, ...], binds: str, part: str) -> Scp:
    return Scp(
        name=naming.scp_name(lz, "-and-".join(concerns) + part),
        concerns=concerns,
        document=doc,
        size=len(minified(doc)),
        targets=targets,
        binds=binds,
    )


def _merge_once(policies: list[Scp], lz: str, max_characters: int) -> bool:
    """Merge the two smallest SCPs that attach to the same targets and fit one document; False when none can."""
    best: tuple[int, int, int] | None = None
    for i, a in enumerate(policies):
        for j in range(i + 1, len(policies)):
            b = policies[j]
            if a.targets != b.targets or a.binds != b.binds:
                continue
            size = len(minified(document([*a.document["Statement"], *b.document["Statement"]])))
            if size <= max_characters and (best is None or size < best[0]):
                best = (size, i, j)
    if best is None:
        return False
    _, i, j = best
    a, b = policies[i], policies[j]
    merged = _scp(
        lz,
        (*a.concerns, *b.concerns),
        document([*a.document["Statement"], *b.document["Statement"]]),
        a.targets,
        a.binds,
        "",
    )
    policies[i] = merged
    del policies[j]
    return True


def _layout(
    config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog, perim: Perimeter, max_chars: int
) -> list[Scp]:
    statements = guardrail_statements(config, routing, catalog)
    if perim.shared_targets:
        statements += perimeter_statements(perim, routing)
    blame = _size_key(config, ("scp_max_characters",))
    policies: list[Scp] = []
    for concern, stmts in _by_concern(statements).items():
        if not stmts:
            continue
        binds = _binds(concern, perim)
        docs = pack_statements(stmts, max_characters=max_chars, blame=blame)
        for index, doc in enumerate(docs, start=1):
            part = f"-{index}" if len(docs) > 1 else ""
            policies.append(_scp(config.name, (concern,), doc, _targets(binds, perim), binds, part))
    return policies


def _over(scps: ScpSet) -> dict[str, int]:
    return {t: n - scps.max_per_target for t, n in scps.per_target().items() if n > scps.max_per_target}


def _full_message(scps: ScpSet, over: Mapping[str, int]) -> str:
    other = scps.other_scps_per_target
    worst = max(over, key=lambda t: over[t])
    ours = scps.attached_to(worst)
    lines = [
        f"target {worst} would carry {scps.per_target()[worst]} SCPs (FullAWSAccess, {other} other SCP(s) and the "
        f"landing zone's {len(ours)}: {', '.join(f'{p.name} ({p.size} characters)' for p in ours)}), over the quota "
        f"of {scps.max_per_target} by {over[worst]}"
    ]
    if other:
        lines.append(
            f"move {min(other, over[worst])} of the other SCPs to a parent OU or the root (inherited SCPs take no slot "
            "of this target and still apply to every account below it), then lower "
            "policy_guardrails.other_scps_per_target"
        )
    shared = [p.name for p in ours if p.binds != BINDS_PERIMETER]
    if shared:
        lines.append(
            f"{', '.join(shared)} bind every account under {worst}: attach them to its parent or the root instead "
            "(organization.target_ids) if every account there may carry them"
        )
    lines.append(
        "or allow fewer models or Regions, turn off policy_guardrails.region_deny_all_services, or raise "
        "policy_guardrails.scp_max_per_target / scp_max_characters to your organization's quota"
    )
    if other:
        lines.append(f"with these guardrails at most {max(0, scps.max_per_target - 1 - len(ours))} other SCP(s) fit")
    return "; ".join(lines)


def scp_documents(config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog) -> ScpSet:
    """The SCP layout: one SCP per concern (parts when one is too large), merged only where a target's quota
    requires it; raises :class:`GuardrailSizeError` when a target stays over its quota."""
    # without an organization (the statements alone, as the tests and the threat model read them): no targets
    perim = perimeter(config) or Perimeter((), (), (), (), False, False)
    g = config.policy_guardrails
    max_chars = g.scp_max_characters or catalog.limit("scp_max_characters")
    max_per_target = g.scp_max_per_target or catalog.limit("scp_max_per_target")
    policies = _layout(config, routing, catalog, perim, max_chars)
    scps = ScpSet(tuple(policies), max_chars, max_per_target, g.other_scps_per_target, perim)
    while _over(scps) and _merge_once(policies, config.name, max_chars):
        scps = replace(scps, policies=tuple(policies))
    if over := _over(scps):
        path, got = _size_key(config, ("other_scps_per_target", "scp_max_per_target", "scp_max_characters"))
        raise GuardrailSizeError(_full_message(scps, over), path=path, got=got)
    return scps
