"""Pure cost arithmetic for Kimi K3.1 Pro: token-priced APIs versus a self-hosted node.

Every figure comes from ``landing_zone/catalog/prices.yaml`` (or a config override) and carries its
source and date.  All money is USD as ``float``; nothing is rounded inside the model, only when a table
is formatted.  This module uses the standard library and PyYAML only and never imports ``aws_cdk``.

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
from datetime import date, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

import yaml

from landing_zone.errors import LandingZoneError

__all__ = [
    "DEFAULT_PRICES_PATH",
    "DEFAULT_INPUT_OUTPUT_RATIO",
    "PricingError",
    "TokenPrices",
    "Workload",
    "CostEstimate",
    "SelfHostingOption",
    "BreakEven",
    "CurvePoint",
    "PriceCatalog",
    "load_price_catalog",
    "with_overrides",
    "with_contract_prices",
    "with_discount",
    "estimate_cost",
    "break_even",
    "blended_usd_per_million_output",
    "monthly_cost_curve",
    "format_cost_table",
    "format_breakeven_table",
]

DEFAULT_PRICES_PATH = Path(__file__).resolve().parent / "catalog" / "prices.yaml"
DEFAULT_INPUT_OUTPUT_RATIO = 5.0

_MILLION = 1_000_000.0
_SECONDS_PER_HOUR = 3600.0
_HOURS_PER_DAY = 24.0
# Floating-point slack when checking cached_input_fraction + cache_write_fraction <= 1.
_FRACTION_SUM_TOLERANCE = 1e-9


# --------------------------------------------------------------------------------------------------
# Errors and validation helpers
# --------------------------------------------------------------------------------------------------


class PricingError(LandingZoneError, ValueError):
    """Invalid price data or cost input.  The message names the field, the value got and what is allowed."""

    def __init__(self, field_name: str, value: Any, allowed: str, hint: str | None = None) -> None:
        self.field = field_name
        self.value = value
        self.allowed = allowed
        self.hint = hint
        message = f"{field_name}: got {value!r}; allowed: {allowed}"
        if hint:
            message += f". {hint}"
        super().__init__(message)


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


def _text(field_name: str, value: Any, *, error: type[PricingError] = PricingError) -> str:
    if isinstance(value, (date, datetime)):  # YAML turns an unquoted 2026-11-08 into a date
        return value.isoformat()
    if not isinstance(value, str) or not value.strip():
        raise error(field_name, value, "a non-empty string")
    return value


def _flag(field_name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise PricingError(field_name, value, "true or false")
    return value


# --------------------------------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TokenPrices:
    """Token prices of one price source, in USD per 1M tokens."""

    source_name: str
    input_usd_per_million: float
    cache_read_usd_per_million: float
    cache_write_usd_per_million: float
    output_usd_per_million: float
    source: str  # provenance text
    as_of: str
    verified: bool
    description: str = ""
    # Share by which a global cross-Region inference profile is cheaper (Bedrock); see with_discount().
    global_profile_discount_fraction: float = 0.0

    def __post_init__(self) -> None:
        for name in _PRICE_FIELDS:
            object.__setattr__(
                self, name, _non_negative(f"{self.source_name}.{name}", getattr(self, name))
            )
        object.__setattr__(
            self,
            "global_profile_discount_fraction",
            _fraction(
                f"{self.source_name}.global_profile_discount_fraction",
                self.global_profile_discount_fraction,
            ),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "source_name": self.source_name,
            "input_usd_per_million": self.input_usd_per_million,
            "cache_read_usd_per_million": self.cache_read_usd_per_million,
            "cache_write_usd_per_million": self.cache_write_usd_per_million,
            "output_usd_per_million": self.output_usd_per_million,
            "global_profile_discount_fraction": self.global_profile_discount_fraction,
            "description": self.description,
            "source": self.source,
            "as_of": self.as_of,
            "verified": self.verified,
        }


_PRICE_FIELDS = (
    "input_usd_per_million",
    "cache_read_usd_per_million",
    "cache_write_usd_per_million",
    "output_usd_per_million",
)


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
class SelfHostingOption:
    """One EC2 instance type that could serve the model.  ``hourly_usd`` is None when not catalogued."""

    instance_type: str
    hourly_usd: float | None
    source: str
    as_of: str
    verified: bool
    throughput_output_tokens_per_second: Mapping[str, float] = field(default_factory=dict)
    description: str = ""
    gpu_memory_gb: float | None = None
    holds_model_weights: bool | None = None
    network_cards: int | None = None  # EFA: one interface per card
    cold_start_minutes: tuple[float, ...] = ()

    def require_hourly_usd(self, override: float | None = None) -> float:
        """The hourly price to use: ``override`` (e.g. ``--hourly-usd``) if given, else the catalog's.

        Raises PricingError naming the instance type when neither is available or valid.
        """
        value = self.hourly_usd if override is None else override
        field_name = (
            "--hourly-usd" if override is not None else f"self_hosting.{self.instance_type}.hourly_usd"
        )
        return _positive(field_name, value, hint=_hourly_hint(self.instance_type))

    def tokens_per_second(self, profile: str) -> float:
        """Measured output tokens/s for one throughput profile (e.g. ``single_request_sustained``)."""
        try:
            return self.throughput_output_tokens_per_second[profile]
        except KeyError:
            known = ", ".join(sorted(self.throughput_output_tokens_per_second)) or "none catalogued"
            raise PricingError(
                f"self_hosting.{self.instance_type}.throughput_output_tokens_per_second",
                profile,
                f"one of: {known}",
                hint="pass --tokens-per-second to use your own measurement",
            ) from None

    def as_dict(self) -> dict[str, Any]:
        return {
            "instance_type": self.instance_type,
            "hourly_usd": self.hourly_usd,
            "throughput_output_tokens_per_second": dict(self.throughput_output_tokens_per_second),
            "description": self.description,
            "gpu_memory_gb": self.gpu_memory_gb,
            "holds_model_weights": self.holds_model_weights,
            "source": self.source,
            "as_of": self.as_of,
            "verified": self.verified,
        }


def _hourly_hint(instance_type: str) -> str:
    name = f"instance type {instance_type!r}" if instance_type else "this instance type"
    return (
        f"The price catalog has no usable hourly price for {name}; "
        "pass --hourly-usd <USD per instance-hour> (a number > 0)"
    )


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


@dataclass(frozen=True)
class PriceCatalog:
    """The parsed ``prices.yaml``."""

    hours_per_month: float
    price_sources: Mapping[str, TokenPrices]
    self_hosting: Mapping[str, SelfHostingOption]
    self_hosted_model: "SelfHostedModel | None" = None
    path: str = ""
    hours_per_month_source: str = ""

    def prices(self, name: str) -> TokenPrices:
        try:
            return self.price_sources[name]
        except KeyError:
            known = ", ".join(sorted(self.price_sources)) or "none"
            raise PricingError("price_source", name, f"one of: {known}") from None

    def self_hosting_option(self, instance_type: str) -> SelfHostingOption:
        try:
            return self.self_hosting[instance_type]
        except KeyError:
            known = ", ".join(sorted(self.self_hosting)) or "none"
            raise PricingError(
                "instance_type",
                instance_type,
                f"one of: {known}",
                hint="or pass --hourly-usd and --tokens-per-second for an instance type not catalogued",
            ) from None


# --------------------------------------------------------------------------------------------------
# Loading and overrides
# --------------------------------------------------------------------------------------------------

# prices.yaml key -> TokenPrices field
_YAML_PRICE_KEYS = {
    "input_usd_per_million_tokens": "input_usd_per_million",
    "cache_read_usd_per_million_tokens": "cache_read_usd_per_million",
    "cache_write_usd_per_million_tokens": "cache_write_usd_per_million",
    "output_usd_per_million_tokens": "output_usd_per_million",
}


def _mapping(field_name: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise PricingError(field_name, value, "a mapping")
    return value


def load_price_catalog(path: Path | str | None = None) -> PriceCatalog:
    """Load and validate ``prices.yaml`` (default: ``catalog/prices.yaml`` next to this module).

    A price source without ``cache_write_usd_per_million_tokens`` is billed at its input price for cache
    writes (conservative).  Self-hosting entries may have ``hourly_usd: null``; use
    :meth:`SelfHostingOption.require_hourly_usd` to get a usable price.
    """
    file = Path(path) if path is not None else DEFAULT_PRICES_PATH
    try:
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PricingError("price catalog path", str(file), "a readable YAML file", hint=str(exc)) from None
    except yaml.YAMLError as exc:
        raise PricingError("price catalog", str(file), "valid YAML", hint=str(exc)) from None
    doc = _mapping(f"{file}", raw)

    schema = doc.get("schema_version")
    if schema != 1:
        raise PricingError("schema_version", schema, "1")

    hours_raw = doc.get("hours_per_month")
    hours_source = ""
    if isinstance(hours_raw, Mapping):
        hours_source = str(hours_raw.get("source", ""))
        hours_raw = hours_raw.get("value")
    hours = _positive("hours_per_month", hours_raw)

    sources: dict[str, TokenPrices] = {}
    for name, entry in _mapping("price_sources", doc.get("price_sources")).items():
        sources[str(name)] = _parse_price_source(str(name), entry)
    if not sources:
        raise PricingError("price_sources", {}, "at least one price source")

    hosting: dict[str, SelfHostingOption] = {}
    for name, entry in _mapping("self_hosting", doc.get("self_hosting") or {}).items():
        hosting[str(name)] = _parse_self_hosting(str(name), entry)

    return PriceCatalog(
        hours_per_month=hours,
        price_sources=MappingProxyType(sources),
        self_hosting=MappingProxyType(hosting),
        self_hosted_model=_parse_self_hosted_model(doc["self_hosted_model"]) if "self_hosted_model" in doc else None,
        path=str(file),
        hours_per_month_source=hours_source,
    )


def _parse_price_source(name: str, entry: Any) -> TokenPrices:
    prefix = f"price_sources.{name}"
    data = _mapping(prefix, entry)
    values: dict[str, float] = {}
    for yaml_key, attr in _YAML_PRICE_KEYS.items():
        value = data.get(yaml_key)
        if value is None and yaml_key == "cache_write_usd_per_million_tokens":
            value = data.get("input_usd_per_million_tokens")
        values[attr] = _non_negative(f"{prefix}.{yaml_key}", value)
    return TokenPrices(
        source_name=name,
        source=_text(f"{prefix}.source", data.get("source")),
        as_of=_text(f"{prefix}.as_of", data.get("as_of")),
        verified=_flag(f"{prefix}.verified", data.get("verified")),
        description=str(data.get("description", "")),
        global_profile_discount_fraction=_fraction(
            f"{prefix}.global_profile_discount_fraction",
            data.get("global_profile_discount_fraction", 0.0),
        ),
        **values,
    )


def _parse_self_hosting(name: str, entry: Any) -> SelfHostingOption:
    prefix = f"self_hosting.{name}"
    data = _mapping(prefix, entry)
    hourly = data.get("hourly_usd")
    if hourly is not None:
        hourly = _positive(f"{prefix}.hourly_usd", hourly, hint="or null when not catalogued")
    throughput: dict[str, float] = {}
    for profile, tps in _mapping(
        f"{prefix}.throughput_output_tokens_per_second",
        data.get("throughput_output_tokens_per_second") or {},
    ).items():
        throughput[str(profile)] = _positive(
            f"{prefix}.throughput_output_tokens_per_second.{profile}", tps
        )
    gpu_memory = data.get("gpu_memory_gb")
    holds = data.get("holds_kimi_k3_weights", data.get("holds_model_weights"))
    cards = data.get("network_cards")
    cold_start = data.get("cold_start_minutes") or ()
    return SelfHostingOption(
        instance_type=name,
        hourly_usd=hourly,
        source=_text(f"{prefix}.source", data.get("source")),
        as_of=_text(f"{prefix}.as_of", data.get("as_of")),
        verified=_flag(f"{prefix}.verified", data.get("verified")),
        throughput_output_tokens_per_second=MappingProxyType(throughput),
        description=str(data.get("description", "")),
        gpu_memory_gb=None if gpu_memory is None else _positive(f"{prefix}.gpu_memory_gb", gpu_memory),
        holds_model_weights=None if holds is None else _flag(f"{prefix}.holds_kimi_k3_weights", holds),
        network_cards=None if cards is None else int(_positive(f"{prefix}.network_cards", cards)),
        cold_start_minutes=tuple(_positive(f"{prefix}.cold_start_minutes", m) for m in cold_start),
    )


@dataclass(frozen=True)
class SelfHostedModel:
    """Size of the open weights and the GPU memory vLLM needs for them on one node (with provenance)."""

    name: str
    weights_gb: float
    vllm_min_gpu_memory_gb: float
    source: str
    as_of: str
    verified: bool


def _parse_self_hosted_model(entry: Any) -> SelfHostedModel:
    data = _mapping("self_hosted_model", entry)
    return SelfHostedModel(
        name=_text("self_hosted_model.name", data.get("name")),
        weights_gb=_positive("self_hosted_model.weights_gb", data.get("weights_gb")),
        vllm_min_gpu_memory_gb=_positive("self_hosted_model.vllm_min_gpu_memory_gb", data.get("vllm_min_gpu_memory_gb")),
        source=_text("self_hosted_model.source", data.get("source")),
        as_of=_text("self_hosted_model.as_of", data.get("as_of")),
        verified=_flag("self_hosted_model.verified", data.get("verified")),
    )


# Accepted override keys -> TokenPrices field: short names, field names and prices.yaml names.
_OVERRIDE_KEYS: dict[str, str] = {}
for _attr in _PRICE_FIELDS:
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
    return replace(
        prices,
        source=f"{prices.source}; overridden in config: {note}",
        verified=False,
        **changed,
    )


def with_contract_prices(prices: "PriceCatalog", overrides: Mapping[str, Mapping[str, Any]]) -> "PriceCatalog":
    """The catalog with contract prices (``cost.price_overrides``: source name -> prices.yaml price keys and a
    ``source`` note) in place of the catalog's figures.  A contract price is a fact the customer vouches for:
    the entry is marked verified and cites the note."""
    if not overrides:
        return prices
    sources = dict(prices.price_sources)
    for name, override in overrides.items():
        base = prices.prices(name)
        figures = {k: v for k, v in override.items() if k != "source" and v is not None}
        changed = with_overrides(base, **figures)
        sources[name] = replace(
            changed,
            source=f"contract price (cost.price_overrides): {override['source']}; other figures: {base.source}",
            verified=True,
        )
    return replace(prices, price_sources=MappingProxyType(sources))


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
        **{attr: getattr(prices, attr) * factor for attr in _PRICE_FIELDS},
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
    api_prices: TokenPrices, input_output_ratio: float, cached_input_fraction: float = 0.0, cache_write_fraction: float = 0.0
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
    hourly = _positive(field_name, hourly_usd, hint=_hourly_hint(instance_type))
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
    hourly = _positive(field_name, hourly_usd, hint=_hourly_hint(instance_type))
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


# --------------------------------------------------------------------------------------------------
# Formatting (the only place where numbers are rounded)
# --------------------------------------------------------------------------------------------------


def _usd(value: float) -> str:
    return f"{value:,.2f}"


def _tokens(value: float) -> str:
    return f"{value:,.0f}"


def _table(title: str, header: tuple[str, ...], rows: list[tuple[str, ...]], notes: list[str]) -> str:
    body = [row for row in rows if row != ("---",)]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        first = row[0].ljust(widths[0])
        rest = [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    out = [title, line(header), rule]
    for row in rows:
        out.append(rule if row == ("---",) else line(row))
    out.extend(notes)
    return "\n".join(out)


def format_cost_table(estimate: CostEstimate) -> str:
    """Fixed-width table of a :class:`CostEstimate`: tokens/day, USD per 1M, USD/day and USD/month."""
    per_month = estimate.hours_per_month / _HOURS_PER_DAY  # days per month
    parts = [
        ("input (uncached)", "input", estimate.input_usd_per_day),
        ("cache read", "cache_read", estimate.cache_read_usd_per_day),
        ("cache write", "cache_write", estimate.cache_write_usd_per_day),
        ("output", "output", estimate.output_usd_per_day),
    ]
    rows: list[tuple[str, ...]] = []
    for label, key, usd_day in parts:
        rate = estimate.usd_per_million.get(key)
        rows.append(
            (
                label,
                _tokens(estimate.tokens_per_day.get(key, 0.0)),
                "" if rate is None else _usd(rate),
                _usd(usd_day),
                _usd(usd_day * per_month),
            )
        )
    rows.append(("---",))
    rows.append(
        (
            "total",
            _tokens(sum(estimate.tokens_per_day.values())),
            "",
            _usd(estimate.daily_usd),
            _usd(estimate.monthly_usd),
        )
    )
    notes = [
        f"hourly: {_usd(estimate.hourly_usd)} USD/h; month = {estimate.hours_per_month:g} h "
        f"({per_month:g} days)",
    ]
    if estimate.prices_source:
        verified = "verified" if estimate.prices_verified else "NOT verified"
        notes.append(f"prices: {estimate.prices_source} (as of {estimate.prices_as_of}, {verified})")
    return _table(
        f"Token cost at price source {estimate.price_source!r}",
        ("component", "tokens/day", "USD/1M tokens", "USD/day", "USD/month"),
        rows,
        notes,
    )


def format_breakeven_table(be: BreakEven) -> str:
    """Fixed-width table of a :class:`BreakEven` with units: the blended comparison first, the output-price-only
    figures after it, labelled."""
    api = be.price_source or "API"
    cache = (f", {be.cached_input_fraction:.0%} of input cached" if be.cached_input_fraction else ", no prompt caching") + (
        f", {be.cache_write_fraction:.0%} cache-written" if be.cache_write_fraction else "")
    rows: list[tuple[str, ...]] = [
        ("throughput", f"{be.tokens_per_second:,.1f}", "output tokens/s per node"),
        ("instance price", _usd(be.hourly_usd), "USD/h"),
        ("monthly node cost (24/7)", _usd(be.monthly_usd), f"USD/month ({be.hours_per_month:g} h)"),
        ("self-hosted cost", _usd(be.usd_per_million_output_tokens), "USD/1M output tokens (prompts included)"),
        ("input per output token (R)", f"{be.input_output_ratio:g}", f"input tokens/output token{cache}"),
        (f"{api}: 1M output + R*1M input", _usd(be.api_usd_per_million_output_tokens_blended), "USD (blended)"),
        ("ratio self-hosted / API (blended)", f"{be.ratio_to_api_blended:,.2f}", "x"),
        ("break-even throughput (blended)", f"{be.breakeven_tokens_per_second_blended:,.1f}", "output tokens/s per node"),
        ("break-even output volume", _tokens(be.breakeven_output_tokens_per_month), "output tokens/month"),
        ("break-even input volume", _tokens(be.breakeven_input_tokens_per_month), "input tokens/month"),
        ("one node's capacity", _tokens(be.output_tokens_per_month_capacity), "output tokens/month"),
        ("nodes for break-even volume", f"{be.breakeven_nodes:d}", "nodes"),
        (f"{api} output price alone", _usd(be.api_usd_per_million_output_tokens), "USD/1M output tokens (no input)"),
        ("ratio, output price alone", f"{be.ratio_to_api:,.2f}", "x (ignores the input tokens)"),
        ("break-even, output price alone", f"{be.breakeven_tokens_per_second:,.1f}", "output tokens/s (ignores input)"),
    ]
    if be.breakeven_reachable:
        verdict = (f"one node can serve its break-even volume: above {be.breakeven_tokens_per_second_blended:,.1f} "
                   "output tokens/s sustained, self-hosting is cheaper than the API (blended)")
    else:
        verdict = (f"one node cannot serve its break-even volume: at {be.tokens_per_second:,.1f} output tokens/s "
                   f"self-hosting costs {be.ratio_to_api_blended:,.2f}x the API (blended); it needs "
                   f"{be.breakeven_tokens_per_second_blended:,.1f} output tokens/s sustained to break even")
    title = "Self-hosting break-even"
    if be.instance_type:
        title += f": {be.instance_type}"
    title += f" vs {api}"
    return _table(title, ("quantity", "value", "unit"), rows, [verdict])
