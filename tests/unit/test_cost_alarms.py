"""Pins the spend-alarm builder: metric names from the catalog, the USD/hour expression, splitting at the
metric-math limit, metric IDs, the threshold formula and the plan helpers.

Coefficients, for the bedrock prices 3.00 (input) / 0.75 (cache read) / 3.00 (cache write) / 12.00 (output)
USD per 1M tokens and a 300 s period (3600 / 300 = 12 periods per hour), in USD/hour per token counted in
one period:

    input        3.00 / 1e6 * 12 = 0.000036
    cache read   0.75 / 1e6 * 12 = 0.000009
    cache write  3.00 / 1e6 * 12 = 0.000036
    output      12.00 / 1e6 * 12 = 0.000144
"""

from __future__ import annotations

import math
import re

import pytest
import yaml

from landing_zone.core.catalog import CATALOG_DIR, load_catalog
from landing_zone.core.catalog.metrics import (
    DEFAULT_METRICS_PATH,
    TOKEN_KINDS,
    MetricSource,
    load_metric_catalog,
)
from landing_zone.core.catalog.prices import TokenPrices, load_price_catalog
from landing_zone.cost.alarms import (
    AlarmSpec,
    application_profile_marker,
    build_spend_alarms,
    build_usage_alarms,
    coverage_note,
    evaluate_expression,
    hourly_threshold_usd,
    is_valid_metric_id,
    spend_sources,
)
from landing_zone.cost.budget import config_workload
from landing_zone.cost.pricing import Workload, estimate_cost
from landing_zone.errors import CostAlarmError, LandingZoneError

RUNTIME_METRICS = {
    "input": "InputTokenCount",
    "cache_read": "CacheReadInputTokenCount",
    "cache_write": "CacheWriteInputTokenCount",
    "output": "OutputTokenCount",
}


@pytest.fixture(scope="module")
def bedrock() -> TokenPrices:
    return load_price_catalog().prices("bedrock")


@pytest.fixture(scope="module")
def limit() -> int:
    return load_catalog().limit("metric_math_max_metrics")


def runtime_source(value: str, label: str = "") -> MetricSource:
    return MetricSource("AWS/Bedrock", "ModelId", value, RUNTIME_METRICS, label=label)


def sources_of(plan, metric_catalog=None, applications_with_profiles=()):
    return spend_sources(
        plan.routing,
        home_region=plan.config.home_region,
        metric_catalog=metric_catalog or plan.metrics,
        applications_with_profiles=applications_with_profiles,
    )


def evaluate(expression: str, tokens: dict[str, float]) -> float:
    """The library's offline evaluator (missing IDs count as FILL's 0); checked below against hand arithmetic."""
    from landing_zone.cost.alarms import evaluate_expression

    return evaluate_expression(expression, tokens)


# --------------------------------------------------------------------------------------------------
# metrics.yaml
# --------------------------------------------------------------------------------------------------


def test_metric_catalog_runtime_names_are_documented_with_the_cache_names_as_assumptions():
    catalog = load_metric_catalog()
    runtime = catalog.for_endpoint("runtime")
    assert runtime.namespace == "AWS/Bedrock"
    assert runtime.dimension == "ModelId"
    assert dict(runtime.token_metrics) == RUNTIME_METRICS
    assert (
        runtime.other_metrics["invocations"] == "Invocations"
        and runtime.other_metrics["throttles"] == "InvocationThrottles"
    )
    assert runtime.verified is True and runtime.as_of == "2026-12-01"
    assert "https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring-runtime-metrics.html" in runtime.source
    # the cache metric names conflict between AWS's pages: explicit, reported assumptions
    assert runtime.unverified_metrics == ("cache_read", "cache_write") and not runtime.fully_verified
    assert any("CacheReadInputTokens" in a for a in runtime.assumptions)
    assert runtime.application_profile_counting == "separate"


