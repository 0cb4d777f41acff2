"""Self-hosting economics and warnings (pure): hourly and monthly node cost, break-even, budget line."""

from __future__ import annotations

import pytest

from landing_zone.cost.self_hosting import (
    economics,
    holds_weights,
    monthly_cost_line,
    node_hourly_usd,
    self_hosting_warnings,
)
from landing_zone.errors import PricingError

ON_DEMAND = {"enabled": True, "capacity": "on-demand"}


@pytest.fixture(scope="module")
def plan(plan_for):
    """``plan(**self_hosting)``: a plan whose self_hosting block is overridden (on-demand: no AZ needed)."""
    return lambda **sh: plan_for(None, self_hosting={**ON_DEMAND, **sh})


def test_catalog_price_of_the_p6_b300(plan):
    p = plan()
    hourly, source = node_hourly_usd(p.config.self_hosting, p.prices)
    assert hourly == 56.79 and source.startswith("price catalog (p6-b300.48xlarge")


def test_config_hourly_price_wins_over_the_catalog(plan):
    p = plan(hourly_usd=40.0)
    assert node_hourly_usd(p.config.self_hosting, p.prices) == (40.0, "self_hosting.hourly_usd (config)")


def test_break_even_against_bedrock_at_516_tokens_per_second(plan):
    econ = economics(plan().config, plan().prices)
    be = econ.break_even
    assert econ.monthly_usd_per_node == pytest.approx(41_456.70)
    assert be.usd_per_million_output_tokens == pytest.approx(30.5717, rel=1e-5)
    assert be.breakeven_tokens_per_second == pytest.approx(1314.5833, rel=1e-6)
    assert be.ratio_to_api == pytest.approx(2.54764, rel=1e-5)
    assert econ.below_break_even


def test_break_even_follows_the_configured_price_source(plan_for):
    p = plan_for(None, self_hosting=ON_DEMAND, cost={"price_source": "kimi-api"})
    econ = economics(p.config, p.prices, p.model_prices, p.workload_parts)
    assert econ.break_even.breakeven_tokens_per_second == pytest.approx(56.79 / (10 * 3600 / 1e6))


def test_warning_names_the_cost_multiple_when_below_break_even(plan):
    p = plan()
    (warning,) = self_hosting_warnings(p.config, p.prices)
    # blended at the workload's 5:1 ratio and 50 % cache share; the output-price-only figure is labelled
    assert "self-hosting costs 1.43x the API. Break-even is 738.0 output tokens/s" in warning
    assert "counting the output price alone: 2.55x, 1,314.6 tokens/s" in warning
    for number in (
        "516.0 output tokens/s",
        "56.79 USD/h",
        "41,456.70 USD/month",
        "30.57 USD per 1M",
        "21.38 USD",
        "1,314.6",
    ):
        assert number in warning


def test_no_warning_at_or_above_break_even(plan):
    p = plan(expected_tokens_per_second=740)  # above the blended break-even of 738.0 tokens/s
    assert self_hosting_warnings(p.config, p.prices) == []


def test_disabled_gives_no_warning_and_no_budget_line(plan_for):
    p = plan_for(None)
    assert self_hosting_warnings(p.config, p.prices) == []
    assert monthly_cost_line(p.config, p.prices) is None


@pytest.mark.parametrize("instance_type", ["p6-b200.48xlarge", "p5en.48xlarge"])
def test_smaller_gpu_nodes_warn_that_one_node_cannot_hold_the_weights(plan, instance_type):
    p = plan(instance_type=instance_type, hourly_usd=50.0)
    assert holds_weights(instance_type, p.prices) is False
    warnings = self_hosting_warnings(p.config, p.prices)
    assert any(f"{instance_type!r}" in w and "one node cannot hold" in w and "1,560.9 GB" in w for w in warnings)


def test_p6_b300_holds_the_weights(plan):
    assert holds_weights("p6-b300.48xlarge", plan().prices) is True


def test_missing_hourly_price_is_a_config_error_that_asks_for_it(plan):
    from landing_zone.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        plan(instance_type="p6-b200.48xlarge")
    (problem,) = info.value.problems
    assert problem.path == "self_hosting.hourly_usd" and "self_hosting.hourly_usd" in str(problem)
    # the pure functions say the same when called directly
    p = plan()
    config = p.config.model_copy(
        update={"self_hosting": p.config.self_hosting.model_copy(update={"instance_type": "p6-b200.48xlarge"})}
    )
    assert any("set self_hosting.hourly_usd" in w for w in self_hosting_warnings(config, p.prices))
    with pytest.raises(PricingError, match="self_hosting.hourly_usd"):
        monthly_cost_line(config, p.prices)


def test_budget_line_is_max_size_nodes_times_hourly_times_730(plan):
    p = plan(max_size=2, desired_size=1)
    line = monthly_cost_line(p.config, p.prices)
    assert line is not None
    assert (line.nodes, line.hourly_usd, line.hours_per_month) == (2, 56.79, 730.0)
    assert line.monthly_usd == pytest.approx(2 * 56.79 * 730)
    assert line.as_dict()["monthly_usd"] == line.monthly_usd and "p6-b300.48xlarge" in line.label


def test_capacity_block_with_zero_desired_nodes_still_budgets_the_block(plan_for):
    from tests.conftest import ROOT

    p = plan_for(ROOT / "examples" / "self-hosting.yaml")
    assert p.config.self_hosting.desired_size == 0
    line = monthly_cost_line(p.config, p.prices)
    assert line is not None and line.nodes == 1 and line.monthly_usd == pytest.approx(41_456.70)


def test_the_budget_includes_the_self_hosted_nodes(plan_for):
    from tests.conftest import ROOT

    p = plan_for(ROOT / "examples" / "self-hosting.yaml")
    budget = p.budget
    nodes = p.config.self_hosting.max_size * 56.79 * 730
    assert budget.self_hosted_monthly_usd == pytest.approx(nodes)
    assert budget.usd == pytest.approx((budget.estimate.monthly_usd + nodes) * p.config.cost.budget_headroom)
    assert "self-hosted nodes" in budget.basis
