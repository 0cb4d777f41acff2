"""verify's ``quota-value`` family against a botocore Stubber (moto implements no Bedrock service quotas).

The intent is configuration: the four quota headroom alarms of ``examples/us-single-account.yaml`` (its
``cost.quota_alarms.overrides``), in us-west-2.  The expected requests, pinned by ``expected_params``:
``service-quotas:ListServiceQuotas`` with ``ServiceCode: bedrock`` (paginated, once per run) and
``ListAWSDefaultServiceQuotas`` with the same parameters only when an alarm's quota has no applied value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from landing_zone import aws
from landing_zone.assembly import Assembly
from landing_zone.verify.checks import CHECK_FAMILIES
from landing_zone.verify.checks.common import DRIFT, ERROR, PASS, Context
from landing_zone.verify.checks.quota_values import check_quota_values
from landing_zone.verify.live import Live
from tests.conftest import ROOT

REGION = "us-west-2"
EXAMPLE = ROOT / "examples" / "us-single-account.yaml"
REQUEST = {"ServiceCode": "bedrock"}
# QuotaName -> the value the example's overrides give the alarm built from it
CONFIGURED = {
    "Cross-Region InvokeModel tokens per minute for Kimi K3.1 Pro": 1_000_000.0,
    "Model invocation max tokens per day for Kimi K3.1 Pro": 1_440_000_000.0,
    "On-demand InvokeModel tokens per minute for Kimi K2 Thinking": 500_000.0,
    "Model invocation max tokens per day for Kimi K2 Thinking": 720_000_000.0,
}


@pytest.fixture(scope="module")
def alarms(plan_for) -> tuple[Any, ...]:
    found = plan_for(EXAMPLE).quota_alarms.alarms
    assert {a.quota_name: a.quota for a in found} == CONFIGURED
    return found


@pytest.fixture(scope="module")
def catalog(plan_for) -> Any:
    return plan_for(EXAMPLE).catalog


def quota(name: str, value: float, code: str = "L-00000000") -> dict[str, Any]:
    arn = f"arn:aws:servicequotas:{REGION}:555555555555:bedrock/{code}"
    return {"ServiceCode": "bedrock", "QuotaName": name, "QuotaCode": code, "QuotaArn": arn, "Value": value}


def run(alarms: tuple[Any, ...], catalog: Any, respond: Any) -> tuple[list[Any], list[tuple[str, str | None]]]:
    client = boto3.client("service-quotas", region_name=REGION)
    asked: list[tuple[str, str | None]] = []
    with Stubber(client) as stub:
        respond(stub)

        def factory(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
            asked.append((service, region))
            assert service == "service-quotas"
            return client

        with aws.use_client_factory(factory):
            ctx = Context(
                assembly=Assembly(Path("."), ()),
                live=Live(profile=None, management_profile=None, region=REGION),
                name="kimi-us",
                home_region=REGION,
                catalog=catalog,
                quota_alarms=alarms,
            )
            rows = check_quota_values(ctx)
        stub.assert_no_pending_responses()
    return rows, asked


def applied(stub: Stubber, quotas: list[dict[str, Any]]) -> None:
    stub.add_response("list_service_quotas", {"Quotas": quotas}, REQUEST)


def test_the_family_is_registered() -> None:
    assert [f.checks for f in CHECK_FAMILIES if f.name == "quota-value"] == [("quota-value",)]


def test_pass_when_every_live_value_is_the_configured_one(alarms: tuple[Any, ...], catalog: Any) -> None:
    listed = [quota(n, v, f"L-{i:08d}") for i, (n, v) in enumerate(CONFIGURED.items())]

    def respond(stub: Stubber) -> None:  # two pages: the listing is paginated
        stub.add_response("list_service_quotas", {"Quotas": listed[:2], "NextToken": "t1"}, REQUEST)
        stub.add_response("list_service_quotas", {"Quotas": listed[2:]}, {**REQUEST, "NextToken": "t1"})

    rows, asked = run(alarms, catalog, respond)
    assert [(r.check, r.status) for r in rows] == [("quota-value", PASS)] * 4
    assert asked == [("service-quotas", REGION)]
    first = rows[0]
    assert (
        first.resource
        == f"Cross-Region InvokeModel tokens per minute for Kimi K3.1 Pro (moonshotai.kimi-k3.1-pro, {REGION})"
    )
    assert first.expected.startswith("1e+06 tokens/minute (cost.quota_alarms.overrides.kimi-k3.1-pro:")
    assert first.actual == "1e+06 tokens/minute (applied value, service-quotas ListServiceQuotas L-00000000)"


def test_the_name_is_matched_as_discover_matches_it(alarms: tuple[Any, ...], catalog: Any) -> None:
    # case and white space do not count, and Service Quotas may write the provider before the model's name
    listed = [quota(n.replace(" for Kimi", " for  moonshot ai kimi").upper(), v) for n, v in CONFIGURED.items()]
    rows, _ = run(alarms, catalog, lambda s: applied(s, listed))
    assert [r.status for r in rows] == [PASS] * 4


def test_drift_when_the_quota_was_raised(alarms: tuple[Any, ...], catalog: Any) -> None:
    raised = {**CONFIGURED, "On-demand InvokeModel tokens per minute for Kimi K2 Thinking": 2_000_000.0}
    rows, _ = run(alarms, catalog, lambda s: applied(s, [quota(n, v) for n, v in raised.items()]))
    by_name = {r.resource.split(" (", 1)[0]: r for r in rows}
    row = by_name["On-demand InvokeModel tokens per minute for Kimi K2 Thinking"]
    assert row.status is DRIFT
    assert row.expected.startswith("500000 tokens/minute (cost.quota_alarms.overrides.kimi-k2-thinking:")
    assert row.actual.startswith("2e+06 tokens/minute (applied value")
    assert "fires at 0.8 x 500000 = 400000 tokens/minute" in row.detail
    assert "0.8 x 2e+06 = 1.6e+06" in row.detail
    assert "python -m landing_zone discover --regions us-west-2" in row.detail
    assert "cost.quota_alarms.overrides.moonshot.kimi-k2-thinking.on_demand_tokens_per_minute" in row.detail
    assert "then deploy" in row.detail
    assert sorted(r.status for r in rows if r is not row) == [PASS] * 3


def test_drift_when_service_quotas_lists_no_such_name(alarms: tuple[Any, ...], catalog: Any) -> None:
    # the K2 Thinking daily quota is renamed: neither list has the name the alarm was built from
    renamed = dict(CONFIGURED)
    del renamed["Model invocation max tokens per day for Kimi K2 Thinking"]
    renamed["Model invocation max tokens per day for Kimi K2 Thinking (legacy)"] = 720_000_000.0

    def respond(stub: Stubber) -> None:
        applied(stub, [quota(n, v) for n, v in renamed.items()])
        stub.add_response("list_aws_default_service_quotas", {"Quotas": []}, REQUEST)

    rows, _ = run(alarms, catalog, respond)
    row = next(r for r in rows if r.resource.startswith("Model invocation max tokens per day for Kimi K2 Thinking"))
    assert (row.status, row.actual) == (DRIFT, "not listed")
    assert "lists no quota named 'Model invocation max tokens per day for Kimi K2 Thinking'" in row.detail
    assert "name changed" in row.detail and "discover --regions us-west-2" in row.detail
    assert [r.status for r in rows].count(PASS) == 3


def test_falls_back_to_the_aws_default_when_no_applied_value_is_listed(alarms: tuple[Any, ...], catalog: Any) -> None:
    default_only = "Model invocation max tokens per day for Kimi K3.1 Pro"
    listed = [quota(n, v) for n, v in CONFIGURED.items() if n != default_only]
    defaults = [quota(default_only, 2_880_000_000.0, "L-D"), quota("Other quota", 1.0)]

    def respond(stub: Stubber) -> None:  # the default list is asked once, for the one quota the applied list lacks
        applied(stub, listed)
        stub.add_response("list_aws_default_service_quotas", {"Quotas": defaults}, REQUEST)

    rows, asked = run(alarms, catalog, respond)
    row = next(r for r in rows if r.resource.startswith(default_only))
    assert row.status is DRIFT
    assert (
        row.actual
        == "2.88e+09 tokens/day (AWS default: no applied value listed, service-quotas ListAWSDefaultServiceQuotas L-D)"
    )
    assert "the AWS default was read" in row.detail
    assert asked == [("service-quotas", REGION)]
    assert [r.status for r in rows].count(PASS) == 3


def test_default_value_equal_passes_with_a_note(alarms: tuple[Any, ...], catalog: Any) -> None:
    def respond(stub: Stubber) -> None:
        applied(stub, [])
        stub.add_response(
            "list_aws_default_service_quotas", {"Quotas": [quota(n, v) for n, v in CONFIGURED.items()]}, REQUEST
        )

    rows, _ = run(alarms, catalog, respond)
    assert [r.status for r in rows] == [PASS] * 4
    assert all("AWS default" in r.actual and "may differ" in r.detail for r in rows)


def test_error_for_every_alarm_when_service_quotas_denies(alarms: tuple[Any, ...], catalog: Any) -> None:
    def respond(stub: Stubber) -> None:  # asked once: the failure is reported for each alarm, not asked again
        stub.add_client_error(
            "list_service_quotas", "AccessDeniedException", "not authorized", 400, expected_params=REQUEST
        )

    rows, asked = run(alarms, catalog, respond)
    assert [(r.check, r.status) for r in rows] == [("quota-value", ERROR)] * 4
    assert all(r.detail.startswith("service-quotas:list_service_quotas unauthorised") for r in rows)
    assert rows[0].actual.startswith("unauthorised")
    assert asked == [("service-quotas", REGION)]


def test_no_quota_alarm_no_row_and_no_call(plan_for) -> None:
    plan = plan_for(ROOT / "examples" / "eu-sovereign.yaml")  # no quota values: no quota alarm
    assert plan.quota_alarms.alarms == ()

    def factory(service: str, **_: Any) -> Any:
        raise AssertionError(f"asked {service}")

    with aws.use_client_factory(factory):
        ctx = Context(
            assembly=Assembly(Path("."), ()),
            live=Live(profile=None, management_profile=None, region="eu-central-1"),
            name="kimi-eu",
            home_region="eu-central-1",
            catalog=plan.catalog,
            quota_alarms=plan.quota_alarms.alarms,
        )
        assert check_quota_values(ctx) == []


def test_verify_hands_the_plans_quota_alarms_to_the_family(
    plan_for, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import landing_zone.verify as verify_module

    plan = plan_for(EXAMPLE)
    template = {"Resources": {"Topic": {"Type": "AWS::SNS::Topic", "Properties": {}}}}
    (tmp_path / "a.template.json").write_text(json.dumps(template))
    artifact = {
        "type": "aws:cloudformation:stack",
        "environment": f"aws://555555555555/{REGION}",
        "properties": {"templateFile": "a.template.json", "tags": {"landing-zone": plan.config.name}},
    }
    manifest = {"version": "48.0.0", "artifacts": {f"{plan.config.name}-cost": artifact}}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    seen: list[Context] = []
    monkeypatch.setattr(verify_module, "_require_credentials", lambda ctx, profile: None)
    monkeypatch.setattr(verify_module, "run_checks", lambda ctx, families: seen.append(ctx) or [])
    verify_module.verify(tmp_path, plan=plan, families=["quota-value"])
    assert seen[0].quota_alarms == plan.quota_alarms.alarms and len(seen[0].quota_alarms) == 4
