"""Pins the cost arithmetic of landing_zone.cost.pricing with hand-computed numbers.

Expected values are written as arithmetic from the catalog figures so that a reader can check them.
"""

from __future__ import annotations

import ast
import json
import math
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from landing_zone.core.catalog.prices import (
    PriceCatalog,
    SelfHostingOption,
    TokenPrices,
    load_price_catalog,
)
from landing_zone.cost import pricing
from landing_zone.cost.pricing import (
    BreakEven,
    CostEstimate,
    Workload,
    break_even,
    estimate_cost,
    monthly_cost_curve,
    with_discount,
    with_overrides,
)
from landing_zone.cost.tables import format_breakeven_table, format_cost_table
from landing_zone.errors import PricingError

B300 = "p6-b300.48xlarge"
HOURS = 730.0


@pytest.fixture(scope="module")
def catalog() -> PriceCatalog:
    return load_price_catalog()


@pytest.fixture(scope="module")
def bedrock(catalog: PriceCatalog) -> TokenPrices:
    return catalog.prices("bedrock")


@pytest.fixture(scope="module")
def kimi_api(catalog: PriceCatalog) -> TokenPrices:
    return catalog.prices("kimi-api")


def _prices(**overrides: float) -> TokenPrices:
    values = dict(
        source_name="test",
        input_usd_per_million=3.00,
        cache_read_usd_per_million=0.75,
        cache_write_usd_per_million=3.75,
        output_usd_per_million=12.00,
        source="hand-written test prices",
        as_of="2026-11-08",
        verified=False,
    )
    values.update(overrides)
    return TokenPrices(**values)


# --------------------------------------------------------------------------------------------------
# Catalog
# --------------------------------------------------------------------------------------------------


def test_catalog_loads_with_hours_per_month(catalog: PriceCatalog) -> None:
    assert catalog.hours_per_month == 730.0
    assert {"bedrock", "kimi-api", "kimi-api-highspeed"} <= set(catalog.price_sources)
    assert {B300, "p6-b200.48xlarge", "p5en.48xlarge"} <= set(catalog.self_hosting)


def test_every_price_source_has_provenance(catalog: PriceCatalog) -> None:
    for name, prices in catalog.price_sources.items():
        assert prices.source_name == name
        assert prices.source.strip(), name
        assert prices.as_of.strip(), name
        assert isinstance(prices.verified, bool)
        for attr in (
            "input_usd_per_million",
            "cache_read_usd_per_million",
            "cache_write_usd_per_million",
            "output_usd_per_million",
        ):
            value = getattr(prices, attr)
            assert isinstance(value, float) and math.isfinite(value) and value >= 0, (name, attr)


def test_every_self_hosting_option_has_provenance(catalog: PriceCatalog) -> None:
    for name, option in catalog.self_hosting.items():
        assert isinstance(option, SelfHostingOption)
        assert option.instance_type == name
        assert option.source.strip(), name
        assert option.as_of.strip(), name
        assert option.hourly_usd is None or option.hourly_usd > 0


def test_catalog_figures(catalog: PriceCatalog, bedrock: TokenPrices, kimi_api: TokenPrices) -> None:
    assert (bedrock.input_usd_per_million, bedrock.cache_read_usd_per_million) == (3.00, 0.75)
    # cache writes: not published for K3.1 Pro; 1.25x input, the ratio AWS publishes for Kimi K3
    assert (bedrock.cache_write_usd_per_million, bedrock.output_usd_per_million) == (3.75, 12.00)
    assert bedrock.global_profile_discount_fraction == 0.10
    assert (kimi_api.input_usd_per_million, kimi_api.output_usd_per_million) == (2.00, 10.00)
    b300 = catalog.self_hosting_option(B300)
    assert b300.hourly_usd == 56.79
    assert b300.tokens_per_second("single_request_sustained") == 92.0
    assert b300.require_hourly_usd() == 56.79
    assert b300.holds_model_weights is True


def test_catalog_is_immutable(catalog: PriceCatalog, bedrock: TokenPrices) -> None:
    with pytest.raises(FrozenInstanceError):
        catalog.hours_per_month = 1.0  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        bedrock.output_usd_per_million = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        catalog.price_sources["x"] = bedrock  # type: ignore[index]


def test_unknown_price_source_lists_known_names(catalog: PriceCatalog) -> None:
    with pytest.raises(PricingError) as info:
        catalog.prices("openai")
    message = str(info.value)
    assert "price_source" in message and "'openai'" in message
    for name in ("bedrock", "kimi-api", "kimi-api-highspeed"):
        assert name in message
    assert isinstance(info.value, ValueError)


