"""The public API every check family builds on (:data:`__all__`): the :class:`Context` a run carries (assembly,
live account, resolver, configuration facts), the row builders (:func:`make_row`; :func:`error_rows` for a call
that failed; :func:`unresolvable_rows` for an expected value that cannot be worked out; :func:`guarded` to turn one
item's unexpected failure into ERROR rows of that item), and the helpers more than one family needs
(:func:`is_not_found` for the not-found error codes, :func:`tag_map` for tag lists, :func:`policy_row` for
comparing a policy document).  It checks no AWS resource itself and calls no AWS API directly; the
:class:`~landing_zone.verify.live.Resolver` it builds reads CloudFormation (ListStacks, DescribeStacks,
ListStackResources) when a family asks for a condition, a stack parameter or a generated name.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from botocore.exceptions import ClientError

from landing_zone import aws
from landing_zone.assembly import Assembly, Resource, Stack
from landing_zone.cost.quotas import QuotaAlarm
from landing_zone.verify.compare import document_diff, same_document, short_hash, unresolved_in
from landing_zone.verify.live import ApiError, Live, Resolver, partition_of
from landing_zone.verify.report import CheckResult, Status

__all__ = [
    "DRIFT",
    "ERROR",
    "MISSING",
    "PASS",
    "Context",
    "chunks",
    "error_rows",
    "guarded",
    "is_not_found",
    "make_row",
    "policy_row",
    "tag_map",
    "unresolvable_rows",
]

PASS, DRIFT, MISSING, ERROR = Status.PASS, Status.DRIFT, Status.MISSING, Status.ERROR

_T = TypeVar("_T")

_GLOBAL_REGION = {"aws": "us-east-1", "aws-cn": "cn-northwest-1", "aws-us-gov": "us-gov-west-1"}


def chunks(values: Sequence[_T], size: int) -> list[Sequence[_T]]:
    """``values`` in runs of at most ``size``, in order: the batches of an API that takes a bounded list (CloudWatch
    DescribeAlarms: 100 names; EC2 DescribeTags: 200 values of a filter).  (itertools.batched is Python 3.12.)"""
    if size < 1:
        raise ValueError(f"chunk size must be at least 1, got {size}")
    return [values[start : start + size] for start in range(0, len(values), size)]


@dataclass
class Context:
    """One ``verify`` run: the assembly read, the live account asked, the landing zone's name and home Region, the
    configuration facts some families need (compliant Regions, catalog, organization targets, self-hosting,
    quota alarms), and
    what earlier families learned for later ones (key labels, stack statuses)."""

    assembly: Assembly
    live: Live
    name: str
    home_region: str
    region_override: str | None = None
    deployment_account: str | None = None
    compliant_regions: tuple[str, ...] = ()
    catalog: Any = None  # landing_zone.core.catalog.Catalog, for the expected destinations of profiles
    config_target_ids: tuple[str, ...] = ()
    self_hosting: Any = None  # landing_zone.core.config.SelfHosting
    invocation_log_bucket: str | None = None
    quota_alarms: tuple[QuotaAlarm, ...] = ()  # the configuration's quota headroom alarms, for quota-value
    resolver: Resolver = field(init=False)
    key_labels: dict[str, str] = field(default_factory=dict)  # key ARN -> alias, for readable rows
    # stack name -> its CloudFormation status ("MISSING" when absent); only stacks whose status could be read
    stack_status: dict[str, str] = field(default_factory=dict)
    # what a family listed once for the run (:meth:`collect`): key -> the answer, or the failure to raise again
    collected: dict[Hashable, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.resolver = Resolver(self.assembly, self.live, region_of=self.region_of, management_of=self.management_of)

    def region_of(self, stack: Stack) -> str:
        """The Region a stack's resources are asked in: ``--region``, else the stack's, else the home Region."""
        return self.region_override or stack.region or self.home_region

    def management_of(self, stack: Stack) -> bool:
        """A stack of another account than the deployment account (the SCP stack in the management account) is
        asked with the management profile."""
        return bool(stack.account and self.deployment_account and stack.account != self.deployment_account)

    def global_region(self) -> str:
        """The Region of the partition's global services (IAM, Organizations, Budgets)."""
        return _GLOBAL_REGION[partition_of(self.region_override or self.home_region)]

    def resources(self, *types: str) -> list[Resource]:
        """The assembly's resources of these types that exist: a resource whose template Condition is false
        (e.g. an optional e-mail subscription) is not expected; one whose condition cannot be evaluated is."""
        return [
            r
            for r in self.assembly.resources(*types)
            if r.condition is None or self.resolver.condition(r.condition, r.stack) is not False
        ]

    def resolve(self, value: Any, res: Resource) -> Any:
        """A template value of ``res`` evaluated against the live account (see :class:`Resolver`)."""
        return self.resolver.value(value, res.stack)

    def collect(self, key: Hashable, fetch: Callable[[], _T]) -> _T:
        """``fetch()``, asked once per run for ``key`` (collect once, evaluate many: one listing answers every item
        of it).  A failure (:class:`ApiError`, ``ClientError``) is remembered too and raised again to each caller,
        so every item of the listing gets the rows its own call's failure would have given it."""
        if key not in self.collected:
            try:
                self.collected[key] = fetch()
            except (ApiError, ClientError) as exc:
                self.collected[key] = _Failed(exc)
        found = self.collected[key]
        if isinstance(found, _Failed):
            raise found.exc
        return cast(_T, found)

    def role(self, name: str, *, management: bool) -> dict[str, Any]:
        """iam GetRole's ``Role`` (its trust policy, boundary and ``Tags``), asked once per run per role: the ``iam``
        and ``tags`` families both read it."""

        def get_role() -> dict[str, Any]:
            role = self.live.call("iam", "get_role", region=self.global_region(), management=management, RoleName=name)
            return dict(role["Role"])

        return self.collect(("iam:GetRole", management, name), get_role)

    def key_label(self, arn: Any) -> str:
        """A KMS key ARN as people read it: its alias when the ``kms`` family saw it, else its key ID."""
        if not isinstance(arn, str) or not arn:
            return "(none)"
        return self.key_labels.get(arn, arn.rsplit("/", 1)[-1])


