"""Quota headroom alarms in the cost stack of the US example: one alarm per quota with a value, the metric AWS
publishes (or the token metrics) under the invoked IDs, thresholds = the configured quota x headroom, the alerts
topic, and a quota row on the operations dashboard."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT

US = ROOT / "examples" / "us-single-account.yaml"


@pytest.fixture(scope="module")
def us(synth):
    return synth(US)


def _quota_alarms(lz) -> dict[str, dict]:
    alarms = lz.template("cost").find_resources("AWS::CloudWatch::Alarm")
    prefix = f"{lz.plan.config.name}-quota-"
    return {
        a["Properties"]["AlarmName"]: a["Properties"]
        for a in alarms.values()
        if a["Properties"]["AlarmName"].startswith(prefix)
    }


def test_one_alarm_per_quota_with_a_value_at_headroom_times_the_quota(us):
    plan = us.plan
    alarms = _quota_alarms(us)
    expected = {f"{plan.config.name}-{s.name_suffix}": s for s in plan.quota_alarms.specs}
    assert set(alarms) == set(expected) and len(alarms) == 4  # two quotas of each model; Mantle has no value
    settings = plan.config.cost.quota_alarms
    configured = {
        (plan.catalog.require_model(key).id, kind): value
        for key, override in settings.overrides.items()
        for kind, value in override.values().items()
    }
    for quota in plan.quota_alarms.alarms:
        (spec,) = quota.specs
        props = alarms[f"{plan.config.name}-{spec.name_suffix}"]
        assert props["Threshold"] == pytest.approx(settings.headroom * configured[(quota.model_id, quota.kind)])
        assert props["ComparisonOperator"] == "GreaterThanThreshold"
        assert props["TreatMissingData"] == "notBreaching"
        (action,) = props["AlarmActions"]
        assert action["Ref"].startswith("AlertsTopic")


def _stats(props: dict) -> list[dict]:
    return [m["MetricStat"] for m in props["Metrics"] if "MetricStat" in m]


def test_tokens_per_minute_alarms_sum_estimated_tpm_quota_usage_of_the_invoked_ids(us):
    alarms = _quota_alarms(us)
    cross = alarms[f"{us.plan.config.name}-quota-moonshotai.kimi-k3.1-pro-tpm-cross-region"]
    stats = _stats(cross)
    assert {(s["Metric"]["Namespace"], s["Metric"]["MetricName"], s["Period"], s["Stat"]) for s in stats} == {
        ("AWS/Bedrock", "EstimatedTPMQuotaUsage", 60, "Sum")
    }
    values = [s["Metric"]["Dimensions"][0]["Value"] for s in stats]
    assert values[0] == "us.moonshotai.kimi-k3.1-pro"  # the system profile ID, as invoked
    assert not isinstance(values[1], str)  # the application profile's ARN, a reference to the access stack
    on_demand = alarms[f"{us.plan.config.name}-quota-moonshot.kimi-k2-thinking-tpm-on-demand"]
    (stat,) = _stats(on_demand)
    assert stat["Metric"]["Dimensions"] == [{"Name": "ModelId", "Value": "moonshot.kimi-k2-thinking"}]


def test_the_daily_alarm_projects_the_last_hour_over_a_day(us):
    daily = _quota_alarms(us)[f"{us.plan.config.name}-quota-moonshot.kimi-k2-thinking-tpd"]
    (expression,) = [m["Expression"] for m in daily["Metrics"] if "Expression" in m]
    assert expression.endswith(" * 24")
    assert {s["Period"] for s in _stats(daily)} == {3600}
    assert {s["Metric"]["MetricName"] for s in _stats(daily)} == {
        "InputTokenCount",
        "CacheWriteInputTokenCount",
        "OutputTokenCount",
    }


def test_the_dashboard_has_a_quota_row_with_the_quota_and_the_threshold(us):
    (dashboard,) = us.template("cost").find_resources("AWS::CloudWatch::Dashboard").values()
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    assert "EstimatedTPMQuotaUsage" in body
    quota = next(a for a in us.plan.quota_alarms.alarms if a.kind == "on_demand_tokens_per_minute")
    assert f"quota {quota.quota:,.0f}" in body and f"= {quota.threshold:,.0f}" in body
    # every quota alarm is in the alarm-status widget (referenced by its ARN)
    alarms = us.template("cost").find_resources("AWS::CloudWatch::Alarm")
    quota_ids = [k for k, a in alarms.items() if "-quota-" in a["Properties"]["AlarmName"]]
    assert len(quota_ids) == 4 and all(f'"{logical_id}"' in body for logical_id in quota_ids)
