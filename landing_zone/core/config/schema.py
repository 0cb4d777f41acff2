"""The configuration schema: one typed, frozen model and the rules that collect every problem.

Defaults live in ``cdk.json`` under the ``landing_zone`` context key; an optional YAML/JSON file given as
``-c config=PATH`` (or ``--config PATH`` on the CLI) is deep-merged over them (mappings merge, lists and
scalars replace).  Every invalid value is collected and reported in one :class:`ConfigError`.
"""

from __future__ import annotations

import difflib
import functools
import ipaddress
import itertools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from landing_zone.core import naming
from landing_zone.core.config import rules
from landing_zone.core.config.model_keys import ModelKey, model_key_problems
from landing_zone.errors import Described

__all__ = [
    "ACCOUNT_ID",
    "ApiKeyPolicy",
    "Access",
    "Account",
    "AccountId",
    "Application",
    "BatchRoleArn",
    "CDK_QUALIFIER",
    "CONFIG_FILE_CONTEXT_KEY",
    "CONTEXT_KEY",
    "ContentGuardrail",
    "Cost",
    "CrossFieldProblems",
    "DataRetention",
    "Detection",
    "DataRetentionMode",
    "DEFAULT_CDK_QUALIFIER",
    "DEFAULT_ENDPOINTS",
    "EMAIL",
    "EXEMPT_ROLE_ARN",
    "Email",
    "EndpointService",
    "ExemptRoleArn",
    "FilterStrength",
    "GpuInstanceType",
    "InvocationLogging",
    "LANDING_ZONE_TAGS_MAX",
    "LOG_RETENTION_DAYS",
    "LandingZoneConfig",
    "MAX_MONTHLY_USD",
    "MAX_NODE_HOURLY_USD",
    "MAX_NODE_TOKENS_PER_SECOND",
    "MAX_PROBLEMS_PER_KEY",
    "MAX_REQUESTS_PER_DAY",
    "MAX_TOKENS_PER_REQUEST",
    "MAX_USD_PER_MILLION_TOKENS",
    "MEMBER_ALERT_EMAILS_MAX",
    "MemberBaseline",
    "ModelAccess",
    "NAME",
    "Name",
    "Network",
    "ORG_ID",
    "OU_ID",
    "OrgId",
    "Organization",
    "OuId",
    "PRINCIPAL_ARN",
    "PRINCIPAL_ARN_PATTERN",
    "PathPreference",
    "PolicyGuardrails",
    "PriceOverride",
    "TierPriceOverride",
    "PriceSourceName",
    "PrincipalArn",
    "PrincipalArnPattern",
    "RESERVATION_ID",
    "RESERVED_TAG_KEYS",
    "ReservationId",
    "RetentionDays",
    "SUBNET_ID",
    "SelfHosting",
    "ServiceTier",
    "SubnetId",
    "TAGS_MAX_PER_RESOURCE",
    "TAG_KEY_MAX_CHARACTERS",
    "TAG_VALUE_MAX_CHARACTERS",
    "TARGET_ID",
    "TargetId",
    "VPC_ID",
    "VpcId",
    "Workload",
    "json_schema",
    "tag_rule",
]

CONTEXT_KEY = "landing_zone"
CONFIG_FILE_CONTEXT_KEY = "config"

ACCOUNT_ID = re.compile(r"^\d{12}$")
NAME = re.compile(r"^[a-z][a-z0-9-]{1,30}[a-z0-9]$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
ORG_ID = re.compile(r"^o-[a-z0-9]{10,32}$")
TARGET_ID = re.compile(r"^(r-[0-9a-z]{4,32}|ou-[0-9a-z]{4,32}-[a-z0-9]{8,32}|\d{12})$")
VPC_ID = re.compile(r"^vpc-[0-9a-f]{8,17}$")
SUBNET_ID = re.compile(r"^subnet-[0-9a-f]{8,17}$")
OU_ID = re.compile(r"^ou-[0-9a-z]{4,32}-[a-z0-9]{8,32}$")
RESERVATION_ID = re.compile(r"^cr-[0-9a-f]{8,17}$")
PRINCIPAL_ARN = re.compile(r"^arn:aws[a-z-]*:(iam|sts)::\d{12}:")
PRINCIPAL_ARN_PATTERN = re.compile(r"^arn:aws[a-z-]*:(iam|sts)::(\d{12}|\*):")

EndpointService = Literal["bedrock-runtime", "bedrock-mantle", "bedrock"]
DEFAULT_ENDPOINTS: tuple[EndpointService, ...] = ("bedrock-runtime", "bedrock-mantle", "bedrock")
# The retention periods CloudWatch Logs accepts (PutRetentionPolicy API reference).
LOG_RETENTION_DAYS = (
    1,
    3,
    5,
    7,
    14,
    30,
    60,
    90,
    120,
    150,
    180,
    365,
    400,
    545,
    731,
    1096,
    1827,
    2192,
    2557,
    2922,
    3288,
    3653,
)

# Upper bounds of the workload and money settings (docs/CONFIG.md, "Limits"): far above any real Bedrock use,
# and low enough that every derived amount (monthly budget, hourly alarm threshold, per-account budget
# parameter) stays a plain decimal number that AWS Budgets and CloudWatch accept.
MAX_REQUESTS_PER_DAY = 1_000_000_000  # ~11,600 requests/s around the clock
MAX_TOKENS_PER_REQUEST = 1_048_576  # the largest context window in the catalog (Kimi K3.1 Pro): no request holds more
MAX_MONTHLY_USD = 10_000_000_000  # any monthly amount, given or computed (budgets, anomaly threshold)
MAX_NODE_HOURLY_USD = 10_000  # a self-hosted GPU node; the catalog's p6-b300.48xlarge costs ~57 USD/h
MAX_NODE_TOKENS_PER_SECOND = 1_000_000  # a self-hosted node; the catalog measured 516 output tokens/s
# AWS tags: the limits are catalog data (core/catalog/limits.yaml: tags_max_per_resource, tag_key_max_length,
# tag_value_max_length, with their source); these defaults apply only when a config is validated without a catalog.
# Keys 1-128 and values 0-256 Unicode characters of letters, digits, spaces and + - = . _ : / @, no `aws:` prefix.
TAGS_MAX_PER_RESOURCE = 50
TAG_KEY_MAX_CHARACTERS = 128
TAG_VALUE_MAX_CHARACTERS = 256


def _tag_limits(info: ValidationInfo | None) -> tuple[int, int, int]:
    catalog = (info.context or {}).get("catalog") if info is not None else None
    if catalog is None:
        return TAGS_MAX_PER_RESOURCE, TAG_KEY_MAX_CHARACTERS, TAG_VALUE_MAX_CHARACTERS
    return (
        catalog.limit("tags_max_per_resource"),
        catalog.limit("tag_key_max_length"),
        catalog.limit("tag_value_max_length"),
    )


# The most tags the landing zone itself puts on one resource: subnets get Name, aws-cdk:subnet-name,
# aws-cdk:subnet-type, landing-zone and managed-by (application profiles: application, cost-center,
# landing-zone, managed-by).  tests/cdk/test_stack_limits.py checks it against every example's templates.
LANDING_ZONE_TAGS_MAX = 5
# Keys the landing zone sets with a meaning (tamper protection, budget scope, cost allocation): `tags` may not
# override them.
RESERVED_TAG_KEYS = ("landing-zone", "managed-by", "application", "cost-center")


class CrossFieldProblems(ValueError):
    """Several problems found by one validator, each at its own path relative to the model it validates.

    ``problems`` holds ``(relative_loc, got, allowed)``; :func:`problems_from_validation_error` reports each
    one at its own key instead of one message at the model's path."""

    def __init__(self, problems: Sequence[tuple[tuple[Any, ...], Any, str]]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(f"{_path(loc)}: got {got!r}; {allowed}" for loc, got, allowed in self.problems))


# A validator lists at most this many problems of one list or mapping, then says there are more: a hostile
# file with 100,000 bad entries must not cost 100,000 nearest-match searches.
MAX_PROBLEMS_PER_KEY = 20


# (path, value received, what is allowed): one problem of a model validator, raised together by _raise_all.
_Problem = tuple[tuple[Any, ...], Any, str]


def _raise_all(problems: Iterable[_Problem]) -> None:
    """Raise the problems (the first MAX_PROBLEMS_PER_KEY of an iterable, which is consumed lazily)."""
    iterator = iter(problems)
    found = list(itertools.islice(iterator, MAX_PROBLEMS_PER_KEY))
    if next(iterator, None) is not None:
        found.append(
            (
                (),
                Described(f"more than {MAX_PROBLEMS_PER_KEY} problems"),
                f"only the first {MAX_PROBLEMS_PER_KEY} are listed: fix these and validate again",
            )
        )
    if found:
        raise CrossFieldProblems(found)


def whitespace_rule(value: str, suggestion: str | None = None) -> str:
    """What is wrong with a value that has whitespace at its start or end (values are never trimmed)."""
    shown = suggestion if suggestion is not None else value.strip()
    return (
        "has whitespace at its start or end: values are taken exactly as written, never trimmed (docs/CONFIG.md, "
        f"'Whitespace and case'); did you mean {shown!r}?"
    )


class _Strict(BaseModel):
    """Frozen, no unknown keys, no NaN or infinity, and no silent reinterpretation: a ``bool`` field takes only
    ``true``/``false`` (not ``"yes"``, ``"true"`` or ``1``), a number field never takes ``true``/``false`` or the
    text of a number (``"10000"``), and a text value is never trimmed: one with whitespace at its start or end is
    refused with the trimmed value as a did-you-mean (docs/CONFIG.md, "Whitespace and case").  Lists hold each entry
    once, and an optional list is never empty (core/config/rules.py: rules by type, so a new field has them too).
    Every model of the configuration inherits this.

    ``TEXT_FIELDS``: free-text fields taken exactly as written, spaces included (messages, notes);
    ``OWN_IDENTIFIER_RULE``: fields whose own validator refuses whitespace and case with the catalog's spelling."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    TEXT_FIELDS: ClassVar[frozenset[str]] = frozenset()
    OWN_IDENTIFIER_RULE: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _no_reinterpretation(cls, value: Any, info: ValidationInfo) -> Any:
        name = info.field_name or ""
        if name not in cls.TEXT_FIELDS and name not in cls.OWN_IDENTIFIER_RULE:
            if isinstance(value, str) and value != value.strip():
                raise ValueError(whitespace_rule(value, _suggested(cls, name, value)))
            if isinstance(value, (list, tuple)):
                padded = [(i, v) for i, v in enumerate(value) if isinstance(v, str) and v != v.strip()]
                _raise_all(((i,), v, whitespace_rule(v)) for i, v in padded)
        field = cls.model_fields.get(name)
        if field is not None:  # numbers and booleans of their type, entry by entry (core/config/rules.py)
            _raise_all(rules.type_problems(field.annotation, value))
            # a mapping keyed by model names each model once (core/config/model_keys.py)
            _raise_all(model_key_problems(field.annotation, value, (info.context or {}).get("catalog")))
        return value

    @model_validator(mode="after")
    def _type_rules(self) -> Any:
        """The rules every model takes from its fields' types (core/config/rules.py), then the model's own
        (:meth:`_problems`), all raised together."""
        _raise_all(itertools.chain(rules.list_problems(self), self._problems()))
        return self

    def _problems(self) -> Iterator[_Problem]:
        """Problems of this model beyond its fields' types (none by default; a model that collects several
        overrides it so that every problem is reported at once)."""
        return iter(())


def _suggested(model: type[BaseModel], name: str, value: str) -> str:
    """The trimmed value, lower-cased when only that matches the field's pattern (e.g. ``name: 'Kimi-LZ '``)."""
    field = model.model_fields.get(name)
    regexes = [getattr(m.func, "regex", None) for m in (field.metadata if field else ()) if hasattr(m, "func")]
    regex = next((r for r in regexes if r is not None), None)
    trimmed = value.strip()
    if regex is not None and not regex.match(trimmed) and regex.match(trimmed.lower()):
        return trimmed.lower()
    return trimmed


