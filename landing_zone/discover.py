"""``python -m landing_zone discover``: read what Bedrock offers per Region and write a catalog overlay.

For each Region given, through :func:`landing_zone.aws.client` (one ``bedrock`` client per Region):

1. ``ListFoundationModels()`` — which allow-listed models are offered there and how:
   ``inferenceTypesSupported`` containing ``ON_DEMAND`` means in-Region invocation; ``INFERENCE_PROFILE`` alone
   means the model is reachable there only through a cross-Region profile;
2. ``ListInferenceProfiles(typeEquals=SYSTEM_DEFINED)`` and, for each profile of an allow-listed model,
   ``GetInferenceProfile(inferenceProfileIdentifier=<id>)`` — its ``models`` ARNs are the destination Regions
   (where data is processed); the Regions where a profile is listed are its source Regions;
3. ``GetFoundationModelAvailability(modelId=<id>)`` for each allow-listed model listed there —
   ``regionAvailability`` must be ``AVAILABLE`` for an in-Region entry; the agreement/authorization states are
   account facts, reported (and kept in the overlay's ``discover`` block) but not catalog facts;
4. CloudWatch ``ListMetrics`` for ``AWS/Bedrock`` and ``AWS/BedrockMantle`` (when the credentials allow): the
   metric names of ``core/catalog/metrics.yaml`` the account does not publish are reported.  A metric appears only
   after the first call that produces it, so "not published" means "not seen yet" until there was traffic; it is
   how the cache-metric names (an explicit assumption of the catalog) get settled for an account;
5. Service Quotas ``ListServiceQuotas(ServiceCode=bedrock)`` (the account's applied values) and
   ``ListAWSDefaultServiceQuotas(ServiceCode=bedrock)`` (AWS defaults, for quotas with no applied value listed),
   paginated, when the credentials allow: each quota whose ``QuotaName`` matches a kind of
   ``core/catalog/quotas.yaml`` for an allow-listed model (``${model}`` = the catalog's model name) goes into the
   overlay's ``quotas:`` block with its value, code and source (``service-quotas ListServiceQuotas <account>
   <date>``; a default-only value is ``verified: false``: the account's applied value may differ).  Quota codes
   (L-...) differ per model and are never assumed.  Quotas not found are reported; the quota headroom alarms then
   warn at synth.

The overlay has the schema of ``landing_zone/core/catalog/models.yaml`` with **whole model entries**
(``verified: true``, ``as_of`` today, ``source: "discover: ListFoundationModels/ListInferenceProfiles in
<regions>"``). Fields the APIs do not show — name, provider, aliases, endpoints, context window, Mantle Regions
and Mantle model name — are kept from the catalog entry (shipped or an existing overlay); Mantle is a different
API, so its Regions stay as catalogued, and the overlay says so in comments and in ``discover.kept_from_catalog``.
In-Region Regions and profile source Regions list only what was seen in the scanned Regions.

Listed in config ``catalog_overlays``, the overlay replaces the shipped entries by ID, and synth, routes and
every policy then follow it.  Exit codes: 0 written, 1 an API could not be asked or a model could not be
described (nothing written for API failures), 2 usage errors.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from landing_zone import aws
from landing_zone.core.catalog import ALL_REGIONS, GEOGRAPHIC_PREFIXES, GLOBAL_PREFIX, Catalog, load_catalog
from landing_zone.core.catalog.metrics import load_metric_catalog
from landing_zone.errors import CatalogError, LandingZoneError

__all__ = ["DiscoveryError", "Discovery", "RegionScan", "discover", "overlay_yaml", "scan_region"]

SOURCE_TEMPLATE = "discover: ListFoundationModels/ListInferenceProfiles in {regions}"
KEPT_FIELDS = ("name", "provider", "aliases", "endpoints", "context_window_tokens", "mantle_regions", "mantle_model_id")
_PROFILE_PREFIXES = (*GEOGRAPHIC_PREFIXES, GLOBAL_PREFIX)


class DiscoveryError(LandingZoneError):
    """An API could not be asked, or the discovered data would not make a valid catalog (exit code 1)."""

    exit_code = 1


@dataclass
class RegionScan:
    region: str
    models: dict[str, dict[str, Any]] = field(default_factory=dict)  # allow-listed model ID -> FoundationModelSummary
    profiles: dict[str, dict[str, Any]] = field(
        default_factory=dict
    )  # system profile ID -> GetInferenceProfile response
    availability: dict[str, dict[str, Any]] = field(default_factory=dict)  # model ID -> GetFoundationModelAvailability
    # namespace -> metric names the account publishes there; None: ListMetrics could not be called
    published_metrics: dict[str, set[str] | None] = field(default_factory=dict)
    # Service Quotas (service code bedrock): applied and AWS default quotas; None: could not be read
    applied_quotas: list[dict[str, Any]] | None = field(default_factory=list)
    default_quotas: list[dict[str, Any]] | None = field(default_factory=list)


@dataclass
class Discovery:
    regions: tuple[str, ...]
    model_ids: tuple[str, ...]
    scans: tuple[RegionScan, ...]
    entries: dict[str, dict[str, Any]]  # model ID -> catalog entry (models.yaml schema)
    kept: dict[str, list[str]]  # model ID -> fields kept from the catalog
    problems: list[str]  # models that could not be described
    as_of: date
    # model ID -> Region -> quota kind -> overlay entry (catalog quotas.yaml `values` schema)
    quotas: dict[str, dict[str, dict[str, dict[str, Any]]]] = field(default_factory=dict)

    def in_region(self, model_id: str) -> list[str]:
        return list(self.entries.get(model_id, {}).get("in_region_regions", []))

    def as_dict(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of.isoformat(),
            "regions": list(self.regions),
            "models": {
                model_id: {
                    "entry": self.entries.get(model_id),
                    "kept_from_catalog": self.kept.get(model_id, []),
                    "per_region": {scan.region: _region_facts(scan, model_id) for scan in self.scans},
                }
                for model_id in self.model_ids
            },
            "problems": self.problems,
            "metrics": metric_findings(self),
            "quotas": self.quotas,
            "quotas_not_found": quota_findings(self),
            "lifecycle": lifecycle_findings(self),
        }


def _region_facts(scan: RegionScan, model_id: str) -> dict[str, Any]:
    summary = scan.models.get(model_id)
    availability = scan.availability.get(model_id) or {}
    return {
        "listed": summary is not None,
        "inference_types": list((summary or {}).get("inferenceTypesSupported") or []),
        "lifecycle": ((summary or {}).get("modelLifecycle") or {}).get("status"),
        "region_availability": availability.get("regionAvailability"),
        "agreement": (availability.get("agreementAvailability") or {}).get("status"),
        "authorization": availability.get("authorizationStatus"),
        "entitlement": availability.get("entitlementAvailability"),
        "profiles": sorted(pid for pid in scan.profiles if _profile_model(pid) == model_id),
    }


# --------------------------------------------------------------------------------------------------
# Reading the APIs
# --------------------------------------------------------------------------------------------------


def lifecycle_findings(discovery: Discovery) -> list[dict[str, Any]]:
    """Each configured model's lifecycle status per Region where it is listed (ListFoundationModels
    ``modelLifecycle.status``: ACTIVE or LEGACY; Bedrock user guide, "Model lifecycle"), and whether it needs a move:
    a LEGACY model reaches its end of life (Kimi K3's card promises at least 45 days' notice); ``detection``'s
    ``LegacyModelInvocations`` alarm fires while it is still being called."""
    rows = []
    for model_id in discovery.model_ids:
        statuses = {
            scan.region: status
            for scan in discovery.scans
            if (status := _region_facts(scan, model_id)["lifecycle"]) is not None
        }
        legacy = sorted(r for r, s in statuses.items() if s != "ACTIVE")
        rows.append({"model": model_id, "status_by_region": statuses, "not_active_in": legacy})
    return rows


def _profile_model(profile_id: str) -> str | None:
    prefix, _, rest = profile_id.partition(".")
    return rest if prefix in _PROFILE_PREFIXES and rest else None


# aws.failure() descriptions that mean there are no credentials to ask with: a usage error (exit 2), as in verify.
_NO_CREDENTIALS = ("no usable credentials", "credentials expired or not loadable")


def _ask(region: str, operation: str, call: Callable[[], Any], *, profile: str | None = None) -> Any:
    try:
        return call()
    except Exception as exc:
        description = aws.failure(exc)
        if description is not None and description.startswith(_NO_CREDENTIALS):
            using = f"profile {profile!r}" if profile else "the SDK's default credential chain"
            raise LandingZoneError(
                f"discover needs AWS credentials: {description} ({using}); set AWS_PROFILE or pass --profile (after "
                "`aws sso login --profile NAME` for SSO); nothing was written"
            ) from None
        if description is None:
            code = aws.error_code(exc)
            if code is None:
                raise
            description = f"{code}: {(getattr(exc, 'response', {}).get('Error') or {}).get('Message', '')}"
        raise DiscoveryError(f"{region}: bedrock:{operation}: {description}") from exc


def scan_region(region: str, model_ids: Iterable[str], *, profile: str | None = None) -> RegionScan:
    """The allow-listed models and their system profiles as Bedrock in ``region`` reports them."""
    wanted = set(model_ids)
    bedrock = aws.client("bedrock", region=region, profile=profile)
    scan = RegionScan(region)
    summaries = _ask(region, "ListFoundationModels", lambda: bedrock.list_foundation_models(), profile=profile)[
        "modelSummaries"
    ]
    scan.models = {m["modelId"]: m for m in summaries if m.get("modelId") in wanted}

    def list_profiles() -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        for page in bedrock.get_paginator("list_inference_profiles").paginate(typeEquals="SYSTEM_DEFINED"):
            items.extend(page.get("inferenceProfileSummaries") or [])
        return items

    profiles = _ask(region, "ListInferenceProfiles", list_profiles, profile=profile)
    for summary in sorted(profiles, key=lambda p: p["inferenceProfileId"]):
        profile_id = summary["inferenceProfileId"]
        if _profile_model(profile_id) not in wanted:
            continue
        scan.profiles[profile_id] = _ask(
            region,
            "GetInferenceProfile",
            partial(bedrock.get_inference_profile, inferenceProfileIdentifier=profile_id),
            profile=profile,
        )
    for model_id in sorted(scan.models):
        scan.availability[model_id] = _ask(
            region,
            "GetFoundationModelAvailability",
            partial(bedrock.get_foundation_model_availability, modelId=model_id),
            profile=profile,
        )
    return scan


def scan_metrics(region: str, namespaces: Iterable[str], *, profile: str | None = None) -> dict[str, set[str] | None]:
    """Metric names published per namespace in ``region`` (None where ListMetrics is denied or fails)."""
    out: dict[str, set[str] | None] = {}
    try:
        cloudwatch = aws.client("cloudwatch", region=region, profile=profile)
    except Exception:  # noqa: BLE001 - no client (no credentials): reported as "could not be read"
        return dict.fromkeys(namespaces)
    for namespace in namespaces:
        names: set[str] = set()
        try:
            for page in cloudwatch.get_paginator("list_metrics").paginate(Namespace=namespace):
                names.update(m["MetricName"] for m in page.get("Metrics") or [])
        except Exception as exc:  # optional: reported, never fatal (re-raised when not an AWS error)
            if aws.error_code(exc) is None and aws.failure(exc) is None:
                raise
            out[namespace] = None
            continue
        out[namespace] = names
    return out


def scan_quotas(
    region: str, service_code: str, *, profile: str | None = None
) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]] | None]:
    """(applied, AWS default) quotas of ``service_code`` in ``region``; None where the API is denied or fails."""
    try:
        quotas = aws.client("service-quotas", region=region, profile=profile)
    except Exception:  # noqa: BLE001 - no client (no credentials): reported as "could not be read"
        return None, None
    out: list[list[dict[str, Any]] | None] = []
    for operation in ("list_service_quotas", "list_aws_default_service_quotas"):
        items: list[dict[str, Any]] = []
        try:
            for page in quotas.get_paginator(operation).paginate(ServiceCode=service_code):
                items.extend(page.get("Quotas") or [])
        except Exception as exc:  # optional: reported, never fatal (re-raised when not an AWS error)
            if aws.error_code(exc) is None and aws.failure(exc) is None:
                raise
            out.append(None)
            continue
        out.append(items)
    return out[0], out[1]


def _quota_account(arn: str) -> str:
    parts = arn.split(":")
    return parts[4] if len(parts) > 4 and parts[4] else "account not in the ARN"


def build_quota_entries(
    scans: Sequence[RegionScan], model_ids: Sequence[str], catalog: Catalog, *, as_of: date
) -> dict[str, dict[str, dict[str, dict[str, Any]]]]:
    """Model ID -> Region -> quota kind -> {value, source, as_of, verified, quota_code, quota_name, adjustable}:
    the applied value where ListServiceQuotas lists one, else the AWS default (verified: false)."""
    matcher = catalog.quota_name_matcher(model_ids)
    if matcher is None:
        return {}
    out: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    for scan in scans:
        listed = [("ListAWSDefaultServiceQuotas", q) for q in scan.default_quotas or []]
        listed += [("ListServiceQuotas", q) for q in scan.applied_quotas or []]  # applied last: it wins
        for api, quota in listed:
            for kind, matched in matcher.match(quota.get("QuotaName") or ""):
                if quota.get("Value") is None:
                    continue
                applied = api == "ListServiceQuotas"
                source = (
                    f"service-quotas ListServiceQuotas {_quota_account(quota.get('QuotaArn') or '')} {as_of.isoformat()}"
                    if applied
                    else f"service-quotas ListAWSDefaultServiceQuotas (AWS default; no applied value listed) "
                    f"{as_of.isoformat()}"
                )
                out.setdefault(matched, {}).setdefault(scan.region, {})[kind] = {
                    "value": float(quota["Value"]),
                    "source": source,
                    "as_of": as_of.isoformat(),
                    "verified": applied,
                    "quota_code": quota.get("QuotaCode"),
                    "quota_name": quota.get("QuotaName"),
                    "adjustable": quota.get("Adjustable"),
                }
    return out


def _applicable_kinds(entry: dict[str, Any], region: str) -> list[str]:
    """The quota kinds a model entry (overlay schema) is subject to in ``region``: the paths it is offered on there."""
    in_region = region in entry.get("in_region_regions", [])
    cross = any(region in p.get("source_regions", []) for p in entry.get("inference_profiles", []))
    kinds = ["on_demand_tokens_per_minute"] if in_region else []
    kinds += ["cross_region_tokens_per_minute"] if cross else []
    kinds += ["tokens_per_day"] if in_region or cross else []
    if region in entry.get("mantle_regions", []):
        kinds += ["mantle_input_tokens_per_minute", "mantle_output_tokens_per_minute"]
    return kinds


def quota_findings(discovery: Discovery) -> list[dict[str, Any]]:
    """Per Region: whether the quotas could be read, and the (model, kind) quotas not found."""
    rows = []
    for scan in discovery.scans:
        found = {(m, k) for m, regions in discovery.quotas.items() for k in regions.get(scan.region, {})}
        read = scan.applied_quotas is not None or scan.default_quotas is not None
        rows.append(
            {
                "region": scan.region,
                "read": read,
                "not_found": [
                    f"{m} {k}"
                    for m, entry in discovery.entries.items()
                    for k in _applicable_kinds(entry, scan.region)
                    if (m, k) not in found
                ]
                if read
                else [],
                "usage_metrics": sorted(
                    {
                        f"{q.get('QuotaName')}: {(q.get('UsageMetric') or {}).get('MetricNamespace')} "
                        f"{(q.get('UsageMetric') or {}).get('MetricName')}"
                        for q in scan.applied_quotas or []
                        if (q.get("UsageMetric") or {}).get("MetricName")
                    }
                ),
            }
        )
    return rows


def metric_findings(discovery: Discovery) -> list[dict[str, Any]]:
    """Per Region and namespace: the catalog's metric names the account does not publish (yet)."""
    catalog = load_metric_catalog()
    rows = []
    for scan in discovery.scans:
        for endpoint in catalog.endpoints.values():
            published = scan.published_metrics.get(endpoint.namespace, "not asked")
            if published == "not asked":
                continue
            wanted = sorted({*endpoint.token_metrics.values(), *endpoint.other_metrics.values()})
            rows.append(
                {
                    "region": scan.region,
                    "namespace": endpoint.namespace,
                    "read": published is not None,
                    "catalog_metrics_not_published": []
                    if published is None
                    else [m for m in wanted if m not in published],
                    "published_not_in_catalog": [] if published is None else sorted(set(published) - set(wanted)),
                }
            )
    return rows


