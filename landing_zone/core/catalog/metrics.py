"""``metrics.yaml``: the CloudWatch metrics that count tokens per invocation endpoint, with provenance.

Validated with pydantic like every catalog file (:mod:`landing_zone.core.catalog.schema`); a malformed file raises
:class:`~landing_zone.errors.CostAlarmError` naming the field, the value and what is allowed.  The spend alarms
(:mod:`landing_zone.cost.alarms`) price the series a :class:`MetricSource` names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from pydantic import Field, model_validator

from landing_zone.core.catalog.schema import FileModel, Text, load_catalog_file
from landing_zone.errors import CostAlarmError

__all__ = [
    "APPLICATION_PROFILE_COUNTING",
    "DEFAULT_METRICS_PATH",
    "TOKEN_KINDS",
    "EndpointMetrics",
    "MetricCatalog",
    "MetricSemantics",
    "MetricSource",
    "load_metric_catalog",
]

DEFAULT_METRICS_PATH = Path(__file__).resolve().parent / "metrics.yaml"
# Token kinds in expression order; each is priced with the matching price of prices.yaml.
TOKEN_KINDS: tuple[str, ...] = ("input", "cache_read", "cache_write", "output")
# How a call through an application inference profile is counted in AWS/Bedrock (see metrics.yaml).
APPLICATION_PROFILE_COUNTING = ("separate", "also-under-source")
TokenKind = Literal["input", "cache_read", "cache_write", "output"]


def _text(field: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CostAlarmError(field, value, "a non-empty string")
    return value


@dataclass(frozen=True)
class MetricSource:
    """One thing whose token metrics are priced: a namespace + one dimension value.

    ``token_metrics`` maps a token kind (``input``, ``cache_read``, ``cache_write``, ``output``) to the
    CloudWatch metric name that counts it; only the kinds listed are priced.
    """

    namespace: str
    dimension_name: str
    dimension_value: str  # model ID, inference-profile ID or application-profile ARN
    token_metrics: Mapping[str, str]
    label: str = ""
    verified: bool = True  # False when the metric or dimension names are assumptions

    def __post_init__(self) -> None:
        where = f"metric source {self.label or self.dimension_value!r}"
        for name in ("namespace", "dimension_name", "dimension_value"):
            _text(f"{where}.{name}", getattr(self, name))
        if not isinstance(self.token_metrics, Mapping) or not self.token_metrics:
            raise CostAlarmError(
                f"{where}.token_metrics", self.token_metrics, f"a non-empty mapping with keys from {TOKEN_KINDS}"
            )
        unknown = [k for k in self.token_metrics if k not in TOKEN_KINDS]
        if unknown:
            raise CostAlarmError(f"{where}.token_metrics", unknown, f"token kinds from {TOKEN_KINDS}")
        for kind, metric in self.token_metrics.items():
            _text(f"{where}.token_metrics.{kind}", metric)
        ordered = {k: self.token_metrics[k] for k in TOKEN_KINDS if k in self.token_metrics}
        object.__setattr__(self, "token_metrics", MappingProxyType(ordered))
        if not self.label:
            object.__setattr__(self, "label", f"{self.namespace} {self.dimension_name}={self.dimension_value}")

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.namespace, self.dimension_name, self.dimension_value)


@dataclass(frozen=True)
class MetricSemantics:
    """What one series of ``other_metrics`` counts, where its page says more than its name (with provenance)."""

    counts: str
    source: str
    as_of: str
    verified: bool


@dataclass(frozen=True)
class EndpointMetrics:
    """The metrics one invocation endpoint (``runtime`` or ``mantle``) reports, with provenance."""

    endpoint: str
    namespace: str
    dimension: str
    token_metrics: Mapping[str, str]
    other_metrics: Mapping[str, str]
    statistic: str
    source: str
    as_of: str
    verified: bool
    description: str = ""
    unverified_metrics: tuple[str, ...] = ()  # token kinds whose metric names are assumptions
    assumptions: tuple[str, ...] = ()  # explicit, reported assumptions (see metrics.yaml)
    application_profile_counting: str = "separate"  # runtime only: "separate" | "also-under-source"
    project_dimension: str = ""  # mantle only: the dimension of the Project level ("": no such level)
    # The dimension value of a service tier's own series, "{value}" and "{tier}" filled in (None: the endpoint reports
    # no per-tier series, or none is documented); see metrics.yaml.
    service_tier_dimension: str | None = None
    service_tier_source: str = ""
    # other_metrics kind -> what its series counts (metrics.yaml metric_semantics), e.g. invocations: failed included
    metric_semantics: Mapping[str, MetricSemantics] = field(default_factory=lambda: MappingProxyType({}))

    def tier_dimension_value(self, dimension_value: str, tier: str) -> str | None:
        """The dimension value under which ``tier``'s tokens of ``dimension_value`` report (None: not known)."""
        if self.service_tier_dimension is None or tier == "default":
            return None
        return self.service_tier_dimension.format(value=dimension_value, tier=tier)

    @property
    def fully_verified(self) -> bool:
        return self.verified and not self.unverified_metrics

    def source_for(self, dimension_value: str, label: str = "") -> MetricSource:
        """The :class:`MetricSource` of one dimension value (model ID, profile ID or profile ARN)."""
        return MetricSource(
            namespace=self.namespace,
            dimension_name=self.dimension,
            dimension_value=dimension_value,
            token_metrics=self.token_metrics,
            label=label,
            verified=self.fully_verified,
        )

    def project_source_for(self, project_id: str, label: str = "") -> MetricSource:
        """The :class:`MetricSource` of one Mantle Project (its ``project_dimension`` = the project ID): the Project
        level, which counts every model of that project and only that project."""
        if not self.project_dimension:
            raise CostAlarmError(f"metrics endpoint {self.endpoint!r}.project_dimension", "", "a dimension name")
        return MetricSource(
            namespace=self.namespace,
            dimension_name=self.project_dimension,
            dimension_value=project_id,
            token_metrics=self.token_metrics,
            label=label,
            verified=self.fully_verified,
        )


