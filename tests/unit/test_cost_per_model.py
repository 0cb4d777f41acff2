"""Prices keyed by model (and invocation path) and the workload split per model (issue 23, items 2 and 3).

Every figure below is computed here from the catalog entries (``core/catalog/prices.yaml``), never copied from the
code under test: the alarms, the budget, the dashboard and the break-even must price each model's tokens at that
model's own prices.
"""

from __future__ import annotations

import re

import pytest

from landing_zone.core.catalog import load_catalog
from landing_zone.core.catalog.prices import BEDROCK_OFFER, TokenPrices, load_price_catalog
from landing_zone.cost.alarms import evaluate_expression
from landing_zone.cost.dashboard import lines_of
from landing_zone.cost.pricing import Workload, estimate_cost
from landing_zone.cost.self_hosting import comparable_api
from landing_zone.errors import ConfigError
from tests.conftest import ROOT

US_SINGLE = ROOT / "examples" / "us-single-account.yaml"
K3_1 = "moonshotai.kimi-k3.1-pro"
K2T = "moonshot.kimi-k2-thinking"
PRICES = load_price_catalog()


def _entry(model_id: str, path: str) -> TokenPrices:
    entry = PRICES.lookup(model_id, BEDROCK_OFFER, path)
    assert entry is not None, f"no bedrock price for {model_id} on {path}"
    return entry


def _terms(expression: str) -> dict[str, float]:
    """metric ID -> the price factor it is multiplied by in a spend expression."""
    return {m: float(f) for m, f in re.findall(r"FILL\((\w+), 0\) \* ([0-9.]+)", expression)}


_KIND_FIELD = {
    "in": "input_usd_per_million",
    "cr": "cache_read_usd_per_million",
    "cw": "cache_write_usd_per_million",
    "out": "output_usd_per_million",
}


@pytest.fixture(scope="module")
def us_single(plan_for):
    return plan_for(US_SINGLE)


def test_us_single_account_alarms_price_k2_thinking_at_its_own_prices(us_single):
    checked = 0
    for alarm in us_single.cost_alarms.spend:
        terms = _terms(alarm.expression)
        for metric in alarm.metrics:
            ((_, dimension),) = metric.dimensions.items()
            kind = metric.id.rsplit("_", 1)[1]
            if dimension in (K2T,):  # the in-Region FM ID and the Mantle model name
                expected = getattr(_entry(K2T, "in-region"), _KIND_FIELD[kind])
                assert terms[metric.id] == pytest.approx(expected), (metric.label, alarm.expression)
                checked += 1
            elif dimension in (f"us.{K3_1}", K3_1):
                expected = getattr(_entry(K3_1, "geographic-profile"), _KIND_FIELD[kind])
                assert terms[metric.id] == pytest.approx(expected)
    assert checked >= 6  # in-Region: 4 token kinds; Mantle: input and output
    assert _entry(K2T, "in-region").output_usd_per_million != _entry(K3_1, "geographic-profile").output_usd_per_million


def test_us_single_account_budget_sums_each_model_at_its_own_prices(us_single):
    w = us_single.config.cost.workload
    (k3, k2) = w.split
    expected_month = 0.0
    for part, model_id, path in ((k3, K3_1, "geographic-profile"), (k2, K2T, "in-region")):
        workload = Workload(
            w.requests_per_day * part.share_of_requests,
            part.input_tokens_per_request or w.input_tokens_per_request,
            part.output_tokens_per_request or w.output_tokens_per_request,
            w.cached_input_fraction,
        )
        expected_month += estimate_cost(workload, _entry(model_id, path), hours_per_month=730).monthly_usd
    assert us_single.budget.estimate.monthly_usd == pytest.approx(expected_month)
    assert us_single.budget.usd == pytest.approx(expected_month * us_single.config.cost.budget_headroom)
    # priced at K3.1 Pro's figures the K2 Thinking part would cost several times more
    all_k3 = sum(
        estimate_cost(p.workload, _entry(K3_1, "geographic-profile"), hours_per_month=730).monthly_usd
        for p in us_single.workload_parts
    )
    assert all_k3 > expected_month * 1.3


def test_us_single_account_dashboard_prices_k2_thinking_lines_at_its_own_prices(us_single):
    k2 = _entry(K2T, "in-region")
    lines = [ln for ln in lines_of(us_single.dashboard.panels) if ln.expression and K2T in ln.label]
    assert lines, "no K2 Thinking spend line on the dashboard"
    for line in lines:
        one_million = {m.id: 1_000_000.0 for m in line.metrics if m.id.endswith("_out")}
        period = line.metrics[0].period
        usd_per_hour = evaluate_expression(line.expression, one_million)
        assert usd_per_hour == pytest.approx(k2.output_usd_per_million * 3600 / period)
    about = us_single.dashboard.panels[0]
    assert "bedrock-kimi-k2-thinking" in about.markdown and f"output {k2.output_usd_per_million:g}" in about.markdown


def test_one_short_warning_line_names_every_unverified_price(us_single):
    (line,) = [w for w in us_single.warnings if "unverified prices" in w]
    assert K2T in line and K3_1 in line and "cost.price_overrides.<model-id>" in line
    assert len(line) < 300 and "\n" not in line


