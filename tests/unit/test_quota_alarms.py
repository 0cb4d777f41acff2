"""Quota headroom alarms (landing_zone/cost/quotas.py), decided by the plan: which series count against which quota,
thresholds from the quota value x headroom, values from overrides or a discover overlay, and the workload checks."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from landing_zone.core.catalog import load_catalog
from landing_zone.cost.alarms import evaluate_expression
from landing_zone.errors import ConfigError
from tests.cli.test_validate_inputs import assert_refused, validate
from tests.conftest import ROOT

US = ROOT / "examples" / "us-single-account.yaml"
EU = ROOT / "examples" / "eu-sovereign.yaml"
K31 = "moonshotai.kimi-k3.1-pro"
K2T = "moonshot.kimi-k2-thinking"


def _by_kind(plan, model_id: str) -> dict:
    return {a.kind: a for a in plan.quota_alarms.alarms if a.model_id == model_id}


def test_each_alarm_watches_the_ids_its_quota_counts_at_headroom_times_the_quota(plan_for):
    plan = plan_for(US)
    overrides = plan.config.cost.quota_alarms.overrides
    headroom = plan.config.cost.quota_alarms.headroom
    k31, k2t = _by_kind(plan, K31), _by_kind(plan, K2T)
    assert set(k31) == {"cross_region_tokens_per_minute", "tokens_per_day"}
    assert set(k2t) == {"on_demand_tokens_per_minute", "tokens_per_day"}
    # cross-Region: EstimatedTPMQuotaUsage under the system profile ID and the application profile (its ARN later)
    (cross,) = k31["cross_region_tokens_per_minute"].specs
    assert {(m.namespace, m.metric_name) for m in cross.metrics} == {("AWS/Bedrock", "EstimatedTPMQuotaUsage")}
    assert [dict(m.dimensions) for m in cross.metrics] == [
        {"ModelId": f"us.{K31}"},
        {"ModelId": "application-profile:us-workload"},
    ]
    assert cross.period_seconds == 60 and all(m.period == 60 for m in cross.metrics)
    assert cross.threshold == pytest.approx(headroom * overrides["kimi-k3.1-pro"].cross_region_tokens_per_minute)
    # in-Region: the model ID itself
    (on_demand,) = k2t["on_demand_tokens_per_minute"].specs
    assert [dict(m.dimensions) for m in on_demand.metrics] == [{"ModelId": K2T}]
    assert on_demand.threshold == pytest.approx(headroom * overrides["kimi-k2-thinking"].on_demand_tokens_per_minute)
    assert not on_demand.threshold_overridable  # a per-account spend threshold never replaces a quota
    assert "Do not use this metric as the sole indicator" in on_demand.description


def test_the_daily_alarm_counts_input_cache_writes_and_output_of_the_last_hour_times_24(plan_for):
    plan = plan_for(US)
    (daily,) = _by_kind(plan, K2T)["tokens_per_day"].specs
    names = {m.metric_name for m in daily.metrics}
    runtime = plan.metrics.for_endpoint("runtime").token_metrics
    assert names == {runtime["input"], runtime["cache_write"], runtime["output"]}  # cache reads do not count
    assert daily.period_seconds == 3600
    hour = {m.id: 1_000.0 for m in daily.metrics}
    assert evaluate_expression(daily.expression, hour) == pytest.approx(3 * 1_000 * 24)


def test_a_quota_without_a_value_gets_no_alarm_and_a_warning_naming_where_to_set_it(plan_for):
    plan = plan_for(EU)  # no overrides, no overlay
    assert plan.quota_alarms.alarms == ()
    assert {m.kind for m in plan.quota_alarms.missing} >= {"cross_region_tokens_per_minute", "tokens_per_day"}
    (warning,) = [w for w in plan.warnings if w.startswith("no quota value")]
    assert "Cross-Region InvokeModel tokens per minute for Kimi K3.1 Pro" in warning
    assert "cost.quota_alarms.overrides.<model>.<kind>" in warning and "discover --regions eu-central-1" in warning


def test_an_overlay_value_is_used_and_an_override_wins_over_it(plan_for, tmp_path: Path):
    overlay = tmp_path / "quotas.yaml"
    entry = {"value": 300_000, "source": "service-quotas ListServiceQuotas 222222222222 2026-12-02"}
    overlay.write_text(
        yaml.safe_dump(
            {
                "quotas": {
                    K31: {
                        "eu-central-1": {
                            "cross_region_tokens_per_minute": {**entry, "as_of": "2026-12-02", "verified": True}
                        }
                    }
                }
            }
        )
    )
    assert load_catalog((overlay,)).quotas.value(K31, "eu-central-1", "cross_region_tokens_per_minute").value == 300_000
    from_overlay = plan_for(EU, catalog_overlays=[str(overlay)])
    alarm = _by_kind(from_overlay, K31)["cross_region_tokens_per_minute"]
    assert (alarm.quota, alarm.verified, alarm.source) == (300_000, True, entry["source"])
    override = {"cross_region_tokens_per_minute": 400_000, "source": "Service Quotas console 2026-12-02"}
    overridden = plan_for(
        EU, catalog_overlays=[str(overlay)], cost={"quota_alarms": {"headroom": 0.5, "overrides": {"kimi": override}}}
    )
    alarm = _by_kind(overridden, K31)["cross_region_tokens_per_minute"]
    assert alarm.quota == 400_000 and alarm.source.startswith("cost.quota_alarms.overrides.kimi:")
    assert alarm.specs[0].threshold == pytest.approx(200_000)


def test_a_default_only_value_is_reported_as_not_verified(plan_for, tmp_path: Path):
    overlay = tmp_path / "quotas.yaml"
    default = {
        "value": 1e9,
        "source": "service-quotas ListAWSDefaultServiceQuotas",
        "as_of": "2026-12-02",
        "verified": False,
    }
    overlay.write_text(yaml.safe_dump({"quotas": {K31: {"eu-central-1": {"tokens_per_day": default}}}}))
    plan = plan_for(EU, catalog_overlays=[str(overlay)])
    assert any(w.startswith("quota values NOT verified") and "tokens_per_day" in w for w in plan.warnings)


def test_mantle_quotas_watch_the_mantle_token_metrics_by_model(plan_for):
    override = {
        "mantle_input_tokens_per_minute": 200_000,
        "mantle_output_tokens_per_minute": 50_000,
        "source": "x-console",
    }
    plan = plan_for(US, cost={"quota_alarms": {"overrides": {"kimi-k3.1-pro": override}}})
    mantle = plan.metrics.for_endpoint("mantle")
    (spec,) = _by_kind(plan, K31)["mantle_output_tokens_per_minute"].specs
    (metric,) = spec.metrics
    assert (metric.namespace, metric.metric_name) == (mantle.namespace, mantle.token_metrics["output"])
    assert dict(metric.dimensions) == {mantle.dimension: plan.catalog.require_model(K31).mantle_name}
    assert spec.threshold == pytest.approx(0.8 * 50_000)


def test_quota_alarms_off_plans_none(plan_for):
    plan = plan_for(US, cost={"quota_alarms": {"enabled": False}})
    assert plan.quota_alarms.alarms == () and plan.quota_alarms.missing == ()
    suffixes = [s for p in plan.dashboard.panels for s in getattr(p, "alarm_suffixes", ())]
    assert suffixes and not any(s.startswith("quota-") for s in suffixes)
    assert not any(getattr(p, "title", "").startswith("Quota ") for p in plan.dashboard.panels)
    with_alarms = plan_for(US)
    assert any(s.startswith("quota-") for p in with_alarms.dashboard.panels for s in getattr(p, "alarm_suffixes", ()))


def test_a_workload_above_a_quota_is_a_contradiction_and_above_headroom_a_warning(plan_for):
    # K2 Thinking: 3,000 requests/day x (3,000 uncached input + 3,000 output) = 18M tokens/day = 12,500 tokens/minute
    def quota(tpm: float) -> dict:
        return {
            "cost": {
                "quota_alarms": {
                    "overrides": {"kimi-k2-thinking": {"on_demand_tokens_per_minute": tpm, "source": "console"}}
                }
            }
        }

    with pytest.raises(ConfigError) as info:
        plan_for(US, **quota(12_000))
    (problem,) = info.value.problems
    assert problem.path == "cost.workload" and "12,500 tokens/minute on moonshot.kimi-k2-thinking" in str(problem.got)
    assert "cost.quota_alarms.overrides.kimi-k2-thinking.on_demand_tokens_per_minute" in problem.allowed
    warned = plan_for(US, **quota(14_000))  # 12,500 > 0.8 x 14,000
    assert any("above cost.quota_alarms.headroom" in w and K2T in w for w in warned.warnings)
    quiet = plan_for(US, **quota(20_000))
    assert not any("above cost.quota_alarms.headroom" in w for w in quiet.warnings)


def test_an_override_for_a_model_that_is_not_configured_is_refused(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(
            EU, cost={"quota_alarms": {"overrides": {"kimi-k2-thinking": {"tokens_per_day": 1e9, "source": "console"}}}}
        )
    assert "cost.quota_alarms.overrides.kimi-k2-thinking: got 'kimi-k2-thinking'; a model of `models`" in str(
        info.value
    )


BAD_SETTINGS = {
    "headroom above 1": ("cost: {quota_alarms: {headroom: 1.5}}", "cost.quota_alarms.headroom: got 1.5"),
    "headroom 0": ("cost: {quota_alarms: {headroom: 0}}", "cost.quota_alarms.headroom: got 0"),
    "unknown kind": (
        "cost: {quota_alarms: {overrides: {kimi: {requests_per_minute: 5, source: console}}}}",
        "cost.quota_alarms.overrides.kimi.requests_per_minute",
    ),
    "no source": (
        "cost: {quota_alarms: {overrides: {kimi: {tokens_per_day: 5}}}}",
        "cost.quota_alarms.overrides.kimi.source",
    ),
    "no value": ("cost: {quota_alarms: {overrides: {kimi: {source: console}}}}", "give at least one of"),
    "enabled not a bool": ("cost: {quota_alarms: {enabled: 'yes'}}", "cost.quota_alarms.enabled: got 'yes'"),
}


@pytest.mark.parametrize("case", BAD_SETTINGS, ids=list(BAD_SETTINGS))
def test_bad_quota_settings_are_refused_at_the_edge_with_exit_2(tmp_path: Path, case: str):
    text, fragment = BAD_SETTINGS[case]
    config = tmp_path.parent / f"{tmp_path.name}-quota.yaml"
    config.write_text(f"name: lz-quota\n{text}\n")
    result, seconds = validate(tmp_path, "--config", str(config))
    assert_refused(result, seconds, fragment)


def test_the_review_lists_each_quota_alarm_with_value_source_date_and_verified_flag(plan_for):
    from landing_zone.review.render_md import quota_rows

    plan = plan_for(US)
    row = quota_rows(
        {
            "quota_alarms": [a.as_dict() for a in plan.quota_alarms.alarms],
            "quotas_without_value": [f"{m.model_id} {m.kind}" for m in plan.quota_alarms.missing],
        }
    )
    for alarm in plan.quota_alarms.alarms:
        assert f"{alarm.model_id} {alarm.kind}: quota {alarm.quota:,.0f} {alarm.unit}" in row
        assert f"alarm above {alarm.threshold:,.0f} (80%); verified, {alarm.source}, as of config" in row
    assert f"no value, no alarm: {K31} mantle_input_tokens_per_minute" in row


def test_the_offline_dashboard_draws_the_quota_panels_from_the_synthetic_day(plan_for, tmp_path: Path):
    from landing_zone.finops.dashboard_png import MANTLE_SHARE, layout, render_dashboard, synthetic_day

    plan = plan_for(US)
    drawn = {panel.title: series for panel, series in layout(plan, synthetic_day(plan))}
    (title,) = [t for t in drawn if t.startswith(f"Quota {K31}: cross region")]
    (series,) = drawn[title]
    w = plan.config.cost.workload
    part = w.requests_per_day * (1 - MANTLE_SHARE)  # the synthetic day: all runtime traffic on the application profile
    counted_per_minute = (
        part * (w.input_tokens_per_request * (1 - w.cached_input_fraction) + w.output_tokens_per_request) / 1440
    )
    # the day's mean of the line is the workload's tokens per minute on the application profile (all of K3.1's)
    assert sum(series[1]) / len(series[1]) == pytest.approx(counted_per_minute, rel=0.02)
    render_dashboard(plan, tmp_path / "dashboard.png")
    assert (tmp_path / "dashboard.png").stat().st_size > 0