def _account_id(value: Any) -> str:
    if not isinstance(value, str) or not ACCOUNT_ID.match(value):
        rule = "must be a 12-digit AWS account ID written as a string (quote it in YAML)"
        if isinstance(value, str) and ACCOUNT_ID.match(value.strip()):
            rule += f"; did you mean {value.strip()!r}? (values are never trimmed)"
        raise ValueError(rule)
    return value


def _matches(regex: re.Pattern[str], rule: str) -> AfterValidator:
    """A validator for one string: ``rule`` says what is allowed when ``regex`` does not match, with the value
    trimmed or lower-cased as a did-you-mean when that would match (the value itself is never changed)."""

    def check(value: str) -> str:
        if not regex.match(value):
            close = next((c for c in (value.strip(), value.strip().lower()) if regex.match(c)), None)
            raise ValueError(rule + (f"; did you mean {close!r}?" if close is not None else ""))
        return value

    check.regex = regex  # type: ignore[attr-defined]  # read by _suggested
    return AfterValidator(check)


def _retention_days(value: int) -> int:
    if value not in LOG_RETENTION_DAYS:
        raise ValueError(f"not a CloudWatch Logs retention period (allowed: {', '.join(map(str, LOG_RETENTION_DAYS))})")
    return value


# Value types shared by the models below: each names its rule once.
AccountId = Annotated[str, BeforeValidator(_account_id)]
Name = Annotated[
    str, _matches(NAME, "must be 3-32 characters of lowercase letters, digits and '-', starting with a letter")
]
Email = Annotated[str, _matches(EMAIL, "must be an e-mail address")]
OuId = Annotated[str, _matches(OU_ID, "must look like 'ou-abcd-11111111'")]
OrgId = Annotated[str, _matches(ORG_ID, "must look like 'o-' followed by 10-32 lowercase letters or digits")]
TargetId = Annotated[
    str, _matches(TARGET_ID, "must be a root ID (r-...), an OU ID (ou-...-...) or a 12-digit account ID in quotes")
]
VpcId = Annotated[str, _matches(VPC_ID, "must look like 'vpc-0123456789abcdef0'")]
SubnetId = Annotated[str, _matches(SUBNET_ID, "must look like 'subnet-0123456789abcdef0'")]
ReservationId = Annotated[str, _matches(RESERVATION_ID, "must look like 'cr-0123456789abcdef0'")]
PrincipalArn = Annotated[str, _matches(PRINCIPAL_ARN, "must be an IAM principal ARN with a 12-digit account")]
PrincipalArnPattern = Annotated[
    str, _matches(PRINCIPAL_ARN_PATTERN, "must be an IAM role/user ARN pattern like 'arn:aws:iam::*:role/deployer-*'")
]
RetentionDays = Annotated[int, AfterValidator(_retention_days)]
# A role named by its exact account (a trailing '*' in the name is allowed): the kill switch's reset principals.
ResetRoleArn = Annotated[
    str,
    _matches(
        re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+\*?$"),
        "must be an IAM role ARN with a 12-digit account ID, e.g. 'arn:aws:iam::333333333333:role/finops-oncall' "
        "(a trailing '*' is allowed; no '*' in the account)",
    ),
]
AnomalyMonitorArn = Annotated[
    str,
    _matches(
        re.compile(r"^arn:aws[a-z-]*:ce::\d{12}:anomalymonitor/[0-9a-f-]+$"),
        "must be a Cost Anomaly Detection monitor ARN like 'arn:aws:ce::111111111111:anomalymonitor/"
        "0a1b2c3d-4e5f-6789-abcd-ef0123456789' (aws ce get-anomaly-monitors)",
    ),
]
BatchRoleArn = Annotated[
    str,
    _matches(
        re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$"),
        "must be an IAM role ARN with a 12-digit account ID and no wildcard",
    ),
]


class Account(_Strict):
    """A member account allowed to call Bedrock through the landing zone."""

    id: AccountId
    name: Name = Field(description="Short name used in resource names and tags, e.g. 'workload-prod'.")
    ou_id: OuId | None = Field(
        default=None, description="OU of the account (member_baseline: its StackSet instance targets this OU)."
    )
    monthly_budget_usd: float | None = Field(
        default=None,
        gt=0,
        le=MAX_MONTHLY_USD,
        description="member_baseline: this account's budget; omitted: the computed one.",
    )
    alert_emails: tuple[Email, ...] = Field(default=(), description="member_baseline: this account's alert e-mails.")
    cost_center: str | None = Field(default=None, max_length=128, description="member_baseline: cost-center tag value.")


class OutsidePerimeter(_Strict):
    """What the SCPs restrict in the accounts under ``organization.target_ids`` that the landing zone does not govern
    (neither in ``accounts`` nor, with the member baseline, under its OUs).  Omitted: only that the landing zone's
    models cannot be invoked there (runtime, profiles, Mantle, batch); their other models, account settings, CDK
    bootstraps, logging and services stay their owners'."""

    restrict_other_models: bool = Field(
        default=False,
        description="Opt-in: the model allow-list SCP binds every account under the targets too (every model that is "
        "not allowed is denied there as well).",
    )
    confine_to_compliant_regions: bool = Field(
        default=False,
        description="Opt-in: the Region-confinement SCP binds every account under the targets too (all Bedrock, "
        "Mantle and AgentCore calls, and with confine_model_calling_services the model-calling services, only in "
        "compliant_regions, organization-wide).",
    )