# --------------------------------------------------------------------------------------------------
# Building the overlay
# --------------------------------------------------------------------------------------------------


def _arn_region(arn: str) -> str:
    parts = arn.split(":")
    return parts[3] if len(parts) > 3 else ""


def build_entries(
    scans: Sequence[RegionScan], model_ids: Sequence[str], catalog: Catalog, *, as_of: date
) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]], list[str]]:
    regions = [s.region for s in scans]
    source = SOURCE_TEMPLATE.format(regions=", ".join(regions))
    entries: dict[str, dict[str, Any]] = {}
    kept: dict[str, list[str]] = {}
    problems: list[str] = []
    for model_id in model_ids:
        base = catalog.models.get(model_id)
        seen = next((s.models[model_id] for s in scans if model_id in s.models), None)
        if base is None and seen is None:
            problems.append(
                f"{model_id}: not in the catalog and not offered in {', '.join(regions)}: no name/provider to write"
            )
            continue
        in_region = [scan.region for scan in scans if _on_demand_in(scan, model_id)]
        profile_entries = _profile_entries(scans, model_id)
        entry = _catalog_fields(base) if base is not None else _scanned_fields(model_id, seen)
        if base is not None:
            kept[model_id] = [
                f
                for f in KEPT_FIELDS
                if f not in ("context_window_tokens", "mantle_model_id") or getattr(base, f) is not None
            ]
        entry["in_region_regions"] = in_region
        entry["mantle_regions"] = list(base.mantle_regions) if base is not None else []
        if base is not None and base.mantle_model_id:
            entry["mantle_model_id"] = base.mantle_model_id
        entry["inference_profiles"] = profile_entries
        entry["source"] = source
        entry["as_of"] = as_of.isoformat()
        entry["verified"] = True
        entries[model_id] = entry
    return entries, kept, problems


