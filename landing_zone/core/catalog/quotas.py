"""``quotas.yaml``: the Amazon Bedrock per-model quotas (tokens per minute, tokens per day) and their values.

The kinds (quota name template, the invocation paths that count against it, how use is measured) are shipped; the
values per model and Region come from a ``discover`` overlay (a ``quotas:`` block, the account's applied values) or
from ``cost.quota_alarms.overrides`` in the configuration.  AWS publishes no default values for the Kimi models, so
the shipped file has none (see the file's header).  Validated with pydantic like every catalog file; a malformed
file or overlay block raises :class:`~landing_zone.errors.CatalogError` naming the field, the value and what is
allowed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from landing_zone.core.catalog.schema import FileModel, Text, load_catalog_file
from landing_zone.errors import CatalogError

__all__ = [
    "DEFAULT_QUOTAS_PATH",
    "QUOTA_KINDS",
    "QuotaCatalog",
    "QuotaNameMatcher",
    "QuotaKind",
    "QuotaValue",
    "UsageMetric",
    "load_quota_catalog",
    "quota_name",
]

DEFAULT_QUOTAS_PATH = Path(__file__).resolve().parent / "quotas.yaml"
# The quota kinds, in the order alarms and reports list them (also the keys of cost.quota_alarms.overrides.<model>).
QUOTA_KINDS: tuple[str, ...] = (
    "on_demand_tokens_per_minute",
    "cross_region_tokens_per_minute",
    "tokens_per_day",
    "mantle_input_tokens_per_minute",
    "mantle_output_tokens_per_minute",
)
QuotaKindName = Literal[
    "on_demand_tokens_per_minute",
    "cross_region_tokens_per_minute",
    "tokens_per_day",
    "mantle_input_tokens_per_minute",
    "mantle_output_tokens_per_minute",
]
PathName = Literal["in-region", "geographic-profile", "global-profile", "mantle"]
MODEL_PLACEHOLDER = "${model}"


class UsageMetric(FileModel):
    """The metric AWS publishes for tokens-per-minute quota use (``EstimatedTPMQuotaUsage``)."""

    namespace: Text
    metric_name: Text
    dimension: Text
    statistic: Literal["Sum"] = "Sum"
    caution: Text
    source: Text
    as_of: Text
    verified: bool


class QuotaKind(FileModel):
    quota_name: Text
    paths: tuple[PathName, ...] = Field(min_length=1)
    window_seconds: Literal[60, 86400]
    usage: Literal["estimated_tpm_quota_usage", "token_metrics"]
    token_kinds: tuple[Literal["input", "cache_read", "cache_write", "output"], ...] = ()
    source: Text
    as_of: Text
    verified: bool

    @model_validator(mode="after")
    def _consistent(self) -> QuotaKind:
        if MODEL_PLACEHOLDER not in self.quota_name:
            raise ValueError(f"quota_name must contain {MODEL_PLACEHOLDER} (the model's name in Service Quotas)")
        if self.usage == "token_metrics" and not self.token_kinds:
            raise ValueError("usage token_metrics needs token_kinds (the token kinds that count against the quota)")
        if self.usage == "estimated_tpm_quota_usage" and (self.token_kinds or "mantle" in self.paths):
            raise ValueError("usage estimated_tpm_quota_usage is a bedrock-runtime metric: no token_kinds, no mantle")
        return self


class QuotaValue(FileModel):
    """One quota value of one model in one Region, with where it comes from."""

    value: float = Field(gt=0, allow_inf_nan=False)
    source: Text
    as_of: Text
    verified: bool
    quota_code: str | None = None
    quota_name: str | None = None
    adjustable: bool | None = None


Values = dict[str, dict[str, dict[QuotaKindName, QuotaValue]]]  # model ID -> Region -> kind -> value


class QuotaCatalog(FileModel):
    schema_version: Literal[1]
    service_code: Text
    usage_metric: UsageMetric
    kinds: dict[QuotaKindName, QuotaKind] = Field(min_length=1)
    values: Values = Field(default_factory=dict)

    def value(self, model_id: str, region: str, kind: str) -> QuotaValue | None:
        """The catalogued (shipped or discovered) value, or None."""
        found = (self.values.get(model_id) or {}).get(region) or {}
        return next((value for name, value in found.items() if name == kind), None)

    def kinds_for_path(self, path: str) -> list[str]:
        return [name for name, kind in self.kinds.items() if path in kind.paths]


def quota_name(template: str, model_name: str) -> str:
    return template.replace(MODEL_PLACEHOLDER, model_name)


def name_matcher(template: str) -> re.Pattern[str]:
    """A case-insensitive pattern of a quota name template; group ``model`` is what stands for ``${model}``."""
    before, _, after = template.partition(MODEL_PLACEHOLDER)
    return re.compile(rf"^\s*{re.escape(before)}(?P<model>.+?){re.escape(after)}\s*$", re.IGNORECASE)


def _normalized(name: str) -> str:
    """A name as Service Quotas' names are compared: case and runs of white space do not count."""
    return " ".join(name.lower().split())


