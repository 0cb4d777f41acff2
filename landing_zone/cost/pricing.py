"""Pure cost arithmetic for Kimi K3.1 Pro: token-priced APIs versus a self-hosted node.

Every figure comes from ``landing_zone/core/catalog/prices.yaml`` (read by :mod:`landing_zone.core.catalog.prices`)
or a config override and carries its source and date.  All money is USD as ``float``; nothing is rounded inside
the model, only when a table is formatted (:mod:`landing_zone.cost.tables`).  Standard library only; no
``aws_cdk``.

Formulas (``M = 1_000_000``; ``H`` = hours per month, 730 in the catalog):

Token cost (:func:`estimate_cost`), per day::

    input tokens        T_in  = requests_per_day * input_tokens_per_request
    cache-read tokens   T_cr  = T_in * cached_input_fraction
    cache-write tokens  T_cw  = T_in * cache_write_fraction
    plain input tokens  T_pi  = T_in * (1 - cached_input_fraction - cache_write_fraction)
    output tokens       T_out = requests_per_day * output_tokens_per_request
    cost of each part   = tokens * price_usd_per_million / M
    daily   = input + cache_read + cache_write + output
    hourly  = daily / 24
    monthly = daily * H / 24

Self-hosting break-even (:func:`break_even`), for one node at ``tps`` output tokens/s and ``hourly`` USD/h.
The node's throughput already includes reading the prompts, while the API bills those input tokens on top of
every output token: the honest comparison is **blended** — the API cost of 1M output tokens together with the
R million input tokens that come with them, at the workload's cache share::

    effective input price          = (1 - c - w) * input + c * cache read + w * cache write
    API blended USD per 1M output  = R * effective input price + output price
    self-hosted USD per 1M output  = hourly / (tps * 3600 / M)
    ratio (blended)                = self-hosted USD per 1M output / API blended USD per 1M output
    break-even tokens/s (blended)  = hourly / (API blended * 3600 / M)
    monthly (24/7)                 = hourly * H
    break-even output tokens/month = monthly / (API blended / M)  = break-even tokens/s (blended) * 3600 * H
    break-even input tokens/month  = R * break-even output tokens/month
    (R = input tokens per output token, default 5; c, w = cached and cache-written input fractions, default 0)

The output-price-only figures (``ratio_to_api``, ``breakeven_tokens_per_second``) stay, labelled as such: they
ignore the input tokens and overstate what self-hosting must produce.

Cost curve (:func:`monthly_cost_curve`), for a monthly output volume ``V``::

    API monthly USD         = (R * V * API input price + V * API output price) / M
    nodes                   = max(min_nodes, ceil(V / (tps * 3600 * H)))
    self-hosted monthly USD = nodes * hourly * H
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from landing_zone.core.catalog.prices import PRICE_FIELDS, TokenPrices, hourly_hint
from landing_zone.errors import PricingError

__all__ = [
    "DEFAULT_INPUT_OUTPUT_RATIO",
    "BreakEven",
    "CostEstimate",
    "CurvePoint",
    "Workload",
    "blended_usd_per_million_output",
    "break_even",
    "estimate_cost",
    "monthly_cost_curve",
    "with_discount",
    "with_overrides",
]

DEFAULT_INPUT_OUTPUT_RATIO = 5.0

_MILLION = 1_000_000.0
_SECONDS_PER_HOUR = 3600.0
_HOURS_PER_DAY = 24.0
# Floating-point slack when checking cached_input_fraction + cache_write_fraction <= 1.
_FRACTION_SUM_TOLERANCE = 1e-9


# ---------------------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------------------


def _number(
    field_name: str, value: Any, *, allowed: str = "a finite number", error: type[PricingError] = PricingError
) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise error(field_name, value, allowed)
    result = float(value)
    if not math.isfinite(result):
        raise error(field_name, value, allowed)
    return result


def _non_negative(field_name: str, value: Any) -> float:
    allowed = "a finite number >= 0"
    result = _number(field_name, value, allowed=allowed)
    if result < 0:
        raise PricingError(field_name, value, allowed)
    return result


def _positive(
    field_name: str, value: Any, hint: str | None = None, *, error: type[PricingError] = PricingError
) -> float:
    """A finite number > 0; ``error`` lets other modules raise their own PricingError subclass."""
    allowed = "a finite number > 0"
    if value is None:
        raise error(field_name, value, allowed, hint)
    try:
        result = _number(field_name, value, allowed=allowed)
    except PricingError:
        raise error(field_name, value, allowed, hint) from None
    if result <= 0:
        raise error(field_name, value, allowed, hint)
    return result


def _fraction(field_name: str, value: Any) -> float:
    allowed = "a number between 0 and 1 inclusive"
    result = _number(field_name, value, allowed=allowed)
    if not 0.0 <= result <= 1.0:
        raise PricingError(field_name, value, allowed)
    return result


# ---------------------------------------------------------------------------------------------------
# Inputs and results
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """A steady daily workload.

    ``input_tokens_per_request`` is the whole prompt, including the part read from or written to the
    prompt cache.  Input tokens billed at the plain input price are
    ``input * (1 - cached_input_fraction - cache_write_fraction)``.
    """

    requests_per_day: float
    input_tokens_per_request: float  # total prompt tokens per request, INCLUDING the cached part
    output_tokens_per_request: float
    cached_input_fraction: float = 0.0  # billed at the cache-read price
    cache_write_fraction: float = 0.0  # billed at the cache-write price instead of the input price

    def __post_init__(self) -> None:
        for name in ("requests_per_day", "input_tokens_per_request", "output_tokens_per_request"):
            object.__setattr__(self, name, _non_negative(name, getattr(self, name)))
        for name in ("cached_input_fraction", "cache_write_fraction"):
            object.__setattr__(self, name, _fraction(name, getattr(self, name)))
        total = self.cached_input_fraction + self.cache_write_fraction
        if total > 1.0 + _FRACTION_SUM_TOLERANCE:
            raise PricingError(
                "cached_input_fraction + cache_write_fraction",
                total,
                "a sum <= 1 (both are shares of the same input tokens)",
            )

    @property
    def uncached_input_fraction(self) -> float:
        return max(0.0, 1.0 - self.cached_input_fraction - self.cache_write_fraction)


@dataclass(frozen=True)
class CostEstimate:
    """Cost of a :class:`Workload` at one price source.  USD, unrounded."""

    price_source: str
    input_usd_per_day: float  # uncached input only
    cache_read_usd_per_day: float
    cache_write_usd_per_day: float
    output_usd_per_day: float
    daily_usd: float
    monthly_usd: float  # daily * hours_per_month / 24
    hourly_usd: float  # daily / 24
    tokens_per_day: dict[str, float]  # input (uncached), cache_read, cache_write, output
    hours_per_month: float = 730.0
    usd_per_million: dict[str, float] = field(default_factory=dict)  # the prices applied
    prices_source: str = ""  # provenance of the prices
    prices_as_of: str = ""
    prices_verified: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "price_source": self.price_source,
            "input_usd_per_day": self.input_usd_per_day,
            "cache_read_usd_per_day": self.cache_read_usd_per_day,
            "cache_write_usd_per_day": self.cache_write_usd_per_day,
            "output_usd_per_day": self.output_usd_per_day,
            "daily_usd": self.daily_usd,
            "hourly_usd": self.hourly_usd,
            "monthly_usd": self.monthly_usd,
            "hours_per_month": self.hours_per_month,
            "tokens_per_day": dict(self.tokens_per_day),
            "usd_per_million": dict(self.usd_per_million),
            "prices_source": self.prices_source,
            "prices_as_of": self.prices_as_of,
            "prices_verified": self.prices_verified,
        }


@dataclass(frozen=True)
class BreakEven:
    """One self-hosted node against a token-priced API.  USD, unrounded."""

    tokens_per_second: float
    hourly_usd: float
    usd_per_million_output_tokens: float  # hourly / (tps * 3600 / 1e6)
    api_usd_per_million_output_tokens: float
    ratio_to_api: float  # self-hosted $/1M out / API $/1M out
    breakeven_tokens_per_second: float  # tps at which self-hosted $/1M out == API output price
    monthly_usd: float  # hourly * hours_per_month (24/7)
    input_output_ratio: float  # R input tokens per output token
    breakeven_output_tokens_per_month: float  # API cost (R*out*in + out*out)/1e6 == monthly_usd
    breakeven_input_tokens_per_month: float  # R * breakeven_output_tokens_per_month
    hours_per_month: float = 730.0
    api_usd_per_million_input_tokens: float = 0.0
    price_source: str = ""
    instance_type: str = ""
    cached_input_fraction: float = 0.0
    cache_write_fraction: float = 0.0
    # R * effective input price + output price: the API cost of 1M output tokens with their input tokens
    api_usd_per_million_output_tokens_blended: float = 0.0
    ratio_to_api_blended: float = 0.0  # self-hosted $/1M out / API blended $/1M out
    breakeven_tokens_per_second_blended: float = 0.0  # tps at which self-hosted $/1M out == API blended

    @property
    def api_blended_usd_per_million_output_tokens(self) -> float:
        """API cost of 1M output tokens plus the R million input tokens that come with them (cache share included)."""
        return self.api_usd_per_million_output_tokens_blended

    @property
    def self_hosting_cheaper(self) -> bool:
        """At this throughput, is a fully used node cheaper per output token than the API (blended)?"""
        return self.ratio_to_api_blended < 1.0

    @property
    def output_tokens_per_month_capacity(self) -> float:
        """Output tokens one node produces in a month running 24/7 at ``tokens_per_second``."""
        return self.tokens_per_second * _SECONDS_PER_HOUR * self.hours_per_month

    @property
    def breakeven_nodes(self) -> int:
        """Nodes needed to serve the break-even volume at ``tokens_per_second`` each."""
        return _nodes_for(self.breakeven_output_tokens_per_month, self.output_tokens_per_month_capacity)

    @property
    def breakeven_reachable(self) -> bool:
        """True when one node can serve its own break-even volume, i.e. self-hosting can ever win."""
        return self.breakeven_output_tokens_per_month <= self.output_tokens_per_month_capacity

    def as_dict(self) -> dict[str, Any]:
        return {
            "instance_type": self.instance_type,
            "price_source": self.price_source,
            "tokens_per_second": self.tokens_per_second,
            "hourly_usd": self.hourly_usd,
            "hours_per_month": self.hours_per_month,
            "usd_per_million_output_tokens": self.usd_per_million_output_tokens,
            "api_usd_per_million_output_tokens": self.api_usd_per_million_output_tokens,
            "api_usd_per_million_input_tokens": self.api_usd_per_million_input_tokens,
            "ratio_to_api": self.ratio_to_api,
            "breakeven_tokens_per_second": self.breakeven_tokens_per_second,
            "monthly_usd": self.monthly_usd,
            "input_output_ratio": self.input_output_ratio,
            "api_blended_usd_per_million_output_tokens": self.api_blended_usd_per_million_output_tokens,
            "cached_input_fraction": self.cached_input_fraction,
            "cache_write_fraction": self.cache_write_fraction,
            "api_usd_per_million_output_tokens_blended": self.api_usd_per_million_output_tokens_blended,
            "ratio_to_api_blended": self.ratio_to_api_blended,
            "breakeven_tokens_per_second_blended": self.breakeven_tokens_per_second_blended,
            "breakeven_output_tokens_per_month": self.breakeven_output_tokens_per_month,
            "breakeven_input_tokens_per_month": self.breakeven_input_tokens_per_month,
            "output_tokens_per_month_capacity": self.output_tokens_per_month_capacity,
            "breakeven_nodes": self.breakeven_nodes,
            "breakeven_reachable": self.breakeven_reachable,
        }


@dataclass(frozen=True)
class CurvePoint:
    """One point of :func:`monthly_cost_curve`."""

    output_tokens_per_month: float
    input_tokens_per_month: float
    api_monthly_usd: float
    self_hosted_monthly_usd: float
    nodes: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "output_tokens_per_month": self.output_tokens_per_month,
            "input_tokens_per_month": self.input_tokens_per_month,
            "api_monthly_usd": self.api_monthly_usd,
            "self_hosted_monthly_usd": self.self_hosted_monthly_usd,
            "nodes": self.nodes,
        }


# ---------------------------------------------------------------------------------------------------
# Price overrides
# ---------------------------------------------------------------------------------------------------


# Accepted override keys -> TokenPrices field: short names, field names and prices.yaml names.
_OVERRIDE_KEYS: dict[str, str] = {}
for _attr in PRICE_FIELDS:
    _short = _attr.removesuffix("_usd_per_million")
    _OVERRIDE_KEYS[_short] = _attr
    _OVERRIDE_KEYS[_attr] = _attr
    _OVERRIDE_KEYS[f"{_attr}_tokens"] = _attr
del _attr, _short


def with_overrides(prices: TokenPrices, **usd_per_million: float | None) -> TokenPrices:
    """Return ``prices`` with individual prices (USD per 1M tokens) replaced, e.g. from config.

    Keys may be ``input``/``cache_read``/``cache_write``/``output``, the :class:`TokenPrices` field
    names (``input_usd_per_million``...) or the prices.yaml names (``input_usd_per_million_tokens``...).
    ``None`` values are ignored.  When a value actually changes, the provenance text records the override
    and ``verified`` becomes False (the catalog's verification no longer covers the figure).
    """
    changes: dict[str, float] = {}
    for key, value in usd_per_million.items():
        attr = _OVERRIDE_KEYS.get(key)
        if attr is None:
            allowed = (
                "one of: input, cache_read, cache_write, output "
                "(or the same with suffix _usd_per_million or _usd_per_million_tokens)"
            )
            raise PricingError(f"price override {key!r}", value, allowed)
        if value is None:
            continue
        number = _non_negative(f"price override {key}", value)
        if attr in changes and changes[attr] != number:
            raise PricingError(
                f"price override {key}", value, f"a single value per price (already got {changes[attr]!r})"
            )
        changes[attr] = number
    changed = {attr: v for attr, v in changes.items() if v != getattr(prices, attr)}
    if not changed:
        return prices
    note = ", ".join(f"{attr}={v!r}" for attr, v in changed.items())
    fields: dict[str, Any] = {**changed, "source": f"{prices.source}; overridden in config: {note}", "verified": False}
    return replace(prices, **fields)


def with_discount(prices: TokenPrices, fraction: float | None = None) -> TokenPrices:
    """Every price multiplied by ``1 - fraction`` (default: the source's global-profile discount)."""
    share = prices.global_profile_discount_fraction if fraction is None else fraction
    share = _fraction("discount fraction", share)
    if share == 0.0:
        return prices
    factor = 1.0 - share
    return replace(
        prices,
        source=f"{prices.source}; discounted by {share!r}",
        **{attr: getattr(prices, attr) * factor for attr in PRICE_FIELDS},
    )


# --------------------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------------------


def estimate_cost(workload: Workload, prices: TokenPrices, *, hours_per_month: float) -> CostEstimate:
    """Daily, hourly and monthly cost of ``workload`` at ``prices`` (formulas in the module docstring)."""
    hours = _positive("hours_per_month", hours_per_month)
    total_input = workload.requests_per_day * workload.input_tokens_per_request
    tokens = {
        "input": total_input * workload.uncached_input_fraction,
        "cache_read": total_input * workload.cached_input_fraction,
        "cache_write": total_input * workload.cache_write_fraction,
        "output": workload.requests_per_day * workload.output_tokens_per_request,
    }
    rates = {
        "input": prices.input_usd_per_million,
        "cache_read": prices.cache_read_usd_per_million,
        "cache_write": prices.cache_write_usd_per_million,
        "output": prices.output_usd_per_million,
    }
    usd = {part: tokens[part] * rates[part] / _MILLION for part in tokens}
    daily = usd["input"] + usd["cache_read"] + usd["cache_write"] + usd["output"]
    return CostEstimate(
        price_source=prices.source_name,
        input_usd_per_day=usd["input"],
        cache_read_usd_per_day=usd["cache_read"],
        cache_write_usd_per_day=usd["cache_write"],
        output_usd_per_day=usd["output"],
        daily_usd=daily,
        monthly_usd=daily * hours / _HOURS_PER_DAY,
        hourly_usd=daily / _HOURS_PER_DAY,
        tokens_per_day=tokens,
        hours_per_month=hours,
        usd_per_million=rates,
        prices_source=prices.source,
        prices_as_of=prices.as_of,
        prices_verified=prices.verified,
    )


def _api_output_price(api_prices: TokenPrices) -> float:
    return _positive(
        f"{api_prices.source_name}.output_usd_per_million",
        api_prices.output_usd_per_million,
        hint="a break-even against a free output price is undefined",
    )


def blended_usd_per_million_output(
    api_prices: TokenPrices,
    input_output_ratio: float,
    cached_input_fraction: float = 0.0,
    cache_write_fraction: float = 0.0,
) -> float:
    """The API cost of 1M output tokens with their ``input_output_ratio`` million input tokens, cache share
    included (the formula in the module docstring)."""
    c = _fraction("cached_input_fraction", cached_input_fraction)
    w = _fraction("cache_write_fraction", cache_write_fraction)
    if c + w > 1 + _FRACTION_SUM_TOLERANCE:
        raise PricingError("cached_input_fraction + cache_write_fraction", c + w, "at most 1")
    effective_input = (
        max(0.0, 1 - c - w) * api_prices.input_usd_per_million
        + c * api_prices.cache_read_usd_per_million
        + w * api_prices.cache_write_usd_per_million
    )
    return _non_negative("input_output_ratio", input_output_ratio) * effective_input + api_prices.output_usd_per_million


def break_even(
    *,
    tokens_per_second: float,
    hourly_usd: float | None,
    api_prices: TokenPrices,
    hours_per_month: float,
    input_output_ratio: float = DEFAULT_INPUT_OUTPUT_RATIO,
    instance_type: str = "",
    cached_input_fraction: float = 0.0,
    cache_write_fraction: float = 0.0,
) -> BreakEven:
    """One self-hosted node (``hourly_usd``, ``tokens_per_second`` output) against ``api_prices``.

    ``instance_type`` only names the instance in error messages and tables.
    """
    tps = _positive("tokens_per_second", tokens_per_second)
    field_name = f"self_hosting.{instance_type}.hourly_usd" if instance_type else "hourly_usd"
    hourly = _positive(field_name, hourly_usd, hint=hourly_hint(instance_type))
    hours = _positive("hours_per_month", hours_per_month)
    ratio_in_out = _non_negative("input_output_ratio", input_output_ratio)
    api_out = _api_output_price(api_prices)
    api_in = api_prices.input_usd_per_million
    blended = blended_usd_per_million_output(api_prices, ratio_in_out, cached_input_fraction, cache_write_fraction)

    self_hosted_per_million = hourly / (tps * _SECONDS_PER_HOUR / _MILLION)
    monthly = hourly * hours
    breakeven_tps_blended = hourly / (blended * _SECONDS_PER_HOUR / _MILLION)
    breakeven_out = breakeven_tps_blended * _SECONDS_PER_HOUR * hours  # = monthly / (blended / M)
    return BreakEven(
        tokens_per_second=tps,
        hourly_usd=hourly,
        usd_per_million_output_tokens=self_hosted_per_million,
        api_usd_per_million_output_tokens=api_out,
        ratio_to_api=self_hosted_per_million / api_out,
        breakeven_tokens_per_second=hourly / (api_out * _SECONDS_PER_HOUR / _MILLION),
        monthly_usd=monthly,
        input_output_ratio=ratio_in_out,
        breakeven_output_tokens_per_month=breakeven_out,
        breakeven_input_tokens_per_month=ratio_in_out * breakeven_out,
        hours_per_month=hours,
        api_usd_per_million_input_tokens=api_in,
        price_source=api_prices.source_name,
        instance_type=instance_type,
        cached_input_fraction=cached_input_fraction,
        cache_write_fraction=cache_write_fraction,
        api_usd_per_million_output_tokens_blended=blended,
        ratio_to_api_blended=self_hosted_per_million / blended,
        breakeven_tokens_per_second_blended=breakeven_tps_blended,
    )


def _nodes_for(volume: float, capacity: float) -> int:
    """ceil(volume / capacity), treating a quotient within 1e-9 of an integer as that integer."""
    quotient = volume / capacity
    nearest = round(quotient)
    if abs(quotient - nearest) <= 1e-9 * max(1.0, abs(quotient)):
        return int(nearest)
    return math.ceil(quotient)


def monthly_cost_curve(
    *,
    api_prices: TokenPrices,
    hourly_usd: float | None,
    tokens_per_second: float,
    hours_per_month: float,
    input_output_ratio: float = DEFAULT_INPUT_OUTPUT_RATIO,
    max_output_tokens_per_month: float | None = None,
    points: int = 50,
    min_nodes: int = 0,
    instance_type: str = "",
    cached_input_fraction: float = 0.0,
    cache_write_fraction: float = 0.0,
) -> list[CurvePoint]:
    """Monthly cost against monthly output volume, API versus self-hosted nodes, for a chart.

    Volumes run from 0 to ``max_output_tokens_per_month`` (default: twice the one-node break-even
    volume, at least two nodes' capacity) in ``points`` even steps, plus every node-capacity boundary
    ``k * tps * 3600 * hours_per_month`` in range (when there are at most ``10 * points`` of them), sorted.

    * API monthly USD = V * (R * effective input price + output price) / 1e6, the effective input price with
      the given cache share (:func:`blended_usd_per_million_output`).
    * Nodes = max(min_nodes, ceil(V / (tps * 3600 * hours_per_month))); self-hosted monthly USD =
      nodes * hourly_usd * hours_per_month.  At a boundary ``V = k * capacity`` the value is k nodes, so
      the interval ((k-1)*capacity, k*capacity] has k nodes: draw the self-hosted series with
      Matplotlib ``drawstyle="steps-pre"`` or Plotly ``line_shape="vh"``.
    """
    tps = _positive("tokens_per_second", tokens_per_second)
    field_name = f"self_hosting.{instance_type}.hourly_usd" if instance_type else "hourly_usd"
    hourly = _positive(field_name, hourly_usd, hint=hourly_hint(instance_type))
    hours = _positive("hours_per_month", hours_per_month)
    ratio_in_out = _non_negative("input_output_ratio", input_output_ratio)
    if isinstance(points, bool) or not isinstance(points, int) or points < 2:
        raise PricingError("points", points, "an integer >= 2")
    if isinstance(min_nodes, bool) or not isinstance(min_nodes, int) or min_nodes < 0:
        raise PricingError("min_nodes", min_nodes, "an integer >= 0")
    blended = blended_usd_per_million_output(api_prices, ratio_in_out, cached_input_fraction, cache_write_fraction)
    capacity = tps * _SECONDS_PER_HOUR * hours
    node_monthly = hourly * hours

    if max_output_tokens_per_month is None:
        breakeven = node_monthly / (blended / _MILLION) if blended > 0 else capacity
        top = max(2.0 * breakeven, 2.0 * capacity)
    else:
        top = _positive("max_output_tokens_per_month", max_output_tokens_per_month)

    volumes = {top * i / (points - 1) for i in range(points)}
    boundaries = math.floor(top / capacity)
    if boundaries <= 10 * points:
        volumes.update(k * capacity for k in range(1, boundaries + 1))

    curve = []
    for volume in sorted(volumes):
        nodes = max(min_nodes, _nodes_for(volume, capacity))
        curve.append(
            CurvePoint(
                output_tokens_per_month=volume,
                input_tokens_per_month=ratio_in_out * volume,
                api_monthly_usd=volume * blended / _MILLION,
                self_hosted_monthly_usd=nodes * node_monthly,
                nodes=nodes,
            )
        )
    return curve
