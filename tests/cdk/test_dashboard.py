"""The operations dashboard: valid CloudWatch body, only metrics the alarms use or Bedrock publishes, the same
numbers as the cost model, split at the catalog's per-widget limit."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from landing_zone.assembly import load_assembly
from landing_zone.assembly.intrinsics import render
from landing_zone.core.catalog.metrics import load_metric_catalog
from landing_zone.core.catalog.quotas import load_quota_catalog
from landing_zone.cost.alarms import APPLICATION_PROFILE, evaluate_expression
from landing_zone.cost.dashboard import AlarmPanel, GraphPanel, TextPanel, plan_dashboard
from landing_zone.cost.pricing import Workload, estimate_cost
from tests.conftest import EXAMPLES, ROOT

ALL = [None, *EXAMPLES]
IDS = ["default", *[e.stem for e in EXAMPLES]]


def _body(lz) -> dict:
    """The synthesized DashboardBody with its tokens rendered as readable placeholders (valid JSON)."""
    (dash,) = lz.template("cost").find_resources("AWS::CloudWatch::Dashboard").values()
    body = dash["Properties"]["DashboardBody"]
    return json.loads(body if isinstance(body, str) else render(body))


@pytest.mark.parametrize("example", ALL, ids=IDS)
def test_the_dashboard_synthesizes_with_a_valid_body_and_a_url(synth, example):
    lz = synth(example)
    if lz.plan.config.member_baseline.enabled:
        _check_member_dashboard(lz)
        return
    cfg = lz.plan.config
    (dash,) = lz.template("cost").find_resources("AWS::CloudWatch::Dashboard").values()
    assert dash["Properties"]["DashboardName"] == f"{cfg.name}-operations"
    outputs = lz.template("cost").find_outputs("OperationsDashboardUrl")
    assert f"#dashboards/dashboard/{cfg.name}-operations" in json.dumps(outputs)
    body = _body(lz)
    widgets = body["widgets"]
    assert 0 < len(widgets) <= lz.plan.catalog.limit("dashboard_max_widgets")
    total = 0
    for w in widgets:
        assert w["type"] in {"metric", "text", "alarm"}, w["type"]
        assert 0 < w["width"] <= 24 and w["height"] > 0
        props = w["properties"]
        if w["type"] == "text":
            assert props["markdown"].startswith("### ")
            continue
        assert props["title"]
        if w["type"] == "alarm":
            assert props["alarms"]
            continue
        assert props["region"] == cfg.home_region
        assert props["period"] % 60 == 0 and props["view"] == "timeSeries"
        assert props["yAxis"]["left"]["label"], "every graph names its unit"
        ids = set()
        expressions = []
        for entry in props["metrics"]:
            opts = entry[-1] if isinstance(entry[-1], dict) else {}
            if "expression" in opts:
                expressions.append(opts["expression"])
            else:
                total += 1
            if "id" in opts:
                ids.add(opts["id"])
        for expression in expressions:
            for ref in re.findall(r"FILL\(([a-z][A-Za-z0-9_]*)", expression):
                assert ref in ids, f"{props['title']}: {ref} is not defined"
        assert len(props["metrics"]) - len(expressions) <= lz.plan.catalog.limit("dashboard_max_metrics_per_widget")
    assert total <= lz.plan.catalog.limit("dashboard_max_metrics")


@pytest.mark.parametrize("example", ALL, ids=IDS)
def test_every_metric_is_one_the_alarms_use_or_bedrock_publishes(plan_for, example):
    plan = plan_for(example)
    catalog = load_metric_catalog()
    published = {
        (e.namespace, name)
        for e in catalog.endpoints.values()
        for name in (*e.token_metrics.values(), *e.other_metrics.values())
    }
    usage = load_quota_catalog().usage_metric  # the quota panels' EstimatedTPMQuotaUsage (core/catalog/quotas.yaml)
    published.add((usage.namespace, usage.metric_name))
    alarms = plan.cost_alarms
    alarm_series = {(s.namespace, s.dimension_value) for s in (*alarms.sources, *alarms.project_sources)}
    alarm_series |= {  # the quota headroom alarms' series, from the same plan
        (m.namespace, value)
        for spec in plan.quota_alarms.specs
        for m in spec.metrics
        for value in m.dimensions.values()
    }
    for panel in plan.dashboard.graphs:
        for line in panel.lines:
            for m in line.metrics:
                assert (m.namespace, m.metric_name) in published, m
                (value,) = m.dimensions.values()
                assert (m.namespace, value) in alarm_series, f"{panel.title}: {value} is not a series of the alarms"


def test_spend_lines_evaluate_to_the_cost_model(plan_for):
    """Worked example: one 5-minute period of the default workload's tokens on the application profile."""
    plan = plan_for()
    prices = plan.token_prices
    (spend, *_) = plan.dashboard.graphs
    assert spend.title.startswith("Estimated spend by application") and spend.stacked
    (app_line,) = [line for line in spend.lines if line.label.startswith("application ")]
    w = plan.config.cost.workload
    per_period = w.requests_per_day / (24 * 12)  # requests in 5 minutes
    tokens = {
        "input": per_period * w.input_tokens_per_request * (1 - w.cached_input_fraction),
        "cache_read": per_period * w.input_tokens_per_request * w.cached_input_fraction,
        "cache_write": 0.0,
        "output": per_period * w.output_tokens_per_request,
    }
    values = {m.id: tokens[kind] for m, kind in zip(app_line.metrics, app_line.kinds, strict=True)}
    usd_per_hour = evaluate_expression(app_line.expression or "", values)
    model = estimate_cost(
        Workload(w.requests_per_day, w.input_tokens_per_request, w.output_tokens_per_request, w.cached_input_fraction),
        prices,
        hours_per_month=plan.prices.hours_per_month,
    )
    assert usd_per_hour == pytest.approx(model.hourly_usd, rel=1e-12)
    assert usd_per_hour == pytest.approx(256.5 / 24)  # README: 256.50 USD/day
    thresholds = {a.label.split()[0]: a.value for a in spend.annotations}
    assert thresholds["spend"] == pytest.approx(plan.cost_alarms.threshold_usd_per_hour)
    assert thresholds["budget"] == pytest.approx(plan.budget.usd / plan.prices.hours_per_month)