def test_metric_catalog_mantle_names_are_the_documented_ones():
    """'Monitor bedrock-mantle inference using CloudWatch metrics': TotalInputTokens / TotalOutputTokens at the
    Model level; InputTokenCount / OutputTokenCount do not exist in AWS/BedrockMantle."""
    mantle = load_metric_catalog().for_endpoint("mantle")
    assert mantle.namespace == "AWS/BedrockMantle"
    assert mantle.dimension == "Model"
    assert dict(mantle.token_metrics) == {"input": "TotalInputTokens", "output": "TotalOutputTokens"}
    assert mantle.verified is True and mantle.fully_verified
    assert "monitoring-mantle-metrics.html" in mantle.source
    assert dict(mantle.other_metrics) == {"invocations": "Inferences", "client_errors": "InferenceClientErrors"}


def test_the_metric_limit_lives_in_limits_yaml_only():
    assert load_catalog().limit("metric_math_max_metrics") == 10
    raw = yaml.safe_load(DEFAULT_METRICS_PATH.read_text())
    assert "max_metrics_per_alarm" not in str(raw) and "metric_math_max_metrics" not in raw
    assert DEFAULT_METRICS_PATH.parent == CATALOG_DIR


def test_unknown_endpoint_is_an_error_naming_the_known_ones():
    with pytest.raises(CostAlarmError, match="one of: mantle, runtime"):
        load_metric_catalog().for_endpoint("batch")


def test_bad_metric_catalog_is_reported(tmp_path):
    bad = tmp_path / "metrics.yaml"
    bad.write_text(DEFAULT_METRICS_PATH.read_text().replace("cache_read: CacheReadInputTokenCount", "cached: X", 1))
    with pytest.raises(CostAlarmError, match=r"endpoints\.runtime\.token_metrics"):
        load_metric_catalog(bad)


# --------------------------------------------------------------------------------------------------
# The expression
# --------------------------------------------------------------------------------------------------


def test_expression_contains_the_prices_and_the_period_factor(bedrock, limit):
    (alarm,) = build_spend_alarms(
        [runtime_source("us.moonshotai.kimi-k3.1-pro")],
        bedrock,
        threshold_usd_per_hour=25.0,
        max_metrics_per_alarm=limit,
    )
    assert alarm.expression == (
        "(FILL(m0_in, 0) * 3 + FILL(m0_cr, 0) * 0.75 + FILL(m0_cw, 0) * 3.75 + FILL(m0_out, 0) * 12) / 1000000 * 12"
    )
    # The coefficients of the module docstring, one token of each kind in a 300 s period:
    for metric_id, usd_per_hour in {
        "m0_in": 0.000036,
        "m0_cr": 0.000009,
        "m0_cw": 0.000045,
        "m0_out": 0.000144,
    }.items():
        assert evaluate(alarm.expression, {metric_id: 1}) == pytest.approx(usd_per_hour, rel=1e-12)
    # 1M input + 2M cache read + 0.5M output in 5 minutes = 3 + 1.5 + 6 = 10.5 USD per 5 min = 126 USD/hour.
    assert evaluate(alarm.expression, {"m0_in": 1e6, "m0_cr": 2e6, "m0_out": 5e5}) == pytest.approx(126.0)
    assert evaluate(alarm.expression, {}) == 0.0  # FILL(m, 0): no data counts as zero
    with pytest.raises(LandingZoneError):
        evaluate("__import__('os')", {})  # only the arithmetic subset the alarms use is understood


@pytest.mark.parametrize(("period", "factor"), [(60, "60"), (300, "12"), (420, "8.571428571428571"), (3600, "1")])
def test_period_factor_is_3600_over_period(bedrock, period, factor):
    (alarm,) = build_spend_alarms(
        [runtime_source("m")], bedrock, threshold_usd_per_hour=1, max_metrics_per_alarm=10, period_seconds=period
    )
    assert alarm.expression.endswith(f" / 1000000 * {factor}")
    assert {m.period for m in alarm.metrics} == {period}
    assert alarm.period_seconds == period
    # 1M output tokens in one period at 12 USD/1M = 12 USD per period.
    assert evaluate(alarm.expression, {"m0_out": 1e6}) == pytest.approx(12 * 3600 / period)


