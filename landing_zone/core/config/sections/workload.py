"""The workload section: the traffic the sizing starts from, and self-hosting."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    ValidationInfo,
    model_validator,
)

from landing_zone.core.config import rules
from landing_zone.core.config.sections.common import (
    MAX_NODE_HOURLY_USD,
    MAX_NODE_TOKENS_PER_SECOND,
    MAX_REQUESTS_PER_DAY,
    MAX_TOKENS_PER_REQUEST,
    ReservationId,
    _Problem,
    _raise_all,
    _Strict,
)
from landing_zone.errors import Described


class WorkloadPart(_Strict):
    """One share of ``cost.workload``: the requests of one model (or of one application, on its model and path),
    with its own tokens per request where they differ from the workload's."""

    model: str | None = Field(default=None, description="Catalog alias or model ID, one of `models`.")
    application: str | None = Field(default=None, description="An application name: its model and path.")
    share_of_requests: float = Field(gt=0, le=1, description="Share of cost.workload.requests_per_day.")
    input_tokens_per_request: float | None = Field(default=None, ge=0, le=MAX_TOKENS_PER_REQUEST)
    output_tokens_per_request: float | None = Field(default=None, ge=0, le=MAX_TOKENS_PER_REQUEST)
    cached_input_fraction: float | None = Field(default=None, ge=0, le=1)
    cache_write_fraction: float | None = Field(default=None, ge=0, le=1)

    @model_validator(mode="after")
    def _one_target(self) -> WorkloadPart:
        if (self.model is None) == (self.application is None):
            raise ValueError("give exactly one of model (a model of `models`) or application (an application name)")
        return self

    @property
    def target(self) -> str:
        return f"model {self.model}" if self.model is not None else f"application {self.application}"


_SHARE_SUM_TOLERANCE = 1e-6


class Workload(_Strict):
    """Expected steady-state traffic, the input of the token-cost model.

    ``split`` omitted: every request goes to ``models[0]``.  Given: each part takes ``share_of_requests`` of
    ``requests_per_day`` on its model (or application), the shares summing to 1; a part's token fields default
    to the workload's."""

    requests_per_day: float = Field(default=10_000, ge=0, le=MAX_REQUESTS_PER_DAY)
    input_tokens_per_request: float = Field(default=6_000, ge=0, le=MAX_TOKENS_PER_REQUEST)
    output_tokens_per_request: float = Field(default=1_200, ge=0, le=MAX_TOKENS_PER_REQUEST)
    cached_input_fraction: float = Field(default=0.5, ge=0, le=1)
    cache_write_fraction: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Share of input tokens written to the prompt cache, billed at the model's cache-write price "
        "(prices.yaml; the input price where none is published). Omitted: 0, no cache writes.",
    )
    split: Annotated[tuple[WorkloadPart, ...], rules.WhenOmitted("the whole workload on models[0]")] = Field(
        default=(),
        description="Requests and tokens per model or application; omitted: the whole workload on models[0].",
    )
    tier_split: Mapping[Literal["default", "priority", "flex"], float] = Field(
        default_factory=dict,
        description="Share of requests per service tier (default, priority, flex), applied to every part; the shares "
        "sum to 1 and each tier must be in policy_guardrails.allowed_service_tiers. Omitted: every request in the "
        "default (Standard) tier. reserved is a capacity commitment, not a per-token price: not allowed here.",
    )

    @model_validator(mode="after")
    def _shares(self, info: ValidationInfo) -> Workload:
        """The shares that must add up, each problem at the key that holds it (not at ``cost.workload`` as a whole),
        and each model or application split once (a model by the model it names: an alias and its ID are one)."""
        _raise_all(self._share_problems((info.context or {}).get("catalog")))
        return self

    def _share_problems(self, catalog: Any) -> Iterator[_Problem]:
        yield from self._cache_share_problems()
        if self.tier_split:
            yield from self._tier_split_problems()
        if self.split:
            yield from self._split_problems(catalog)

    def _cache_share_problems(self) -> Iterator[_Problem]:
        parts = [((), self.cached_input_fraction, self.cache_write_fraction)] + [
            (
                ("split", i),
                self.cached_input_fraction if p.cached_input_fraction is None else p.cached_input_fraction,
                self.cache_write_fraction if p.cache_write_fraction is None else p.cache_write_fraction,
            )
            for i, p in enumerate(self.split)
        ]
        for loc, cached, written in parts:
            if cached + written > 1 + _SHARE_SUM_TOLERANCE:
                yield (
                    (*loc, "cache_write_fraction"),
                    written,
                    f"cached_input_fraction + cache_write_fraction = {cached + written:g}; allowed: a sum <= 1 (both "
                    "are shares of the same input tokens)",
                )

    def _tier_split_problems(self) -> Iterator[_Problem]:
        bad = {t: v for t, v in self.tier_split.items() if not 0 < v <= 1}
        yield from ((("tier_split", t), v, "not a share in (0, 1]") for t, v in bad.items())
        tier_total = sum(self.tier_split.values())
        if not bad and abs(tier_total - 1.0) > _SHARE_SUM_TOLERANCE:
            yield ("tier_split",), dict(self.tier_split), f"the shares sum to {tier_total:g}; they must sum to 1"

    def _split_problems(self, catalog: Any) -> Iterator[_Problem]:
        total = sum(p.share_of_requests for p in self.split)
        if abs(total - 1.0) > _SHARE_SUM_TOLERANCE:
            yield (
                ("split",),
                Described(f"share_of_requests {' + '.join(f'{p.share_of_requests:g}' for p in self.split)}"),
                f"the share_of_requests values sum to {total:g}; they must sum to 1",
            )
        first: dict[str, int] = {}
        for i, part in enumerate(self.split):
            model = catalog.resolve_model(part.model) if catalog is not None and part.model else None
            j = first.setdefault(f"model {model.id}" if model is not None else part.target, i)
            if j != i:
                got, key = (part.model, "model") if part.model is not None else (part.application, "application")
                same = f"names the same {key} as split[{j}]" + (f" ({model.id})" if model is not None else "")
                yield ("split", i, key), got, f"{same}: merge the parts"


