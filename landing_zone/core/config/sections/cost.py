"""The cost section: budgets, alarms, alert recipients and the price and quota overrides."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, ClassVar, Literal

from pydantic import (
    AfterValidator,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from landing_zone.core.config.model_keys import ModelKey
from landing_zone.core.config.sections.common import (
    EMAIL,
    MAX_MONTHLY_USD,
    AnomalyMonitorArn,
    Email,
    ResetRoleArn,
    _raise_all,
    _Strict,
)
from landing_zone.core.config.sections.workload import Workload

MAX_USD_PER_MILLION_TOKENS = 10_000  # a sanity bound for a contract price (the catalog's highest is 20)


def _known_price_source(value: str, info: ValidationInfo) -> str:
    known = (info.context or {}).get("price_sources")  # the offers of prices.yaml (bedrock, kimi-api, ...)
    if known is not None and value not in known:
        raise ValueError(f"unknown price source {value!r} (allowed: {', '.join(sorted(known))})")
    return value


PriceSourceName = Annotated[str, AfterValidator(_known_price_source)]


class _TokenPrices(_Strict):
    """The four token prices (USD per 1M tokens, keyed like prices.yaml) and where they come from: one definition for
    a price source's contract prices (:class:`PriceOverride`) and a service tier's (:class:`TierPriceOverride`)."""

    input_usd_per_million_tokens: float | None = Field(default=None, ge=0, le=MAX_USD_PER_MILLION_TOKENS)
    cache_read_usd_per_million_tokens: float | None = Field(default=None, ge=0, le=MAX_USD_PER_MILLION_TOKENS)
    cache_write_usd_per_million_tokens: float | None = Field(default=None, ge=0, le=MAX_USD_PER_MILLION_TOKENS)
    # output tokens are never free: 0 is a typo, not a price
    output_usd_per_million_tokens: float | None = Field(default=None, gt=0, le=MAX_USD_PER_MILLION_TOKENS)
    source: str = Field(
        min_length=3,
        max_length=500,
        description="Required: where the prices come from, e.g. 'AWS private pricing addendum, signed 2026-10-01' or "
        "'Amazon Bedrock pricing page, read 2026-12-02'.",
    )
    TEXT_FIELDS: ClassVar[frozenset[str]] = frozenset({"source"})
    PRICE_KEYS: ClassVar[tuple[str, ...]] = (
        "input_usd_per_million_tokens",
        "cache_read_usd_per_million_tokens",
        "cache_write_usd_per_million_tokens",
        "output_usd_per_million_tokens",
    )

    def prices(self) -> dict[str, float]:
        """The prices given, keyed like prices.yaml."""
        return {k: getattr(self, k) for k in self.PRICE_KEYS if getattr(self, k) is not None}


class PriceOverride(_TokenPrices):
    """A contract price for one price source: any of the four token prices (USD per 1M tokens) and where it comes
    from.  Used by the budget, the spend alarms, the cost report and the review report instead of the catalog's."""

    @model_validator(mode="after")
    def _some_price(self) -> PriceOverride:
        if self.prices() == {}:
            raise ValueError(f"give at least one of {', '.join(self.PRICE_KEYS)}")
        return self


MAX_QUOTA_TOKENS = 1e12  # a sanity bound for a quota value (tokens per minute or per day)


class QuotaOverride(_Strict):
    """Quota values of one model in home_region (tokens per minute or per day), e.g. from the Service Quotas
    console, and where they come from.  They replace the catalog's (and a discover overlay's) values."""

    on_demand_tokens_per_minute: float | None = Field(default=None, gt=0, le=MAX_QUOTA_TOKENS)
    cross_region_tokens_per_minute: float | None = Field(default=None, gt=0, le=MAX_QUOTA_TOKENS)
    tokens_per_day: float | None = Field(default=None, gt=0, le=MAX_QUOTA_TOKENS)
    mantle_input_tokens_per_minute: float | None = Field(default=None, gt=0, le=MAX_QUOTA_TOKENS)
    mantle_output_tokens_per_minute: float | None = Field(default=None, gt=0, le=MAX_QUOTA_TOKENS)
    source: str = Field(
        min_length=3,
        max_length=500,
        description="Required: where the values come from, e.g. 'Service Quotas console, account 111122223333, "
        "2026-12-02'.",
    )
    TEXT_FIELDS: ClassVar[frozenset[str]] = frozenset({"source"})

    @model_validator(mode="after")
    def _some_value(self) -> QuotaOverride:
        if not self.values():
            raise ValueError(
                "give at least one of on_demand_tokens_per_minute, cross_region_tokens_per_minute, tokens_per_day, "
                "mantle_input_tokens_per_minute, mantle_output_tokens_per_minute"
            )
        return self

    def values(self) -> dict[str, float]:
        """The values given, keyed by quota kind (core/catalog/quotas.yaml)."""
        keys = (
            "on_demand_tokens_per_minute",
            "cross_region_tokens_per_minute",
            "tokens_per_day",
            "mantle_input_tokens_per_minute",
            "mantle_output_tokens_per_minute",
        )
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}