class QuotaNameMatcher:
    """Which quota kind of which model a Service Quotas ``QuotaName`` is: a kind's template (:func:`name_matcher`)
    with one of the model's names (``models``: model ID -> the names Service Quotas may write for it, e.g. its
    catalog name, provider and name, ID) where ``${model}`` stands.  ``discover`` builds its overlay with it and
    ``verify`` (``quota-value``) finds the live value of each quota alarm with it."""

    def __init__(self, kinds: Mapping[QuotaKindName, QuotaKind], models: Mapping[str, Iterable[str]]) -> None:
        self._matchers = {kind: name_matcher(k.quota_name) for kind, k in kinds.items()}
        self._models = {_normalized(name): model_id for model_id, names in models.items() for name in names}

    def match(self, quota_name: str) -> Iterator[tuple[str, str]]:
        """(kind, model ID) pairs the name stands for (none when it is no kind of a known model)."""
        for kind, matcher in self._matchers.items():
            found = matcher.match(quota_name or "")
            model_id = self._models.get(_normalized(found.group("model"))) if found else None
            if model_id is not None:
                yield kind, model_id


def _catalog_error(field: str, value: Any, allowed: str) -> CatalogError:
    return CatalogError(f"quota catalog: {field}: got {value!r}; {allowed}")


class _OverlayQuotas(FileModel):
    values: Values


def _overlay_values(data: Mapping[str, Any], origin: str) -> Values:
    block = data.get("quotas")
    if block is None:
        return {}
    try:
        return _OverlayQuotas.model_validate({"values": block}).values
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in err["loc"][1:])
        raise CatalogError(
            f"{origin}: quotas.{where}: got {err.get('input')!r}; {err['msg']} (each entry: <model ID>: <Region>: "
            f"<kind, one of {', '.join(QUOTA_KINDS)}>: {{value, source, as_of, verified}})"
        ) from None


def load_quota_catalog(
    overlays: Iterable[tuple[str, Mapping[str, Any]]] = (), *, path: Path | None = None
) -> QuotaCatalog:
    """The shipped ``quotas.yaml`` with the ``quotas`` block of each overlay laid over it (``(origin, document)``
    pairs, later wins per model, Region and kind)."""
    shipped = load_catalog_file(QuotaCatalog, path or DEFAULT_QUOTAS_PATH, error=_catalog_error, what="quota catalog")
    values: Values = {m: {r: dict(k) for r, k in regions.items()} for m, regions in shipped.values.items()}
    for origin, data in overlays:
        for model_id, regions in _overlay_values(data, origin).items():
            for region, kinds in regions.items():
                values.setdefault(model_id, {}).setdefault(region, {}).update(kinds)
    return shipped.model_copy(update={"values": values})