def test_other_prices_and_tiny_prices_are_written_as_plain_decimals():
    prices = load_price_catalog().prices("kimi-api")
    (alarm,) = build_spend_alarms([runtime_source("m")], prices, threshold_usd_per_hour=1, max_metrics_per_alarm=10)
    assert "FILL(m0_in, 0) * 2 + FILL(m0_cr, 0) * 0.2 + FILL(m0_cw, 0) * 2 + FILL(m0_out, 0) * 10" in alarm.expression
    tiny = TokenPrices("tiny", 0.00001, 0.0, 1e-7, 123456789.5, source="test", as_of="2026-11-08", verified=False)
    (alarm,) = build_spend_alarms([runtime_source("m")], tiny, threshold_usd_per_hour=1, max_metrics_per_alarm=10)
    assert "e-" not in alarm.expression and "e+" not in alarm.expression
    assert "* 0.00001 +" in alarm.expression and "* 0.0000001 +" in alarm.expression
    assert "* 123456789.5)" in alarm.expression


def test_metric_specs_sum_the_source_metrics(bedrock):
    (alarm,) = build_spend_alarms(
        [runtime_source("arn:aws:bedrock:us-east-1:111111111111:application-inference-profile/abc123")],
        bedrock,
        threshold_usd_per_hour=5,
        max_metrics_per_alarm=10,
    )
    assert [(m.id, m.metric_name) for m in alarm.metrics] == [
        ("m0_in", "InputTokenCount"),
        ("m0_cr", "CacheReadInputTokenCount"),
        ("m0_cw", "CacheWriteInputTokenCount"),
        ("m0_out", "OutputTokenCount"),
    ]
    for m in alarm.metrics:
        assert m.namespace == "AWS/Bedrock"
        assert m.statistic == "Sum"
        assert m.period == 300
        assert dict(m.dimensions) == {
            "ModelId": "arn:aws:bedrock:us-east-1:111111111111:application-inference-profile/abc123"
        }
    assert set(alarm.using_metrics) == {"m0_in", "m0_cr", "m0_cw", "m0_out"}
    assert alarm.threshold == 5.0 and alarm.threshold_unit == "USD/hour"
    assert alarm.comparison_operator == "GreaterThanThreshold"
    assert alarm.treat_missing_data == "notBreaching"
    assert alarm.name_suffix == "spend" and (alarm.part, alarm.parts) == (1, 1)
    assert "5.00 USD/hour" in alarm.description and "'bedrock'" in alarm.description
    assert alarm.as_dict()["metrics"][0]["dimensions"] == dict(alarm.metrics[0].dimensions)


def test_only_the_metrics_a_source_has_are_used(bedrock):
    mantle = load_metric_catalog().for_endpoint("mantle").source_for("moonshotai.kimi-k3.1-pro")
    (alarm,) = build_spend_alarms([mantle], bedrock, threshold_usd_per_hour=1, max_metrics_per_alarm=10)
    assert [m.id for m in alarm.metrics] == ["m0_in", "m0_out"]
    assert {m.namespace for m in alarm.metrics} == {"AWS/BedrockMantle"}
    assert dict(alarm.metrics[0].dimensions) == {"Model": "moonshotai.kimi-k3.1-pro"}
    assert alarm.expression == "(FILL(m0_in, 0) * 3 + FILL(m0_out, 0) * 12) / 1000000 * 12"
    assert alarm.unverified_sources == ()  # the Mantle metric names are documented


# --------------------------------------------------------------------------------------------------
# Splitting at the metric-math limit
# --------------------------------------------------------------------------------------------------


def test_three_sources_of_four_metrics_split_into_eight_and_four(bedrock, limit):
    sources = [runtime_source(f"{p}.moonshotai.kimi-k3.1-pro") for p in ("us", "eu", "global")]
    alarms = build_spend_alarms(sources, bedrock, threshold_usd_per_hour=30.0, max_metrics_per_alarm=limit)
    assert [len(a.metrics) for a in alarms] == [8, 4]
    assert [a.name_suffix for a in alarms] == ["spend-1-of-2", "spend-2-of-2"]
    assert [(a.part, a.parts) for a in alarms] == [(1, 2), (2, 2)]
    # Every alarm compares its own part with the FULL threshold.
    assert [a.threshold for a in alarms] == [30.0, 30.0]
    # All metrics of one source stay in one alarm.
    assert {m.dimensions["ModelId"] for m in alarms[0].metrics} == {
        "us.moonshotai.kimi-k3.1-pro",
        "eu.moonshotai.kimi-k3.1-pro",
    }
    assert {m.dimensions["ModelId"] for m in alarms[1].metrics} == {"global.moonshotai.kimi-k3.1-pro"}
    assert alarms[1].expression.startswith("(FILL(m2_in, 0) * 3 +")
    assert "Part 1 of 2" in alarms[0].description and "full threshold" in alarms[0].description
    note = coverage_note(alarms)
    assert "need 2 alarms" in note
    assert "full threshold of 30.00 USD/hour" in note
    assert "without any alarm firing" in note
    assert "60.00 USD/hour" in note  # worst case: parts x threshold