def test_unknown_instance_type_lists_known_names(catalog: PriceCatalog) -> None:
    with pytest.raises(PricingError, match=r"instance_type: got 'p4d.24xlarge'.*p6-b300\.48xlarge"):
        catalog.self_hosting_option("p4d.24xlarge")


def test_unknown_throughput_profile(catalog: PriceCatalog) -> None:
    with pytest.raises(PricingError, match="single_request_sustained"):
        catalog.self_hosting_option(B300).tokens_per_second("warp_speed")


@pytest.mark.parametrize("instance_type", ["p6-b200.48xlarge", "p5en.48xlarge"])
def test_null_hourly_price_says_to_pass_hourly_usd(catalog: PriceCatalog, instance_type: str) -> None:
    option = catalog.self_hosting_option(instance_type)
    assert option.hourly_usd is None
    with pytest.raises(PricingError) as info:
        option.require_hourly_usd()
    message = str(info.value)
    assert instance_type in message
    assert "--hourly-usd" in message
    assert "got None" in message
    assert "> 0" in message
    # An explicit --hourly-usd makes it usable; a bad one is named as the flag.
    assert option.require_hourly_usd(40.0) == 40.0
    with pytest.raises(PricingError, match=r"--hourly-usd: got -1"):
        option.require_hourly_usd(-1)


def _write_catalog(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(text, encoding="utf-8")
    return path


_MINIMAL = """
schema_version: 2
hours_per_month: {hours}
models:
  m:
    p:
      offer: bedrock
      paths: [in-region]
      input_usd_per_million_tokens: 1.5
      cache_read_usd_per_million_tokens: 0.5
      {cache_write}
      output_usd_per_million_tokens: {output}
      source: "test"
      as_of: 2026-11-08
      verified: true
"""


def test_catalog_variants(tmp_path: Path) -> None:
    path = _write_catalog(tmp_path, _MINIMAL.format(hours=720, cache_write="", output=6))
    loaded = load_price_catalog(path)
    assert loaded.hours_per_month == 720.0  # a plain number is accepted as well as {value: ...}
    prices = loaded.prices("p")
    assert prices.as_of == "2026-11-08"  # unquoted YAML date becomes text
    assert prices.cache_write_usd_per_million == 1.5  # missing cache write -> input price
    assert dict(loaded.self_hosting) == {}


@pytest.mark.parametrize(
    ("hours", "output", "field", "got"),
    [
        (720, -6, "models.m.p.output_usd_per_million_tokens", "-6"),
        (720, ".nan", "models.m.p.output_usd_per_million_tokens", "nan"),
        (720, '"cheap"', "models.m.p.output_usd_per_million_tokens", "'cheap'"),
        (0, 6, "hours_per_month.value", "0"),
    ],
)
def test_bad_catalog_values(tmp_path: Path, hours, output, field: str, got: str) -> None:
    path = _write_catalog(tmp_path, _MINIMAL.format(hours=hours, cache_write="", output=output))
    with pytest.raises(PricingError) as info:
        load_price_catalog(path)
    assert str(info.value).startswith(f"{field}: got {got}")
    assert "allowed:" in str(info.value)


def test_catalog_missing_provenance(tmp_path: Path) -> None:
    text = _MINIMAL.format(hours=730, cache_write="", output=6).replace('      source: "test"\n', "")
    match = r"models\.m\.p\.source: got None; allowed: field required"
    with pytest.raises(PricingError, match=match):
        load_price_catalog(_write_catalog(tmp_path, text))


def test_catalog_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PricingError, match="readable YAML file"):
        load_price_catalog(tmp_path / "nope.yaml")


# --------------------------------------------------------------------------------------------------
# estimate_cost
# --------------------------------------------------------------------------------------------------


