"""Allow statements for Bedrock inference, derived only from the routing decision.

Shared by the VPC endpoint policies and the invoker IAM policies, so the two can never disagree.
No statement has a wildcard resource on an invoke action: every foundation-model ARN is concrete, and profile
ARNs are concrete except, in endpoint policies, the account's application inference profiles (their IDs are
random; the models they reach are still limited by the concrete foundation-model ARNs).

Shape for one set of paths (docs: inference-profiles-prereq.html, global-cross-region-inference.html):

* ``<prefix>CompliantModelsAndProfiles`` — what the caller names: in-Region FM ARNs, profile ARNs;
* ``<prefix>GeoProfileDestinations`` — FM ARNs in every destination Region, only with
  ``bedrock:InferenceProfileArn`` naming an allowed profile;
* ``<prefix>GlobalProfileDestinations`` / ``<prefix>GlobalProfileUnspecifiedRegion`` — the global form, the
  Region-less FM ARN only with ``aws:RequestedRegion = unspecified``.

Batch (``CreateModelInvocationJob``) is authorised against the job resource and the foundation model (IAM action
database: resource types model-invocation-job, foundation-model, custom-model; no profile types), and a batch
request carries no ``bedrock:InferenceProfileArn``; so :func:`batch_statement` allows the job ARNs and the
compliant FM ARNs in one statement without the profile condition.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from landing_zone.core import arns
from landing_zone.core.routing import PathKind, Route, RoutingDecision
from landing_zone.policies import condition_keys
from landing_zone.policies.common import statement

RUNTIME_INVOKE_ACTIONS = ("bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream")
BATCH_ACTIONS = ("bedrock:CreateModelInvocationJob",)
MANTLE_INVOKE_ACTIONS = ("bedrock-mantle:CreateInference",)
PROFILE_ARN_KEY = condition_keys.PROFILE_KEY
MANTLE_MODEL_KEY = condition_keys.MANTLE_KEY
# Service tiers (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ServiceTier.html): the runtime key
# is on InvokeModel and InvokeModelWithResponseStream (which also authorise Converse, Chat Completions and Responses on
# bedrock-runtime: https://docs.aws.amazon.com/bedrock/latest/userguide/inference.html), the Mantle key on
# CreateInference (Responses, Chat Completions, Messages on bedrock-mantle).
SERVICE_TIER_KEY = condition_keys.TIER_KEY
MANTLE_SERVICE_TIER_KEY = condition_keys.MANTLE_TIER_KEY
SERVICE_TIERS = ("reserved", "priority", "default", "flex")

Condition = Mapping[str, Mapping[str, object]]


@dataclass
class InvokeResources:
    """The ARNs a set of compliant runtime paths needs, by how they may be reached."""

    direct: set[str] = field(default_factory=set)  # named by the caller: in-Region FMs and profiles
    profiles: set[str] = field(default_factory=set)  # geographic profiles the legs may carry
    geo_legs: set[str] = field(default_factory=set)  # FM ARNs in destination Regions of geographic profiles
    global_profiles: set[str] = field(default_factory=set)
    global_legs: set[str] = field(default_factory=set)
    global_fms: set[str] = field(default_factory=set)  # Region-less FM ARNs

    def add_route(self, route: Route, *, sources: Iterable[str], accounts: Sequence[str], partition: str) -> None:
        regions = tuple(sources)
        if route.kind is PathKind.IN_REGION:
            self.direct.update(arns.foundation_model(r, route.model_id, partition) for r in regions)
        elif route.kind is PathKind.GEOGRAPHIC_PROFILE:
            profile_arns = {
                arns.inference_profile(r, a, route.require_profile_id(), partition) for r in regions for a in accounts
            }
            self.direct |= profile_arns
            self.profiles |= profile_arns
            self.geo_legs.update(arns.foundation_model(r, route.model_id, partition) for r in route.destination_regions)
        elif route.kind is PathKind.GLOBAL_PROFILE:
            profile_arns = {
                arns.inference_profile(r, a, route.require_profile_id(), partition) for r in regions for a in accounts
            }
            self.direct |= profile_arns
            self.global_profiles |= profile_arns
            self.global_legs.update(
                arns.foundation_model(r, route.model_id, partition) for r in route.destination_regions
            )
            self.global_fms.add(arns.global_foundation_model(route.model_id, partition))

    def add_application_profiles(self, profile_arns: Iterable[str], *, route_kinds: Iterable[PathKind]) -> None:
        """Application profiles are named directly and carried by the legs of the paths they copy."""
        profile_arns = set(profile_arns)
        self.direct |= profile_arns
        kinds = set(route_kinds)
        if PathKind.GEOGRAPHIC_PROFILE in kinds:
            self.profiles |= profile_arns
        if PathKind.GLOBAL_PROFILE in kinds:
            self.global_profiles |= profile_arns

    def statements(
        self, *, actions: Sequence[str], sid_prefix: str, direct_condition: Condition | None = None
    ) -> list[dict[str, Any]]:
        """``direct_condition`` is ANDed onto the statement the caller names (e.g. aws:SourceVpce); the legs
        are evaluated in other Regions and carry no such keys."""
        out: list[dict[str, Any]] = []
        if self.direct:
            out.append(
                statement(
                    f"{sid_prefix}CompliantModelsAndProfiles",
                    actions=actions,
                    resources=self.direct,
                    condition=direct_condition,
                )
            )
        if self.geo_legs:
            out.append(
                statement(
                    f"{sid_prefix}GeoProfileDestinations",
                    actions=actions,
                    resources=self.geo_legs,
                    condition={"ArnLike": {PROFILE_ARN_KEY: sorted(self.profiles)}},
                )
            )
        if self.global_legs:
            out.append(
                statement(
                    f"{sid_prefix}GlobalProfileDestinations",
                    actions=actions,
                    resources=self.global_legs,
                    condition={"ArnLike": {PROFILE_ARN_KEY: sorted(self.global_profiles)}},
                )
            )
            out.append(
                statement(
                    f"{sid_prefix}GlobalProfileUnspecifiedRegion",
                    actions=actions,
                    resources=self.global_fms,
                    condition={
                        "StringEquals": {"aws:RequestedRegion": "unspecified"},
                        "ArnLike": {PROFILE_ARN_KEY: sorted(self.global_profiles)},
                    },
                )
            )
        return out


def batch_resources(
    route: Route, *, sources: Iterable[str], accounts: Sequence[str], partition: str = arns.PARTITION
) -> set[str]:
    """The model ARNs a batch job on ``route`` started in ``sources`` is authorised against (besides the job ARN).

    ``CreateModelInvocationJob`` is authorised against foundation-model, custom-model and model-invocation-job
    resources only (Service Authorization Reference): a job whose modelId is a profile is authorised against the
    model, so the profile ARN itself is never evaluated.  Every destination of a compliant geographic profile is
    compliant; a global one only when allowed.
    """
    sources = tuple(sources)
    out: set[str] = {arns.foundation_model(r, route.model_id, partition) for r in sources}
    if route.kind in (PathKind.GEOGRAPHIC_PROFILE, PathKind.GLOBAL_PROFILE):
        out.update(arns.foundation_model(r, route.model_id, partition) for r in route.destination_regions)
    if route.kind is PathKind.GLOBAL_PROFILE:
        out.add(arns.global_foundation_model(route.model_id, partition))
    return out


def batch_statement(
    resources: Iterable[str],
    *,
    regions: Iterable[str],
    accounts: Sequence[str],
    sid: str = "BatchCompliantModels",
    partition: str = arns.PARTITION,
) -> dict[str, Any]:
    """``CreateModelInvocationJob`` on the given model/profile ARNs and the accounts' job ARNs in ``regions``."""
    jobs = {arns.batch_jobs(r, a, partition) for r in regions for a in accounts}
    return statement(sid, actions=BATCH_ACTIONS, resources={*resources, *jobs})


