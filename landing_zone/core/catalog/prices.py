"""``prices.yaml``: token prices per Bedrock model ID (per offer, invocation path and service tier) and
self-hosting hardware, as data with provenance.

Validated with pydantic like every catalog file (:mod:`landing_zone.core.catalog.schema`); the result is the
frozen dataclasses below, which the cost arithmetic (:mod:`landing_zone.cost.pricing`) reads.  A malformed file
raises :class:`~landing_zone.errors.PricingError` naming the field, the value and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from landing_zone.core.catalog.schema import FileModel, Text, load_catalog_file
from landing_zone.errors import PricingError

__all__ = [
    "BEDROCK_OFFER",
    "DEFAULT_PRICES_PATH",
    "INVOCATION_PATHS",
    "PRICE_FIELDS",
    "PriceCatalog",
    "SelfHostedModel",
    "SelfHostingOption",
    "TierRule",
    "TokenPrices",
    "hourly_hint",
    "load_price_catalog",
]

DEFAULT_PRICES_PATH = Path(__file__).resolve().parent / "prices.yaml"

# The offer Amazon Bedrock bills; the default of ``cost.price_source``.
BEDROCK_OFFER = "bedrock"
# Bedrock invocation paths a price may apply to (the values of landing_zone.core.routing.PathKind).
INVOCATION_PATHS = ("in-region", "geographic-profile", "global-profile", "mantle")
SERVICE_TIERS = ("standard", "priority", "flex", "reserved")
# The tiers priced per token besides Standard (https://aws.amazon.com/bedrock/service-tiers); Reserved is a capacity
# commitment billed monthly, never a per-token price.
PER_TOKEN_TIERS = ("priority", "flex")
_FILE_KEYS = {
    "input_usd_per_million": "input_usd_per_million_tokens",
    "cache_read_usd_per_million": "cache_read_usd_per_million_tokens",
    "cache_write_usd_per_million": "cache_write_usd_per_million_tokens",
    "output_usd_per_million": "output_usd_per_million_tokens",
}

PRICE_FIELDS = (
    "input_usd_per_million",
    "cache_read_usd_per_million",
    "cache_write_usd_per_million",
    "output_usd_per_million",
)


def hourly_hint(instance_type: str) -> str:
    name = f"instance type {instance_type!r}" if instance_type else "this instance type"
    return (
        f"The price catalog has no usable hourly price for {name}; "
        "pass --hourly-usd <USD per instance-hour> (a number > 0)"
    )


# --------------------------------------------------------------------------------------------------
# What the rest of the package reads
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TokenPrices:
    """Token prices of one catalog entry (``source_name``), in USD per 1M tokens.

    ``model_id`` is the Bedrock model the figures price, ``offer`` who bills them (``bedrock`` or an alternative
    such as ``kimi-api``), ``paths`` the Bedrock invocation paths they apply to and ``service_tier`` the tier.
    """

    source_name: str
    input_usd_per_million: float
    cache_read_usd_per_million: float
    cache_write_usd_per_million: float
    output_usd_per_million: float
    source: str  # provenance text
    as_of: str
    verified: bool
    description: str = ""
    # Share by which a global cross-Region inference profile is cheaper (Bedrock); see cost.pricing.with_discount.
    global_profile_discount_fraction: float = 0.0
    model_id: str = ""
    offer: str = BEDROCK_OFFER
    paths: tuple[str, ...] = ()
    service_tier: str | None = "standard"
    # The 1-hour cache's write price where the offer prices it apart (cache_write_usd_per_million is the 5-minute
    # cache's, the one the cost model uses); None: not published.
    cache_write_1h_usd_per_million: float | None = None

    @property
    def label(self) -> str:
        """``<entry> (<model>, <paths>)`` for tables and warnings."""
        where = ", ".join(self.paths) if self.paths else "outside Bedrock"
        return f"{self.source_name} ({self.model_id or 'any model'}; {where})"

    def __post_init__(self) -> None:
        for name in PRICE_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
                raise PricingError(f"{self.source_name}.{name}", value, "a finite number >= 0")
            object.__setattr__(self, name, float(value))
        fraction = self.global_profile_discount_fraction
        if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 <= fraction <= 1:
            raise PricingError(
                f"{self.source_name}.global_profile_discount_fraction", fraction, "a number between 0 and 1 inclusive"
            )

    def as_dict(self) -> dict[str, Any]:
        return {
            "source_name": self.source_name,
            "input_usd_per_million": self.input_usd_per_million,
            "cache_read_usd_per_million": self.cache_read_usd_per_million,
            "cache_write_usd_per_million": self.cache_write_usd_per_million,
            "output_usd_per_million": self.output_usd_per_million,
            "global_profile_discount_fraction": self.global_profile_discount_fraction,
            "model_id": self.model_id,
            "offer": self.offer,
            "paths": list(self.paths),
            "service_tier": self.service_tier,
            "cache_write_1h_usd_per_million": self.cache_write_1h_usd_per_million,
            "description": self.description,
            "source": self.source,
            "as_of": self.as_of,
            "verified": self.verified,
        }


@dataclass(frozen=True)
class TierRule:
    """How one service tier is priced relative to an entry's standard figures: ``multiplier`` x the standard figures,
    then any figure of ``prices`` (keyed like prices.yaml, USD per 1M tokens) instead.  ``where`` names the rule
    (``service_tier_prices.flex``, ``models.<id>.<entry>.tiers.priority``, ``cost.tier_price_overrides...``)."""

    tier: str
    where: str
    source: str
    as_of: str
    verified: bool
    multiplier: float | None = None
    prices: Mapping[str, float] = field(default_factory=dict)

    @property
    def basis(self) -> str:
        """How the tier is priced, in words: ``0.5 x standard`` / ``own figures`` (+ the figures given)."""
        how = f"{self.multiplier:g} x standard" if self.multiplier is not None else "own figures"
        if self.multiplier is not None and self.prices:
            how += f", {', '.join(sorted(self.prices))} given"
        return how

    def apply(self, base: TokenPrices) -> TokenPrices:
        """``base`` (the standard figures of one model and path) priced for this tier."""
        figures = {}
        for name, key in _FILE_KEYS.items():
            value = float(getattr(base, name)) * (1.0 if self.multiplier is None else self.multiplier)
            figures[name] = float(self.prices.get(key, value))
        how = self.basis
        return replace(
            base,
            source_name=f"{base.source_name}+{self.tier}",
            input_usd_per_million=figures["input_usd_per_million"],
            cache_read_usd_per_million=figures["cache_read_usd_per_million"],
            cache_write_usd_per_million=figures["cache_write_usd_per_million"],
            output_usd_per_million=figures["output_usd_per_million"],
            service_tier=self.tier,
            description=f"{base.description or base.source_name}, {self.tier} tier ({how})",
            source=f"{self.tier} tier ({self.where}, {how}): {self.source}; standard figures: {base.source}",
            as_of=self.as_of,
            # figures derived from the standard ones are only as verified as those
            verified=self.verified and (base.verified or (self.multiplier is None and len(self.prices) == 4)),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "where": self.where,
            "multiplier": self.multiplier,
            "prices": dict(self.prices),
            "source": self.source,
            "as_of": self.as_of,
            "verified": self.verified,
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
        field_name = "--hourly-usd" if override is not None else f"self_hosting.{self.instance_type}.hourly_usd"
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise PricingError(field_name, value, "a finite number > 0", hourly_hint(self.instance_type))
        return float(value)

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
            "network_cards": self.network_cards,
            "cold_start_minutes": list(self.cold_start_minutes),
            "source": self.source,
            "as_of": self.as_of,
            "verified": self.verified,
        }


@dataclass(frozen=True)
class SelfHostedModel:
    """Size of the open weights and the GPU memory vLLM needs for them on one node (with provenance)."""

    name: str
    weights_gb: float
    vllm_min_gpu_memory_gb: float
    source: str
    as_of: str
    verified: bool
    model_ids: tuple[str, ...] = ()  # the Bedrock models these weights can replace (break-even against these)


@dataclass(frozen=True)
class PriceCatalog:
    """The parsed ``prices.yaml``.  ``price_sources``: every entry by its (file-unique) name."""

    hours_per_month: float
    price_sources: Mapping[str, TokenPrices]
    self_hosting: Mapping[str, SelfHostingOption]
    self_hosted_model: SelfHostedModel | None = None
    path: str = ""
    hours_per_month_source: str = ""
    # entry name -> tier -> how the tier is priced (the entry's own `tiers`, else `service_tier_prices`)
    tier_rules: Mapping[str, Mapping[str, TierRule]] = field(default_factory=dict)

    def tier_rule(self, entry: str, tier: str) -> TierRule | None:
        """How ``tier`` is priced for the entry called ``entry`` (None: no price in the catalog)."""
        return self.tier_rules.get(entry, {}).get(tier)

    def prices(self, name: str) -> TokenPrices:
        """The entry called ``name``; an offer name (e.g. ``bedrock``) gives the self-hosted model's entry of that
        offer (the first of its paths), the figure the break-even compares with by default."""
        if name in self.price_sources:
            return self.price_sources[name]
        for model_id in self.self_hosted_model.model_ids if self.self_hosted_model else ():
            for entry in self.entries_for(model_id):
                if entry.offer == name:
                    return entry
        known = ", ".join(sorted({*self.price_sources, *self.offers()})) or "none"
        raise PricingError("price_source", name, f"one of: {known}") from None

    @property
    def model_ids(self) -> tuple[str, ...]:
        """The model IDs with at least one entry, in file order."""
        return tuple(dict.fromkeys(p.model_id for p in self.price_sources.values()))

    def offers(self) -> tuple[str, ...]:
        """Every offer name of the file, sorted."""
        return tuple(sorted({p.offer for p in self.price_sources.values()}))

    def entries_for(self, model_id: str) -> tuple[TokenPrices, ...]:
        """The entries of one model, in file order."""
        return tuple(p for p in self.price_sources.values() if p.model_id == model_id)

    def lookup(
        self, model_id: str, offer: str, path: str | None = None, service_tier: str = "standard"
    ) -> TokenPrices | None:
        """The entry pricing ``model_id`` on ``path`` under ``offer`` (None when the file has none).

        ``path`` None: the first entry of the offer.  An offer outside Bedrock (no ``paths``) prices every path.
        """
        for entry in self.entries_for(model_id):
            if entry.offer != offer:
                continue
            if entry.paths and entry.service_tier not in (None, service_tier):
                continue
            if path is None or not entry.paths or path in entry.paths:
                return entry
        return None

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
# The file schema (pydantic, like every catalog file)
# --------------------------------------------------------------------------------------------------


class _Provenance(FileModel):
    source: Text
    as_of: Text
    verified: bool


class _HoursPerMonth(FileModel):
    value: float = Field(gt=0, allow_inf_nan=False)
    source: str = ""
    as_of: Text | None = None
    verified: bool | None = None


class _TierPrice(_Provenance):
    """A tier's prices: ``multiplier`` of the standard figures and/or figures of its own (USD per 1M tokens)."""

    multiplier: float | None = Field(default=None, gt=0, le=100, allow_inf_nan=False)
    input_usd_per_million_tokens: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    cache_read_usd_per_million_tokens: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    cache_write_usd_per_million_tokens: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    output_usd_per_million_tokens: float | None = Field(default=None, ge=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _some_price(self) -> _TierPrice:
        if self.multiplier is None and not self.figures():
            raise ValueError("give multiplier (of the standard figures) and/or token prices")
        return self

    def figures(self) -> dict[str, float]:
        return {k: v for k in _FILE_KEYS.values() if (v := getattr(self, k)) is not None}

    def rule(self, tier: str, where: str) -> TierRule:
        return TierRule(
            tier=tier,
            where=where,
            source=self.source,
            as_of=self.as_of,
            verified=self.verified,
            multiplier=self.multiplier,
            prices=MappingProxyType(self.figures()),
        )


class _PriceSource(_Provenance):
    offer: Text
    paths: tuple[Literal["in-region", "geographic-profile", "global-profile", "mantle"], ...] = ()
    service_tier: Literal["standard", "priority", "flex", "reserved"] | None = None
    description: str = ""
    input_usd_per_million_tokens: float = Field(ge=0, allow_inf_nan=False)
    cache_read_usd_per_million_tokens: float = Field(ge=0, allow_inf_nan=False)
    # Omitted: billed like input (a conservative default when a price source does not publish it).
    cache_write_usd_per_million_tokens: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    # The 1-hour cache's write price, where the offer prices it apart from the 5-minute one (data, not in the estimate).
    cache_write_1h_usd_per_million_tokens: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    output_usd_per_million_tokens: float = Field(ge=0, allow_inf_nan=False)
    global_profile_discount_fraction: float = Field(default=0.0, ge=0, le=1, allow_inf_nan=False)
    tiers: dict[Literal["priority", "flex"], _TierPrice] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _bedrock_has_paths(self) -> _PriceSource:
        if self.offer == BEDROCK_OFFER and not self.paths:
            raise ValueError(
                f"paths: a '{BEDROCK_OFFER}' entry names the invocation paths it prices {INVOCATION_PATHS}"
            )
        if len(set(self.paths)) != len(self.paths):
            raise ValueError(f"paths: {list(self.paths)} lists a path twice")
        return self


class _SelfHosting(_Provenance):
    description: str = ""
    hourly_usd: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    gpu_memory_gb: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    network_cards: int | None = Field(default=None, gt=0)
    holds_kimi_k3_weights: bool | None = None
    throughput_output_tokens_per_second: dict[str, float] = Field(default_factory=dict)
    cold_start_minutes: tuple[float, ...] = ()

    @field_validator("throughput_output_tokens_per_second")
    @classmethod
    def _positive_throughput(cls, v: dict[str, float]) -> dict[str, float]:
        bad = {k: t for k, t in v.items() if not 0 < t < float("inf")}
        if bad:
            raise ValueError(f"must be finite numbers > 0 (got {bad})")
        return v


class _SelfHostedModel(_Provenance):
    name: Text
    model_ids: tuple[Text, ...] = ()
    weights_gb: float = Field(gt=0, allow_inf_nan=False)
    vllm_min_gpu_memory_gb: float = Field(gt=0, allow_inf_nan=False)


class _PricesFile(FileModel):
    schema_version: int
    hours_per_month: _HoursPerMonth
    service_tier_prices: dict[Literal["priority", "flex"], _TierPrice] = Field(default_factory=dict)
    models: dict[Text, dict[Text, _PriceSource]] = Field(min_length=1)
    self_hosted_model: _SelfHostedModel | None = None
    self_hosting: dict[str, _SelfHosting] = Field(default_factory=dict)

    @field_validator("hours_per_month", mode="before")
    @classmethod
    def _plain_hours(cls, v: Any) -> Any:
        return {"value": v} if not isinstance(v, dict) else v  # a plain number or {value, source, ...}

    @model_validator(mode="after")
    def _schema_version(self) -> _PricesFile:
        if self.schema_version != 2:
            raise ValueError(
                f"schema_version: got {self.schema_version}; allowed: 2 (prices per Bedrock model ID under `models:`)"
            )
        names = [name for entries in self.models.values() for name in entries]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"models: entry names must be unique in the file (twice: {', '.join(twice)})")
        for model_id, entries in self.models.items():
            for offer in {e.offer for e in entries.values()}:
                claimed = [p for e in entries.values() if e.offer == offer for p in e.paths]
                overlap = sorted({p for p in claimed if claimed.count(p) > 1})
                if overlap:
                    raise ValueError(f"models.{model_id}: two '{offer}' entries price the path(s) {', '.join(overlap)}")
        return self