def test_uncached_cost(bedrock: TokenPrices) -> None:
    workload = Workload(requests_per_day=1000, input_tokens_per_request=8000, output_tokens_per_request=500)
    est = estimate_cost(workload, bedrock, hours_per_month=HOURS)

    expected_input = 1000 * 8000 * 3.00 / 1e6  # 24.00
    expected_output = 1000 * 500 * 12.00 / 1e6  # 6.00
    expected_daily = expected_input + expected_output  # 30.00
    assert est.input_usd_per_day == pytest.approx(expected_input)
    assert est.cache_read_usd_per_day == 0.0
    assert est.cache_write_usd_per_day == 0.0
    assert est.output_usd_per_day == pytest.approx(expected_output)
    assert est.daily_usd == pytest.approx(expected_daily)
    assert est.daily_usd == pytest.approx(30.0)
    assert est.hourly_usd == pytest.approx(expected_daily / 24)
    assert est.monthly_usd == pytest.approx(expected_daily * 730 / 24)  # 912.50
    assert est.monthly_usd == pytest.approx(912.5)
    assert est.tokens_per_day == pytest.approx(
        {"input": 1000 * 8000, "cache_read": 0, "cache_write": 0, "output": 1000 * 500}
    )
    assert est.price_source == "bedrock"


def test_cached_cost_at_half(bedrock: TokenPrices) -> None:
    workload = Workload(
        requests_per_day=1000,
        input_tokens_per_request=8000,
        output_tokens_per_request=500,
        cached_input_fraction=0.5,
    )
    est = estimate_cost(workload, bedrock, hours_per_month=HOURS)

    expected_input = 1000 * (8000 * (1 - 0.5)) * 3.00 / 1e6  # 12.00
    expected_cache_read = 1000 * (8000 * 0.5) * 0.75 / 1e6  # 3.00
    expected_output = 1000 * 500 * 12.00 / 1e6  # 6.00
    expected_daily = expected_input + expected_cache_read + expected_output  # 21.00
    assert est.input_usd_per_day == pytest.approx(expected_input)
    assert est.cache_read_usd_per_day == pytest.approx(expected_cache_read)
    assert est.cache_write_usd_per_day == 0.0
    assert est.output_usd_per_day == pytest.approx(expected_output)
    assert est.daily_usd == pytest.approx(expected_daily)
    assert est.daily_usd == pytest.approx(21.0)
    assert est.monthly_usd == pytest.approx(expected_daily * 730 / 24)
    assert est.tokens_per_day["input"] == pytest.approx(1000 * 8000 * 0.5)
    assert est.tokens_per_day["cache_read"] == pytest.approx(1000 * 8000 * 0.5)


def test_cache_writes_billed_at_cache_write_price() -> None:
    prices = _prices()  # input 3.00, cache read 0.75, cache write 3.75, output 12.00
    workload = Workload(
        requests_per_day=200,
        input_tokens_per_request=10_000,
        output_tokens_per_request=1_000,
        cached_input_fraction=0.6,
        cache_write_fraction=0.25,
    )
    est = estimate_cost(workload, prices, hours_per_month=HOURS)

    expected_input = 200 * (10_000 * (1 - 0.6 - 0.25)) * 3.00 / 1e6  # 0.90
    expected_cache_read = 200 * (10_000 * 0.6) * 0.75 / 1e6  # 0.90
    expected_cache_write = 200 * (10_000 * 0.25) * 3.75 / 1e6  # 1.875
    expected_output = 200 * 1_000 * 12.00 / 1e6  # 2.40
    expected_daily = expected_input + expected_cache_read + expected_cache_write + expected_output
    assert est.input_usd_per_day == pytest.approx(expected_input)
    assert est.cache_read_usd_per_day == pytest.approx(expected_cache_read)
    assert est.cache_write_usd_per_day == pytest.approx(expected_cache_write)
    assert est.output_usd_per_day == pytest.approx(expected_output)
    assert est.daily_usd == pytest.approx(expected_daily)
    assert est.daily_usd == pytest.approx(6.075)
    assert est.monthly_usd == pytest.approx(expected_daily * 730 / 24)
    assert est.hourly_usd == pytest.approx(expected_daily / 24)
    assert sum(est.tokens_per_day.values()) == pytest.approx(200 * (10_000 + 1_000))


def test_all_input_cached_leaves_no_plain_input(bedrock: TokenPrices) -> None:
    workload = Workload(1000, 8000, 0, cached_input_fraction=0.7, cache_write_fraction=0.3)
    est = estimate_cost(workload, bedrock, hours_per_month=HOURS)
    assert est.input_usd_per_day == pytest.approx(0.0, abs=1e-12)
    assert est.daily_usd == pytest.approx(1000 * 8000 * (0.7 * 0.75 + 0.3 * 3.75) / 1e6)


def test_monthly_uses_given_hours_per_month(bedrock: TokenPrices) -> None:
    workload = Workload(1000, 8000, 500)
    est = estimate_cost(workload, bedrock, hours_per_month=720)
    assert est.monthly_usd == pytest.approx(30.0 * 720 / 24)
    assert est.hours_per_month == 720.0