class TierPriceOverride(_TokenPrices):
    """The price of one service tier of one model: ``multiplier`` x its standard prices (after
    ``cost.price_overrides``) and/or any of the four token prices (USD per 1M tokens), with where it comes from."""

    multiplier: float | None = Field(default=None, gt=0, le=100, description="Of the model's standard prices.")

    @model_validator(mode="after")
    def _some_price(self) -> TierPriceOverride:
        if self.multiplier is None and not self.prices():
            raise ValueError("give multiplier (of the model's standard prices) and/or token prices")
        return self


class QuotaAlarms(_Strict):
    """Quota headroom alarms: per configured model, in home_region, use against the account's Bedrock quotas."""

    enabled: bool = Field(
        default=True,
        description="Alarm when a model's tokens per minute or per day pass headroom x its quota (a quota without "
        "a value gets no alarm and a warning; values: a discover overlay or `overrides`).",
    )
    headroom: float = Field(
        default=0.8, gt=0, le=1, description="Fraction of each quota the alarms fire above (0.8 = 80 %)."
    )
    overrides: Mapping[ModelKey, QuotaOverride] = Field(
        default_factory=dict,
        description="Quota values per model ID or alias in home_region (each with a required `source`); they "
        "replace the catalog's and a discover overlay's values.",
    )


# The protocols an alert recipient may use (cost.alert_recipients; the SCPs let cost.alert_subscriber_principal_arns
# subscribe with these only, by sns:Protocol): e-mail, and HTTPS for ChatOps and paging webhooks.
ALERT_PROTOCOLS = ("email", "https")
HTTPS_URL = re.compile(r"^https://[^\s/?#@]+(/\S*)?$")


class AlertRecipient(_Strict):
    """One subscriber of the alert topic, made by the landing zone (an ``AWS::SNS::Subscription``) and protected like
    the topic: e-mail, or an HTTPS endpoint (a ChatOps or paging service's webhook). The recipient confirms the
    subscription (the link in the e-mail; the SubscribeURL the endpoint receives)."""

    protocol: Literal["email", "https"]
    endpoint: str = Field(description="email: the address; https: the URL (https:// only, no credentials in it).")

    @model_validator(mode="after")
    def _endpoint_fits_protocol(self) -> AlertRecipient:
        regex, rule = (EMAIL, "an e-mail address") if self.protocol == "email" else (HTTPS_URL, "an https:// URL")
        if not regex.match(self.endpoint):
            _raise_all([(("endpoint",), self.endpoint, f"with protocol {self.protocol} must be {rule}")])
        return self