def _on_demand_in(scan: RegionScan, model_id: str) -> bool:
    """Whether the Region offers the model on demand (and does not say it is unavailable there)."""
    summary = scan.models.get(model_id)
    availability = (scan.availability.get(model_id) or {}).get("regionAvailability")
    return bool(
        summary
        and "ON_DEMAND" in (summary.get("inferenceTypesSupported") or [])
        and availability in (None, "AVAILABLE")
    )


def _profile_entries(scans: Sequence[RegionScan], model_id: str) -> list[dict[str, Any]]:
    """The model's system inference profiles seen in the scans: their source and destination Regions."""
    profiles: dict[str, dict[str, Any]] = {}
    for scan in scans:
        for profile_id, detail in scan.profiles.items():
            if _profile_model(profile_id) != model_id:
                continue
            found = profiles.setdefault(profile_id, {"sources": set(), "destinations": set()})
            found["sources"].add(scan.region)
            found["destinations"].update(
                r for r in (_arn_region(m.get("modelArn", "")) for m in detail.get("models") or []) if r
            )
    profile_entries = []
    for profile_id in sorted(profiles):
        is_global = profile_id.split(".", 1)[0] == GLOBAL_PREFIX
        profile_entries.append(
            {
                "id": profile_id,
                "scope": "global" if is_global else "geographic",
                "source_regions": sorted(profiles[profile_id]["sources"]),
                "destination_regions": [ALL_REGIONS] if is_global else sorted(profiles[profile_id]["destinations"]),
            }
        )
    return profile_entries