def test_cost_same_workload_on_kimi_api(kimi_api: TokenPrices) -> None:
    workload = Workload(1000, 8000, 500, cached_input_fraction=0.5)
    est = estimate_cost(workload, kimi_api, hours_per_month=HOURS)
    expected_daily = (1000 * 8000 * 0.5 * 2.00 + 1000 * 8000 * 0.5 * 0.20 + 1000 * 500 * 10.00) / 1e6
    assert est.daily_usd == pytest.approx(expected_daily)  # 8.00 + 0.80 + 5.00 = 13.80
    assert est.monthly_usd == pytest.approx(expected_daily * 730 / 24)


def test_cost_is_not_rounded() -> None:
    prices = _prices(input_usd_per_million=1.0, output_usd_per_million=0.0)
    est = estimate_cost(Workload(1, 1, 0), prices, hours_per_month=HOURS)
    assert est.daily_usd == 1 / 1e6
    assert est.monthly_usd == pytest.approx(1 / 1e6 * 730 / 24)


def test_cost_estimate_as_dict_is_json_ready(bedrock: TokenPrices) -> None:
    est = estimate_cost(Workload(1000, 8000, 500, 0.5), bedrock, hours_per_month=HOURS)
    data = est.as_dict()
    for key in (
        "daily_usd",
        "monthly_usd",
        "input_usd_per_day",
        "cache_read_usd_per_day",
        "cache_write_usd_per_day",
        "output_usd_per_day",
        "hourly_usd",
        "price_source",
        "tokens_per_day",
    ):
        assert key in data
    assert data["daily_usd"] == est.daily_usd
    assert data["monthly_usd"] == est.monthly_usd
    assert json.loads(json.dumps(data)) == data
    assert isinstance(est, CostEstimate)


# --------------------------------------------------------------------------------------------------
# Workload and price validation
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field", "allowed"),
    [
        (dict(requests_per_day=-1), "requests_per_day", ">= 0"),
        (dict(input_tokens_per_request=float("inf")), "input_tokens_per_request", "finite"),
        (dict(output_tokens_per_request=float("nan")), "output_tokens_per_request", "finite"),
        (dict(requests_per_day="1000"), "requests_per_day", "number"),
        (dict(requests_per_day=True), "requests_per_day", "number"),
        (dict(cached_input_fraction=1.5), "cached_input_fraction", "between 0 and 1"),
        (dict(cached_input_fraction=-0.1), "cached_input_fraction", "between 0 and 1"),
        (dict(cache_write_fraction=2), "cache_write_fraction", "between 0 and 1"),
        (
            dict(cached_input_fraction=0.7, cache_write_fraction=0.4),
            "cached_input_fraction + cache_write_fraction",
            "<= 1",
        ),
    ],
)
def test_bad_workload(kwargs: dict, field: str, allowed: str) -> None:
    values = dict(requests_per_day=1000, input_tokens_per_request=8000, output_tokens_per_request=500)
    values.update(kwargs)
    with pytest.raises(PricingError) as info:
        Workload(**values)
    message = str(info.value)
    assert message.startswith(f"{field}: got ")
    assert "allowed:" in message and allowed in message
    assert info.value.field == field


def test_bad_workload_message_shows_value() -> None:
    with pytest.raises(PricingError, match=r"^requests_per_day: got -5; allowed: a finite number >= 0$"):
        Workload(requests_per_day=-5, input_tokens_per_request=1, output_tokens_per_request=1)


@pytest.mark.parametrize("value", [-0.01, float("nan"), float("inf"), None, "3"])
def test_bad_token_price(value) -> None:
    with pytest.raises(PricingError, match=r"^test\.output_usd_per_million: got "):
        _prices(output_usd_per_million=value)


@pytest.mark.parametrize("hours", [0, -730, float("nan"), None])
def test_bad_hours_per_month(bedrock: TokenPrices, hours) -> None:
    with pytest.raises(PricingError, match=r"^hours_per_month: got .*allowed: a finite number > 0"):
        estimate_cost(Workload(1, 1, 1), bedrock, hours_per_month=hours)


# --------------------------------------------------------------------------------------------------
# Overrides and discount
# --------------------------------------------------------------------------------------------------


