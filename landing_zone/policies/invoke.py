"""Allow statements for Bedrock inference, derived only from the routing decision.

Shared by the VPC endpoint policies (this issue) and the invoker IAM policies, so the two can never disagree.
No statement has a wildcard resource on an invoke action: every foundation-model ARN is concrete, and profile
ARNs are concrete except application inference profiles, whose IDs are random (scoped to account + Region,
and reachable models are still limited by the foundation-model ARNs below).
"""

from __future__ import annotations

from typing import Sequence

from landing_zone import arns
from landing_zone.policies.common import statement
from landing_zone.routing import PathKind, Route, RoutingDecision

RUNTIME_INVOKE_ACTIONS = ("bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream")
BATCH_ACTIONS = ("bedrock:CreateModelInvocationJob",)
MANTLE_INVOKE_ACTIONS = ("bedrock-mantle:CreateInference",)
PROFILE_ARN_KEY = "bedrock:InferenceProfileArn"
MANTLE_MODEL_KEY = "bedrock-mantle:Model"


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
) -> list[dict]:
    """Statements allowing ``actions`` on exactly the compliant runtime paths.

    ``source_region`` limits the result to calls made in that Region (a VPC endpoint serves one Region).
    """
    direct: set[str] = set()
    profiles: set[str] = set()
    geo_legs: set[str] = set()
    global_profiles: set[str] = set()
    global_legs: set[str] = set()
    global_fms: set[str] = set()
    app_profile_regions: set[str] = set()
    for route in routing.compliant_routes(endpoint="runtime"):
        sources = _in_source(route, source_region)
        if not sources:
            continue
        if route.kind is PathKind.IN_REGION:
            direct.update(arns.foundation_model(r, route.model_id, partition) for r in sources)
            app_profile_regions.update(sources)
        elif route.kind is PathKind.GEOGRAPHIC_PROFILE:
            profile_arns = {arns.inference_profile(r, a, route.profile_id, partition) for r in sources for a in accounts}
            profiles.update(profile_arns)
            geo_legs.update(arns.foundation_model(r, route.model_id, partition) for r in route.destination_regions)
            app_profile_regions.update(sources)
        elif route.kind is PathKind.GLOBAL_PROFILE:
            profile_arns = {arns.inference_profile(r, a, route.profile_id, partition) for r in sources for a in accounts}
            global_profiles.update(profile_arns)
            global_legs.update(arns.foundation_model(r, route.model_id, partition) for r in route.destination_regions)
            global_fms.add(arns.global_foundation_model(route.model_id, partition))
            app_profile_regions.update(sources)
    app_profiles = {arns.application_inference_profiles(r, a, partition) for r in app_profile_regions for a in accounts}
    statements: list[dict] = []
    if direct or profiles or global_profiles or app_profiles:
        statements.append(
            statement(
                f"{sid_prefix}CompliantModelsAndProfiles",
                actions=actions,
                resources=direct | profiles | global_profiles | app_profiles,
            )
        )
    if geo_legs:
        statements.append(
            statement(
                f"{sid_prefix}GeoProfileDestinations",
                actions=actions,
                resources=geo_legs,
                condition={"ArnLike": {PROFILE_ARN_KEY: sorted(profiles | app_profiles)}},
            )
        )
    if global_legs:
        statements.append(
            statement(
                f"{sid_prefix}GlobalProfileDestinations",
                actions=actions,
                resources=global_legs,
                condition={"ArnLike": {PROFILE_ARN_KEY: sorted(global_profiles | app_profiles)}},
            )
        )
        statements.append(
            statement(
                f"{sid_prefix}GlobalProfileUnspecifiedRegion",
                actions=actions,
                resources=global_fms,
                condition={
                    "StringEquals": {"aws:RequestedRegion": "unspecified"},
                    "ArnLike": {PROFILE_ARN_KEY: sorted(global_profiles | app_profiles)},
                },
            )
        )
    return statements


def mantle_invoke_statements(
    routing: RoutingDecision,
    *,
    accounts: Sequence[str],
    source_region: str | None = None,
    sid_prefix: str = "Mantle",
    partition: str = arns.PARTITION,
) -> list[dict]:
    """``bedrock-mantle:CreateInference`` on the accounts' projects, only for models compliant on Mantle there."""
    by_region: dict[str, set[str]] = {}
    for route in routing.compliant_routes(endpoint="mantle"):
        for region in _in_source(route, source_region):
            by_region.setdefault(region, set()).add(route.invoke_id)  # the Mantle model name
    statements = []
    # Group Regions that admit the same model set into one statement.
    groups: dict[tuple[str, ...], set[str]] = {}
    for region, models in by_region.items():
        groups.setdefault(tuple(sorted(models)), set()).add(region)
    for i, (models, regions) in enumerate(sorted(groups.items())):
        statements.append(
            statement(
                f"{sid_prefix}InvokeCompliantModels{i if len(groups) > 1 else ''}",
                actions=MANTLE_INVOKE_ACTIONS,
                resources={arns.mantle_projects(r, a, partition) for r in regions for a in accounts},
                condition={"StringEquals": {MANTLE_MODEL_KEY: list(models)}},
            )
        )
    return statements