def test_metric_ids_are_valid_and_unique_across_alarms(bedrock):
    sources = [runtime_source(f"model-{i}") for i in range(7)]
    alarms = build_spend_alarms(sources, bedrock, threshold_usd_per_hour=1, max_metrics_per_alarm=10)
    ids = [m.id for a in alarms for m in a.metrics]
    assert len(ids) == 28 == len(set(ids))
    for metric_id in ids:
        assert re.fullmatch(r"[a-z][a-zA-Z0-9_]*", metric_id), metric_id
        assert is_valid_metric_id(metric_id)
        assert metric_id in next(a.expression for a in alarms if metric_id in a.using_metrics)
    assert all(len(a.metrics) <= 10 for a in alarms)
    assert [len(a.metrics) for a in alarms] == [8, 8, 8, 4]


@pytest.mark.parametrize("bad", ["", "M0", "0m", "m-0", "m.0", "_m", "m 0"])
def test_invalid_metric_ids_are_recognised(bad):
    assert not is_valid_metric_id(bad)


def test_sources_are_packed_in_order_up_to_the_limit(bedrock):
    mantle = load_metric_catalog().for_endpoint("mantle")
    sources = [runtime_source("a"), mantle.source_for("b"), runtime_source("c"), runtime_source("d")]
    alarms = build_spend_alarms(sources, bedrock, threshold_usd_per_hour=1, max_metrics_per_alarm=10)
    assert [len(a.metrics) for a in alarms] == [10, 4]  # 4 + 2 + 4 fill the first alarm exactly
    assert [len(a.source_labels) for a in alarms] == [3, 1]


def test_a_source_larger_than_the_limit_is_an_error(bedrock):
    with pytest.raises(CostAlarmError, match=r"4 metrics.*at most 3 metrics") as info:
        build_spend_alarms(
            [runtime_source("big", label="big source")], bedrock, threshold_usd_per_hour=1, max_metrics_per_alarm=3
        )
    assert "big source" in str(info.value)
    assert isinstance(info.value, LandingZoneError)


def test_one_alarm_coverage_note_and_description_limit(bedrock):
    long_sources = [runtime_source("x" * 300 + str(i)) for i in range(2)]
    (alarm,) = build_spend_alarms(long_sources, bedrock, threshold_usd_per_hour=12.5, max_metrics_per_alarm=10)
    assert len(alarm.description) <= 1024
    note = coverage_note([alarm])
    assert note.startswith("One alarm covers all 2 metric source(s)")
    assert "12.50 USD/hour" in note and "Budgets" in note
    assert coverage_note([]) == "No spend alarm: no metric source."


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"threshold_usd_per_hour": 0}, "threshold_usd_per_hour"),
        ({"threshold_usd_per_hour": -1}, "threshold_usd_per_hour"),
        ({"threshold_usd_per_hour": math.nan}, "threshold_usd_per_hour"),
        ({"threshold_usd_per_hour": True}, "threshold_usd_per_hour"),
        ({"max_metrics_per_alarm": 0}, "max_metrics_per_alarm"),
        ({"max_metrics_per_alarm": 2.5}, "max_metrics_per_alarm"),
        ({"period_seconds": 0}, "period_seconds"),
        ({"period_seconds": 90}, "period_seconds"),
        ({"period_seconds": 300.0}, "period_seconds"),
        ({"period_seconds": 172800}, "period_seconds"),
    ],
)
def test_invalid_alarm_arguments_name_the_field(bedrock, kwargs, field):
    args = {"threshold_usd_per_hour": 1.0, "max_metrics_per_alarm": 10, **kwargs}
    with pytest.raises(CostAlarmError) as info:
        build_spend_alarms([runtime_source("m")], bedrock, **args)
    assert info.value.field == field
    assert "allowed" in str(info.value)