def _catalog_fields(base: Any) -> dict[str, Any]:
    """The fields a catalog model keeps (name, provider, aliases, endpoints, context window)."""
    entry: dict[str, Any] = {
        "name": base.name,
        "provider": base.provider,
        "aliases": list(base.aliases),
        "endpoints": list(base.endpoints),
    }
    if base.context_window_tokens is not None:
        entry["context_window_tokens"] = base.context_window_tokens
    return entry


def _scanned_fields(model_id: str, seen: dict[str, Any] | None) -> dict[str, Any]:
    """The fields of a model the catalog does not hold, from Bedrock's summary of it."""
    return {
        "name": seen["modelName"] if seen and seen.get("modelName") else model_id,
        "provider": seen.get("providerName") if seen and seen.get("providerName") else "unknown",
        "aliases": [],
        "endpoints": ["runtime"],
    }


def overlay_yaml(discovery: Discovery) -> str:
    """The overlay file: the ``models`` block (catalog schema) with comments, plus a ``discover`` block that
    ``load_catalog`` ignores (account facts and what was kept from the catalog)."""
    regions = ", ".join(discovery.regions)
    lines = [
        f"# Catalog overlay written by `python -m landing_zone discover` on {discovery.as_of.isoformat()}.",
        f"# Regions scanned: {regions}.",
        "# List this file in config `catalog_overlays`: each entry below replaces the catalog entry with the same ID.",
        "# in_region_regions: scanned Regions whose ListFoundationModels lists the model with ON_DEMAND (and",
        "#   GetFoundationModelAvailability regionAvailability AVAILABLE); Regions not scanned are not listed.",
        "# inference_profiles: system-defined profiles (ListInferenceProfiles typeEquals=SYSTEM_DEFINED); source_regions",
        "#   are the scanned Regions that list the profile, destination_regions come from GetInferenceProfile().models.",
        "schema_version: 1",
    ]
    meta = {
        "discover": {
            "as_of": discovery.as_of.isoformat(),
            "regions": list(discovery.regions),
            "apis": [
                "bedrock:ListFoundationModels",
                "bedrock:ListInferenceProfiles(typeEquals=SYSTEM_DEFINED)",
                "bedrock:GetInferenceProfile",
                "bedrock:GetFoundationModelAvailability",
                "servicequotas:ListServiceQuotas(ServiceCode=bedrock)",
                "servicequotas:ListAWSDefaultServiceQuotas(ServiceCode=bedrock)",
            ],
            "kept_from_catalog": {
                model_id: {
                    "fields": fields,
                    "why": "not visible to these APIs; Mantle (bedrock-mantle) is a different API, so mantle_regions "
                    "keeps the catalogued value",
                }
                for model_id, fields in discovery.kept.items()
            },
            "account_availability": {
                model_id: {
                    scan.region: {
                        k: v
                        for k, v in _region_facts(scan, model_id).items()
                        if k in ("region_availability", "agreement", "authorization", "entitlement") and v is not None
                    }
                    for scan in discovery.scans
                    if model_id in scan.availability
                }
                for model_id in discovery.model_ids
                if model_id in discovery.entries
            },
        }
    }
    lines += yaml.safe_dump(meta, sort_keys=False, default_flow_style=False, width=120).splitlines()
    lines.append("models:")
    for model_id, entry in discovery.entries.items():
        kept = discovery.kept.get(model_id)
        if kept:
            lines.append(f"  # Kept from the catalog (not visible to discover): {', '.join(kept)}.")
            lines.append(
                "  # Mantle (bedrock-mantle) is a different API: mantle_regions is the catalogued value, not a discovered one."
            )
        else:
            lines.append(
                f"  # {model_id}: new to the catalog; name and provider from ListFoundationModels, no aliases, no Mantle."
            )
        if not entry["in_region_regions"] and not entry["inference_profiles"]:
            lines.append(f"  # {model_id} is not offered on bedrock-runtime in {regions}.")
        body = yaml.safe_dump({model_id: entry}, sort_keys=False, default_flow_style=None, width=120)
        lines += ["  " + line for line in body.splitlines()]
    if discovery.quotas:
        lines += [
            "# Service Quotas (service code bedrock) matched by QuotaName to the models above, per Region: the account's",
            "#   applied value (ListServiceQuotas, verified: true) or the AWS default (ListAWSDefaultServiceQuotas,",
            "#   verified: false). The quota headroom alarms (cost.quota_alarms) read the home Region's values.",
        ]
        body = yaml.safe_dump({"quotas": discovery.quotas}, sort_keys=False, default_flow_style=False, width=120)
        lines += body.splitlines()
    return "\n".join(lines) + "\n"