class Cost(_Strict):
    price_source: str | Mapping[ModelKey, str] = Field(
        default="bedrock",
        description="The offer of landing_zone/core/catalog/prices.yaml that prices each model's tokens: one name "
        "for every model (default bedrock: each model at its own Bedrock prices, per invocation path), or a "
        "mapping model (alias or ID) -> offer; models not named use bedrock.",
    )
    price_overrides: Mapping[ModelKey, PriceOverride] = Field(
        default_factory=dict,
        description="Contract prices per Bedrock model ID or alias (each with a required `source` note); they "
        "replace the catalog's figures for that model on every path in the budget, the spend alarms, the dashboard "
        "and the reports. A model without catalog prices needs at least input and output prices here.",
    )
    tier_price_overrides: Mapping[ModelKey, Mapping[Literal["priority", "flex"], TierPriceOverride]] = Field(
        default_factory=dict,
        description="Prices of the priority and flex service tiers per Bedrock model ID or alias (multiplier of the "
        "standard prices and/or token prices, each with a required `source`); they replace the catalog's tier rule "
        "(prices.yaml service_tier_prices). A tier of policy_guardrails.allowed_service_tiers with no price in the "
        "catalog needs one here.",
    )
    workload: Workload = Workload()
    monthly_budget_usd: float | None = Field(
        default=None, gt=0, le=MAX_MONTHLY_USD, description="Omitted: the computed monthly cost x budget_headroom."
    )
    budget_headroom: float = Field(default=1.2, ge=1, le=10)
    alert_emails: tuple[Email, ...] = ()
    budget_scope: Literal["auto", "tagged", "account"] = Field(
        default="auto",
        description="What the landing-zone budget (and its kill switch) counts. tagged: the landing zone's own Kimi "
        "spend only — the deployment account AND the cost-allocation tags landing-zone=<name> and application=<one "
        "of the applications> (application profiles, Mantle Projects), so another team's spend never trips it; "
        "refused with the kill switch while an application can spend on an untagged path (a Mantle-only application "
        "without its own project, batch). account: everything billed to the deployment account, other teams' spend "
        "included. auto (default): tagged when no application has an untagged path, else account with a warning "
        "(docs/COST.md). With auto or tagged an application that has a runtime path and no Mantle Project of its "
        "own is not granted Mantle (the default project carries no tag); account grants it.",
    )
    alert_recipients: tuple[AlertRecipient, ...] = Field(
        default=(),
        description="More subscribers of the alert topic besides alert_emails: {protocol: email|https, endpoint}. "
        "HTTPS suits ChatOps and paging webhooks. Made and protected by the landing zone like alert_emails.",
    )
    alert_subscriber_principal_arns: tuple[ResetRoleArn, ...] = Field(
        default=(),
        description="Roles (ARN with its 12-digit account; a trailing '*' is allowed) that may add subscribers to "
        "the landing zone's alert topics (sns:Subscribe, protocols email and https) under the SCPs, e.g. an on-call "
        "role adding a paging endpoint. Nobody but the exempt principals may unsubscribe or re-filter a "
        "subscription. Omitted: only the exempt principals may subscribe.",
    )
    kill_switch_reset_principal_arns: tuple[ResetRoleArn, ...] = Field(
        default=(),
        description="Roles (ARN or ARN pattern ending in '*', 12-digit account; e.g. a FinOps on-call role in an "
        "account outside the targets) that may assume <name>-automation-kill-switch-reset, the one role that may "
        "reverse and re-arm the kill switch's budget actions (budgets:ExecuteBudgetAction on exactly those actions; "
        "Budgets detaches the deny with the action's own execution role). Omitted: no reset role; only the exempt "
        "deployment principals can reset it (docs/COST.md, 'Resetting the kill switch').",
    )
    notify_actual_percent: tuple[float, ...] = Field(default=(50, 80, 100), description="Budget alerts on actual cost.")
    notify_forecast_percent: tuple[float, ...] = Field(default=(100,), description="Budget alerts on forecasted cost.")
    kill_switch: bool = Field(
        default=True,
        description="Budget action at 100% actual: attach a deny-inference policy to every invoker role.",
    )
    alarm_factor: float = Field(
        default=2.0, gt=0, le=100, description="Spend alarms fire above (monthly budget / hours per month) x this."
    )
    alarm_period_seconds: int = Field(
        default=300, description="Metric period of the spend alarms (60, 300, 900, 3600)."
    )
    anomaly_threshold_usd: float = Field(
        default=100.0, gt=0, le=MAX_MONTHLY_USD, description="Cost Anomaly Detection: total impact to alert on."
    )
    anomaly_monitor_arn: AnomalyMonitorArn | None = Field(
        default=None,
        description="An existing AWS services (DIMENSIONAL SERVICE) anomaly monitor of the deployment account to "
        "subscribe to (`aws ce get-anomaly-monitors`) instead of creating one: AWS allows one such monitor per "
        "account. Omitted: the cost stack creates <name>-services (which fails where the account has one already).",
    )
    alert_on_mantle_usage: bool = Field(
        default=True, description="Alarm on any Mantle token usage (not captured by invocation logging)."
    )
    activate_cost_allocation_tags: bool = Field(
        default=True,
        description="Activate the cost-allocation tags the landing zone sets (application, cost-center, "
        "landing-zone) in Billing with a custom resource (ce:UpdateCostAllocationTagsStatus, us-east-1): in the "
        "access stack without an organization, in the guardrails stack (the management account, the only account "
        "of an organization that can activate them) with one; a key AWS has not yet seen on a resource (up to 24 h) "
        "is left pending and reported by verify. false: activate them by hand (docs/DEPLOY.md).",
    )
    quota_alarms: QuotaAlarms = QuotaAlarms()
    per_application_budgets: bool = Field(
        default=False,
        description="Also one monthly budget per application, filtered on its cost-allocation tag "
        "application=<name> (with kill_switch: its own budget action attaching the kill-switch deny to that "
        "application's invoker role only). The landing-zone budget and kill switch stay.",
    )

    @model_validator(mode="after")
    def _reset_needs_a_kill_switch(self) -> Cost:
        if self.kill_switch_reset_principal_arns and not self.kill_switch:
            _raise_all(
                [
                    (
                        ("kill_switch_reset_principal_arns",),
                        list(self.kill_switch_reset_principal_arns),
                        "cost.kill_switch is false, so there is no kill switch to reset: remove them, or turn the "
                        "kill switch on",
                    )
                ]
            )
        return self

    @field_validator("alarm_period_seconds")
    @classmethod
    def _period(cls, v: int) -> int:
        if v not in (60, 300, 900, 3600):
            raise ValueError("allowed: 60, 300, 900, 3600")
        return v

    @field_validator("notify_actual_percent", "notify_forecast_percent")
    @classmethod
    def _percents(cls, v: tuple[float, ...]) -> tuple[float, ...]:
        bad = [p for p in v if not 0 < p <= 1000]
        if bad:
            raise ValueError(f"{bad} are not percentages in (0, 1000]")
        return tuple(sorted(v))  # a repeated percentage is refused (core/config/rules.py)

    @field_validator("price_source")
    @classmethod
    def _price_source(cls, v: str | Mapping[str, str], info: ValidationInfo) -> str | Mapping[str, str]:
        for name in [v] if isinstance(v, str) else list(v.values()):
            _known_price_source(name, info)
        return v

    @field_validator("price_overrides")
    @classmethod
    def _override_keys(cls, v: Mapping[str, PriceOverride], info: ValidationInfo) -> Mapping[str, PriceOverride]:
        offers = set((info.context or {}).get("price_sources") or ()) | {"bedrock", "kimi-api", "kimi-api-highspeed"}
        old = sorted(k for k in v if k in offers or k.startswith("bedrock-"))
        if old:
            raise ValueError(
                f"keys {old} name price sources; contract prices are now per model: "
                "cost.price_overrides.<model-id> (e.g. cost.price_overrides.moonshotai.kimi-k3.1-pro)"
            )
        return v

    def offer_for(self, model_id: str, aliases: tuple[str, ...] = ()) -> str:
        """The offer pricing ``model_id`` (``price_source`` by model, else the one name, else bedrock)."""
        if isinstance(self.price_source, str):
            return self.price_source
        for key in (model_id, *aliases):
            if key in self.price_source:
                return self.price_source[key]
        return "bedrock"

    def tier_override_for(
        self, model_id: str, tier: str, aliases: tuple[str, ...] = ()
    ) -> tuple[str, TierPriceOverride] | None:
        """(config key, prices) of ``tier`` of ``model_id`` from ``tier_price_overrides`` (ID or alias), or None."""
        for key in (model_id, *aliases):
            tiers = self.tier_price_overrides.get(key, {})
            for name, given in tiers.items():
                if name == tier:
                    return key, given
        return None

    def override_for(self, model_id: str, aliases: tuple[str, ...] = ()) -> tuple[str, PriceOverride] | None:
        """(config key, contract prices) of ``model_id`` from ``price_overrides`` (ID or alias), or None."""
        for key in (model_id, *aliases):
            if key in self.price_overrides:
                return key, self.price_overrides[key]
        return None