@dataclass(frozen=True)
class _Failed:
    """A collected call that failed (:meth:`Context.collect`)."""

    exc: ApiError | ClientError


def make_row(
    check: str, resource: str, expected: Any, actual: Any, status: Status, detail: str = "", res: Resource | None = None
) -> CheckResult:
    """One report row; ``res`` (the template resource the intent comes from) gives its ``source``."""
    return CheckResult(check, resource, str(expected), str(actual), status, detail, res.path if res else "")


def error_rows(
    checks: Sequence[str], resource: str, expected: str, exc: ApiError | str, res: Resource | None
) -> list[CheckResult]:
    """Rows for checks that could not be made; ``actual`` says why in a few words, ``detail`` in full."""
    text = exc.description if isinstance(exc, ApiError) else exc
    where = f"{exc.service}:{exc.operation} " if isinstance(exc, ApiError) else ""
    short = text.replace("not attempted: ", "").split(" (", 1)[0].split(": ", 2)
    actual = ": ".join(short[:2]) if short[0] in ("unauthorised", "no answer") else short[0]
    return [make_row(c, resource, expected, actual, ERROR, f"{where}{text}", res) for c in checks]


def unresolvable_rows(checks: Sequence[str], resource: str, value: Any, res: Resource | None) -> list[CheckResult]:
    """ERROR rows for ``checks`` whose expected value (``value``) holds something that cannot be resolved."""
    why = "; ".join(u.why for u in unresolved_in(value)) or str(value)
    return [
        make_row(
            c, resource, "(cannot resolve)", "not checked", ERROR, f"the expected value cannot be resolved: {why}", res
        )
        for c in checks
    ]


def guarded(
    checks: Sequence[str], resource: str, res: Resource | None, check: Callable[[], list[CheckResult]]
) -> list[CheckResult]:
    """``check()``'s rows, or ERROR rows for ``checks`` of this one item when a call fails in a way the check did
    not handle (could not ask, or an unexpected error answer): one item's failure never hides the others."""
    try:
        return check()
    except ApiError as exc:
        return error_rows(checks, resource, "checked", exc, res)
    except ClientError as exc:
        code = aws.error_code(exc) or "error"
        return [make_row(c, resource, "checked", f"ERROR: {code}", ERROR, str(exc), res) for c in checks]


def is_not_found(exc: ClientError, *codes: str) -> bool:
    """Whether the error answer says the resource does not exist (``codes``, or any ``*NotFound*`` code)."""
    code = aws.error_code(exc) or ""
    return code in codes or code.endswith("NotFound") or code.endswith("NotFoundException")


def tag_map(value: Any) -> dict[str, str]:
    """Tags as a dict, from a mapping or a list of ``Key``/``Value`` (or ``key``/``value``) pairs."""
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    tags = {}
    for tag in value or []:
        key = tag.get("Key", tag.get("key"))
        tags[str(key)] = str(tag.get("Value", tag.get("value")))
    return tags


def policy_row(check: str, resource: str, expected: Any, actual: Any, res: Resource) -> CheckResult:
    """PASS when the live policy means the synthesized one (:func:`~landing_zone.verify.compare.same_document`),
    else DRIFT with the statement-by-statement difference; no live policy, or one that is not JSON, is DRIFT."""
    if actual in (None, ""):
        return make_row(check, resource, f"as synthesized ({short_hash(expected)})", "no policy", DRIFT, "", res)
    try:
        same = same_document(expected, actual)
    except ValueError:
        return make_row(
            check, resource, f"as synthesized ({short_hash(expected)})", "not valid JSON", DRIFT, str(actual)[:400], res
        )
    if same:
        return make_row(check, resource, f"as synthesized ({short_hash(expected)})", "identical", PASS, "", res)
    return make_row(
        check,
        resource,
        f"as synthesized ({short_hash(expected)})",
        f"differs ({short_hash(actual)})",
        DRIFT,
        document_diff(expected, actual),
        res,
    )
