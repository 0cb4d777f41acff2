"""The synthesized us-single-account template prices Kimi K2 Thinking's tokens at K2 Thinking's own prices.

The figures are computed here from the catalog entries (core/catalog/prices.yaml) and compared with what the cost
stack's template contains: the spend alarms' metric math, the budget amount and the dashboard body.
"""

from __future__ import annotations

import json
import re

import pytest

from landing_zone.core.catalog.prices import BEDROCK_OFFER, TokenPrices, load_price_catalog
from landing_zone.cost.dashboard import lines_of
from landing_zone.cost.pricing import Workload, estimate_cost
from tests.conftest import ROOT

K3_1 = "moonshotai.kimi-k3.1-pro"
K2T = "moonshot.kimi-k2-thinking"
PRICES = load_price_catalog()
_FIELD = {
    "in": "input_usd_per_million",
    "cr": "cache_read_usd_per_million",
    "cw": "cache_write_usd_per_million",
    "out": "output_usd_per_million",
}


def _entry(model_id: str, path: str) -> TokenPrices:
    entry = PRICES.lookup(model_id, BEDROCK_OFFER, path)
    assert entry is not None
    return entry


@pytest.fixture(scope="module")
def us_single(synth):
    return synth(ROOT / "examples" / "us-single-account.yaml")


def test_spend_alarm_metric_math_prices_k2_thinking_at_its_own_prices(us_single):
    cost = us_single.template("cost")
    k2 = _entry(K2T, "in-region")
    checked = 0
    for alarm in cost.find_resources("AWS::CloudWatch::Alarm").values():
        queries = alarm["Properties"].get("Metrics") or []
        expressions = [q["Expression"] for q in queries if "Expression" in q and "/ 1000000" in q["Expression"]]
        if not expressions:
            continue
        factors = {m: float(f) for m, f in re.findall(r"FILL\((\w+), 0\) \* ([0-9.]+)", expressions[0])}
        for q in queries:
            stat = q.get("MetricStat")
            if not stat:
                continue
            dims = {d["Name"]: d["Value"] for d in stat["Metric"].get("Dimensions", [])}
            if K2T in dims.values():
                kind = q["Id"].rsplit("_", 1)[1]
                assert factors[q["Id"]] == pytest.approx(getattr(k2, _FIELD[kind])), (q["Id"], expressions[0])
                checked += 1
    assert checked >= 6


def test_budget_amount_is_each_models_workload_at_its_own_prices(us_single):
    plan = us_single.plan
    w = plan.config.cost.workload
    month = 0.0
    for part, model_id, path in zip(w.split, (K3_1, K2T), ("geographic-profile", "in-region"), strict=True):
        workload = Workload(
            w.requests_per_day * part.share_of_requests,
            part.input_tokens_per_request or w.input_tokens_per_request,
            part.output_tokens_per_request or w.output_tokens_per_request,
            w.cached_input_fraction,
        )
        month += estimate_cost(workload, _entry(model_id, path), hours_per_month=PRICES.hours_per_month).monthly_usd
    (budget,) = us_single.template("cost").find_resources("AWS::Budgets::Budget").values()
    amount = budget["Properties"]["Budget"]["BudgetLimit"]["Amount"]
    assert amount == pytest.approx(round(month * plan.config.cost.budget_headroom, 2))


def test_dashboard_body_carries_k2_thinking_lines_at_its_own_prices(us_single):
    (dashboard,) = us_single.template("cost").find_resources("AWS::CloudWatch::Dashboard").values()
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    k2 = _entry(K2T, "in-region")
    lines = [ln for ln in lines_of(us_single.plan.dashboard.panels) if ln.expression and K2T in ln.label]
    assert lines
    for line in lines:
        assert f"* {k2.output_usd_per_million:g}" in line.expression
        assert line.expression in body
    assert "bedrock-kimi-k2-thinking" in body