def test_panels_split_at_the_per_widget_limit(plan_for):
    plan = plan_for(applications=[{"name": f"app{i}", "cost_center": f"cc-{i}"} for i in range(12)])
    limit = 8
    small = plan_dashboard(
        name="x",
        region="us-east-1",
        alarms=plan.cost_alarms,
        metric_catalog=plan.metrics,
        prices=plan.token_prices,
        monthly_budget_usd=plan.budget.usd,
        hours_per_month=730,
        max_metrics_per_widget=limit,
    )
    parts = [g for g in small.graphs if g.title.startswith("Estimated spend by application")]
    assert len(parts) > 1 and all(g.metric_count <= limit for g in parts)
    assert all("(part " in g.title for g in parts)
    full = plan.dashboard.graphs[0]
    assert [line.label for g in parts for line in g.lines] == [line.label for line in full.lines]
    labels = {line.label for line in full.lines}
    assert {f"application app{i}" for i in range(12)} <= labels


def test_application_lines_name_the_profile_arn_in_the_template(default_lz):
    body = json.dumps(_body(default_lz))
    assert APPLICATION_PROFILE not in body, "every placeholder is replaced by the profile's ARN"
    assert "InferenceProfileArn" in body


def test_mantle_is_shown_apart_and_said_to_be_outside_invocation_logging(plan_for):
    titles = [p.title for p in plan_for().dashboard.panels]
    assert any("Mantle" in t and "NOT in model invocation logs" in t for t in titles)
    kinds = {type(p) for p in plan_for().dashboard.panels}
    assert {TextPanel, GraphPanel, AlarmPanel} <= kinds


def test_self_hosting_adds_the_node_cost_and_the_break_even(plan_for):
    plan = plan_for(ROOT / "examples" / "self-hosting.yaml")
    (spend, *_) = plan.dashboard.graphs
    assert any(a.label.startswith("self-hosted nodes") for a in spend.annotations)
    (be,) = [g for g in plan.dashboard.graphs if "break-even" in g.title]
    assert be.annotations[0].value > 0 and be.unit == "tokens/s"
    without = replace(plan.dashboard, panels=())
    assert without.metric_count == 0


def _check_member_dashboard(lz) -> None:
    """member_baseline: the cost controls, dashboard included, are in the StackSet's member template."""
    (member,) = load_assembly(lz.outdir).members
    (dash,) = member.resources("AWS::CloudWatch::Dashboard")
    assert dash.prop("DashboardName") == f"{lz.plan.config.name}-operations"
    assert "OperationsDashboardUrl" in member.outputs()