def runtime_batch_statements(
    routing: RoutingDecision,
    *,
    accounts: Sequence[str],
    source_region: str | None = None,
    sid_prefix: str = "Batch",
    partition: str = arns.PARTITION,
) -> list[dict[str, Any]]:
    """Batch on every compliant runtime path callable from ``source_region`` (VPC endpoint policies)."""
    resources: set[str] = set()
    regions: set[str] = set()
    for route in routing.compliant_routes(endpoint="runtime"):
        sources = _in_source(route, source_region)
        if sources:
            resources |= batch_resources(route, sources=sources, accounts=accounts, partition=partition)
            regions.update(sources)
    if not regions:
        return []
    return [
        batch_statement(
            resources, regions=regions, accounts=accounts, sid=f"{sid_prefix}CompliantModels", partition=partition
        )
    ]


def _in_source(route: Route, source_region: str | None) -> tuple[str, ...]:
    if source_region is None:
        return route.source_regions
    return (source_region,) if source_region in route.source_regions else ()


def runtime_invoke_statements(
    routing: RoutingDecision,
    *,
    accounts: Sequence[str],
    source_region: str | None = None,
    actions: Sequence[str] = RUNTIME_INVOKE_ACTIONS,
    sid_prefix: str = "Invoke",
    partition: str = arns.PARTITION,
) -> list[dict[str, Any]]:
    """Statements allowing ``actions`` on every compliant runtime path, and the accounts' application profiles.

    ``source_region`` limits the result to calls made in that Region (a VPC endpoint serves one Region).
    """
    resources = InvokeResources()
    kinds: set[PathKind] = set()
    regions: set[str] = set()
    for route in routing.compliant_routes(endpoint="runtime"):
        sources = _in_source(route, source_region)
        if sources:
            resources.add_route(route, sources=sources, accounts=accounts, partition=partition)
            kinds.add(route.kind)
            regions.update(sources)
    if regions:
        resources.add_application_profiles(
            {arns.application_inference_profiles(r, a, partition) for r in regions for a in accounts}, route_kinds=kinds
        )
    return resources.statements(actions=actions, sid_prefix=sid_prefix)