def load_price_catalog(path: Path | str | None = None) -> PriceCatalog:
    """Load and validate ``prices.yaml`` (default: the shipped one).

    A price source without ``cache_write_usd_per_million_tokens`` is billed at its input price for cache
    writes.  Self-hosting entries may have ``hourly_usd: null``; use :meth:`SelfHostingOption.require_hourly_usd`.
    """
    file = Path(path) if path is not None else DEFAULT_PRICES_PATH
    doc = load_catalog_file(_PricesFile, file, error=PricingError, what="price catalog")
    sources = {
        name: TokenPrices(
            source_name=name,
            input_usd_per_million=e.input_usd_per_million_tokens,
            cache_read_usd_per_million=e.cache_read_usd_per_million_tokens,
            cache_write_usd_per_million=(
                e.cache_write_usd_per_million_tokens
                if e.cache_write_usd_per_million_tokens is not None
                else e.input_usd_per_million_tokens
            ),
            output_usd_per_million=e.output_usd_per_million_tokens,
            source=e.source,
            as_of=e.as_of,
            verified=e.verified,
            description=e.description,
            global_profile_discount_fraction=e.global_profile_discount_fraction,
            model_id=model_id,
            offer=e.offer,
            paths=tuple(e.paths),
            service_tier=e.service_tier if e.paths else None,
            cache_write_1h_usd_per_million=e.cache_write_1h_usd_per_million_tokens,
        )
        for model_id, entries in doc.models.items()
        for name, e in entries.items()
    }
    hosting = {
        name: SelfHostingOption(
            instance_type=name,
            hourly_usd=e.hourly_usd,
            source=e.source,
            as_of=e.as_of,
            verified=e.verified,
            throughput_output_tokens_per_second=MappingProxyType(dict(e.throughput_output_tokens_per_second)),
            description=e.description,
            gpu_memory_gb=e.gpu_memory_gb,
            holds_model_weights=e.holds_kimi_k3_weights,
            network_cards=e.network_cards,
            cold_start_minutes=tuple(e.cold_start_minutes),
        )
        for name, e in doc.self_hosting.items()
    }
    rules: dict[str, Mapping[str, TierRule]] = {}
    for model_id, entries in doc.models.items():
        for name, e in entries.items():
            if e.offer != BEDROCK_OFFER:
                continue
            own: dict[str, TierRule] = {t: p.rule(t, f"models.{model_id}.{name}.tiers.{t}") for t, p in e.tiers.items()}
            shared: dict[str, TierRule] = {
                t: p.rule(t, f"service_tier_prices.{t}") for t, p in doc.service_tier_prices.items()
            }
            rules[name] = MappingProxyType({**shared, **own})
    model = doc.self_hosted_model
    return PriceCatalog(
        hours_per_month=doc.hours_per_month.value,
        price_sources=MappingProxyType(sources),
        self_hosting=MappingProxyType(hosting),
        self_hosted_model=None
        if model is None
        else SelfHostedModel(
            name=model.name,
            weights_gb=model.weights_gb,
            vllm_min_gpu_memory_gb=model.vllm_min_gpu_memory_gb,
            source=model.source,
            as_of=model.as_of,
            verified=model.verified,
            model_ids=tuple(model.model_ids),
        ),
        path=str(file),
        hours_per_month_source=doc.hours_per_month.source,
        tier_rules=MappingProxyType(rules),
    )
