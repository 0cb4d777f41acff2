"""Self-hosting economics and warnings (pure: no CDK, no AWS calls).

Inputs are the validated ``self_hosting`` options, the price catalog (``landing_zone/core/catalog/prices.yaml``)
and, from the plan, each model's resolved prices and workload parts.  The self-hosted weights are Kimi K3's: the
break-even compares a node only with the prices of the models ``self_hosted_model.model_ids`` names (the first one
configured, at its own resolved prices; else the catalog's ``bedrock`` entry of the first), and with that model's
share of the workload — never with another model's prices.  Outputs:

* :func:`node_hourly_usd` - the hourly price of one GPU node: ``self_hosting.hourly_usd`` if set, else the
  catalog's figure for ``self_hosting.instance_type`` (None when neither exists);
* :func:`economics` - hourly and monthly node cost and the break-even against the API
  (:func:`landing_zone.cost.pricing.break_even`);
* :func:`monthly_cost_line` - the self-hosted line of the budget / cost report:
  ``nodes x hourly_usd x hours_per_month`` with ``nodes = self_hosting.max_size``;
* :func:`self_hosting_warnings` - the plan warnings: a GPU type that cannot hold the weights on one node,
  an expected throughput below break-even ("self-hosting then costs N x the API per output token"), a
  missing hourly price.

Formulas (``M = 1e6``, ``H`` = hours per month, 730 in the catalog)::

    self-hosted USD per 1M output tokens = hourly / (tokens_per_second * 3600 / M)
    break-even tokens/s                  = hourly / (API output price * 3600 / M)
    ratio to API                         = self-hosted USD per 1M output / API output price
    monthly node cost                    = nodes * hourly * H
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from landing_zone.core.catalog.prices import BEDROCK_OFFER, PriceCatalog, TokenPrices
from landing_zone.core.config import LandingZoneConfig, SelfHosting
from landing_zone.cost.model_prices import ModelPrices, PricedPart
from landing_zone.cost.pricing import DEFAULT_INPUT_OUTPUT_RATIO, BreakEven, break_even
from landing_zone.errors import PricingError

__all__ = [
    "CostLine",
    "Economics",
    "comparable_api",
    "node_hourly_usd",
    "economics",
    "monthly_cost_line",
    "holds_weights",
    "workload_ratio",
    "workload_shape",
    "self_hosting_warnings",
]

# Weights size, vLLM's GPU-memory need and network cards per instance type are catalog data
# (core/catalog/prices.yaml: self_hosted_model, self_hosting.<type>.network_cards), with source and date.


@dataclass(frozen=True)
class CostLine:
    """One line of the budget / cost report: the self-hosted GPU nodes, running 24/7."""

    label: str
    instance_type: str
    nodes: int
    hourly_usd: float
    hours_per_month: float
    monthly_usd: float
    source: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "instance_type": self.instance_type,
            "nodes": self.nodes,
            "hourly_usd": self.hourly_usd,
            "hours_per_month": self.hours_per_month,
            "monthly_usd": self.monthly_usd,
            "source": self.source,
        }


@dataclass(frozen=True)
class Economics:
    """One GPU node against the configured API price source.  USD, unrounded."""

    instance_type: str
    hourly_usd: float
    hourly_usd_source: str
    hours_per_month: float
    monthly_usd_per_node: float
    expected_tokens_per_second: float
    break_even: BreakEven

    @property
    def below_break_even(self) -> bool:
        """Below the blended break-even: the API (input tokens included) is cheaper than a fully used node."""
        return self.expected_tokens_per_second < self.break_even.breakeven_tokens_per_second_blended

    def as_dict(self) -> dict[str, Any]:
        return {
            "instance_type": self.instance_type,
            "hourly_usd": self.hourly_usd,
            "hourly_usd_source": self.hourly_usd_source,
            "hours_per_month": self.hours_per_month,
            "monthly_usd_per_node": self.monthly_usd_per_node,
            "expected_tokens_per_second": self.expected_tokens_per_second,
            "below_break_even": self.below_break_even,
            "break_even": self.break_even.as_dict(),
        }


def node_hourly_usd(self_hosting: SelfHosting, prices: PriceCatalog) -> tuple[float | None, str]:
    """(USD per node-hour, where it came from).  ``self_hosting.hourly_usd`` wins over the catalog."""
    if self_hosting.hourly_usd is not None:
        return self_hosting.hourly_usd, "self_hosting.hourly_usd (config)"
    option = prices.self_hosting.get(self_hosting.instance_type)
    if option is None or option.hourly_usd is None:
        return None, f"price catalog has no hourly price for {self_hosting.instance_type}"
    verified = "verified" if option.verified else "unverified"
    return (
        option.hourly_usd,
        f"price catalog ({self_hosting.instance_type}: {option.source}, as of {option.as_of}, {verified})",
    )


def _require_hourly(self_hosting: SelfHosting, prices: PriceCatalog) -> tuple[float, str]:
    hourly, source = node_hourly_usd(self_hosting, prices)
    if hourly is None:
        raise PricingError(
            "self_hosting.hourly_usd",
            None,
            "a number > 0",
            hint=f"the price catalog has no hourly price for {self_hosting.instance_type}; set self_hosting.hourly_usd",
        )
    return hourly, source


def workload_shape(config: LandingZoneConfig, parts: Sequence[PricedPart] = ()) -> tuple[float, float, float]:
    """(input tokens per output token, cached input fraction, cache-write fraction) of the workload: what the API
    bills on top of each output token.  ``parts`` given: of those parts together; else of ``cost.workload`` (a
    workload without output tokens uses the default ratio)."""
    if parts:
        inp = sum(p.workload.requests_per_day * p.workload.input_tokens_per_request for p in parts)
        out = sum(p.workload.requests_per_day * p.workload.output_tokens_per_request for p in parts)

        def share(attr: str) -> float:
            total = sum(
                p.workload.requests_per_day * p.workload.input_tokens_per_request * getattr(p.workload, attr)
                for p in parts
            )
            return total / inp if inp else 0.0

        ratio = inp / out if out else DEFAULT_INPUT_OUTPUT_RATIO
        return ratio, share("cached_input_fraction"), share("cache_write_fraction")
    w = config.cost.workload
    ratio = (
        w.input_tokens_per_request / w.output_tokens_per_request
        if w.output_tokens_per_request
        else DEFAULT_INPUT_OUTPUT_RATIO
    )
    return ratio, w.cached_input_fraction, w.cache_write_fraction


def workload_ratio(config: LandingZoneConfig, parts: Sequence[PricedPart] = ()) -> tuple[float, float]:
    """(input tokens per output token, cached input fraction): :func:`workload_shape` without the cache writes."""
    ratio, cached, _ = workload_shape(config, parts)
    return ratio, cached


def comparable_api(
    prices: PriceCatalog, model_prices: ModelPrices | None = None, parts: Sequence[PricedPart] = ()
) -> tuple[TokenPrices, tuple[PricedPart, ...]]:
    """The API prices a self-hosted node replaces, and the workload parts it would serve.

    The first model of ``self_hosted_model.model_ids`` that the configuration prices (its workload part's path,
    else its first path), else the catalog's ``bedrock`` entry of the first of them.
    """
    model_ids = prices.self_hosted_model.model_ids if prices.self_hosted_model is not None else ()
    for model_id in model_ids:
        own = tuple(p for p in parts if p.model_id == model_id)
        if own:
            return own[0].prices, own
        configured = model_prices.for_model(model_id) if model_prices is not None else {}
        if configured:
            return next(iter(configured.values())), ()
    for model_id in model_ids:
        entry = prices.lookup(model_id, BEDROCK_OFFER)
        if entry is not None:
            return entry, ()
    return prices.prices(BEDROCK_OFFER), ()


def economics(
    config: LandingZoneConfig,
    prices: PriceCatalog,
    model_prices: ModelPrices | None = None,
    parts: Sequence[PricedPart] = (),
) -> Economics:
    """Break-even of one node of ``self_hosting.instance_type`` against the Kimi K3 model's own API prices
    (:func:`comparable_api`), at that model's workload ratio (all of ``cost.workload`` when it has no part).

    Raises PricingError naming ``self_hosting.hourly_usd`` when no hourly price is known.
    """
    sh = config.self_hosting
    hourly, source = _require_hourly(sh, prices)
    api, own = comparable_api(prices, model_prices, parts)
    ratio, cached, written = workload_shape(config, own)
    be = break_even(
        tokens_per_second=sh.expected_tokens_per_second,
        hourly_usd=hourly,
        api_prices=api,
        hours_per_month=prices.hours_per_month,
        instance_type=sh.instance_type,
        input_output_ratio=ratio,
        cached_input_fraction=cached,
        cache_write_fraction=written,
    )
    return Economics(
        instance_type=sh.instance_type,
        hourly_usd=hourly,
        hourly_usd_source=source,
        hours_per_month=prices.hours_per_month,
        monthly_usd_per_node=hourly * prices.hours_per_month,
        expected_tokens_per_second=sh.expected_tokens_per_second,
        break_even=be,
    )


def monthly_cost_line(config: LandingZoneConfig, prices: PriceCatalog) -> CostLine | None:
    """The self-hosted line for the budget: ``max_size`` nodes x hourly x hours per month; None when disabled.

    ``max_size`` (not ``desired_size``, which is 0 for a Capacity Block at deploy time) because a Capacity
    Block is paid for its whole duration whether or not nodes run, and an on-demand group may scale to
    ``max_size``: the budget must hold the worst month.  Raises PricingError when no hourly price is known.
    """
    sh = config.self_hosting
    if not sh.enabled:
        return None
    hourly, source = _require_hourly(sh, prices)
    nodes = max(sh.desired_size, sh.max_size)
    return CostLine(
        label=f"self-hosted {sh.instance_type} x{nodes} (24/7, {sh.capacity})",
        instance_type=sh.instance_type,
        nodes=nodes,
        hourly_usd=hourly,
        hours_per_month=prices.hours_per_month,
        monthly_usd=nodes * hourly * prices.hours_per_month,
        source=source,
    )


def holds_weights(instance_type: str, prices: PriceCatalog) -> bool | None:
    """Whether one node holds the model (catalog ``holds_kimi_k3_weights``, else GPU memory >= vLLM's need)."""
    option = prices.self_hosting.get(instance_type)
    if option is None:
        return None
    if option.holds_model_weights is not None:
        return option.holds_model_weights
    if option.gpu_memory_gb is not None and prices.self_hosted_model is not None:
        return option.gpu_memory_gb >= prices.self_hosted_model.vllm_min_gpu_memory_gb
    return None


def _short_source(self_hosting: SelfHosting, prices: PriceCatalog) -> str:
    if self_hosting.hourly_usd is not None:
        return "self_hosting.hourly_usd"
    option = prices.self_hosting[self_hosting.instance_type]
    return f"price catalog as of {option.as_of}{'' if option.verified else ', unverified'}"


def _usd(value: float) -> str:
    return f"{value:,.2f}"


def self_hosting_warnings(
    config: LandingZoneConfig,
    prices: PriceCatalog,
    model_prices: ModelPrices | None = None,
    parts: Sequence[PricedPart] = (),
) -> list[str]:
    """Plan warnings for ``self_hosting`` (empty when it is disabled)."""
    sh = config.self_hosting
    if not sh.enabled:
        return []
    warnings: list[str] = []
    if holds_weights(sh.instance_type, prices) is False:
        option = prices.self_hosting[sh.instance_type]
        memory = f"{option.gpu_memory_gb:,.0f} GB of GPU memory" if option.gpu_memory_gb else "too little GPU memory"
        model = prices.self_hosted_model
        need = (
            f"{model.weights_gb:,.1f} GB of weights (vLLM needs >= {model.vllm_min_gpu_memory_gb:,.0f} GB)"
            if model
            else "weights"
        )
        warnings.append(
            f"self_hosting.instance_type {sh.instance_type!r} has {memory}: one node cannot hold Kimi K3.1 Pro's "
            f"{need}; use "
            "p6-b300.48xlarge, or serve across several nodes (efa: true, pipeline parallelism) which the rendered "
            "single-node vLLM manifest does not do"
        )
    hourly, source = node_hourly_usd(sh, prices)
    if hourly is None:  # source says why
        warnings.append(
            f"self_hosting: {source}; set self_hosting.hourly_usd to get the break-even against the API and "
            "a self-hosted line in the budget"
        )
        return warnings
    econ = economics(config, prices, model_prices, parts)
    be = econ.break_even
    if econ.below_break_even:
        warnings.append(
            f"self_hosting: at the expected {sh.expected_tokens_per_second:,.1f} output tokens/s per node, a "
            f"{sh.instance_type} at {_usd(hourly)} USD/h ({_usd(econ.monthly_usd_per_node)} USD/month 24/7) costs "
            f"{_usd(be.usd_per_million_output_tokens)} USD per 1M output tokens (prompts included), against "
            f"{_usd(be.api_usd_per_million_output_tokens_blended)} USD on {be.price_source!r} for 1M output "
            f"tokens with their {be.input_output_ratio:g}M input tokens ({be.cached_input_fraction:.0%} cached, the "
            f"configured workload): self-hosting costs {be.ratio_to_api_blended:,.2f}x the API. Break-even is "
            f"{be.breakeven_tokens_per_second_blended:,.1f} output tokens/s sustained per node (counting the output "
            f"price alone: {be.ratio_to_api:,.2f}x, {be.breakeven_tokens_per_second:,.1f} tokens/s; hourly price: "
            f"{_short_source(sh, prices)})"
        )
    return warnings