def test_no_sources_and_duplicate_sources_are_errors(bedrock):
    with pytest.raises(CostAlarmError, match="at least one metric source"):
        build_spend_alarms([], bedrock, threshold_usd_per_hour=1, max_metrics_per_alarm=10)
    with pytest.raises(CostAlarmError, match="it would count twice"):
        build_spend_alarms(
            [runtime_source("m"), runtime_source("m")], bedrock, threshold_usd_per_hour=1, max_metrics_per_alarm=10
        )


def test_metric_source_validation():
    with pytest.raises(CostAlarmError, match="token kinds"):
        MetricSource("AWS/Bedrock", "ModelId", "m", {"prompt": "InputTokenCount"})
    with pytest.raises(CostAlarmError, match="non-empty"):
        MetricSource("AWS/Bedrock", "ModelId", "", RUNTIME_METRICS)
    reordered = MetricSource("AWS/Bedrock", "ModelId", "m", dict(reversed(list(RUNTIME_METRICS.items()))))
    assert tuple(reordered.token_metrics) == TOKEN_KINDS


# --------------------------------------------------------------------------------------------------
# Threshold and plan helpers
# --------------------------------------------------------------------------------------------------


def test_hourly_threshold_is_monthly_over_hours_times_factor():
    assert hourly_threshold_usd(7300, 730, 2) == 20.0
    assert hourly_threshold_usd(9362.25, 730, 1) == pytest.approx(12.825)
    assert hourly_threshold_usd(1000, 730, 0.5) == pytest.approx(1000 / 730 * 0.5)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((0, 730, 1), "monthly_budget_usd"),
        ((-5, 730, 1), "monthly_budget_usd"),
        (("100", 730, 1), "monthly_budget_usd"),
        ((100, 0, 1), "hours_per_month"),
        ((100, math.inf, 1), "hours_per_month"),
        ((100, 730, 0), "factor"),
        ((100, 730, math.nan), "factor"),
        ((100, 730, True), "factor"),
    ],
)
def test_hourly_threshold_validates_every_argument(args, field):
    with pytest.raises(CostAlarmError) as info:
        hourly_threshold_usd(*args)
    assert info.value.field == field
    assert "a finite number > 0" in str(info.value)


def test_metric_sources_of_the_default_plan(plan_for, bedrock):
    plan = plan_for()
    sources = sources_of(plan)
    assert [(s.namespace, s.dimension_name, s.dimension_value, s.verified) for s in sources] == [
        ("AWS/Bedrock", "ModelId", "us.moonshotai.kimi-k3.1-pro", False),  # cache metric names are assumptions
        ("AWS/BedrockMantle", "Model", "moonshotai.kimi-k3.1-pro", True),
    ]
    alarms = build_spend_alarms(
        sources,
        bedrock,
        threshold_usd_per_hour=20.0,
        max_metrics_per_alarm=plan.catalog.limit("metric_math_max_metrics"),
    )
    assert len(alarms) == 1 and len(alarms[0].metrics) == 6
    assert {m.metric_name for m in alarms[0].metrics if m.namespace == "AWS/BedrockMantle"} == {
        "TotalInputTokens",
        "TotalOutputTokens",
    }
    assert "NOT verified" in coverage_note(alarms) and "AWS/BedrockMantle" not in alarms[0].expression


# --------------------------------------------------------------------------------------------------
# Worked examples: the alarm expression, evaluated offline, equals the pure cost model
# --------------------------------------------------------------------------------------------------


def _values_for(alarm, series):
    """Metric ID -> the period's Sum, from {(namespace, dimension value, metric name): tokens}."""
    return {m.id: series.get((m.namespace, next(iter(m.dimensions.values())), m.metric_name)) for m in alarm.metrics}