class Organization(_Strict):
    """AWS Organizations settings.  Omit the whole block for single-account mode."""

    management_account_id: AccountId
    organization_id: OrgId | None = Field(
        default=None, description="o-... ID; when set, endpoint policies admit the whole organization."
    )
    target_ids: tuple[TargetId, ...] = Field(
        default=(),
        description="Roots (r-...), OUs (ou-...) or account IDs the landing zone's SCPs reach. A target that is a "
        "governed account (accounts) or a member-baseline OU receives every guardrail SCP; any other target receives "
        "only the perimeter SCP (the landing zone's models are invoked in the governed accounts only) and the "
        "outside_perimeter opt-ins, and the guardrail SCPs attach to the governed accounts themselves.",
    )
    outside_perimeter: OutsidePerimeter = Field(default_factory=OutsidePerimeter)


class Network(_Strict):
    """The private network perimeter.  Give ``vpc_cidr`` for a new VPC, or ``vpc_id`` + ``subnet_ids`` +
    ``vpc_cidr`` to import an existing one (no lookups: synth stays offline)."""

    vpc_cidr: str = "10.40.0.0/16"
    vpc_id: VpcId | None = None
    subnet_ids: tuple[SubnetId, ...] = ()
    availability_zones: Annotated[tuple[str, ...], rules.WhenOmitted("the first `az_count` AZs of the account")] = (
        Field(
            default=(),
            description="AZ names for the subnets.  Omitted: the first `az_count` AZs of the account, resolved at "
            "deploy time with Fn::GetAZs (synth never needs an AZ lookup).  Required with vpc_id.",
        )
    )
    az_count: int = Field(default=2, ge=2, le=6, description="Number of AZs when availability_zones is omitted.")
    endpoints: tuple[EndpointService, ...] = DEFAULT_ENDPOINTS
    endpoint_principals: Literal["accounts", "organization"] = Field(
        default="accounts",
        description="Who the endpoint policies admit: the governed accounts (aws:PrincipalAccount listing "
        "`accounts`), or the whole organization (aws:PrincipalOrgID = organization.organization_id; needs it). "
        "Omitted: the governed accounts only.",
    )
    flow_log_retention_days: RetentionDays = Field(
        default=365, description="One of the CloudWatch Logs retention periods."
    )

    @field_validator("vpc_cidr")
    @classmethod
    def _cidr(cls, v: str) -> str:
        try:
            net = ipaddress.ip_network(v, strict=True)
        except ValueError:
            raise ValueError("must be an IPv4 CIDR block such as '10.40.0.0/16'") from None
        if net.version != 4 or not 16 <= net.prefixlen <= 24:
            raise ValueError("must be an IPv4 CIDR with a prefix length between /16 and /24")
        return v

    @model_validator(mode="after")
    def _imported_vpc(self) -> Network:
        problems: list[_Problem] = []
        if self.vpc_id and not self.subnet_ids:
            problems.append(
                (
                    ("subnet_ids",),
                    [],
                    f"vpc_id is {self.vpc_id!r} but subnet_ids is empty: an imported VPC "
                    "needs the IDs of the subnets for the endpoints",
                )
            )
        if self.subnet_ids and not self.vpc_id:
            problems.append(
                (
                    ("vpc_id",),
                    Described("nothing"),
                    "subnet_ids is set without vpc_id: give the ID of the VPC they belong to, "
                    "or remove subnet_ids to create a new VPC",
                )
            )
        if self.subnet_ids and len(self.availability_zones) != len(self.subnet_ids):
            problems.append(
                (
                    ("availability_zones",),
                    list(self.availability_zones),
                    f"an imported VPC needs one AZ per entry of subnet_ids ({len(self.subnet_ids)} subnet(s))",
                )
            )
        _raise_all(problems)
        return self


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
        if self.tier_split:
            bad = {t: v for t, v in self.tier_split.items() if not 0 < v <= 1}
            yield from ((("tier_split", t), v, "not a share in (0, 1]") for t, v in bad.items())
            tier_total = sum(self.tier_split.values())
            if not bad and abs(tier_total - 1.0) > _SHARE_SUM_TOLERANCE:
                yield ("tier_split",), dict(self.tier_split), f"the shares sum to {tier_total:g}; they must sum to 1"
        if self.split:
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


MAX_USD_PER_MILLION_TOKENS = 10_000  # a sanity bound for a contract price (the catalog's highest is 20)


def _known_price_source(value: str, info: ValidationInfo) -> str:
    known = (info.context or {}).get("price_sources")  # the offers of prices.yaml (bedrock, kimi-api, ...)
    if known is not None and value not in known:
        raise ValueError(f"unknown price source {value!r} (allowed: {', '.join(sorted(known))})")
    return value


PriceSourceName = Annotated[str, AfterValidator(_known_price_source)]


class PriceOverride(_Strict):
    """A contract price for one price source: any of the four token prices (USD per 1M tokens) and where it comes
    from.  Used by the budget, the spend alarms, the cost report and the review report instead of the catalog's."""

    input_usd_per_million_tokens: float | None = Field(default=None, ge=0, le=MAX_USD_PER_MILLION_TOKENS)
    cache_read_usd_per_million_tokens: float | None = Field(default=None, ge=0, le=MAX_USD_PER_MILLION_TOKENS)
    cache_write_usd_per_million_tokens: float | None = Field(default=None, ge=0, le=MAX_USD_PER_MILLION_TOKENS)
    output_usd_per_million_tokens: float | None = Field(default=None, gt=0, le=MAX_USD_PER_MILLION_TOKENS)
    source: str = Field(
        min_length=3,
        max_length=500,
        description="Required: where the price comes from, e.g. 'AWS private pricing addendum, signed 2026-10-01'.",
    )
    TEXT_FIELDS: ClassVar[frozenset[str]] = frozenset({"source"})

    @model_validator(mode="after")
    def _some_price(self) -> PriceOverride:
        if self.prices() == {}:
            raise ValueError(
                "give at least one of input_usd_per_million_tokens, cache_read_usd_per_million_tokens, "
                "cache_write_usd_per_million_tokens, output_usd_per_million_tokens"
            )
        return self

    def prices(self) -> dict[str, float]:
        """The prices given, keyed like prices.yaml."""
        keys = (
            "input_usd_per_million_tokens",
            "cache_read_usd_per_million_tokens",
            "cache_write_usd_per_million_tokens",
            "output_usd_per_million_tokens",
        )
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}


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


class TierPriceOverride(_Strict):
    """The price of one service tier of one model: ``multiplier`` x its standard prices (after
    ``cost.price_overrides``) and/or any of the four token prices (USD per 1M tokens), with where it comes from."""

    multiplier: float | None = Field(default=None, gt=0, le=100, description="Of the model's standard prices.")
    input_usd_per_million_tokens: float | None = Field(default=None, ge=0, le=MAX_USD_PER_MILLION_TOKENS)
    cache_read_usd_per_million_tokens: float | None = Field(default=None, ge=0, le=MAX_USD_PER_MILLION_TOKENS)
    cache_write_usd_per_million_tokens: float | None = Field(default=None, ge=0, le=MAX_USD_PER_MILLION_TOKENS)
    output_usd_per_million_tokens: float | None = Field(default=None, ge=0, le=MAX_USD_PER_MILLION_TOKENS)
    source: str = Field(
        min_length=3,
        max_length=500,
        description="Required: where the tier price comes from, e.g. 'Amazon Bedrock pricing page, read 2026-12-02'.",
    )
    TEXT_FIELDS: ClassVar[frozenset[str]] = frozenset({"source"})

    @model_validator(mode="after")
    def _some_price(self) -> TierPriceOverride:
        if self.multiplier is None and not self.prices():
            raise ValueError("give multiplier (of the model's standard prices) and/or token prices")
        return self

    def prices(self) -> dict[str, float]:
        """The prices given, keyed like prices.yaml."""
        keys = (
            "input_usd_per_million_tokens",
            "cache_read_usd_per_million_tokens",
            "cache_write_usd_per_million_tokens",
            "output_usd_per_million_tokens",
        )
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}


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


PathPreference = Literal["auto", "in-region", "geographic-profile", "global-profile"]


class Application(_Strict):
    """An application that calls Bedrock through its own invoker role and application inference profile."""

    OWN_IDENTIFIER_RULE: ClassVar[frozenset[str]] = frozenset({"model"})  # LandingZoneConfig checks it exactly

    name: Name = Field(description="Short name: role '<lz>-invoker-<name>', profile '<lz>-<name>'.")
    cost_center: str = Field(min_length=1, max_length=128, description="Value of the 'cost-center' tag.")
    model: str | None = Field(default=None, description="Catalog alias or model ID; omitted: models[0].")
    path: PathPreference = Field(
        default="auto",
        description="Which compliant path the application profile copies; auto: in-Region in home_region, "
        "else a geographic profile, else (if allowed) the global profile.",
    )
    account: str | None = Field(
        default=None,
        description="Name or ID of the account (from `accounts`) whose principals call it; "
        "omitted: the deployment account.",
    )
    trusted_principal_arns: Annotated[
        tuple[PrincipalArn, ...], rules.WhenOmitted("any principal of `account` that its own IAM lets assume the role")
    ] = Field(
        default=(),
        description="Roles/users allowed to assume the invoker role (ArnLike patterns); omitted: "
        "any principal of `account` that its own IAM lets assume the role.",
    )
    sso_permission_sets: tuple[str, ...] = Field(
        default=(),
        description="IAM Identity Center permission set names whose roles may assume the invoker role.",
    )
    monthly_budget_usd: float | None = Field(
        default=None,
        gt=0,
        le=MAX_MONTHLY_USD,
        description="cost.per_application_budgets: this application's monthly budget; omitted: the landing "
        "zone's monthly budget.",
    )
    batch_role_arns: tuple[BatchRoleArn, ...] = Field(
        default=(),
        description="Service roles the invoker may pass to Bedrock for batch jobs (CreateModelInvocationJob needs "
        "one that reads the input and writes the output in S3). Omitted: batch jobs can be authorised but not "
        "started, because no role can be passed.",
    )