def test_break_even_compares_with_kimi_k3_prices_only(us_single):
    api, own = comparable_api(us_single.prices, us_single.model_prices, us_single.workload_parts)
    assert api.model_id == K3_1 and [p.model_id for p in own] == [K3_1]


def test_default_workload_is_one_part_on_the_first_model(plan_for):
    plan = plan_for()
    (part,) = plan.workload_parts
    assert part.model_id == plan.models[0].id and part.share_of_requests == 1.0


def test_every_catalogued_model_has_a_bedrock_price_for_every_path_it_is_offered_on():
    """Kept true by docs/DEVELOPMENT.md "Add a model (with prices)": a model without one is refused by validate."""
    catalog = load_catalog()
    for model in catalog.models.values():
        paths = {p.scope + "-profile" for p in model.inference_profiles}
        paths |= {"in-region"} if model.in_region_regions else set()
        paths |= {"mantle"} if model.mantle_regions else set()
        for path in paths:
            entry = PRICES.lookup(model.id, BEDROCK_OFFER, path)
            assert entry is not None, f"{model.id} on {path}: add a bedrock entry to core/catalog/prices.yaml"
            assert entry.source and entry.as_of and isinstance(entry.verified, bool)


def test_a_model_without_a_price_is_refused_naming_the_key(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(US_SINGLE, cost={"price_source": {"kimi-k2-thinking": "kimi-api"}})
    message = str(info.value)
    assert f"cost.price_overrides.{K2T}" in message and "kimi-api" in message


def test_a_contract_price_rescues_a_model_without_a_catalog_price(plan_for):
    override = {"input_usd_per_million_tokens": 0.5, "output_usd_per_million_tokens": 2.0, "source": "contract 42"}
    plan = plan_for(
        US_SINGLE, cost={"price_source": {"kimi-k2-thinking": "kimi-api"}, "price_overrides": {K2T: override}}
    )
    prices = plan.model_prices.get(K2T, "in-region")
    assert (prices.input_usd_per_million, prices.cache_read_usd_per_million, prices.output_usd_per_million) == (
        0.5,
        0.5,
        2.0,
    )
    assert prices.verified and "contract 42" in prices.source


def test_old_price_overrides_shape_is_refused_with_the_new_key(plan_for):
    with pytest.raises(ConfigError, match=r"cost\.price_overrides\.<model-id>"):
        plan_for(cost={"price_overrides": {"bedrock": {"output_usd_per_million_tokens": 9, "source": "old shape"}}})


def test_override_of_a_model_applies_to_that_model_only(plan_for):
    override = {"output_usd_per_million_tokens": 9.0, "source": "private pricing addendum"}
    plan = plan_for(US_SINGLE, cost={"price_overrides": {"kimi-k3.1-pro": override}})
    assert plan.model_prices.get(K3_1, "geographic-profile").output_usd_per_million == 9.0
    assert plan.model_prices.get(K2T, "in-region") == _entry(K2T, "in-region")


@pytest.mark.parametrize(
    ("split", "match"),
    [
        ([{"model": "kimi-k3.1-pro", "share_of_requests": 0.5}], "sum to 0.5"),
        ([{"share_of_requests": 1.0}], "exactly one of model"),
        ([{"model": "kimi-k2.5", "share_of_requests": 1.0}], r"split\[0\]\.model"),
    ],
)
def test_bad_workload_splits_are_refused(plan_for, split, match):
    with pytest.raises(ConfigError, match=match):
        plan_for(US_SINGLE, cost={"workload": {"split": split}})


def test_an_application_part_uses_its_model_and_path(plan_for):
    plan = plan_for(US_SINGLE, cost={"workload": {"split": [{"application": "us-workload", "share_of_requests": 1}]}})
    (part,) = plan.workload_parts
    app = plan.applications[0]
    assert part.model_id == app.model.id and part.path == app.route.kind.value


def test_the_add_a_model_recipe_names_files_that_exist():
    """docs/DEVELOPMENT.md "Add a model (with prices)": every file it tells you to touch exists, and so does the test
    that keeps the catalogue priced."""
    text = (ROOT / "docs" / "DEVELOPMENT.md").read_text(encoding="utf-8")
    recipe = text[text.index("## Add a model (with prices)") :]
    recipe = recipe[: recipe.index("\n## ", 5)]
    files = re.findall(r"`((?:landing_zone|tests)/[\w/.]+\.(?:yaml|py))`", recipe)
    assert {"landing_zone/core/catalog/models.yaml", "landing_zone/core/catalog/prices.yaml"} <= set(files)
    for name in files:
        assert (ROOT / name).is_file(), name
    assert "test_every_catalogued_model_has_a_bedrock_price_for_every_path_it_is_offered_on" in recipe


@pytest.mark.parametrize("example", sorted((ROOT / "examples").glob("*.yaml")), ids=lambda p: p.stem)
def test_every_example_prices_each_model_on_each_of_its_paths(plan_for, example):
    plan = plan_for(example)
    for mr in plan.routing.models:
        for route in mr.compliant_routes:
            prices = plan.model_prices.get(mr.model.id, route.kind.value)
            assert prices.model_id == mr.model.id  # never another model's figures
    assert sum(p.share_of_requests for p in plan.workload_parts) == pytest.approx(1.0)