def test_worked_example_runtime_and_mantle_usd_per_hour_equals_the_cost_model(plan_for, bedrock):
    """One 5-minute period: 2M input, 3M cache-read, 0.5M cache-write and 0.4M output tokens on the US profile,
    and 1M input + 0.2M output on Mantle."""
    from landing_zone.cost.alarms import evaluate_expression

    plan = plan_for()
    period = 300
    sources = sources_of(plan)
    (alarm,) = build_spend_alarms(
        sources, bedrock, threshold_usd_per_hour=20.0, max_metrics_per_alarm=10, period_seconds=period
    )
    profile, model = "us.moonshotai.kimi-k3.1-pro", "moonshotai.kimi-k3.1-pro"
    series = {
        ("AWS/Bedrock", profile, "InputTokenCount"): 2_000_000,
        ("AWS/Bedrock", profile, "CacheReadInputTokenCount"): 3_000_000,
        ("AWS/Bedrock", profile, "CacheWriteInputTokenCount"): 500_000,
        ("AWS/Bedrock", profile, "OutputTokenCount"): 400_000,
        ("AWS/BedrockMantle", model, "TotalInputTokens"): 1_000_000,
        ("AWS/BedrockMantle", model, "TotalOutputTokens"): 200_000,
    }
    usd_per_hour = evaluate_expression(alarm.expression, _values_for(alarm, series))
    # the cost model: the same tokens per period x 12 periods per hour, priced by pricing.estimate_cost
    runtime = estimate_cost(
        Workload(
            requests_per_day=24 * 12,
            input_tokens_per_request=5_500_000,
            output_tokens_per_request=400_000,
            cached_input_fraction=3 / 5.5,
            cache_write_fraction=0.5 / 5.5,
        ),
        bedrock,
        hours_per_month=730,
    )
    mantle = estimate_cost(
        Workload(
            requests_per_day=24 * 12,
            input_tokens_per_request=1_000_000,
            output_tokens_per_request=200_000,
            cached_input_fraction=0.0,
        ),
        bedrock,
        hours_per_month=730,
    )
    assert usd_per_hour == pytest.approx(runtime.hourly_usd + mantle.hourly_usd, rel=1e-12)
    # by hand, at 3.00 / 0.75 / 3.75 / 12.00 USD per 1M: runtime 15.9375 + Mantle 5.40 per period, x 12
    assert usd_per_hour == pytest.approx(
        (2 * 3.0 + 3 * 0.75 + 0.5 * bedrock.cache_write_usd_per_million + 0.4 * 12.0 + 1 * 3.0 + 0.2 * 12.0) * 12
    )


@pytest.mark.parametrize("counting", ["separate", "also-under-source"])
def test_each_token_through_an_application_profile_is_counted_once(plan_for, bedrock, tmp_path, counting):
    """Whichever way AWS/Bedrock counts a call through an application profile, the alarm's series count each
    token once — given the catalog states the way (application_profile_counting)."""
    from landing_zone.cost.alarms import evaluate_expression

    raw = yaml.safe_load(DEFAULT_METRICS_PATH.read_text())
    raw["endpoints"]["runtime"]["application_profile_counting"] = counting
    path = tmp_path / "metrics.yaml"
    path.write_text(yaml.safe_dump(raw))
    catalog = load_metric_catalog(path)
    plan = plan_for()
    # the plan names the profile's series by a marker; the CDK layer puts the profile's ARN in its place
    arn = application_profile_marker("workload")
    sources = sources_of(plan, catalog, ["workload"])
    (alarm,) = build_spend_alarms(
        [s for s in sources if s.namespace == "AWS/Bedrock"],
        bedrock,
        threshold_usd_per_hour=20.0,
        max_metrics_per_alarm=10,
    )
    profile = "us.moonshotai.kimi-k3.1-pro"
    app_tokens, direct_tokens = 1_000_000, 250_000  # output tokens in one period
    series = {("AWS/Bedrock", arn, "OutputTokenCount"): app_tokens}
    # the world as the catalog says it is: under 'also-under-source' the profile ID carries the app calls too
    series[("AWS/Bedrock", profile, "OutputTokenCount")] = direct_tokens + (app_tokens if counting != "separate" else 0)
    usd_per_hour = evaluate_expression(alarm.expression, _values_for(alarm, series))
    assert usd_per_hour == pytest.approx((app_tokens + direct_tokens) / 1e6 * bedrock.output_usd_per_million * 12)


