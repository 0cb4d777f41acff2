"""Issue 26: with access.mantle_projects each application's spend alarm and dashboard line read its Mantle Project's
series (AWS/BedrockMantle, dimension Project, documented at Account / Project / Model / Project+Model levels:
https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring-mantle-metrics.html), at its own budget; the
landing-zone total stays on the Model level (the levels are never summed together)."""

from __future__ import annotations

import pytest

from landing_zone.cost.alarms import evaluate_expression, mantle_project_marker
from landing_zone.cost.dashboard import GraphPanel
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "two-applications-mantle.yaml"


@pytest.fixture(scope="module")
def plan(plan_for):
    return plan_for(EXAMPLE)


def test_each_application_alarms_on_its_projects_series(plan) -> None:
    alarms = {a.name_suffix: a for a in plan.cost_alarms.application_spend}
    assert sorted(alarms) == ["spend-chat", "spend-search"]
    for name, alarm in alarms.items():
        app = name.removeprefix("spend-")
        assert {(m.namespace, tuple(m.dimensions.items())) for m in alarm.metrics} == {
            ("AWS/BedrockMantle", (("Project", mantle_project_marker(app)),))
        }
        assert {m.metric_name for m in alarm.metrics} == {"TotalInputTokens", "TotalOutputTokens"}
        assert not alarm.threshold_overridable  # its own budget decides it, not the per-account threshold


def test_the_threshold_is_the_applications_own_budget(plan) -> None:
    hours = plan.prices.hours_per_month
    factor = plan.config.cost.alarm_factor
    by_app = {a.name_suffix: a.threshold for a in plan.cost_alarms.application_spend}
    assert by_app["spend-chat"] == pytest.approx(1500 / hours * factor)
    assert by_app["spend-search"] == pytest.approx(600 / hours * factor)


def test_the_project_alarm_prices_tokens_at_the_models_mantle_prices(plan) -> None:
    (alarm,) = [a for a in plan.cost_alarms.application_spend if a.name_suffix == "spend-chat"]
    (source,) = [s for s in plan.cost_alarms.project_sources if s.dimension_value == mantle_project_marker("chat")]
    prices = plan.cost_alarms.prices_of(source)
    values = {m.id: (1_000_000.0 if m.metric_name == "TotalInputTokens" else 0.0) for m in alarm.metrics}
    per_period = prices.input_usd_per_million  # 1M input tokens in one period
    assert evaluate_expression(alarm.expression, values) == pytest.approx(per_period * 3600 / alarm.period_seconds)


def test_the_total_spend_alarm_stays_on_the_model_level(plan) -> None:
    dims = {k for a in plan.cost_alarms.spend for m in a.metrics for k in m.dimensions}
    assert "Project" not in dims


def test_the_dashboard_has_a_line_per_project_with_its_alarm(plan) -> None:
    (panel,) = [
        p for p in plan.dashboard.panels if isinstance(p, GraphPanel) and "each application's Project" in p.title
    ]
    assert [line.label for line in panel.lines] == ["Mantle Project of chat", "Mantle Project of search"]
    assert {a.label.split()[1] for a in panel.annotations} == {"spend-chat", "spend-search"}
    suffixes = {s for p in plan.dashboard.panels if hasattr(p, "alarm_suffixes") for s in p.alarm_suffixes}
    assert {"spend-chat", "spend-search"} <= suffixes


def test_without_projects_there_is_no_project_alarm_or_panel(plan_for) -> None:
    plan = plan_for(EXAMPLE, access={"mantle_projects": False})
    assert plan.cost_alarms.application_spend == () and plan.cost_alarms.project_sources == ()
    assert not [p for p in plan.dashboard.panels if isinstance(p, GraphPanel) and "Project" in p.title]