GpuInstanceType = Literal["p6-b300.48xlarge", "p6-b200.48xlarge", "p5en.48xlarge"]


class SelfHosting(_Strict):
    """Optional self-hosting of the open weights on EKS (aws_eks_v2) with vLLM.  Off by default."""

    enabled: bool = Field(default=False, description="Off: no EKS resource is created.")
    instance_type: GpuInstanceType = Field(
        default="p6-b300.48xlarge",
        description="GPU node type. Only p6-b300.48xlarge holds the 1.56 TB weights on one node; the others warn.",
    )
    capacity: Literal["capacity-block", "on-demand"] = Field(
        default="capacity-block", description="EC2 Capacity Blocks for ML (default) or on-demand."
    )
    capacity_reservation_id: ReservationId | None = Field(
        default=None, description="cr-... of the Capacity Block; required with capacity: capacity-block."
    )
    availability_zone: str | None = Field(
        default=None, description="AZ of the Capacity Block (GPU subnets are limited to it); required with it."
    )
    desired_size: int = Field(
        default=0, ge=0, le=64, description="GPU nodes at deploy time (0: scale up when the block starts)."
    )
    max_size: int = Field(default=1, ge=1, le=64)
    efa: bool = Field(default=False, description="Attach EFA interfaces (multi-node tensor/pipeline parallelism).")
    kubernetes_version: str = Field(default="1.34", pattern=r"^1\.(3[0-9])$")
    system_instance_type: str = Field(default="m7i.large", description="Instance type of the small system node group.")
    vllm_image: str = Field(default="vllm/vllm-openai:kimi-k3", description="Serving image (CUDA 13, driver 580).")
    expected_tokens_per_second: float = Field(
        default=516.0,
        gt=0,
        le=MAX_NODE_TOKENS_PER_SECOND,
        description="Sustained output tokens/s you expect per node (catalog: 516 at concurrency 8).",
    )
    hourly_usd: float | None = Field(
        default=None, gt=0, le=MAX_NODE_HOURLY_USD, description="Node cost per hour; omitted: the catalog's figure."
    )
    apply_manifests: bool = Field(
        default=False, description="Apply the rendered Kubernetes manifests through a kubectl provider (needs one)."
    )

    @model_validator(mode="after")
    def _capacity_block(self) -> SelfHosting:
        problems: list[_Problem] = []
        if self.enabled and self.capacity == "capacity-block":
            for key in ("capacity_reservation_id", "availability_zone"):
                if not getattr(self, key):
                    problems.append(
                        (
                            (key,),
                            Described("nothing"),
                            "capacity: capacity-block needs capacity_reservation_id and "
                            "availability_zone (the block's AZ); or set capacity: on-demand",
                        )
                    )
        if self.desired_size > self.max_size:
            problems.append((("desired_size",), self.desired_size, f"exceeds max_size ({self.max_size})"))
        _raise_all(problems)
        return self