def test_with_overrides(bedrock: TokenPrices) -> None:
    changed = with_overrides(bedrock, output=11.0, cache_write_usd_per_million=3.75, input=None)
    assert changed.output_usd_per_million == 11.0
    assert changed.cache_write_usd_per_million == 3.75
    assert changed.input_usd_per_million == bedrock.input_usd_per_million  # None = not overridden
    assert changed.cache_read_usd_per_million == bedrock.cache_read_usd_per_million
    assert changed.source_name == "bedrock"
    assert "overridden" in changed.source and "output_usd_per_million=11.0" in changed.source
    assert changed.verified is False
    assert bedrock.output_usd_per_million == 12.0  # original untouched
    # yaml-style key names are accepted too
    assert with_overrides(bedrock, input_usd_per_million_tokens=2.5).input_usd_per_million == 2.5
    # nothing changed -> same object
    assert with_overrides(bedrock) is bedrock
    assert with_overrides(bedrock, output=12.0) is bedrock


def test_with_overrides_feeds_estimate(bedrock: TokenPrices) -> None:
    prices = with_overrides(bedrock, output=10.0)
    est = estimate_cost(Workload(1000, 8000, 500), prices, hours_per_month=HOURS)
    assert est.output_usd_per_day == pytest.approx(1000 * 500 * 10.0 / 1e6)


def test_bad_overrides(bedrock: TokenPrices) -> None:
    with pytest.raises(PricingError, match=r"price override 'outptu': got 1.0; allowed: one of: input"):
        with_overrides(bedrock, outptu=1.0)
    with pytest.raises(PricingError, match=r"price override output: got -1; allowed: a finite number >= 0"):
        with_overrides(bedrock, output=-1)


def test_with_discount(bedrock: TokenPrices) -> None:
    discounted = with_discount(bedrock)  # catalog: global CRIS 10% cheaper
    assert discounted.input_usd_per_million == pytest.approx(3.00 * (1 - 0.10))
    assert discounted.output_usd_per_million == pytest.approx(12.00 * (1 - 0.10))
    assert discounted.cache_read_usd_per_million == pytest.approx(0.75 * (1 - 0.10))
    assert with_discount(bedrock, 0.0) is bedrock
    with pytest.raises(PricingError, match="discount fraction: got 1.5"):
        with_discount(bedrock, 1.5)


# --------------------------------------------------------------------------------------------------
# Break-even
# --------------------------------------------------------------------------------------------------


def test_break_even_b300_vs_bedrock(catalog: PriceCatalog, bedrock: TokenPrices) -> None:
    b300 = catalog.self_hosting_option(B300)
    be = break_even(
        tokens_per_second=b300.tokens_per_second("single_request_sustained"),
        hourly_usd=b300.require_hourly_usd(),
        api_prices=bedrock,
        hours_per_month=catalog.hours_per_month,
        instance_type=B300,
    )
    assert isinstance(be, BreakEven)
    expected_per_million = 56.79 / (92 * 3600 / 1e6)
    assert be.usd_per_million_output_tokens == pytest.approx(expected_per_million)
    assert be.usd_per_million_output_tokens == pytest.approx(171.47, abs=0.005)
    assert be.api_usd_per_million_output_tokens == 12.00
    assert be.ratio_to_api == pytest.approx(expected_per_million / 12.00)
    assert be.ratio_to_api == pytest.approx(14.29, abs=0.005)
    assert be.breakeven_tokens_per_second == pytest.approx(56.79 / (12.00 * 3600 / 1e6))
    assert be.breakeven_tokens_per_second == pytest.approx(1314.6, abs=0.05)
    assert be.monthly_usd == pytest.approx(56.79 * 730)
    assert be.monthly_usd == pytest.approx(41456.7)
    assert be.input_output_ratio == 5.0
    expected_out = 41456.7 / ((5 * 3.00 + 12.00) / 1e6)
    assert be.breakeven_output_tokens_per_month == pytest.approx(expected_out)
    assert be.breakeven_output_tokens_per_month == pytest.approx(1.5354e9, rel=1e-4)
    assert be.breakeven_input_tokens_per_month == pytest.approx(5 * expected_out)
    # one node at 92 tok/s makes 92*3600*730 output tokens a month: far below its break-even volume
    assert be.output_tokens_per_month_capacity == pytest.approx(92 * 3600 * 730)
    assert be.breakeven_reachable is False
    assert be.breakeven_nodes == math.ceil(expected_out / (92 * 3600 * 730))  # 7