class InvocationLogging(_Strict):
    """Model invocation logging to S3 (KMS, TLS-only, versioned, ACL-less) and CloudWatch Logs (KMS)."""

    enabled: bool = True
    log_retention_days: RetentionDays = Field(default=365, description="CloudWatch Logs retention (an allowed period).")
    s3_expiration_days: int = Field(default=400, ge=1, le=36500, description="Delete log objects after N days.")
    s3_infrequent_access_after_days: int = Field(default=30, ge=30, le=36500)
    text: bool = True
    image: bool = True
    embedding: bool = True
    video: bool = False
    take_over_existing: bool = Field(
        default=False,
        description="The account's logging configuration (one per account and Region) is read first; one that is "
        "not the landing zone's (its destinations are not the landing zone's bucket and log group) fails the deploy, "
        "naming it. true: take it over; it is saved (SSM parameter <name>-automation-invocation-logging-saved) and "
        "put back when the access stack is deleted.",
    )

    @model_validator(mode="after")
    def _lifecycle(self) -> InvocationLogging:
        if self.take_over_existing and not self.enabled:
            _raise_all([(("take_over_existing",), True, "applies only with enabled: true; allowed here: false")])
        if self.s3_expiration_days <= self.s3_infrequent_access_after_days:
            _raise_all(
                [
                    (
                        ("s3_expiration_days",),
                        self.s3_expiration_days,
                        f"must be later than s3_infrequent_access_after_days ({self.s3_infrequent_access_after_days}): "
                        "raise it, or lower s3_infrequent_access_after_days",
                    )
                ]
            )
        return self


FilterStrength = Literal["NONE", "LOW", "MEDIUM", "HIGH"]


class ContentGuardrail(_Strict):
    """An optional Bedrock guardrail (content filters), enforced account-wide or required per request."""

    enabled: bool = False
    enforcement: Literal["account", "per-request"] = Field(
        default="account",
        description="account: AWS::Bedrock::EnforcedGuardrailConfiguration applies it to every call in the "
        "account; per-request: invoker policies require bedrock:GuardrailIdentifier to name it.",
    )
    filter_strength: FilterStrength = "HIGH"
    prompt_attack_strength: FilterStrength = "HIGH"
    blocked_message: str = Field(
        default="This request was blocked by the organization's AI usage policy.", max_length=500
    )
    organization_policy: bool = Field(
        default=False,
        description="Organization mode only, with enabled: true. A BEDROCK_POLICY (AWS Organizations) that enforces "
        "a copy of this guardrail, owned by the management account, on every Bedrock call of the targeted accounts, "
        "plus the guardrail's resource-based policy letting the organization's principals call ApplyGuardrail.",
    )
    organization_policy_rollout: Literal["canary", "all"] = Field(
        default="canary",
        description="canary: the BEDROCK_POLICY is attached to canary_target_ids only; all: also to the rest of "
        "organization.target_ids (a malformed policy breaks every Bedrock call of its targets: start with canary).",
    )
    canary_target_ids: tuple[TargetId, ...] = Field(
        default=(),
        description="Required with organization_policy: the roots, OUs or accounts (from organization.target_ids) "
        "the BEDROCK_POLICY is attached to first.",
    )
    input_tags: Literal["honor", "ignore"] = Field(
        default="ignore",
        description="The BEDROCK_POLICY's input_tags: honor the guardrail input tags callers put in a request, or "
        "ignore them.",
    )
    TEXT_FIELDS: ClassVar[frozenset[str]] = frozenset({"blocked_message"})


class ModelAccess(_Strict):
    """Model access: Bedrock enables serverless models automatically on first use; Marketplace-backed models
    (like Moonshot's) need their agreement accepted once per account."""

    accept_agreements: bool = Field(
        default=False,
        description="Accept the model agreement offers with a custom resource (the only role with "
        "aws-marketplace:Subscribe). Off: someone accepts them once in the console.",
    )


class Access(_Strict):
    require_vpc_endpoint: bool = Field(
        default=True,
        description="Invoker roles may call the source-Region legs only through the landing zone's VPC "
        "endpoints (aws:SourceVpce). Destination legs of cross-Region calls carry no aws:SourceVpce and are "
        "not conditioned.",
    )
    mantle_projects: bool | Literal["auto"] = Field(
        default="auto",
        description="A Bedrock Mantle Project (AWS::BedrockMantle::Project, cost tags) per application with a Mantle "
        "path, its invoker denied CreateInference in any other project (the default one included), where "
        "CloudFormation has the type. With an organization the project is protected by its landing-zone tag: "
        "inference in it is a use action, updating, archiving or re-tagging it is denied to all but the exempt "
        "principals. The cost stack then alarms and charts each application's spend on its Project's "
        "AWS/BedrockMantle series. auto (default): on for each application where it can act (home_region has the "
        "type, the application has a Mantle path, the bedrock-mantle endpoint is deployed when "
        "require_vpc_endpoint, no per-request guardrail), off elsewhere; true: refused where it cannot act.",
    )


MEMBER_ALERT_EMAILS_MAX = 3  # e-mail parameters of the member-baseline template (CloudFormation cannot loop)


class MemberBaseline(_Strict):
    """Multi-account roll-out: the member baseline (keys, network, access, logging, cost controls) as one
    CloudFormation StackSet with service-managed permissions and automatic deployment to the target OUs.
    Deployed from the management account or a delegated administrator; the guardrails stay in management."""

    enabled: bool = False
    target_ou_ids: Annotated[tuple[OuId, ...], rules.WhenOmitted("the OUs in organization.target_ids")] = Field(
        default=(),
        description="OUs that receive the baseline (new accounts too); omitted: the OUs in organization.target_ids.",
    )
    administrator_account_id: AccountId | None = Field(
        default=None, description="Delegated administrator for StackSets; omitted: the management account."
    )
    max_concurrent_percentage: int = Field(default=25, ge=1, le=100)
    failure_tolerance_percentage: int = Field(default=10, ge=0, le=100)
    retain_stacks_on_account_removal: bool = True


# The CDK bootstrap qualifier (`cdk bootstrap --qualifier`): 1-10 lowercase letters or digits.
CDK_QUALIFIER = re.compile(r"^[a-z0-9]{1,10}$")
DEFAULT_CDK_QUALIFIER = "hnb659fds"
# CloudFormation stack names: "can contain only alphanumeric characters (case-sensitive) and hyphens. It must start with
# an alphabetic character and can't be longer than 128 characters" (AWS CloudFormation API reference, CreateStack,
# StackName: https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_CreateStack.html).
CFN_STACK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,127}$")
# The stack `cdk bootstrap` creates or updates when no --toolkit-stack-name is given: the account's shared bootstrap.
DEFAULT_CDK_TOOLKIT_STACK = "CDKToolkit"
# A role ARN with a 12-digit account; the name may end in '*' (then every role so named is protected too).
EXEMPT_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+\*?$")
ExemptRoleArn = Annotated[
    str,
    _matches(
        EXEMPT_ROLE_ARN,
        "must be an IAM role ARN with a 12-digit account ID, e.g. 'arn:aws:iam::222222222222:role/lz-break-glass' "
        "(a trailing '*' is allowed; no '*' in the account: a name alone can be claimed by any account)",
    ),
]


# Amazon Bedrock API keys (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-permissions.html):
# none = no key may be created or used; short-term-only = long-term keys are neither created nor accepted, short-term
# keys (pre-signed, at most 12 hours, https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_bedrock.html)
# are accepted from api_key_principal_arns only.
ApiKeyPolicy = Literal["none", "short-term-only"]
# Amazon Bedrock service tiers, as the API writes them (https://docs.aws.amazon.com/bedrock/latest/APIReference/
# API_runtime_ServiceTier.html: "Valid Values: priority | default | flex | reserved"; 'default' is Standard).
ServiceTier = Literal["reserved", "priority", "default", "flex"]
# Account / project data retention modes (https://docs.aws.amazon.com/bedrock/latest/APIReference/
# API_PutAccountDataRetention.html and API_ProjectDataRetention.html: default | none | aws_review |
# provider_data_share | inherit; 'none' is zero data retention).
DataRetentionMode = Literal["default", "none", "provider_data_share", "aws_review", "inherit"]
_OLD_API_KEY_FLAGS = ("deny_api_key_creation", "deny_bearer_token_calls")


