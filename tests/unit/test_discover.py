"""discover: Bedrock's model/profile APIs (not in moto) answered by botocore Stubbers with pinned requests; the
overlay it writes loads with load_catalog and changes the routing decision."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import boto3
import pytest
import yaml
from botocore.stub import Stubber

from landing_zone import discover as discover_mod
from landing_zone.aws import use_client_factory
from landing_zone.core.catalog import load_catalog
from landing_zone.core.routing import PathKind, resolve_routes

ROOT = Path(__file__).resolve().parents[2]
EU_CONFIG = ROOT / "examples" / "eu-sovereign.yaml"
KIMI = "moonshotai.kimi-k3.1-pro"
EU_PROFILE = f"eu.{KIMI}"
GLOBAL_PROFILE = f"global.{KIMI}"
EU_DESTINATIONS = ["eu-central-1", "eu-north-1", "eu-west-1", "eu-west-3"]


# --------------------------------------------------------------------------------------------------
# Bedrock as it answers in a Region (responses validated against the service model by Stubber)
# --------------------------------------------------------------------------------------------------


def fm(model_id: str, region: str, *types: str, name: str = "Kimi K3.1 Pro", provider: str = "Moonshot AI") -> dict:
    return {
        "modelArn": f"arn:aws:bedrock:{region}::foundation-model/{model_id}",
        "modelId": model_id,
        "modelName": name,
        "providerName": provider,
        "inferenceTypesSupported": list(types),
        "modelLifecycle": {"status": "ACTIVE"},
    }


def system_profile(profile_id: str, region: str, destinations: list[str]) -> dict:
    model_id = profile_id.split(".", 1)[1]
    return {
        "inferenceProfileName": profile_id,
        "inferenceProfileArn": f"arn:aws:bedrock:{region}:222222222222:inference-profile/{profile_id}",
        "inferenceProfileId": profile_id,
        "models": [{"modelArn": f"arn:aws:bedrock:{r}::foundation-model/{model_id}"} for r in destinations],
        "status": "ACTIVE",
        "type": "SYSTEM_DEFINED",
    }


def availability(model_id: str, region_availability: str = "AVAILABLE", agreement: str = "AVAILABLE") -> dict:
    return {
        "modelId": model_id,
        "agreementAvailability": {"status": agreement},
        "authorizationStatus": "AUTHORIZED",
        "entitlementAvailability": "AVAILABLE",
        "regionAvailability": region_availability,
    }


class BedrockRegion:
    """The exact request sequence discover must send in one Region, and the answers."""

    def __init__(self, region: str, models: list[dict], profiles: list[dict], availabilities: dict[str, dict]) -> None:
        self.region, self.models, self.profiles, self.availabilities = region, models, profiles, availabilities

    def stub(self, client: Any, wanted: set[str]) -> Stubber:
        stubber = Stubber(client)
        stubber.add_response("list_foundation_models", {"modelSummaries": self.models}, {})
        stubber.add_response(
            "list_inference_profiles", {"inferenceProfileSummaries": self.profiles}, {"typeEquals": "SYSTEM_DEFINED"}
        )
        for p in sorted(self.profiles, key=lambda p: p["inferenceProfileId"]):
            if p["inferenceProfileId"].split(".", 1)[1] in wanted:
                stubber.add_response(
                    "get_inference_profile", p, {"inferenceProfileIdentifier": p["inferenceProfileId"]}
                )
        for model_id in sorted(m["modelId"] for m in self.models if m["modelId"] in wanted):
            stubber.add_response(
                "get_foundation_model_availability", self.availabilities[model_id], {"modelId": model_id}
            )
        stubber.activate()
        return stubber


NAMESPACES = ("AWS/Bedrock", "AWS/BedrockMantle")


def cloudwatch_stub(client: Any, published: dict[str, list[str]] | None) -> Stubber:
    """ListMetrics for both namespaces, in order; ``published`` None: the credentials may not call it."""
    stubber = Stubber(client)
    for namespace in NAMESPACES:
        if published is None:
            stubber.add_client_error("list_metrics", "AccessDenied", "not authorized", 403, {"Namespace": namespace})
        else:
            metrics = [
                {"Namespace": namespace, "MetricName": m, "Dimensions": []} for m in published.get(namespace, [])
            ]
            stubber.add_response("list_metrics", {"Metrics": metrics}, {"Namespace": namespace})
    stubber.activate()
    return stubber


def quota(name: str, value: float, code: str, region: str, *, account: str = "222222222222") -> dict:
    """A ServiceQuota as Service Quotas returns it (the ARN carries the account for applied values)."""
    return {
        "ServiceCode": "bedrock",
        "ServiceName": "Amazon Bedrock",
        "QuotaArn": f"arn:aws:servicequotas:{region}:{account}:bedrock/{code}",
        "QuotaCode": code,
        "QuotaName": name,
        "Value": value,
        "Unit": "None",
        "Adjustable": True,
        "GlobalQuota": False,
    }


# Region -> (pages of ListServiceQuotas, pages of ListAWSDefaultServiceQuotas); a page list None: access denied
QuotaPages = dict[str, tuple[list[list[dict]] | None, list[list[dict]] | None]]


def quotas_stub(client: Any, pages: tuple[list[list[dict]] | None, list[list[dict]] | None]) -> Stubber:
    """Both Service Quotas list calls with ServiceCode bedrock, page by page (NextToken pinned)."""
    stubber = Stubber(client)
    for operation, operation_pages in zip(
        ("list_service_quotas", "list_aws_default_service_quotas"), pages, strict=True
    ):
        if operation_pages is None:
            stubber.add_client_error(
                operation, "AccessDeniedException", "not authorized", 403, {"ServiceCode": "bedrock"}
            )
            continue
        for i, page in enumerate(operation_pages):
            params = {"ServiceCode": "bedrock", **({"NextToken": f"t{i}"} if i else {})}
            response = {"Quotas": page, **({"NextToken": f"t{i + 1}"} if i + 1 < len(operation_pages) else {})}
            stubber.add_response(operation, response, params)
    stubber.activate()
    return stubber


@contextlib.contextmanager
def bedrock_regions(
    regions: list[BedrockRegion],
    wanted: set[str],
    published: dict[str, list[str]] | None = None,
    quotas: QuotaPages | None = None,
) -> Iterator[list[Stubber]]:
    stubbers: list[Stubber] = []
    by_region = {r.region: r for r in regions}

    def factory(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
        assert service in ("bedrock", "cloudwatch", "service-quotas") and region in by_region, (service, region)
        client = boto3.client(service, region_name=region)
        if service == "cloudwatch":
            stubbers.append(cloudwatch_stub(client, published))
        elif service == "service-quotas":
            stubbers.append(quotas_stub(client, (quotas or {}).get(region, ([[]], [[]]))))
        else:
            stubbers.append(by_region[region].stub(client, wanted))
        return client

    with use_client_factory(factory):
        yield stubbers
    for stubber in stubbers:
        stubber.assert_no_pending_responses()  # every pinned request was made, in order


def eu_bedrock(*, in_region_frankfurt: bool, eu_destinations: list[str] = EU_DESTINATIONS) -> list[BedrockRegion]:
    frankfurt_types = ["ON_DEMAND", "INFERENCE_PROFILE"] if in_region_frankfurt else ["INFERENCE_PROFILE"]
    return [
        BedrockRegion(
            "eu-central-1",
            [
                fm(KIMI, "eu-central-1", *frankfurt_types),
                fm("amazon.nova-pro-v1:0", "eu-central-1", "ON_DEMAND", name="Nova Pro", provider="Amazon"),
            ],
            [
                system_profile(EU_PROFILE, "eu-central-1", eu_destinations),
                system_profile(GLOBAL_PROFILE, "eu-central-1", ["eu-central-1", "us-east-1", "ap-northeast-1"]),
                system_profile("eu.amazon.nova-pro-v1:0", "eu-central-1", ["eu-central-1", "eu-west-1"]),
            ],
            {KIMI: availability(KIMI), "amazon.nova-pro-v1:0": availability("amazon.nova-pro-v1:0")},
        ),
        BedrockRegion(
            "eu-west-1",
            [fm(KIMI, "eu-west-1", "INFERENCE_PROFILE")],
            [system_profile(EU_PROFILE, "eu-west-1", eu_destinations)],
            {KIMI: availability(KIMI)},
        ),
    ]


@pytest.fixture
def catalog():
    return load_catalog()


# --------------------------------------------------------------------------------------------------
# Requests and the overlay entry
# --------------------------------------------------------------------------------------------------


def test_requests_are_exactly_the_pinned_ones(catalog) -> None:
    with bedrock_regions(eu_bedrock(in_region_frankfurt=True), {KIMI}) as stubbers:
        discovery = discover_mod.discover(["eu-central-1", "eu-west-1"], [KIMI], catalog, today=date(2026, 12, 1))
    assert len(stubbers) == 6  # one Bedrock, one CloudWatch and one Service Quotas client per Region
    assert [s.region for s in discovery.scans] == ["eu-central-1", "eu-west-1"]
    # the unrelated Nova profile was listed but never fetched (Stubber would have failed on an extra call)
    assert set(discovery.scans[0].profiles) == {EU_PROFILE, GLOBAL_PROFILE}


def test_entry_keeps_what_the_apis_cannot_see_and_replaces_the_rest(catalog) -> None:
    with bedrock_regions(eu_bedrock(in_region_frankfurt=True), {KIMI}):
        discovery = discover_mod.discover(["eu-central-1", "eu-west-1"], [KIMI], catalog, today=date(2026, 12, 1))
    entry = discovery.entries[KIMI]
    shipped = catalog.models[KIMI]
    assert entry["in_region_regions"] == ["eu-central-1"]  # ON_DEMAND only in Frankfurt; Ireland is profile-only
    assert entry["inference_profiles"] == [
        {
            "id": EU_PROFILE,
            "scope": "geographic",
            "source_regions": ["eu-central-1", "eu-west-1"],
            "destination_regions": sorted(EU_DESTINATIONS),
        },
        {"id": GLOBAL_PROFILE, "scope": "global", "source_regions": ["eu-central-1"], "destination_regions": ["*"]},
    ]
    assert entry["source"] == "discover: ListFoundationModels/ListInferenceProfiles in eu-central-1, eu-west-1"
    assert entry["as_of"] == "2026-12-01" and entry["verified"] is True
    # kept from the shipped entry: not visible to discover (Mantle is a different API)
    assert entry["mantle_regions"] == list(shipped.mantle_regions)
    assert (entry["name"], entry["provider"], entry["aliases"]) == (
        shipped.name,
        shipped.provider,
        list(shipped.aliases),
    )
    assert entry["context_window_tokens"] == shipped.context_window_tokens
    assert set(discovery.kept[KIMI]) >= {"name", "provider", "aliases", "mantle_regions", "context_window_tokens"}


def test_region_not_available_is_not_in_region(catalog) -> None:
    regions = eu_bedrock(in_region_frankfurt=True)
    regions[0].availabilities[KIMI] = availability(KIMI, region_availability="NOT_AVAILABLE")
    with bedrock_regions(regions, {KIMI}):
        discovery = discover_mod.discover(["eu-central-1", "eu-west-1"], [KIMI], catalog, today=date(2026, 12, 1))
    assert discovery.entries[KIMI]["in_region_regions"] == []


def test_overlay_yaml_has_the_catalog_schema_and_says_what_was_kept(catalog, tmp_path: Path) -> None:
    with bedrock_regions(eu_bedrock(in_region_frankfurt=True), {KIMI}):
        discovery = discover_mod.discover(["eu-central-1", "eu-west-1"], [KIMI], catalog)
    text = discover_mod.overlay_yaml(discovery)
    data = yaml.safe_load(text)
    assert set(data) == {"schema_version", "discover", "models"}
    assert data["models"][KIMI]["as_of"] == date.today().isoformat()  # quoted, as in models.yaml
    assert "mantle_regions" in data["discover"]["kept_from_catalog"][KIMI]["fields"]
    assert "  # Mantle (bedrock-mantle) is a different API: mantle_regions is the catalogued value" in text
    assert data["discover"]["account_availability"][KIMI]["eu-central-1"]["agreement"] == "AVAILABLE"
    path = tmp_path / "overlay.yaml"
    path.write_text(text)
    model = load_catalog((path,)).models[KIMI]
    assert model.verified and model.in_region_regions == ("eu-central-1",)
    assert model.source.startswith("discover: ")


def test_new_model_takes_name_and_provider_from_the_api(catalog) -> None:
    nova = "amazon.nova-pro-v1:0"
    with bedrock_regions(eu_bedrock(in_region_frankfurt=False)[:1], {nova}):
        discovery = discover_mod.discover(["eu-central-1"], [nova], catalog)
    entry = discovery.entries[nova]
    assert (entry["name"], entry["provider"], entry["aliases"], entry["endpoints"]) == (
        "Nova Pro",
        "Amazon",
        [],
        ["runtime"],
    )
    assert entry["inference_profiles"][0]["id"] == "eu.amazon.nova-pro-v1:0"
    assert discovery.kept == {}


# --------------------------------------------------------------------------------------------------
# The overlay drives synth: routing follows it
# --------------------------------------------------------------------------------------------------


def _write_overlay(tmp_path: Path, regions: list[BedrockRegion], scanned: list[str]) -> Path:
    with bedrock_regions(regions, {KIMI}):
        discovery = discover_mod.discover(scanned, [KIMI], load_catalog())
    path = tmp_path / "discovered.yaml"
    path.write_text(discover_mod.overlay_yaml(discovery))
    return path


def test_overlay_in_config_changes_the_routing_decision(plan_for, tmp_path: Path) -> None:
    overlay = _write_overlay(tmp_path, eu_bedrock(in_region_frankfurt=True), ["eu-central-1", "eu-west-1"])
    shipped = plan_for(EU_CONFIG)
    discovered = plan_for(EU_CONFIG, catalog_overlays=[str(overlay)])

    def kinds(plan) -> set:
        return {(r.kind, r.invoke_id) for r in plan.routing.compliant_routes(endpoint="runtime")}

    assert (PathKind.IN_REGION, KIMI) not in kinds(shipped)
    assert (PathKind.IN_REGION, KIMI) in kinds(discovered)
    # `path: auto` prefers in-Region: the application profiles now copy the foundation model, not the eu. profile
    assert {a.route.kind for a in shipped.applications} == {PathKind.GEOGRAPHIC_PROFILE}
    assert {a.route.kind for a in discovered.applications} == {PathKind.IN_REGION}
    assert not any(w.startswith(f"catalog model {KIMI!r} is unverified") for w in discovered.warnings)


def test_overlay_with_a_non_compliant_destination_rejects_the_profile(plan_for, tmp_path: Path) -> None:
    overlay = _write_overlay(
        tmp_path,
        eu_bedrock(in_region_frankfurt=False, eu_destinations=[*EU_DESTINATIONS, "il-central-1"]),
        ["eu-central-1", "eu-west-1"],
    )
    catalog = load_catalog((overlay,))
    shipped_plan = plan_for(EU_CONFIG)
    decision = resolve_routes(
        models=[catalog.models[KIMI]],
        home_region="eu-central-1",
        compliant_regions=shipped_plan.config.compliant_regions,
        allow_global_inference=False,
        catalog=catalog,
    )
    eu_route = next(r for r in decision.models[0].routes if r.invoke_id == EU_PROFILE)
    assert not eu_route.compliant and "il-central-1" in eu_route.reason
    assert any(r.invoke_id == EU_PROFILE for r in shipped_plan.routing.compliant_routes())  # was allowed before
    # The applications are left without a compliant runtime path: they fall back to Mantle (compliant in
    # eu-central-1), and synth says what would admit the profile again.
    plan = plan_for(EU_CONFIG, catalog_overlays=[str(overlay)])
    assert all(app.mantle_only for app in plan.applications)
    (warning,) = [w for w in plan.warnings if "no compliant runtime path" in w]
    assert f"{EU_PROFILE}: add il-central-1 to compliant_regions" in warning


# --------------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------------


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    from landing_zone.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_cli_writes_the_overlay(tmp_path: Path) -> None:
    out = tmp_path / "overlays" / "kimi.yaml"
    with bedrock_regions(eu_bedrock(in_region_frankfurt=True), {KIMI}):
        code, stdout, stderr = run_cli(
            ["discover", "--regions", "eu-central-1,eu-west-1", "--config", str(EU_CONFIG), "--out", str(out)]
        )
    assert code == 0, stderr
    assert KIMI in load_catalog((out,)).models
    assert f"wrote {out}" in stdout and "eu-central-1" in stdout


def test_cli_models_flag_takes_aliases(tmp_path: Path) -> None:
    with bedrock_regions(eu_bedrock(in_region_frankfurt=True)[:1], {KIMI}):
        code, stdout, _ = run_cli(["discover", "--regions", "eu-central-1", "--models", "kimi-k3.1-pro"])
    assert code == 0
    assert yaml.safe_load(stdout)["models"][KIMI]["in_region_regions"] == ["eu-central-1"]


def test_cli_unknown_region_is_a_usage_error() -> None:
    code, _, stderr = run_cli(["discover", "--regions", "eu-central-1,eu-central-9"])
    assert code == 2
    assert "--regions[1]: got 'eu-central-9'" in stderr


def test_cli_access_denied_writes_nothing_and_exits_1(tmp_path: Path) -> None:
    out = tmp_path / "kimi.yaml"

    def factory(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
        client = boto3.client(service, region_name=region)
        stubber = Stubber(client)
        stubber.add_client_error(
            "list_foundation_models",
            service_error_code="AccessDeniedException",
            service_message="not authorized to perform bedrock:ListFoundationModels",
            http_status_code=403,
        )
        stubber.activate()
        return client

    with use_client_factory(factory):
        code, _, stderr = run_cli(["discover", "--regions", "eu-central-1", "--out", str(out)])
    assert code == 1
    assert "eu-central-1: bedrock:ListFoundationModels: unauthorised: AccessDeniedException" in stderr
    assert not out.exists()


def test_cli_model_nowhere_to_be_found_is_reported(tmp_path: Path) -> None:
    out = tmp_path / "kimi.yaml"
    with bedrock_regions(eu_bedrock(in_region_frankfurt=True)[:1], {KIMI, "acme.unknown-v1"}):
        code, _, stderr = run_cli(
            ["discover", "--regions", "eu-central-1", "--models", f"{KIMI},acme.unknown-v1", "--out", str(out)]
        )
    assert code == 1
    assert "acme.unknown-v1: not in the catalog and not offered in eu-central-1" in stderr
    assert list(yaml.safe_load(out.read_text())["models"]) == [KIMI]  # the rest is written


# --------------------------------------------------------------------------------------------------
# CloudWatch metrics: the catalog's names against what the account publishes
# --------------------------------------------------------------------------------------------------


def test_metrics_the_account_does_not_publish_are_reported(catalog) -> None:
    published = {
        # the user guide's cache names, not the catalogue's: the assumption is reported as not (yet) published
        "AWS/Bedrock": ["InputTokenCount", "OutputTokenCount", "Invocations", "CacheReadInputTokens"],
        "AWS/BedrockMantle": ["TotalInputTokens", "TotalOutputTokens", "Inferences", "InferenceClientErrors"],
    }
    with bedrock_regions(eu_bedrock(in_region_frankfurt=True)[:1], {KIMI}, published):
        discovery = discover_mod.discover(["eu-central-1"], [KIMI], catalog, today=date(2026, 12, 1))
    rows = {r["namespace"]: r for r in discover_mod.metric_findings(discovery)}
    runtime, mantle = rows["AWS/Bedrock"], rows["AWS/BedrockMantle"]
    assert runtime["read"] and {"CacheReadInputTokenCount", "CacheWriteInputTokenCount"} <= set(
        runtime["catalog_metrics_not_published"]
    )
    assert "CacheReadInputTokens" in runtime["published_not_in_catalog"]
    assert mantle["catalog_metrics_not_published"] == []
    summary = discover_mod.format_summary(discovery)
    assert "AWS/Bedrock: not published (yet" in summary and "AWS/BedrockMantle: every catalogued metric" in summary


def test_metrics_that_cannot_be_read_are_reported_not_fatal(catalog) -> None:
    with bedrock_regions(eu_bedrock(in_region_frankfurt=True)[:1], {KIMI}, None):
        discovery = discover_mod.discover(["eu-central-1"], [KIMI], catalog, today=date(2026, 12, 1))
    assert all(not r["read"] for r in discover_mod.metric_findings(discovery))
    assert discovery.entries  # the overlay is still built
    assert "ListMetrics could not be read" in discover_mod.format_summary(discovery)


# --------------------------------------------------------------------------------------------------
# Service Quotas: the quota values of the allow-listed models, matched by QuotaName
# --------------------------------------------------------------------------------------------------

CROSS_TPM = "Cross-Region InvokeModel tokens per minute for Kimi K3.1 Pro"
DAILY = "Model invocation max tokens per day for Kimi K3.1 Pro"


def test_quotas_are_read_page_by_page_and_matched_by_name(catalog) -> None:
    pages: QuotaPages = {
        "eu-central-1": (
            # applied values over two pages; an unrelated model's quota of the same kind is not taken
            [
                [quota(CROSS_TPM, 250_000, "L-AAAA1111", "eu-central-1")],
                [quota("Cross-Region InvokeModel tokens per minute for Nova Pro", 9, "L-BBBB2222", "eu-central-1")],
            ],
            # the default of the daily quota is used (no applied value listed); the default TPM loses to the applied
            [
                [
                    quota(CROSS_TPM, 100_000, "L-AAAA1111", "eu-central-1", account=""),
                    quota(DAILY, 360_000_000, "L-C", "eu-central-1", account=""),
                ]
            ],
        )
    }
    with bedrock_regions(eu_bedrock(in_region_frankfurt=False)[:1], {KIMI}, quotas=pages):
        discovery = discover_mod.discover(["eu-central-1"], [KIMI], catalog, today=date(2026, 12, 2))
    found = discovery.quotas[KIMI]["eu-central-1"]
    assert found["cross_region_tokens_per_minute"]["value"] == 250_000
    assert found["cross_region_tokens_per_minute"]["verified"] is True
    assert (
        found["cross_region_tokens_per_minute"]["source"] == "service-quotas ListServiceQuotas 222222222222 2026-12-02"
    )
    assert found["cross_region_tokens_per_minute"]["quota_code"] == "L-AAAA1111"
    assert found["tokens_per_day"]["value"] == 360_000_000 and found["tokens_per_day"]["verified"] is False
    assert "ListAWSDefaultServiceQuotas" in found["tokens_per_day"]["source"]
    # the Mantle quotas were not listed: reported, never invented
    (row,) = discover_mod.quota_findings(discovery)
    assert row["read"] and f"{KIMI} mantle_input_tokens_per_minute" in row["not_found"]
    assert f"{KIMI} cross_region_tokens_per_minute" not in row["not_found"]
    assert "not found (no alarm for them)" in discover_mod.format_summary(discovery)


def test_quota_overlay_loads_and_feeds_the_quota_alarms(plan_for, tmp_path: Path) -> None:
    pages: QuotaPages = {"eu-central-1": ([[quota(CROSS_TPM, 250_000, "L-AAAA1111", "eu-central-1")]], [[]])}
    with bedrock_regions(eu_bedrock(in_region_frankfurt=False), {KIMI}, quotas=pages):
        discovery = discover_mod.discover(
            ["eu-central-1", "eu-west-1"], [KIMI], load_catalog(), today=date(2026, 12, 2)
        )
    overlay = tmp_path / "kimi.yaml"
    overlay.write_text(discover_mod.overlay_yaml(discovery))
    catalog = load_catalog((overlay,))
    assert catalog.quotas is not None
    value = catalog.quotas.value(KIMI, "eu-central-1", "cross_region_tokens_per_minute")
    assert value is not None and value.value == 250_000 and value.quota_code == "L-AAAA1111"
    plan = plan_for(EU_CONFIG, catalog_overlays=[str(overlay)])
    (alarm,) = [a for a in plan.quota_alarms.alarms if a.kind == "cross_region_tokens_per_minute"]
    assert alarm.quota == 250_000 and alarm.source.startswith("service-quotas ListServiceQuotas 222222222222")
    assert alarm.specs[0].threshold == pytest.approx(250_000 * plan.config.cost.quota_alarms.headroom)


def test_quotas_that_cannot_be_read_are_reported_not_fatal(catalog) -> None:
    with bedrock_regions(eu_bedrock(in_region_frankfurt=True)[:1], {KIMI}, quotas={"eu-central-1": (None, None)}):
        discovery = discover_mod.discover(["eu-central-1"], [KIMI], catalog, today=date(2026, 12, 2))
    assert discovery.quotas == {} and discovery.entries
    assert "ListServiceQuotas could not be read" in discover_mod.format_summary(discovery)
    assert "quotas:" not in discover_mod.overlay_yaml(discovery).split("models:", 1)[1]


# --------------------------------------------------------------------------------------------------
# Model lifecycle (issue 37): ListFoundationModels' modelLifecycle.status, per Region
# --------------------------------------------------------------------------------------------------


def test_a_legacy_model_is_reported_with_its_regions(catalog) -> None:
    regions = eu_bedrock(in_region_frankfurt=True)
    regions[1].models[0]["modelLifecycle"] = {"status": "LEGACY"}
    with bedrock_regions(regions, {KIMI}):
        discovery = discover_mod.discover(["eu-central-1", "eu-west-1"], [KIMI], catalog, today=date(2026, 12, 1))
    (row,) = discover_mod.lifecycle_findings(discovery)
    assert row == {
        "model": KIMI,
        "status_by_region": {"eu-central-1": "ACTIVE", "eu-west-1": "LEGACY"},
        "not_active_in": ["eu-west-1"],
    }
    assert f"lifecycle: {KIMI} is not ACTIVE (eu-west-1 LEGACY)" in discover_mod.format_summary(discovery)


def test_neighbour_an_active_model_is_not_flagged(catalog) -> None:
    with bedrock_regions(eu_bedrock(in_region_frankfurt=True), {KIMI}):
        discovery = discover_mod.discover(["eu-central-1", "eu-west-1"], [KIMI], catalog, today=date(2026, 12, 1))
    (row,) = discover_mod.lifecycle_findings(discovery)
    assert row["not_active_in"] == []
    assert "is not ACTIVE" not in discover_mod.format_summary(discovery)