def test_monthly_budget_computed_from_the_workload_and_headroom(plan_for):
    plan = plan_for()
    budget = plan.budget
    # bedrock: 30M uncached x 3 + 30M cached x 0.75 + 12M out x 12 = 256.5 USD/day; x 730/24; x 1.2
    assert budget.estimate.monthly_usd == pytest.approx(256.5 * 730 / 24)
    assert budget.usd == pytest.approx(256.5 * 730 / 24 * 1.2)
    assert budget.explicit is False and "budget_headroom 1.2" in budget.basis
    assert budget.hourly_usd == pytest.approx(budget.usd / 730)
    workload = config_workload(plan.config)
    assert budget.estimate == estimate_cost(workload, plan.prices.prices("bedrock"), hours_per_month=730)


def test_monthly_budget_explicit(plan_for):
    budget = plan_for(cost={"monthly_budget_usd": 5000, "price_source": "kimi-api"}).budget
    assert budget.usd == 5000.0 and budget.explicit is True
    assert budget.estimate.price_source == "kimi-api"
    assert hourly_threshold_usd(budget.usd, budget.hours_per_month, 2) == pytest.approx(5000 / 730 * 2)


def test_alarm_spec_is_plain_data(bedrock):
    (alarm,) = build_spend_alarms([runtime_source("m")], bedrock, threshold_usd_per_hour=1, max_metrics_per_alarm=10)
    assert isinstance(alarm, AlarmSpec)
    data = alarm.as_dict()
    assert data["expression"] == alarm.expression and data["parts"] == 1
    yaml.safe_dump(data)  # only plain types inside


# --------------------------------------------------------------------------------------------------
# The plan's alarms (computed once; the stack only renders them)
# --------------------------------------------------------------------------------------------------


def test_the_plan_decides_the_alarms_at_its_budget(plan_for, bedrock):
    plan = plan_for()
    alarms = plan.cost_alarms
    assert alarms.threshold_usd_per_hour == pytest.approx(
        hourly_threshold_usd(plan.budget.usd, plan.prices.hours_per_month, plan.config.cost.alarm_factor)
    )
    # the default configuration has one application with a profile, counted apart (application_profile_counting)
    assert list(alarms.sources) == sources_of(plan, applications_with_profiles=[a.app.name for a in plan.applications])
    assert [s.dimension_value for s in alarms.sources][-1] == application_profile_marker(plan.applications[0].app.name)
    assert [a.threshold for a in alarms.spend] == [alarms.threshold_usd_per_hour] * len(alarms.spend)
    assert alarms.coverage_note == coverage_note(alarms.spend)


def test_mantle_usage_alarm_fires_on_one_token_and_not_on_none(plan_for):
    """No magic near-zero USD threshold: the usage alarm counts tokens and compares the count with 0."""
    plan = plan_for()
    (usage,) = plan.cost_alarms.mantle_usage
    assert usage.threshold == 0 and usage.threshold_unit == "tokens per period"
    assert usage.comparison_operator == "GreaterThanThreshold" and usage.threshold_overridable is False
    assert {m.namespace for m in usage.metrics} == {"AWS/BedrockMantle"}
    ids = [m.id for m in usage.metrics]
    assert evaluate_expression(usage.expression, {}) == 0  # no data point: no traffic, no alarm
    assert evaluate_expression(usage.expression, {ids[-1]: 1}) == 1 > usage.threshold  # one output token: alarm
    assert evaluate_expression(usage.expression, dict.fromkeys(ids, 10)) == 10 * len(ids)


def test_mantle_usage_alarms_follow_the_switch(plan_for):
    assert plan_for(cost={"alert_on_mantle_usage": False}).cost_alarms.mantle_usage == ()


def test_usage_alarms_validate_like_spend_alarms():
    with pytest.raises(CostAlarmError, match="at least one metric source"):
        build_usage_alarms([], max_metrics_per_alarm=10)
    with pytest.raises(CostAlarmError, match="period_seconds"):
        build_usage_alarms([runtime_source("m")], max_metrics_per_alarm=10, period_seconds=90)