def test_break_even_b300_vs_kimi_api(kimi_api: TokenPrices) -> None:
    be = break_even(tokens_per_second=92, hourly_usd=56.79, api_prices=kimi_api, hours_per_month=730)
    expected_per_million = 56.79 / (92 * 3600 / 1e6)
    assert be.usd_per_million_output_tokens == pytest.approx(expected_per_million)
    assert be.api_usd_per_million_output_tokens == 10.00
    assert be.ratio_to_api == pytest.approx(expected_per_million / 10.00)  # ~17.15
    assert be.breakeven_tokens_per_second == pytest.approx(56.79 / (10.00 * 3600 / 1e6))  # ~1577.5
    assert be.monthly_usd == pytest.approx(56.79 * 730)
    expected_out = 56.79 * 730 / ((5 * 2.00 + 10.00) / 1e6)  # ~2.0728e9
    assert be.breakeven_output_tokens_per_month == pytest.approx(expected_out)
    assert be.breakeven_output_tokens_per_month == pytest.approx(2.0728e9, rel=1e-4)
    assert be.breakeven_input_tokens_per_month == pytest.approx(5 * expected_out)


def test_break_even_at_breakeven_throughput_is_parity(bedrock: TokenPrices) -> None:
    tps = 56.79 / (12.00 * 3600 / 1e6)
    be = break_even(tokens_per_second=tps, hourly_usd=56.79, api_prices=bedrock, hours_per_month=730)
    assert be.ratio_to_api == pytest.approx(1.0)
    assert be.usd_per_million_output_tokens == pytest.approx(12.00)


def test_break_even_other_input_output_ratio(bedrock: TokenPrices) -> None:
    be = break_even(
        tokens_per_second=92, hourly_usd=56.79, api_prices=bedrock, hours_per_month=730, input_output_ratio=0
    )
    assert be.breakeven_output_tokens_per_month == pytest.approx(56.79 * 730 / (12.00 / 1e6))
    assert be.breakeven_input_tokens_per_month == 0.0
    be = break_even(
        tokens_per_second=92, hourly_usd=56.79, api_prices=bedrock, hours_per_month=730, input_output_ratio=20
    )
    expected_out = 56.79 * 730 / ((20 * 3.00 + 12.00) / 1e6)
    assert be.breakeven_output_tokens_per_month == pytest.approx(expected_out)
    assert be.breakeven_input_tokens_per_month == pytest.approx(20 * expected_out)


def test_break_even_reachable_at_high_throughput(kimi_api: TokenPrices) -> None:
    # The AWS sample aggregate (4634 tok/s) against kimi-api: one node covers its break-even volume.
    be = break_even(tokens_per_second=4634, hourly_usd=56.79, api_prices=kimi_api, hours_per_month=730)
    assert be.ratio_to_api == pytest.approx(56.79 / (4634 * 3600 / 1e6) / 10.00)
    assert be.ratio_to_api < 1
    assert be.breakeven_reachable is True
    assert be.breakeven_nodes == 1


def test_break_even_as_dict(bedrock: TokenPrices) -> None:
    be = break_even(tokens_per_second=92, hourly_usd=56.79, api_prices=bedrock, hours_per_month=730)
    data = be.as_dict()
    for key in (
        "usd_per_million_output_tokens",
        "api_usd_per_million_output_tokens",
        "ratio_to_api",
        "breakeven_tokens_per_second",
        "monthly_usd",
        "breakeven_output_tokens_per_month",
        "breakeven_input_tokens_per_month",
        "tokens_per_second",
        "hourly_usd",
        "input_output_ratio",
    ):
        assert key in data, key
    assert data["monthly_usd"] == be.monthly_usd
    assert data["ratio_to_api"] == be.ratio_to_api
    assert json.loads(json.dumps(data)) == data


@pytest.mark.parametrize("tps", [0, -92, float("nan"), float("inf"), None])
def test_break_even_bad_tokens_per_second(bedrock: TokenPrices, tps) -> None:
    with pytest.raises(PricingError, match=r"^tokens_per_second: got .*; allowed: a finite number > 0"):
        break_even(tokens_per_second=tps, hourly_usd=56.79, api_prices=bedrock, hours_per_month=730)


