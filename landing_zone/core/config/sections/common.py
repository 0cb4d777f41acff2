"""What every section of the configuration shares: the strict base model, the value types, the limits and the
helpers that word a problem."""

from __future__ import annotations

import difflib
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
    ValidationInfo,
    field_validator,
    model_validator,
)

from landing_zone.core.config import rules
from landing_zone.core.config.model_keys import model_key_problems
from landing_zone.errors import Described

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