def mantle_invoke_statements(
    routing: RoutingDecision,
    *,
    accounts: Sequence[str],
    source_region: str | None = None,
    model_names: Iterable[str] | None = None,
    sid_prefix: str = "Mantle",
    condition: Condition | None = None,
    partition: str = arns.PARTITION,
) -> list[dict[str, Any]]:
    """``bedrock-mantle:CreateInference`` on the accounts' projects, only for models compliant on Mantle there.

    ``model_names`` narrows to some Mantle model names; ``condition`` is ANDed (e.g. aws:SourceVpce).
    """
    wanted = set(model_names) if model_names is not None else None
    by_region: dict[str, set[str]] = {}
    for route in routing.compliant_routes(endpoint="mantle"):
        if wanted is not None and route.invoke_id not in wanted:
            continue
        for region in _in_source(route, source_region):
            by_region.setdefault(region, set()).add(route.invoke_id)  # the Mantle model name
    groups: dict[tuple[str, ...], set[str]] = {}
    for region, models in by_region.items():
        groups.setdefault(tuple(sorted(models)), set()).add(region)
    statements: list[dict[str, Any]] = []
    for i, (model_names, regions) in enumerate(sorted(groups.items())):
        cond: dict[str, dict[str, object]] = {op: dict(kv) for op, kv in (condition or {}).items()}
        cond.setdefault("StringEquals", {})[MANTLE_MODEL_KEY] = list(model_names)
        statements.append(
            statement(
                f"{sid_prefix}InvokeCompliantModels{i if len(groups) > 1 else ''}",
                actions=MANTLE_INVOKE_ACTIONS,
                resources={arns.mantle_projects(r, a, partition) for r in regions for a in accounts},
                condition=cond,
            )
        )
    return statements


def service_tier_statements(allowed_tiers: Iterable[str], *, sid_prefix: str = "Deny") -> list[dict[str, Any]]:
    """Deny inference that requests a service tier outside ``allowed_tiers`` (empty when every tier is allowed).

    AWS's example ("Control access to service tiers", https://docs.aws.amazon.com/bedrock/latest/userguide/
    security_iam_id-based-policy-examples-agent.html) denies bedrock:InvokeModel with ``StringEquals`` on the tiers
    to refuse; here the allowed list is given instead (``StringNotEquals``), so a tier AWS adds later is refused too.
    ``Null: false`` restricts the deny to requests that carry the key: a request that names no tier runs in the
    default (Standard) tier and carries no key (a negated operator would match the absent key and deny it).
    """
    allowed = sorted(set(allowed_tiers))
    if set(SERVICE_TIERS) <= set(allowed):
        return []
    return [
        statement(
            f"{sid_prefix}UnlistedServiceTiers",
            effect="Deny",
            actions=RUNTIME_INVOKE_ACTIONS,
            resources=["*"],
            condition={"Null": {SERVICE_TIER_KEY: "false"}, "StringNotEquals": {SERVICE_TIER_KEY: allowed}},
        ),
        statement(
            f"{sid_prefix}UnlistedMantleServiceTiers",
            effect="Deny",
            actions=MANTLE_INVOKE_ACTIONS,
            resources=["*"],
            condition={
                "Null": {MANTLE_SERVICE_TIER_KEY: "false"},
                "StringNotEquals": {MANTLE_SERVICE_TIER_KEY: allowed},
            },
        ),
    ]