class PolicyGuardrails(_Strict):
    """The deny statements carried by the SCPs (organization) or the permissions boundary (single account)."""

    api_keys: ApiKeyPolicy = Field(
        default="none",
        description="Amazon Bedrock API keys. none: deny creating long-term keys "
        "(iam:CreateServiceSpecificCredential for bedrock*) and every API-key call "
        "(bedrock:CallWithBearerToken, bedrock-mantle:CallWithBearerToken). short-term-only: deny creating long-term "
        "keys, deny every bearer call whose BearerTokenType is not SHORT_TERM, and deny short-term calls to every "
        "principal but api_key_principal_arns.",
    )
    api_key_principal_arns: tuple[PrincipalArn, ...] = Field(
        default=(),
        description="With api_keys: short-term-only, the principals (aws:PrincipalArn patterns with a 12-digit "
        "account) that may call Bedrock with a short-term API key. Required then; refused with api_keys: none.",
    )
    deny_api_key_creation: bool = Field(
        default=True,
        description="Older switch, honoured with api_keys: none only: false drops the deny of "
        "iam:CreateServiceSpecificCredential for Bedrock (long-term API keys). Refused with short-term-only.",
    )
    deny_bearer_token_calls: bool = Field(
        default=True,
        description="Older switch, honoured with api_keys: none only: false drops the deny of "
        "bedrock:CallWithBearerToken and bedrock-mantle:CallWithBearerToken. Refused with short-term-only.",
    )
    allowed_service_tiers: tuple[ServiceTier, ...] = Field(
        default=("default",),
        min_length=1,
        description="Service tiers inference may request (bedrock:ServiceTier on InvokeModel and "
        "InvokeModelWithResponseStream, bedrock-mantle:ServiceTier on CreateInference). A request without a tier "
        "runs in the default (Standard) tier and carries no key, so 'default' must be listed. All four: no deny.",
    )
    agentcore_controls: bool = Field(
        default=True,
        description="Deny AgentCore gateways without inbound authorization (GatewayAuthorizerType NONE) and "
        "AgentCore runtimes, code interpreters and browsers without VPC configuration (Security Hub "
        "BedrockAgentCore.1/.2).",
    )
    tamper_protection: bool = Field(
        default=True,
        description="Deny changing the landing zone's logging, keys, endpoints, flow logs, roles, policies, "
        "functions, budgets, alarms and stacks (by name and by the landing-zone tag), changing the landing-zone "
        "tag itself, and taking over the exempt roles, to every principal but the exempt ones "
        "(docs/THREAT_MODEL.md).",
    )
    cdk_bootstrap_qualifier: Annotated[str, _matches(CDK_QUALIFIER, "must be 1-10 lowercase letters or digits")] = (
        Field(
            default=DEFAULT_CDK_QUALIFIER,
            description="Qualifier of the CDK bootstrap in the deployment account (`cdk bootstrap --qualifier`). "
            "Its roles cdk-<qualifier>-*-role-<account>-<home_region> are the exempt deployment principals.",
        )
    )
    cdk_toolkit_stack_name: (
        Annotated[
            str,
            _matches(
                CFN_STACK_NAME,
                "must be a CloudFormation stack name: a letter, then letters, digits and '-', at most 128 characters",
            ),
        ]
        | None
    ) = Field(
        default=None,
        description="Name of the landing zone's own CDK bootstrap stack (`cdk bootstrap --toolkit-stack-name`), next "
        "to its own qualifier; omitted: cdk-<cdk_bootstrap_qualifier>-toolkit. Never CDKToolkit, the account's shared "
        "bootstrap: bootstrapping it with the landing zone's qualifier would re-parameterise every other app's "
        "bootstrap. The tamper SCP protects this stack, never CDKToolkit.",
    )

    @property
    def toolkit_stack_name(self) -> str:
        """The landing zone's CDK bootstrap stack: ``cdk_toolkit_stack_name``, else cdk-<qualifier>-toolkit."""
        return self.cdk_toolkit_stack_name or f"cdk-{self.cdk_bootstrap_qualifier}-toolkit"

    deployment_principal_arns: tuple[ExemptRoleArn, ...] = Field(
        default=(),
        description="Further roles exempt from tamper protection (e.g. a break-glass role that runs "
        "`cdk bootstrap`), each with its 12-digit account ID. Omitted: only the CDK bootstrap roles of the "
        "deployment account in home_region, the StackSets execution roles (member_baseline) and the landing "
        "zone's own automation roles are exempt. Every exempt role name is protected from being created, "
        "re-trusted, re-policied, re-tagged, passed or deleted by anyone else.",
    )
    deployer_principal_arns: tuple[ExemptRoleArn, ...] = Field(
        default=(),
        description="Roles inside the targeted accounts that may assume the CDK bootstrap roles (run `cdk deploy`). "
        "Omitted: no principal of a targeted account may; deploy from an account outside organization.target_ids "
        "trusted at bootstrap (`cdk bootstrap --trust`). Their names are protected like the exempt roles'.",
    )
    region_deny_all_services: bool = Field(
        default=False,
        description="Also deny every service outside compliant_regions, except global services (catalog list).",
    )
    confine_model_calling_services: bool = Field(
        default=True,
        description="Deny the services that call generative models with their own principal (Amazon Q, Connect, "
        "Lex, Transcribe, SageMaker AI, ...: core/catalog/model_calling_services.yaml) outside compliant_regions. "
        "Off: only the Bedrock services are confined (region_deny_all_services confines everything).",
    )
    scp_max_characters: int | None = Field(
        default=None, ge=1000, le=100_000, description="Override of the catalog limit (10,240 since 15 May 2026)."
    )
    scp_max_per_target: int | None = Field(
        default=None,
        ge=2,
        le=50,
        description="Override of the catalog limit (10 since 15 May 2026, including FullAWSAccess).",
    )
    other_scps_per_target: int = Field(
        default=0,
        ge=0,
        le=48,
        description="SCPs of others (yours, Control Tower's, LZA's) attached directly to each target besides "
        "FullAWSAccess and ours; inherited ones take no slot. preflight reads the real count.",
    )

    @model_validator(mode="after")
    def _api_keys_and_tiers(self) -> PolicyGuardrails:
        problems: list[_Problem] = []
        if self.api_keys == "short-term-only":
            for flag in _OLD_API_KEY_FLAGS:
                if flag in self.model_fields_set:
                    problems.append(
                        (
                            (flag,),
                            getattr(self, flag),
                            "not with api_keys: short-term-only, which decides key creation and bearer calls "
                            "itself: remove this key (it is honoured with api_keys: none only)",
                        )
                    )
            if not self.api_key_principal_arns:
                problems.append(
                    (
                        ("api_key_principal_arns",),
                        [],
                        "api_keys: short-term-only needs the principals that may call with a short-term key; list "
                        "their ARNs, or set api_keys: none to deny every API-key call",
                    )
                )
        elif self.api_key_principal_arns:
            problems.append(
                (
                    ("api_key_principal_arns",),
                    list(self.api_key_principal_arns),
                    "only with api_keys: short-term-only (api_keys: none denies every API-key call)",
                )
            )
        if "default" not in self.allowed_service_tiers:
            problems.append(
                (
                    ("allowed_service_tiers",),
                    list(self.allowed_service_tiers),
                    "must include 'default': a request that names no tier runs in the default (Standard) tier and "
                    "carries no bedrock:ServiceTier key, so IAM cannot deny it (allowed values: reserved, priority, "
                    "default, flex)",
                )
            )
        _raise_all(problems)
        return self


class DataRetention(_Strict):
    """The Bedrock data retention mode the guardrails enforce (per Region, account and project level:
    https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html)."""

    mode: DataRetentionMode | None = Field(
        default=None,
        description="Omitted: not governed (with tamper_protection the account setting is still denied to "
        "non-exempt principals). Set: the SCPs deny bedrock:PutAccountDataRetention unless bedrock:DataRetentionMode "
        "is this mode, and bedrock-mantle:PutAccountDataRetention, CreateProject and UpdateProject unless "
        "bedrock-mantle:DataRetentionMode is, to every principal but the exempt deployment principals. 'none' is "
        "zero data retention; a model that requires retention is then blocked. Set, the access stack also applies it "
        "in home_region (custom resource calling bedrock:PutAccountDataRetention; verify reads it back).",
    )
    take_over_existing: bool = Field(
        default=False,
        description="The Region's mode is read first; a mode someone else set (neither inherit nor this mode) fails "
        "the deploy, naming it. true: take it over. Either way the mode found is saved and put back when the access "
        "stack is deleted (inherit when the Region had never been configured).",
    )

    @model_validator(mode="after")
    def _take_over(self) -> DataRetention:
        if self.take_over_existing and self.mode is None:
            _raise_all([(("take_over_existing",), True, "applies only with a mode; allowed here: false")])
        return self