@dataclass(frozen=True)
class MetricCatalog:
    """The parsed ``metrics.yaml``."""

    endpoints: Mapping[str, EndpointMetrics]
    path: str = ""

    def for_endpoint(self, endpoint: str) -> EndpointMetrics:
        try:
            return self.endpoints[endpoint]
        except KeyError:
            known = ", ".join(sorted(self.endpoints)) or "none"
            raise CostAlarmError("metrics endpoint", endpoint, f"one of: {known}") from None


# --------------------------------------------------------------------------------------------------
# The file schema
# --------------------------------------------------------------------------------------------------


class _Semantics(FileModel):
    counts: Text
    source: Text
    as_of: Text
    verified: bool


class _Endpoint(FileModel):
    description: str = ""
    namespace: Text
    dimension: Text
    statistic: Literal["Sum"] = "Sum"  # token counts are summed per period
    token_metrics: dict[TokenKind, Text] = Field(min_length=1)
    unverified_metrics: tuple[TokenKind, ...] = ()
    other_metrics: dict[str, Text] = Field(default_factory=dict)
    metric_semantics: dict[str, _Semantics] = Field(default_factory=dict)
    application_profile_counting: Literal["separate", "also-under-source"] = "separate"
    project_dimension: Text | None = None
    service_tier_dimension: Text | None = None
    service_tier_source: str = ""
    assumptions: tuple[Text, ...] = ()
    source: Text
    as_of: Text
    verified: bool

    @model_validator(mode="after")
    def _assumptions_cover_unverified(self) -> _Endpoint:
        outside = [k for k in self.unverified_metrics if k not in self.token_metrics]
        if outside:
            raise ValueError(
                f"unverified_metrics {outside} are not token kinds of this entry ({list(self.token_metrics)})"
            )
        tier = self.service_tier_dimension
        if tier is not None and ("{value}" not in tier or "{tier}" not in tier or not self.service_tier_source):
            raise ValueError("service_tier_dimension: a pattern with {value} and {tier}, and service_tier_source")
        unknown = sorted(set(self.metric_semantics) - set(self.other_metrics))
        if unknown:
            raise ValueError(f"metric_semantics {unknown} are not kinds of other_metrics ({list(self.other_metrics)})")
        if self.unverified_metrics and not self.assumptions:
            raise ValueError(
                "unverified_metrics need assumptions: one sentence per unverified metric, saying what was searched"
            )
        return self


class _MetricsFile(FileModel):
    schema_version: Literal[1]
    endpoints: dict[str, _Endpoint] = Field(min_length=1)


def load_metric_catalog(path: Path | str | None = None) -> MetricCatalog:
    """Load and validate ``metrics.yaml`` (default: the shipped file)."""
    file = Path(path) if path is not None else DEFAULT_METRICS_PATH
    doc = load_catalog_file(_MetricsFile, file, error=CostAlarmError, what="metric catalog")
    endpoints = {
        name: EndpointMetrics(
            endpoint=name,
            namespace=e.namespace,
            dimension=e.dimension,
            token_metrics=MappingProxyType({k: e.token_metrics[k] for k in TOKEN_KINDS if k in e.token_metrics}),
            other_metrics=MappingProxyType(dict(e.other_metrics)),
            statistic=e.statistic,
            source=e.source,
            as_of=e.as_of,
            verified=e.verified,
            description=e.description,
            unverified_metrics=tuple(e.unverified_metrics),
            assumptions=tuple(e.assumptions),
            application_profile_counting=e.application_profile_counting,
            project_dimension=e.project_dimension or "",
            service_tier_dimension=e.service_tier_dimension,
            service_tier_source=e.service_tier_source,
            metric_semantics=MappingProxyType(
                {k: MetricSemantics(v.counts, v.source, v.as_of, v.verified) for k, v in e.metric_semantics.items()}
            ),
        )
        for name, e in doc.endpoints.items()
    }
    return MetricCatalog(endpoints=MappingProxyType(endpoints), path=str(file))
