"""The routing resolver: which invocation paths of each allowed model are compliant.

One decision feeds every layer (IAM, SCPs, endpoint policies, the review report, ``verify``); nothing
re-derives it.  Rules:

* **in-Region**: the foundation model invoked directly in Region R is compliant iff R is compliant.
* **geographic profile**: compliant only when *every* destination Region is compliant and at least one
  source Region is (a profile may route to any of its destinations; the prefix is not a boundary).
* **global profile**: compliant only with ``allow_global_inference`` (it may process data in any commercial
  Region) and a compliant source Region.
* **Mantle** (OpenAI-compatible ``bedrock-mantle``): compliant iff the Mantle Region is compliant.  Mantle is
  treated as processing in its own Region; this is an assumption recorded in the catalog provenance.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from landing_zone.core.catalog import Catalog, Model


class PathKind(StrEnum):
    IN_REGION = "in-region"
    GEOGRAPHIC_PROFILE = "geographic-profile"
    GLOBAL_PROFILE = "global-profile"
    MANTLE = "mantle"

    def __str__(self) -> str:  # used in tables
        return self.value


@dataclass(frozen=True)
class Route:
    """One way to invoke a model, and whether it is compliant."""

    model_id: str
    kind: PathKind
    invoke_id: str  # what the caller passes as modelId: the FM ID or the profile ID
    source_regions: tuple[str, ...]  # Regions the call may be made from (compliant ones only, if compliant)
    destination_regions: tuple[str, ...]  # Regions where the request may be processed
    compliant: bool
    reason: str
    profile_id: str | None = None

    @property
    def endpoint(self) -> str:
        return "mantle" if self.kind is PathKind.MANTLE else "runtime"

    def require_profile_id(self) -> str:
        """The inference-profile ID of a profile route (a programming error to ask an in-Region or Mantle one)."""
        if self.profile_id is None:
            raise ValueError(f"route {self.invoke_id!r} ({self.kind.value}) has no inference profile")
        return self.profile_id


@dataclass(frozen=True)
class ModelRouting:
    model: Model
    routes: tuple[Route, ...]

    @property
    def compliant_routes(self) -> tuple[Route, ...]:
        return tuple(r for r in self.routes if r.compliant)

    @property
    def rejected_routes(self) -> tuple[Route, ...]:
        return tuple(r for r in self.routes if not r.compliant)

    def offered_summary(self) -> str:
        parts = []
        m = self.model
        parts.append(f"in-Region: {', '.join(sorted(m.in_region_regions)) or 'none'}")
        profiles = [
            f"{p.id} (destinations: {'all commercial Regions' if p.scope == 'global' else ', '.join(p.destination_regions)})"
            for p in m.inference_profiles
        ]
        parts.append(f"profiles: {'; '.join(profiles) or 'none'}")
        parts.append(f"Mantle: {', '.join(sorted(m.mantle_regions)) or 'none'}")
        return "; ".join(parts)


@dataclass(frozen=True)
class RoutingDecision:
    home_region: str
    compliant_regions: tuple[str, ...]
    allow_global_inference: bool
    models: tuple[ModelRouting, ...]

    def compliant_routes(self, *, endpoint: str | None = None, source_region: str | None = None) -> tuple[Route, ...]:
        out = []
        for mr in self.models:
            for r in mr.compliant_routes:
                if endpoint and r.endpoint != endpoint:
                    continue
                if source_region and source_region not in r.source_regions:
                    continue
                out.append(r)
        return tuple(out)

    @property
    def model_ids(self) -> tuple[str, ...]:
        return tuple(mr.model.id for mr in self.models)

    def unroutable_models(self) -> tuple[ModelRouting, ...]:
        return tuple(mr for mr in self.models if not mr.compliant_routes)

    def unreachable_from_home(self) -> tuple[ModelRouting, ...]:
        return tuple(
            mr
            for mr in self.models
            if mr.compliant_routes and not any(self.home_region in r.source_regions for r in mr.compliant_routes)
        )

    def as_rows(self) -> list[dict[str, Any]]:
        rows = []
        for mr in self.models:
            for r in mr.routes:
                rows.append(
                    {
                        "model_id": r.model_id,
                        "path": r.kind.value,
                        "endpoint": r.endpoint,
                        "invoke_id": r.invoke_id,
                        "source_regions": list(r.source_regions),
                        "destination_regions": list(r.destination_regions),
                        "decision": "allowed" if r.compliant else "rejected",
                        "reason": r.reason,
                    }
                )
        return rows


def _fmt(regions: Iterable[str]) -> str:
    return ", ".join(sorted(regions))


def _single_region_route(
    model_id: str, kind: PathKind, invoke_id: str, region: str, compliant: frozenset[str], what: str
) -> Route:
    """In-Region and Mantle paths: called and processed in one Region, compliant iff that Region is."""
    ok = region in compliant
    return Route(
        model_id=model_id,
        kind=kind,
        invoke_id=invoke_id,
        source_regions=(region,),
        destination_regions=(region,),
        compliant=ok,
        reason=f"{what} {region}, which is compliant" if ok else f"{region} is not in compliant_regions",
    )


def _routes_for(model: Model, compliant: frozenset[str], allow_global: bool, catalog: Catalog) -> list[Route]:
    routes = [
        _single_region_route(model.id, PathKind.IN_REGION, model.id, region, compliant, "processed in")
        for region in sorted(model.in_region_regions)
    ]
    for profile in sorted(model.inference_profiles, key=lambda p: p.id):
        destinations = catalog.destinations(profile)
        good_sources = tuple(sorted(set(profile.source_regions) & compliant))
        bad_destinations = sorted(set(destinations) - compliant)
        if profile.scope == "global":
            kind = PathKind.GLOBAL_PROFILE
            if not allow_global:
                ok, reason = (
                    False,
                    "allow_global_inference is false: a global profile may process data in any commercial Region",
                )
            elif not good_sources:
                ok, reason = False, f"no source Region is compliant (sources: {_fmt(profile.source_regions)})"
            else:
                ok, reason = True, "allow_global_inference is true: data may be processed in any commercial Region"
        else:
            kind = PathKind.GEOGRAPHIC_PROFILE
            if bad_destinations:
                ok, reason = False, f"destination Region(s) {_fmt(bad_destinations)} not in compliant_regions"
            elif not good_sources:
                ok, reason = False, f"no source Region is compliant (sources: {_fmt(profile.source_regions)})"
            else:
                ok, reason = True, f"every destination ({_fmt(destinations)}) is compliant"
        routes.append(
            Route(
                model_id=model.id,
                kind=kind,
                invoke_id=profile.id,
                profile_id=profile.id,
                source_regions=good_sources if ok else tuple(sorted(profile.source_regions)),
                destination_regions=tuple(destinations),
                compliant=ok,
                reason=reason,
            )
        )
    routes += [
        _single_region_route(model.id, PathKind.MANTLE, model.mantle_name, region, compliant, "Mantle in")
        for region in sorted(model.mantle_regions)
    ]
    return routes


def resolve_routes(
    *,
    models: Sequence[Model],
    home_region: str,
    compliant_regions: Sequence[str],
    allow_global_inference: bool,
    catalog: Catalog,
) -> RoutingDecision:
    compliant = frozenset(compliant_regions)
    routings = tuple(
        ModelRouting(model=m, routes=tuple(_routes_for(m, compliant, allow_global_inference, catalog))) for m in models
    )
    return RoutingDecision(
        home_region=home_region,
        compliant_regions=tuple(sorted(compliant)),
        allow_global_inference=allow_global_inference,
        models=routings,
    )


def _short(regions: Sequence[str], limit: int = 4) -> str:
    return ", ".join(regions) if len(regions) <= limit else f"{len(regions)} Regions ({', '.join(regions[:2])}, ...)"


def format_table(decision: RoutingDecision) -> str:
    headers = ["MODEL", "PATH", "INVOKE ID", "FROM", "PROCESSED IN", "DECISION", "REASON"]
    rows = []
    for row in decision.as_rows():
        dest = row["destination_regions"]
        rows.append(
            [
                row["model_id"],
                row["path"],
                row["invoke_id"],
                _short(row["source_regions"]),
                _short(dest),
                row["decision"].upper(),
                row["reason"],
            ]
        )
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    widths[-1] = len(headers[-1])  # the reason column is last and unpadded

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    out = [
        f"compliant_regions: {', '.join(decision.compliant_regions)}   home_region: {decision.home_region}   "
        f"allow_global_inference: {str(decision.allow_global_inference).lower()}",
        "",
        line(headers),
        line(["-" * w for w in widths]),
    ]
    out += [line(r) for r in rows]
    return "\n".join(out)