class Detection(_Strict):
    """Detective controls for what the SCPs cannot prevent (docs/DETECTION.md): EventBridge rules on CloudTrail
    management events, delivered to the landing zone's alerts topic, and an alarm on legacy-model invocations."""

    enabled: bool | None = Field(
        default=None,
        description="Omitted: on with an organization block (organization mode), off in single-account mode. true: "
        "the detection stacks are deployed (the deployment account's home_region, us-east-1 for the global services' "
        "events, and the management account's us-east-1 for Organizations' events). false: none is.",
    )
    legacy_model_alarm: bool = Field(
        default=True,
        description="An alarm on AWS/Bedrock LegacyModelInvocations for each allowed model (a model past its "
        "legacy date is still being called).",
    )

    def on(self, organization_mode: bool) -> bool:
        return organization_mode if self.enabled is None else self.enabled


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


class LandingZoneConfig(_Strict):
    """The whole landing zone.  See docs/CONFIG.md for every key."""

    name: Name = Field(default="kimi-lz", description="Prefix of stack and resource names.")
    home_region: str = Field(description="Region of the stacks, the VPC endpoints and the keys.")
    compliant_regions: tuple[str, ...] = Field(
        min_length=1, description="Regions where inference may be processed (data may go nowhere else)."
    )
    allow_global_inference: bool = Field(
        default=False, description="True admits global cross-Region profiles (any commercial Region)."
    )
    inference_source_regions: tuple[str, ...] | None = Field(
        default=None,
        description="Regions where inference may be *started* (the Region of the call, the profile or the batch "
        "job); a profile's legs may still run in its compliant destinations. Omitted: [home_region]. The landing "
        "zone logs invocations and alarms on spend only in home_region, so every other Region is refused; the SCPs "
        "and the invoker boundary deny starting inference anywhere else.",
    )
    models: tuple[str, ...] = Field(default=("kimi-k3.1-pro",), min_length=1)
    accounts: tuple[Account, ...] = Field(min_length=1)
    deployment_account_id: AccountId | None = Field(
        default=None, description="Account that receives the stacks; omitted: accounts[0].id."
    )
    organization: Organization | None = None
    network: Network = Network()
    cost: Cost = Cost()
    self_hosting: SelfHosting = SelfHosting()
    policy_guardrails: PolicyGuardrails = PolicyGuardrails()
    data_retention: DataRetention = DataRetention()
    detection: Detection = Detection()
    applications: Annotated[
        tuple[Application, ...], rules.WhenOmitted("one application per account, named after the account")
    ] = Field(default=(), description="Omitted: one application per account, named after the account.")
    access: Access = Access()
    invocation_logging: InvocationLogging = InvocationLogging()
    content_guardrail: ContentGuardrail = ContentGuardrail()
    model_access: ModelAccess = ModelAccess()
    member_baseline: MemberBaseline = MemberBaseline()
    catalog_overlays: tuple[str, ...] = Field(
        default=(), description="Catalog overlay files (from `discover`), relative to the working directory."
    )
    tags: Mapping[str, str] = Field(default_factory=dict, description="Extra tags on every resource.")
    # Checked against the catalog by their own validators, which suggest the catalog's spelling.
    OWN_IDENTIFIER_RULE: ClassVar[frozenset[str]] = frozenset(
        {"models", "home_region", "compliant_regions", "inference_source_regions"}
    )

    @field_validator("home_region")
    @classmethod
    def _home_region(cls, v: str, info: ValidationInfo) -> str:
        _raise_all([((), v, rule) for rule in [_region_rule(v, info)] if rule])
        return v

    @field_validator("compliant_regions")
    @classmethod
    def _compliant_regions(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        _raise_all(((j,), region, rule) for j, region in enumerate(v) if (rule := _region_rule(region, info)))
        return tuple(v)

    @field_validator("models")
    @classmethod
    def _models(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        catalog = (info.context or {}).get("catalog")
        if catalog is None:
            return v

        def problems() -> Iterator[tuple[tuple[Any, ...], Any, str]]:
            first_index: dict[str, int] = {}
            for i, name in enumerate(v):
                model = catalog.resolve_model(name)
                if rule := _model_rule(name, catalog):
                    yield (i,), name, rule
                elif model.id in first_index:
                    yield (
                        (i,),
                        name,
                        (
                            f"names the same model as models[{first_index[model.id]}] (an alias and its ID, "
                            f"{model.id}, count as the same model): list it once"
                        ),
                    )
                else:
                    first_index[model.id] = i

        _raise_all(problems())
        return v

    @field_validator("inference_source_regions")
    @classmethod
    def _source_regions(cls, v: tuple[str, ...] | None, info: ValidationInfo) -> tuple[str, ...] | None:
        _raise_all(((i,), region, rule) for i, region in enumerate(v or ()) if (rule := _region_rule(region, info)))
        return v

    @field_validator("applications")
    @classmethod
    def _application_models(cls, v: tuple[Application, ...], info: ValidationInfo) -> tuple[Application, ...]:
        catalog = (info.context or {}).get("catalog")
        if catalog is not None:
            _raise_all(
                ((i, "model"), app.model, rule)
                for i, app in enumerate(v)
                if app.model is not None and (rule := _model_rule(app.model, catalog))
            )
        return v

    @field_validator("accounts")
    @classmethod
    def _unique_accounts(cls, v: tuple[Account, ...]) -> tuple[Account, ...]:
        def problems() -> Iterator[tuple[tuple[Any, ...], Any, str]]:
            for key in ("id", "name"):
                first: dict[str, int] = {}
                for j, account in enumerate(v):
                    i = first.setdefault(getattr(account, key), j)
                    if i != j:
                        yield (
                            (j, key),
                            getattr(account, key),
                            f"repeats accounts[{i}].{key}: account IDs and names must be unique",
                        )

        _raise_all(problems())
        return v

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: Mapping[str, str], info: ValidationInfo) -> Mapping[str, str]:
        per_resource, key_max, value_max = _tag_limits(info)

        def problems() -> Iterator[tuple[tuple[Any, ...], Any, str]]:
            room = per_resource - LANDING_ZONE_TAGS_MAX
            if len(v) > room:
                yield (
                    (),
                    Described(f"{len(v)} tags"),
                    (
                        f"at most {room}: AWS allows {per_resource} tags per resource and the landing zone puts "
                        f"up to {LANDING_ZONE_TAGS_MAX} of its own on some resources (subnets: Name, aws-cdk:subnet-name, "
                        "aws-cdk:subnet-type, landing-zone, managed-by)"
                    ),
                )
            first_by_folded: dict[str, str] = {}
            for key, value in v.items():
                folded = key.strip().casefold()
                reserved = next((r for r in RESERVED_TAG_KEYS if r.casefold() == folded), None)
                if reserved is not None:
                    same = "" if key == reserved else f" (it differs from {reserved!r} only in case or whitespace)"
                    yield (
                        (key,),
                        key,
                        (
                            f"a key the landing zone sets itself ({', '.join(RESERVED_TAG_KEYS)}){same}: tag keys "
                            "are compared without regard to case (IAM and other services treat keys that differ "
                            "only in case as the same key, and a deploy would fail or override it), and overriding "
                            "it would break tamper protection, the budget scope or cost allocation; choose another key"
                        ),
                    )
                    continue
                if key != key.strip():
                    yield (key,), Described(f"the key {key!r}"), whitespace_rule(key)
                    continue
                earlier = first_by_folded.setdefault(folded, key)
                if earlier != key:
                    yield (
                        (key,),
                        Described(f"the key {key!r}"),
                        f"differs from the key {earlier!r} only in case: IAM and other services treat tag keys that "
                        "differ only in case as the same key, so a deploy would fail; keep one of them",
                    )
                    continue
                if rule := tag_rule(key, key=True, limit=key_max):
                    yield (key,), Described(f"the key {key!r}"), rule
                if rule := tag_rule(value, key=False, limit=value_max):
                    yield (key,), value, rule

        _raise_all(problems())
        return v

    def _problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """Every problem across keys (raised with the rules by type, :meth:`_Strict._type_rules`)."""
        yield from self._cross_field_problems()
        yield from self._guarantee_problems()
        yield from rules.arn_problems(self, self.partition, self.home_region)

    def _guarantee_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """Settings under which a guarantee of the guardrails could not hold (docs/THREAT_MODEL.md)."""
        q = self.policy_guardrails.cdk_bootstrap_qualifier
        if self.organization is not None and q == DEFAULT_CDK_QUALIFIER:
            yield (
                ("policy_guardrails", "cdk_bootstrap_qualifier"),
                q,
                "the default CDK bootstrap is shared by every stack deployed with it, so any other stack's template "
                "could create a role the guardrails exempt; in organization mode give the landing zone a bootstrap "
                "of its own: choose a qualifier (1-10 lowercase letters or digits), set it here and run `cdk "
                "bootstrap --qualifier <qualifier> aws://<account>/<home_region>` (docs/DEPLOY.md)",
            )
        toolkit = self.policy_guardrails.toolkit_stack_name
        if toolkit.lower() == DEFAULT_CDK_TOOLKIT_STACK.lower():
            yield (
                ("policy_guardrails", "cdk_toolkit_stack_name"),
                toolkit,
                "CDKToolkit is the account's shared CDK bootstrap stack: bootstrapping it with the landing zone's "
                "qualifier would re-parameterise it for every other app, and the tamper SCP would freeze it; give the "
                f"landing zone's bootstrap a stack of its own (omit the field for cdk-{q}-toolkit)",
            )
        elif toolkit in (own := [naming.stack_name(self.name, part) for part in naming.STACK_PARTS]):
            yield (
                ("policy_guardrails", "cdk_toolkit_stack_name"),
                toolkit,
                f"is the name of one of the landing zone's own stacks ({', '.join(own)}); the bootstrap stack needs "
                f"a name of its own (omit the field for cdk-{q}-toolkit)",
            )
        for i, region in enumerate(self.inference_source_regions or ()):
            if region not in self.compliant_regions:
                yield (
                    ("inference_source_regions", i),
                    region,
                    f"not in compliant_regions [{', '.join(self.compliant_regions)}]",
                )
            elif region != self.home_region:
                yield (
                    ("inference_source_regions", i),
                    region,
                    f"invocation logging, the spend alarms and the dashboard are deployed in home_region "
                    f"({self.home_region}) only, so inference started in {region} would be neither logged nor "
                    f"alarmed; allowed: [{self.home_region}]",
                )

    def _endpoint_principal_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """network.endpoint_principals: organization admits aws:PrincipalOrgID, so it needs the organization's ID; the
        member baseline's endpoints admit their own account only."""
        if self.network.endpoint_principals != "organization":
            return
        key = ("network", "endpoint_principals")
        if self.organization is None or not self.organization.organization_id:
            yield (
                key,
                "organization",
                "needs organization.organization_id (admitted by aws:PrincipalOrgID); allowed: accounts",
            )
        elif self.member_baseline.enabled:
            yield (
                key,
                "organization",
                "the member baseline's endpoints admit each member's own account only; allowed: accounts",
            )

    def _organization_policy_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """content_guardrail.organization_policy: organization mode, the guardrail enabled, an organization ID (the
        resource-based policy's aws:PrincipalOrgID) and canary targets among organization.target_ids."""
        g = self.content_guardrail
        if not g.organization_policy:
            if g.canary_target_ids or g.organization_policy_rollout != "canary":
                yield (
                    ("content_guardrail", "organization_policy"),
                    False,
                    "canary_target_ids and organization_policy_rollout apply only to the organization policy; "
                    "allowed: organization_policy: true, or leave them out",
                )
            return
        key = ("content_guardrail", "organization_policy")
        if self.organization is None:
            yield key, True, "allowed only in organization mode (an organization block); allowed here: false"
            return
        if not g.enabled:
            yield key, True, "allowed only with content_guardrail.enabled: true (the policy enforces that guardrail)"
        if not self.organization.organization_id:
            yield (
                ("organization", "organization_id"),
                Described("nothing"),
                "content_guardrail.organization_policy needs organization.organization_id (the guardrail's "
                "resource-based policy admits the organization's principals by aws:PrincipalOrgID)",
            )
        if not g.canary_target_ids:
            yield (
                ("content_guardrail", "canary_target_ids"),
                [],
                "required with organization_policy: at least one of organization.target_ids "
                f"[{', '.join(self.organization.target_ids)}] to attach the policy to first",
            )
        for i, target in enumerate(g.canary_target_ids):
            if target not in self.organization.target_ids:
                yield (
                    ("content_guardrail", "canary_target_ids", i),
                    target,
                    f"not in organization.target_ids [{', '.join(self.organization.target_ids)}]",
                )

    def _cross_field_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """Every problem that involves several keys, each at the key the user wrote, with the values and the fix
        (generated lazily: the caller stops after MAX_PROBLEMS_PER_KEY)."""
        yield from self._home_region_problems()
        yield from self._application_problems()
        yield from self._member_baseline_problems()
        yield from self._self_hosting_problems()
        yield from self._availability_zone_problems()
        yield from self._organization_policy_problems()
        yield from self._endpoint_principal_problems()
        yield from self._anomaly_monitor_problems()

    def _anomaly_monitor_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """cost.anomaly_monitor_arn: a monitor of the account the cost stack deploys to ("You can only access cost
        monitors and alert subscriptions under the account that created them", getting-started-ad.html)."""
        arn, key = self.cost.anomaly_monitor_arn, ("cost", "anomaly_monitor_arn")
        if arn is None:
            return
        if self.member_baseline.enabled:
            yield key, arn, "not with member_baseline (each member account's cost stack has its own monitor): omit it"
        elif (account := arn.split(":")[4]) != self.deployment_account:
            rule = f"a monitor of account {account}; the cost stack deploys to {self.deployment_account}, and a "
            yield key, arn, rule + "subscription can use only its own account's monitors: give one of that account's"

    def _home_region_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """home_region among compliant_regions."""
        if self.home_region not in self.compliant_regions:
            yield (
                ("home_region",),
                self.home_region,
                f"not in compliant_regions [{', '.join(self.compliant_regions)}]: the landing zone's own endpoints, "
                f"keys and logs must live in a compliant Region; add {self.home_region} to compliant_regions or choose "
                "home_region from them",
            )

    def _application_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """Applications: known accounts, unique names, cost-center tags."""
        known_accounts = self.account_ids_by_name_or_id
        for i, app in enumerate(self.applications):
            if app.account is not None and app.account not in known_accounts:
                yield (
                    ("applications", i, "account"),
                    app.account,
                    "not the name or ID of an entry of accounts"
                    + _suggestion(app.account, list(known_accounts), "accounts"),
                )
        first_app: dict[str, int] = {}
        for j, app in enumerate(self.applications):
            i = first_app.setdefault(app.name, j)
            if i != j:
                yield (
                    ("applications", j, "name"),
                    app.name,
                    f"repeats applications[{i}].name: application names must "
                    "be unique (they name the invoker role and the inference profile)",
                )
        for i, app in enumerate(self.applications):
            rule = tag_rule(app.cost_center, key=False)
            if rule:
                yield (("applications", i, "cost_center"), app.cost_center, f"{rule} (it becomes the cost-center tag)")
        for i, acct in enumerate(self.accounts):
            rule = tag_rule(acct.cost_center, key=False) if acct.cost_center is not None else None
            if rule:
                yield (("accounts", i, "cost_center"), acct.cost_center, f"{rule} (it becomes the cost-center tag)")

    def _member_baseline_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """The member baseline: organization, OUs, template-parameter limits, no per-account applications."""
        mb = self.member_baseline
        if mb.enabled and self.self_hosting.enabled:
            yield (
                ("self_hosting", "enabled"),
                True,
                "self_hosting and member_baseline cannot be combined: self-hosting runs in the deployment account's "
                "VPC (per-account stacks), not in every member account; turn one of them off",
            )
        if mb.enabled:
            if self.organization is None or not self.organization.organization_id:
                yield (
                    ("organization", "organization_id"),
                    Described("nothing"),
                    "member_baseline.enabled needs organization.organization_id (service-managed StackSets and the "
                    "organization-readable asset bucket are scoped to it)",
                )
            ous = self.member_target_ous
            if not ous:
                yield (
                    ("member_baseline", "target_ou_ids"),
                    Described("nothing, and no OU ID in organization.target_ids"),
                    "member_baseline.enabled needs target OUs: list them here or put OU IDs in organization.target_ids",
                )
            else:
                for i, acct in enumerate(self.accounts):
                    ou = acct.ou_id or (ous[0] if len(ous) == 1 else None)
                    if ou is None or ou not in ous:
                        yield (
                            ("accounts", i, "ou_id"),
                            acct.ou_id,
                            f"with several target OUs each account names its OU, one of [{', '.join(ous)}]",
                        )
            for i, acct in enumerate(self.accounts):
                if len(acct.alert_emails) > MEMBER_ALERT_EMAILS_MAX:
                    yield (
                        ("accounts", i, "alert_emails"),
                        Described(f"{len(acct.alert_emails)} e-mail addresses"),
                        f"at most {MEMBER_ALERT_EMAILS_MAX} per account in the member baseline (they become template "
                        "parameters)",
                    )
            if len(self.cost.alert_emails) > MEMBER_ALERT_EMAILS_MAX:
                yield (
                    ("cost", "alert_emails"),
                    Described(f"{len(self.cost.alert_emails)} e-mail addresses"),
                    f"at most {MEMBER_ALERT_EMAILS_MAX} with member_baseline (they become template parameters)",
                )
            for i, app in enumerate(self.applications):
                if app.account is not None:
                    yield (
                        ("applications", i, "account"),
                        app.account,
                        "with member_baseline every application exists in every member account (its principals call "
                        "it): remove `account`",
                    )

    def _self_hosting_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """Self-hosting: the GPU nodes' AZ in home_region and among the VPC's AZs."""
        sh = self.self_hosting
        if sh.enabled and sh.availability_zone and not sh.availability_zone.startswith(self.home_region):
            yield (
                ("self_hosting", "availability_zone"),
                sh.availability_zone,
                f"not in home_region {self.home_region}: self-hosted inference must run in the landing zone's "
                "home_region (a compliant Region)",
            )
        if sh.enabled and sh.capacity == "capacity-block" and not self.network.availability_zones:
            yield (
                ("network", "availability_zones"),
                [],
                "self_hosting with a Capacity Block needs network.availability_zones listing the block's AZ, so the "
                "VPC has subnets there (AZs picked by Fn::GetAZs at deploy time might not include it)",
            )
        if (
            sh.enabled
            and self.network.availability_zones
            and sh.availability_zone
            and (sh.availability_zone not in self.network.availability_zones)
        ):
            yield (
                ("self_hosting", "availability_zone"),
                sh.availability_zone,
                f"not one of network.availability_zones [{', '.join(self.network.availability_zones)}]: the GPU "
                "subnets must exist in the Capacity Block's AZ; add it there",
            )

    def _availability_zone_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """network.availability_zones in home_region."""
        for i, az in enumerate(self.network.availability_zones):
            if not az.startswith(self.home_region):
                yield (("network", "availability_zones", i), az, f"not an AZ of home_region {self.home_region}")

    # -- derived values ------------------------------------------------------------------------------
    @property
    def deployment_account(self) -> str:
        return self.deployment_account_id or self.accounts[0].id

    @property
    def member_target_ous(self) -> tuple[str, ...]:
        mb = self.member_baseline
        if mb.target_ou_ids:
            return mb.target_ou_ids
        targets = self.organization.target_ids if self.organization else ()
        return tuple(t for t in targets if t.startswith("ou-"))

    @property
    def stackset_administrator_account(self) -> str:
        assert self.organization is not None
        return self.member_baseline.administrator_account_id or self.organization.management_account_id

    @property
    def asset_bucket_prefix(self) -> str:
        return naming.asset_bucket_prefix(self.name, self.stackset_administrator_account if self.organization else "x")

    def asset_bucket_name(self, region: str) -> str:
        return naming.asset_bucket_name(
            self.name, self.stackset_administrator_account if self.organization else "x", region
        )

    @property
    def partition(self) -> str:
        """The AWS partition of home_region (every ARN of the configuration must be in it)."""
        return rules.partition_of_region(self.home_region)

    @property
    def source_regions(self) -> tuple[str, ...]:
        """Where inference may be started (``inference_source_regions``, default ``[home_region]``)."""
        return self.inference_source_regions or (self.home_region,)

    @property
    def automation_role_prefix(self) -> str:
        """Name prefix of the roles the landing zone's own automation uses (see policies/guardrails.py)."""
        return f"{self.name}-automation-"

    def account_id(self, name_or_id: str | None) -> str:
        """The ID of an account given by name or ID; None means the deployment account."""
        if name_or_id is None:
            return self.deployment_account
        return self.account_ids_by_name_or_id[name_or_id]

    @functools.cached_property
    def account_ids_by_name_or_id(self) -> dict[str, str]:
        """Account ID by account name and by ID (built once: thousands of accounts stay fast)."""
        index = {a.name: a.id for a in reversed(self.accounts)}
        index.update({a.id: a.id for a in self.accounts})
        return index

    @property
    def effective_applications(self) -> tuple[Application, ...]:
        """The configured applications; omitted: one per account named after it (member baseline: one 'default')."""
        if self.applications:
            return self.applications
        if self.member_baseline.enabled:  # one template for every member: one application in each
            return (Application(name="default", cost_center=self.name),)
        return tuple(Application(name=a.name, cost_center=a.name, account=a.id) for a in self.accounts)

    @property
    def account_ids(self) -> tuple[str, ...]:
        return tuple(sorted(a.id for a in self.accounts))


def _region_rule(region: str, info: ValidationInfo) -> str | None:
    """Why ``region`` is not acceptable (unknown to the catalog, with the nearest known one), or None.  A Region is
    written exactly: ``'US-EAST-1'`` or ``' us-east-1'`` is refused with ``'us-east-1'`` as a did-you-mean."""
    catalog = (info.context or {}).get("catalog")
    if catalog is None:
        return whitespace_rule(region) if region != region.strip() else None
    if region in catalog.regions:
        return None
    fixed = region.strip().lower()
    if fixed in catalog.regions:
        return (
            "not a Region as written: Region codes are lowercase, with nothing around them (values are never "
            f"trimmed or lower-cased); did you mean {fixed!r}?"
        )
    return "not a known commercial Region" + _suggestion(region, catalog.commercial_regions(), "Regions")


def _model_rule(name: str, catalog: Any) -> str | None:
    """Why ``name`` does not name a catalog model exactly (a Bedrock model ID, or an alias: aliases are lowercase),
    with the exact spelling as a did-you-mean when only whitespace or case differ; None when it does."""
    model = catalog.resolve_model(name)
    if model is not None and (name in catalog.models or name in model.aliases):
        return None
    trimmed = name.strip()
    ids = {model_id.lower(): model_id for model_id in catalog.models}
    model = catalog.resolve_model(ids.get(trimmed.lower(), trimmed))
    if model is None:
        return "not in the catalog" + _suggestion(name, catalog.model_names(), "models")
    if trimmed in catalog.models or trimmed in model.aliases:
        exact = trimmed
    elif trimmed.lower() in model.aliases:
        exact = trimmed.lower()
    else:
        exact = model.id
    return (
        "not in the catalog as written: model IDs and aliases are exact (aliases are lowercase; values are never "
        f"trimmed or lower-cased); did you mean {exact!r}?"
    )


def _suggestion(value: str, known: Sequence[str], what: str) -> str:
    """': did you mean 'x'?' for the nearest known value; otherwise a short list (or how many there are)."""
    if len(known) > 2_000:  # a nearest-match search over more would cost more than it helps
        return f" ({len(known):,} known {what})"
    close = difflib.get_close_matches(str(value).lower(), [k.lower() for k in known], n=2, cutoff=0.6)
    by_lower = {k.lower(): k for k in known}
    if close:
        return ": did you mean " + " or ".join(repr(by_lower[c]) for c in close) + "?"
    if len(known) <= 8:
        return f" (known: {', '.join(known)})"
    return f" (none is close; {len(known)} known {what}, e.g. {', '.join(list(known)[:4])}, ...)"


_TAG_PUNCTUATION = set(" _.:/=+-@")


def tag_rule(text: str, *, key: bool, limit: int | None = None) -> str | None:
    """Why ``text`` cannot be an AWS tag key (``key=True``) or value, or None when it can (``limit``: the maximum
    length from core/catalog/limits.yaml; omitted: the defaults above)."""
    if limit is None:
        limit = TAG_KEY_MAX_CHARACTERS if key else TAG_VALUE_MAX_CHARACTERS
    what = "a tag key" if key else "a tag value"
    if key and not text:
        return "a tag key cannot be empty"
    if len(text) > limit:
        return f"{what} has at most {limit} characters, this one has {len(text)}"
    if text.lower().startswith("aws:"):
        return f"{what} cannot start with 'aws:' (in any case): the prefix is reserved for AWS"
    bad = sorted({c for c in text if c not in _TAG_PUNCTUATION and unicodedata.category(c)[0] not in "LNZ"})
    if bad:
        return (
            f"{what} may hold only letters, digits, spaces and + - = . _ : / @ (found "
            f"{', '.join(repr(c) for c in bad[:5])})"
        )
    return None


def json_schema() -> dict[str, Any]:
    return LandingZoneConfig.model_json_schema()


# -- placeholders -------------------------------------------------------------------------------------------
# Values copied from the examples and the AWS documentation that would deploy, but to nobody's account:
# account IDs of 12 identical digits (111111111111 ... the examples' IDs) or 123456789012 (the AWS documentation's
# example account), anywhere in the configuration (account lists, ARNs, image URIs); organization IDs that
# start with o-example; e-mail addresses at the reserved example domains (RFC 2606).


def _path(loc: Sequence[Any]) -> str:
    out = ""
    for part in loc:
        if part == "[key]":  # pydantic's marker for a mapping key that failed validation: the path names the key
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + (str(part) if part != "" else '""')
    return out or "(top level)"


def _kind_of(value: Any) -> str:
    """Plain words for a YAML/JSON value's type."""
    if isinstance(value, bool):
        return "true/false value"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "text value"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "mapping"
    return "null value" if value is None else type(value).__name__