@pytest.mark.parametrize("hourly", [0, -1, None, float("inf")])
def test_break_even_bad_hourly(bedrock: TokenPrices, hourly) -> None:
    with pytest.raises(PricingError) as info:
        break_even(
            tokens_per_second=92,
            hourly_usd=hourly,
            api_prices=bedrock,
            hours_per_month=730,
            instance_type="p6-b200.48xlarge",
        )
    message = str(info.value)
    assert message.startswith("self_hosting.p6-b200.48xlarge.hourly_usd: got ")
    assert "p6-b200.48xlarge" in message and "--hourly-usd" in message and "> 0" in message


def test_break_even_catalog_null_price(catalog: PriceCatalog, bedrock: TokenPrices) -> None:
    option = catalog.self_hosting_option("p6-b200.48xlarge")
    with pytest.raises(PricingError, match=r"p6-b200\.48xlarge.*--hourly-usd"):
        break_even(
            tokens_per_second=100,
            hourly_usd=option.hourly_usd,
            api_prices=bedrock,
            hours_per_month=730,
            instance_type=option.instance_type,
        )


def test_break_even_bad_ratio_and_free_output(bedrock: TokenPrices) -> None:
    with pytest.raises(PricingError, match=r"^input_output_ratio: got -1"):
        break_even(
            tokens_per_second=92,
            hourly_usd=56.79,
            api_prices=bedrock,
            hours_per_month=730,
            input_output_ratio=-1,
        )
    free = _prices(output_usd_per_million=0.0)
    with pytest.raises(PricingError, match=r"^test\.output_usd_per_million: got 0\.0"):
        break_even(tokens_per_second=92, hourly_usd=56.79, api_prices=free, hours_per_month=730)


# --------------------------------------------------------------------------------------------------
# Cost curve
# --------------------------------------------------------------------------------------------------


def test_monthly_cost_curve(bedrock: TokenPrices) -> None:
    capacity = 92 * 3600 * 730  # output tokens one node makes in a month
    curve = monthly_cost_curve(
        api_prices=bedrock,
        hourly_usd=56.79,
        tokens_per_second=92,
        hours_per_month=730,
        max_output_tokens_per_month=3 * capacity,
        points=7,
    )
    volumes = [p.output_tokens_per_month for p in curve]
    assert volumes == sorted(volumes)
    assert volumes[0] == 0.0 and volumes[-1] == pytest.approx(3 * capacity)
    for k in (1, 2, 3):  # every node boundary is a point
        assert any(v == pytest.approx(k * capacity) for v in volumes)
    for point in curve:
        v = point.output_tokens_per_month
        assert point.input_tokens_per_month == pytest.approx(5 * v)
        assert point.api_monthly_usd == pytest.approx((5 * v * 3.00 + v * 12.00) / 1e6)
        assert point.nodes == math.ceil(v / capacity - 1e-9)
        assert point.self_hosted_monthly_usd == pytest.approx(point.nodes * 56.79 * 730)
    by_volume = {round(p.output_tokens_per_month): p for p in curve}
    assert by_volume[capacity].nodes == 1  # (0, capacity] is one node
    assert by_volume[round(capacity * 0.5)].nodes == 1
    assert by_volume[round(capacity * 1.5)].nodes == 2
    assert by_volume[0].nodes == 0
    assert json.loads(json.dumps([p.as_dict() for p in curve])) == [p.as_dict() for p in curve]


def test_monthly_cost_curve_default_range_and_min_nodes(bedrock: TokenPrices) -> None:
    curve = monthly_cost_curve(
        api_prices=bedrock, hourly_usd=56.79, tokens_per_second=92, hours_per_month=730, min_nodes=1
    )
    breakeven_out = 56.79 * 730 / ((5 * 3.00 + 12.00) / 1e6)
    assert curve[-1].output_tokens_per_month == pytest.approx(2 * breakeven_out)
    assert curve[0].nodes == 1 and curve[0].self_hosted_monthly_usd == pytest.approx(56.79 * 730)
    assert len(curve) >= 50


def test_monthly_cost_curve_validation(bedrock: TokenPrices) -> None:
    common = dict(api_prices=bedrock, tokens_per_second=92, hours_per_month=730)
    with pytest.raises(PricingError, match=r"^points: got 1; allowed: an integer >= 2"):
        monthly_cost_curve(hourly_usd=56.79, points=1, **common)
    with pytest.raises(PricingError, match="--hourly-usd"):
        monthly_cost_curve(hourly_usd=None, **common)
    with pytest.raises(PricingError, match=r"^max_output_tokens_per_month: got -1"):
        monthly_cost_curve(hourly_usd=56.79, max_output_tokens_per_month=-1, **common)


# --------------------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------------------


