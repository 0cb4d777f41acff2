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
