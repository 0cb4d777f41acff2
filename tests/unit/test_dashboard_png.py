"""`make cost` renders the operations dashboard offline for a synthetic day, with the live dashboard's formulas."""

from __future__ import annotations

import re
import struct

import pytest

from landing_zone.cost.alarms import evaluate_expression
from landing_zone.cost.pricing import Workload, estimate_cost
from landing_zone.finops import DASHBOARD_PNG, write_cost_report
from landing_zone.finops.dashboard_png import MANTLE_SHARE, STEPS, SyntheticDay, synthetic_day


def test_the_synthetic_day_is_the_configured_workload(plan_for):
    plan = plan_for()
    day = synthetic_day(plan)
    w = plan.config.cost.workload
    output = sum(rate for (ns, _, name), rate in day.rates.items() if name == "OutputTokenCount")
    mantle_output = sum(rate for (ns, _, name), rate in day.rates.items() if name == "TotalOutputTokens")
    assert output + mantle_output == pytest.approx(w.requests_per_day * w.output_tokens_per_request / 86400)
    assert mantle_output == pytest.approx(MANTLE_SHARE * (output + mantle_output))
    assert sum(SyntheticDay.curve(s) for s in range(STEPS)) / STEPS == pytest.approx(1.0)  # the curve keeps the mean


def test_the_rendered_spend_equals_the_cost_model_at_the_days_mean(plan_for, tmp_path):
    """Worked example: the application line, evaluated offline at the mean rate, is 90 % of the model's hourly
    cost (10 % of the synthetic day is on Mantle), and the cost report prints it."""
    plan = plan_for()
    paths = write_cost_report(plan, tmp_path)
    png = paths["dashboard"].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width >= 1200 and height >= 1000
    assert paths["dashboard"].name == DASHBOARD_PNG
    w = plan.config.cost.workload
    hourly = estimate_cost(
        Workload(w.requests_per_day, w.input_tokens_per_request, w.output_tokens_per_request, w.cached_input_fraction),
        plan.token_prices,
        hours_per_month=plan.prices.hours_per_month,
    ).hourly_usd
    day = synthetic_day(plan)
    spend = plan.dashboard.graphs[0]
    (app,) = [line for line in spend.lines if line.label.startswith("application ")]
    usd = evaluate_expression(app.expression or "", {m.id: day.value(m, None, spend.period) for m in app.metrics})
    assert usd == pytest.approx((1 - MANTLE_SHARE) * hourly)
    text = paths["markdown"].read_text()
    assert "## Operations dashboard" in text
    assert re.search(rf"- application workload: {usd:,.2f} USD/hour", text)
    assert f"spend alarm at {plan.cost_alarms.threshold_usd_per_hour:,.2f} USD/hour" in text


def test_the_picture_has_no_empty_panel_and_legible_text(plan_for):
    """Every drawn graph has a line with data; live-only graphs are listed in one text panel, not drawn empty; text
    is at least 9 pt (12 px at 100 dpi) — the legends used to be 5 pt and hid the alarm and budget labels."""
    from landing_zone.cost.dashboard import GraphPanel, TextPanel
    from landing_zone.finops import dashboard_png

    plan = plan_for()
    drawn = dashboard_png.layout(plan, synthetic_day(plan))
    graphs = [(p, s) for p, s in drawn if isinstance(p, GraphPanel)]
    assert graphs and all(s and any(max(v) > 0 for _, v in s) for _, s in graphs)
    assert not any(p.title == "Tokens per minute: cache write" for p, _ in graphs)  # no cache writes configured
    last = drawn[-1][0]
    assert isinstance(last, TextPanel) and "Invocation latency" in last.markdown
    assert min(dashboard_png.LEGEND_PT, dashboard_png.TICK_PT, dashboard_png.TEXT_PT) >= 9
    cumulative = next(p for p, _ in graphs if p.cumulative)
    assert any(line.label.startswith("mantle ") for line in cumulative.lines)