def test_format_cost_table(bedrock: TokenPrices) -> None:
    est = estimate_cost(Workload(1000, 8000, 500, cached_input_fraction=0.5), bedrock, hours_per_month=730)
    text = format_cost_table(est)
    assert "bedrock" in text
    assert "USD/day" in text and "USD/month" in text and "tokens/day" in text and "USD/1M tokens" in text
    total = next(line for line in text.splitlines() if line.startswith("total"))
    assert "21.00" in total  # 12.00 + 3.00 + 6.00
    assert "638.75" in total  # 21.00 * 730 / 24
    assert "4,000,000" in text
    lines = [line for line in text.splitlines()[1:] if line and not line.startswith(("hourly", "prices"))]
    assert len({len(line) for line in lines}) == 1  # fixed width


def test_format_breakeven_table(bedrock: TokenPrices) -> None:
    be = break_even(tokens_per_second=92, hourly_usd=56.79, api_prices=bedrock, hours_per_month=730, instance_type=B300)
    text = format_breakeven_table(be)
    assert B300 in text and "bedrock" in text
    for snippet in (
        "171.47",
        "27.00",
        "6.35",
        "584.3",
        "1,314.6",
        "41,456.70",
        "1,535,433,333",
        "USD/h",
        "output tokens/s",
    ):
        assert snippet in text, snippet
    assert "costs 6.35x the API (blended)" in text and "needs 584.3 output tokens/s" in text
    assert "ratio, output price alone" in text  # the output-only ratio stays, labelled


def test_blended_break_even_is_one_number_for_one_question(bedrock: TokenPrices) -> None:
    """The break-even throughput and the break-even volume answer the same question: they agree, and no output
    says "cheaper" with a ratio above 1."""
    for tps in (92.0, 516.0, 584.2592592592592, 600.0, 4634.0):
        for cached in (0.0, 0.5):
            be = break_even(
                tokens_per_second=tps,
                hourly_usd=56.79,
                api_prices=bedrock,
                hours_per_month=730,
                cached_input_fraction=cached,
            )
            assert be.breakeven_tokens_per_second_blended * 730 * 3600 == pytest.approx(
                be.breakeven_output_tokens_per_month, rel=1e-12
            )
            assert be.breakeven_reachable == (be.ratio_to_api_blended <= 1 + 1e-12)
            assert be.self_hosting_cheaper == (be.ratio_to_api_blended < 1)
            text = format_breakeven_table(be)
            assert ("self-hosting is cheaper" in text) == be.breakeven_reachable
    # at 5:1 without caching the blended API costs 5 x 3.00 + 12.00 = 27.00 USD per 1M output tokens
    be = break_even(tokens_per_second=516, hourly_usd=56.79, api_prices=bedrock, hours_per_month=730)
    assert be.api_usd_per_million_output_tokens_blended == pytest.approx(27.0)
    assert be.ratio_to_api_blended == pytest.approx(56.79 / (516 * 0.0036) / 27.0)
    assert be.breakeven_tokens_per_second_blended == pytest.approx(56.79 / (27.0 * 0.0036))


# --------------------------------------------------------------------------------------------------
# Module hygiene
# --------------------------------------------------------------------------------------------------


def test_module_imports_only_stdlib_and_yaml() -> None:
    tree = ast.parse(Path(pricing.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert "aws_cdk" not in imported
    assert "pydantic" not in imported
    allowed = {
        "__future__",
        "collections",
        "math",
        "dataclasses",
        "datetime",
        "pathlib",
        "types",
        "typing",
        "yaml",
        "landing_zone",
    }
    assert imported <= allowed


def test_pricing_error_attributes() -> None:
    error = PricingError("tokens_per_second", 0, "a finite number > 0")
    assert (error.field, error.value, error.allowed) == ("tokens_per_second", 0, "a finite number > 0")
    assert str(error) == "tokens_per_second: got 0; allowed: a finite number > 0"


def test_self_hosting_hardware_facts_are_catalog_data_with_provenance():
    catalog = load_price_catalog()
    model = catalog.self_hosted_model
    assert model is not None and model.weights_gb == 1560.9 and model.vllm_min_gpu_memory_gb == 1680
    assert model.source and model.as_of and model.verified is False
    b300 = catalog.self_hosting["p6-b300.48xlarge"]
    assert b300.network_cards == 17 and b300.cold_start_minutes == (22, 27)
    assert {o.network_cards for o in catalog.self_hosting.values()} == {17, 8, 16}
