"""Service tiers as price (issue 25 item 2): tier prices in the catalog and config, the tier split of the workload,
the budget and the spend alarms per tier, tier availability at synth.

AWS publishes per-model tier prices only on https://aws.amazon.com/bedrock/pricing/ and describes Flex as a discount
on the standard rate and Priority as standard + premium (https://aws.amazon.com/bedrock/service-tiers); Priority and
Flex tokens report under "<model-id>+<tier>" in CloudWatch
(https://docs.aws.amazon.com/bedrock/latest/userguide/service-tiers-inference.html).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from landing_zone.cli import main
from landing_zone.core.catalog import ServiceTierOffer
from landing_zone.core.catalog.prices import load_price_catalog
from landing_zone.cost.alarms import evaluate_expression
from landing_zone.errors import ConfigError
from landing_zone.plan.checks import service_tier_problems
from landing_zone.plan.warnings import service_tier_warnings
from landing_zone.review.matrices import routing_matrix
from tests.conftest import ROOT

GLOBAL = ROOT / "examples" / "global-inference.yaml"  # allows [default, flex], tier_split {default: 0.6, flex: 0.4}
US = ROOT / "examples" / "us-single-account.yaml"  # [default]; Kimi K3.1 Pro and Kimi K2 Thinking
K2 = "moonshot.kimi-k2-thinking"
M = "moonshotai.kimi-k3.1-pro"
PRIORITY_175 = {"tier_price_overrides": {M: {"priority": {"multiplier": 1.75, "source": "contract addendum 7"}}}}
KINDS = ("input", "cache_read", "cache_write", "output")


def _problems(exc: pytest.ExceptionInfo[ConfigError]) -> dict[str, str]:
    return {p.path: p.allowed for p in exc.value.problems}


# --- the catalog ---------------------------------------------------------------------------------------------------
def test_flex_is_priced_at_the_published_upper_bound_and_priority_not_at_all() -> None:
    catalog = load_price_catalog()
    standard = catalog.prices("bedrock")
    flex = catalog.tier_rule("bedrock", "flex")
    assert flex is not None and flex.multiplier == 1.0 and not flex.verified
    assert "https://aws.amazon.com/bedrock/service-tiers" in flex.source
    priced = flex.apply(standard)
    assert (priced.source_name, priced.service_tier, priced.verified) == ("bedrock+flex", "flex", False)
    assert priced.output_usd_per_million == standard.output_usd_per_million
    assert catalog.tier_rule("bedrock", "priority") is None  # only bounded from below: no safe figure
    assert catalog.tier_rule("bedrock", "reserved") is None  # capacity, never per token


# --- synth refuses a tier without a price, prices one with ------------------------------------------------------
def test_priority_allowed_without_a_price_is_refused_naming_the_field(plan_for: Any) -> None:
    with pytest.raises(ConfigError) as exc:
        plan_for(US, policy_guardrails={"allowed_service_tiers": ["default", "priority"]})
    problems = _problems(exc)
    for model in (M, K2):  # every allowed model needs the tier's price
        field = f"cost.tier_price_overrides.{model}.priority"
        assert field in problems, problems
        assert "policy_guardrails.allowed_service_tiers[1]" in problems[field]


def test_a_tier_price_override_prices_the_tier_from_the_standard_figures(plan_for: Any) -> None:
    plan = plan_for(
        US,
        policy_guardrails={"allowed_service_tiers": ["default", "priority"]},
        cost={
            "tier_price_overrides": {
                M: {"priority": {"multiplier": 1.75, "output_usd_per_million_tokens": 25.0, "source": "contract 7"}},
                "kimi-k2-thinking": {"priority": {"multiplier": 2, "source": "contract 7"}},  # an alias works too
            }
        },
    )
    (path,) = {p for (m, p) in plan.model_prices.by_path if m == M and p == "geographic-profile"}
    standard = plan.model_prices.get(M, path)
    priority = plan.model_prices.tier(M, path, "priority")
    assert priority.input_usd_per_million == pytest.approx(standard.input_usd_per_million * 1.75)
    assert priority.cache_read_usd_per_million == pytest.approx(standard.cache_read_usd_per_million * 1.75)
    assert priority.output_usd_per_million == 25.0  # a given figure replaces the multiplied one
    assert "contract 7" in priority.source
    assert not priority.verified  # 1.75 x an unverified standard price is no better than it
    all_four = {f"{k}_usd_per_million_tokens": 1.0 for k in KINDS}
    plan_all = plan_for(
        US,
        policy_guardrails={"allowed_service_tiers": ["default", "priority"]},
        cost={"tier_price_overrides": {m: {"priority": {**all_four, "source": "contract 8"}} for m in (M, K2)}},
    )
    assert plan_all.model_prices.tier(M, path, "priority").verified  # own figures: as verified as the contract
    k2_path = next(p for (m, p) in plan.model_prices.by_path if m == K2)
    k2 = plan.model_prices.tier(K2, k2_path, "priority")
    assert k2.output_usd_per_million == pytest.approx(plan.model_prices.get(K2, k2_path).output_usd_per_million * 2)


@pytest.mark.parametrize(
    ("cost", "field"),
    [
        ({"workload": {"tier_split": {"default": 0.5, "priority": 0.5}}}, "cost.workload.tier_split.priority"),
        ({"workload": {"tier_split": {"default": 0.5, "flex": 0.4}}}, "cost.workload"),
        ({"workload": {"tier_split": {"default": 0.5, "reserved": 0.5}}}, "cost.workload.tier_split.reserved"),
    ],
    ids=["tier-not-allowed", "shares-not-1", "reserved-is-not-per-token"],
)
def test_bad_tier_splits_are_refused(plan_for: Any, cost: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as exc:
        plan_for(US, cost=cost)
    assert any(path.startswith(field) for path in _problems(exc)), _problems(exc)


# --- the budget and the alarms, against figures computed from the catalog ----------------------------------------
@pytest.fixture(scope="module")
def global_plan(plan_for: Any) -> Any:
    return plan_for(GLOBAL)


@pytest.fixture(scope="module")
def half_flex_plan(plan_for: Any) -> Any:
    """global-inference with Flex at half the standard prices (a config rule, so the tiers' figures differ)."""
    return plan_for(GLOBAL, cost={"tier_price_overrides": {M: {"flex": {"multiplier": 0.5, "source": "test"}}}})


def test_budget_at_a_flex_discount_matches_the_figures_by_hand(half_flex_plan: Any) -> None:
    plan = half_flex_plan
    w = plan.config.cost.workload
    (part_default, part_flex) = [p for p, _ in plan.budget.parts]
    standard = load_price_catalog().lookup(M, "bedrock", part_default.path)
    by_hand = _monthly_by_hand(plan, standard, w.requests_per_day * (0.6 + 0.4 * 0.5))  # linear in the prices
    assert plan.budget.estimate.monthly_usd == pytest.approx(by_hand)
    assert part_flex.prices.output_usd_per_million == pytest.approx(standard.output_usd_per_million / 2)


def _monthly_by_hand(plan: Any, prices: Any, requests_per_day: float) -> float:
    w = plan.config.cost.workload
    inp = requests_per_day * w.input_tokens_per_request
    tokens = {
        "input": inp * (1 - w.cached_input_fraction - w.cache_write_fraction),
        "cache_read": inp * w.cached_input_fraction,
        "cache_write": inp * w.cache_write_fraction,
        "output": requests_per_day * w.output_tokens_per_request,
    }
    daily = sum(tokens[k] * getattr(prices, f"{k}_usd_per_million") / 1e6 for k in KINDS)
    return daily * plan.prices.hours_per_month / 24


def test_budget_prices_each_tier_of_the_split(global_plan: Any) -> None:
    plan = global_plan
    catalog = load_price_catalog()
    w = plan.config.cost.workload
    assert dict(w.tier_split) == {"default": 0.6, "flex": 0.4}
    (part_default, part_flex) = [p for p, _ in plan.budget.parts]
    assert (part_default.service_tier, part_flex.service_tier) == ("default", "flex")
    standard = catalog.lookup(M, "bedrock", part_default.path)
    flex_rule = catalog.tier_rule(standard.source_name, "flex")
    flex = flex_rule.apply(standard)
    expected = _monthly_by_hand(plan, standard, w.requests_per_day * 0.6) + _monthly_by_hand(
        plan, flex, w.requests_per_day * 0.4
    )
    assert plan.budget.estimate.monthly_usd == pytest.approx(expected)
    assert plan.budget.usd == pytest.approx(expected * plan.config.cost.budget_headroom)
    assert "(flex tier)" in plan.budget.basis


def test_spend_alarms_sum_the_flex_series_at_the_flex_price(half_flex_plan: Any) -> None:
    """100k input and 10k output tokens on the plain series and as many on "<id>+flex" in one period: the alarm
    computes both at their own prices (flex at half the standard figures), nothing else."""
    plan = half_flex_plan
    standard = load_price_catalog().lookup(M, "bedrock", "geographic-profile")
    alarms = plan.cost_alarms
    tier_sources = [s for s in alarms.sources if s.dimension_value.endswith("+flex")]
    assert tier_sources, [s.dimension_value for s in alarms.sources]
    for source in tier_sources:
        plain = source.dimension_value.removesuffix("+flex")
        assert any(s.dimension_value == plain for s in alarms.sources)  # the flex series sits beside its source
    tokens = {"input": 100_000, "output": 10_000}
    expected = 0.0
    values: dict[str, float] = {}
    spent = {(s.namespace, s.dimension_value) for s in alarms.sources}
    for alarm in alarms.spend:
        for metric in alarm.metrics:
            value = next(iter(metric.dimensions.values()))
            assert (metric.namespace, value) in spent
            kind = next((k for k, name in _token_kinds(alarms, metric) if name == metric.metric_name), None)
            if kind in tokens:
                values[metric.id] = tokens[kind]
    for source in alarms.sources:
        prices = alarms.prices_of(source)
        if source in tier_sources:
            assert prices.service_tier == "flex" and prices.source_name.endswith("+flex")
            assert prices.input_usd_per_million == pytest.approx(standard.input_usd_per_million / 2)
        else:
            assert prices.input_usd_per_million == pytest.approx(standard.input_usd_per_million)
        expected += sum(
            tokens[k] * getattr(prices, f"{k}_usd_per_million") / 1e6 for k in tokens if k in source.token_metrics
        )
    period = alarms.spend[0].period_seconds
    got = sum(evaluate_expression(a.expression, values) for a in alarms.spend)
    assert got == pytest.approx(expected * 3600 / period)


def _token_kinds(alarms: Any, metric: Any) -> list[tuple[str, str]]:
    source = next(s for s in alarms.sources if next(iter(metric.dimensions.values())) == s.dimension_value)
    return list(source.token_metrics.items())


def test_no_tier_series_when_only_the_default_tier_is_allowed(plan_for: Any) -> None:
    plan = plan_for(US)
    assert not [s for s in plan.cost_alarms.sources if "+" in s.dimension_value]
    assert all(p.service_tier == "default" for p, _ in plan.budget.parts)


def test_mantle_has_no_tier_series_and_the_coverage_note_says_so(global_plan: Any) -> None:
    mantle = [s for s in global_plan.cost_alarms.sources if s.namespace == "AWS/BedrockMantle"]
    assert mantle and not [s for s in mantle if "+" in s.dimension_value]
    assert "no per-tier series is documented for AWS/BedrockMantle" in global_plan.cost_alarms.coverage_note


def test_reserved_is_warned_about_and_never_priced(plan_for: Any) -> None:
    plan = plan_for(US, policy_guardrails={"allowed_service_tiers": ["default", "reserved"]})
    assert any("service tier reserved is allowed" in w and "cost.monthly_budget_usd" in w for w in plan.warnings)
    assert not [s for s in plan.cost_alarms.sources if "+" in s.dimension_value]
    assert not plan.model_prices.by_tier


# --- availability: a tier the catalog says a model does not offer ------------------------------------------------
def test_a_tier_not_offered_for_an_allowed_model_is_refused_and_unknown_is_warned(global_plan: Any) -> None:
    config = global_plan.config
    (model,) = global_plan.models
    assert model.tier_status("flex", config.compliant_regions) == "unknown"
    assert any("service tier flex is allowed but unconfirmed" in w for w in service_tier_warnings(config, (model,)))
    assert service_tier_problems(config, (model,)) == []
    source = "test: the tiers table read live"
    without_flex = model.model_copy(
        update={"service_tiers": ServiceTierOffer(offered=("priority",), source=source, verified=True)}
    )
    (problem,) = service_tier_problems(config, (without_flex,))
    assert problem.path == "policy_guardrails.allowed_service_tiers[1]" and problem.got == "flex"
    elsewhere = model.model_copy(
        update={
            "service_tiers": ServiceTierOffer(offered=("flex",), regions=("eu-west-1",), source=source, verified=True)
        }
    )
    assert [p.path for p in service_tier_problems(config, (elsewhere,))] == [
        "policy_guardrails.allowed_service_tiers[1]"
    ]
    offered = model.model_copy(
        update={
            "service_tiers": ServiceTierOffer(offered=("flex",), regions=("us-east-1",), source=source, verified=True)
        }
    )
    assert service_tier_problems(config, (offered,)) == []
    assert not service_tier_warnings(config, (offered,))


# --- the routing matrix and `routes` show the allowed tiers with their price basis ---------------------------------
def test_routing_matrix_names_each_allowed_tier_with_its_price(global_plan: Any) -> None:
    rows = routing_matrix(global_plan)
    allowed = [r for r in rows if r["decision"] == "allowed"]
    assert allowed and all(not r["service_tiers"] for r in rows if r["decision"] == "rejected")
    for row in allowed:
        default, flex = row["service_tiers"]
        assert (default["tier"], default["price_entry"], default["verified"]) == ("default", "bedrock", False)
        assert flex["tier"] == "flex" and flex["price_entry"] == "bedrock+flex" and flex["verified"] is False
        assert flex["basis"] == "1 x standard, service_tier_prices.flex" and flex["offered"] == "unknown"
        assert "flex 'bedrock+flex' (1 x standard" in row["service_tiers_text"]


def test_routes_prints_the_allowed_tiers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["routes", "--config", str(GLOBAL), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["allowed_service_tiers"] == ["default", "flex"]
    assert {t["tier"] for line in data["service_tiers"] for t in line["tiers"]} == {"default", "flex"}
    assert main(["routes", "--config", str(US)]) == 0
    assert "service tiers allowed: default (policy_guardrails.allowed_service_tiers" in capsys.readouterr().out