def validate_overlay(text: str, catalog_dir: Path | None = None) -> None:
    """Load the overlay over the shipped catalog (as synth would); raise :class:`DiscoveryError` if it fails."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "overlay.yaml"
        path.write_text(text)
        try:
            load_catalog((path,)) if catalog_dir is None else load_catalog((path,), catalog_dir=catalog_dir)
        except CatalogError as exc:
            raise DiscoveryError(
                f"the discovered data does not make a valid catalog overlay (nothing written):\n{exc}"
            ) from None


def discover(
    regions: Sequence[str],
    model_ids: Sequence[str],
    catalog: Catalog,
    *,
    profile: str | None = None,
    today: date | None = None,
) -> Discovery:
    """Scan ``regions`` for ``model_ids`` (Bedrock IDs) and build the overlay entries (nothing written)."""

    namespaces = sorted({e.namespace for e in load_metric_catalog().endpoints.values()})
    scans, failures = [], []
    for region in regions:
        try:
            scan = scan_region(region, model_ids, profile=profile)
        except DiscoveryError as exc:
            failures.append(str(exc))
            continue
        scan.published_metrics = scan_metrics(region, namespaces, profile=profile)
        if catalog.quotas is not None:
            scan.applied_quotas, scan.default_quotas = scan_quotas(region, catalog.quotas.service_code, profile=profile)
        scans.append(scan)
    if failures:
        raise DiscoveryError("could not read Bedrock (nothing written):\n" + "\n".join(f"  - {f}" for f in failures))
    as_of = today or date.today()
    entries, kept, problems = build_entries(scans, model_ids, catalog, as_of=as_of)
    quotas = build_quota_entries(scans, model_ids, catalog, as_of=as_of)
    return Discovery(tuple(regions), tuple(model_ids), tuple(scans), entries, kept, problems, as_of, quotas)


def format_summary(discovery: Discovery) -> str:
    rows = [("MODEL", "REGION", "LISTED", "INFERENCE TYPES", "AVAILABILITY", "AGREEMENT", "SYSTEM PROFILES")]
    for model_id in discovery.model_ids:
        for scan in discovery.scans:
            facts = _region_facts(scan, model_id)
            rows.append(
                (
                    model_id,
                    scan.region,
                    "yes" if facts["listed"] else "no",
                    ", ".join(facts["inference_types"]) or "-",
                    facts["region_availability"] or "-",
                    facts["agreement"] or "-",
                    ", ".join(facts["profiles"]) or "-",
                )
            )
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    for model_id, entry in discovery.entries.items():
        profiles = (
            "; ".join(f"{p['id']} -> {', '.join(p['destination_regions'])}" for p in entry["inference_profiles"])
            or "none"
        )
        lines.append(
            f"{model_id}: in-Region {', '.join(entry['in_region_regions']) or 'nowhere scanned'}; profiles: {profiles}"
        )
    lines += [f"problem: {p}" for p in discovery.problems]
    lines += _lifecycle_lines(discovery) + _metric_lines(discovery) + _quota_lines(discovery)
    return "\n".join(lines)


def _lifecycle_lines(discovery: Discovery) -> list[str]:
    """The lifecycle of each model: not ACTIVE where listed, or ACTIVE everywhere."""
    lines: list[str] = []
    for row in lifecycle_findings(discovery):
        if row["not_active_in"]:
            states = ", ".join(f"{r} {row['status_by_region'][r]}" for r in row["not_active_in"])
            lines.append(
                f"lifecycle: {row['model']} is not ACTIVE ({states}): plan the move before its end of life "
                "(the detection stack's LegacyModelInvocations alarm fires while it is called)"
            )
        elif row["status_by_region"]:
            lines.append(f"lifecycle: {row['model']} is ACTIVE in every Region scanned where it is listed")
    return lines


def _metric_lines(discovery: Discovery) -> list[str]:
    """The catalogued metrics each Region publishes, or could not be read."""
    lines: list[str] = []
    for row in metric_findings(discovery):
        where = f"{row['region']} {row['namespace']}"
        if not row["read"]:
            lines.append(f"metrics: {where}: ListMetrics could not be read (cloudwatch:ListMetrics not allowed?)")
        elif row["catalog_metrics_not_published"]:
            lines.append(
                f"metrics: {where}: not published (yet: metrics appear after the first call): "
                f"{', '.join(row['catalog_metrics_not_published'])}"
                + (
                    f"; published but not catalogued: {', '.join(row['published_not_in_catalog'][:8])}"
                    if row["published_not_in_catalog"]
                    else ""
                )
            )
        else:
            lines.append(f"metrics: {where}: every catalogued metric is published")
    return lines


def _quota_lines(discovery: Discovery) -> list[str]:
    """The quotas matched in each Region, or could not be read."""
    lines: list[str] = []
    for row in quota_findings(discovery):
        if not row["read"]:
            lines.append(
                f"quotas: {row['region']}: ListServiceQuotas could not be read (servicequotas:ListServiceQuotas "
                "not allowed?): no quota values, so no quota headroom alarms from this overlay"
            )
            continue
        found = sum(len(r.get(row["region"], {})) for r in discovery.quotas.values())
        lines.append(
            f"quotas: {row['region']}: {found} matched"
            + (f"; not found (no alarm for them): {', '.join(row['not_found'])}" if row["not_found"] else "")
        )
        lines += [f"quotas: {row['region']}: usage metric published for {u}" for u in row["usage_metrics"]]
    return lines
