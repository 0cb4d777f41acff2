"""The estimate against the bill: ``python -m landing_zone cost actual``.

For one calendar month (month to date for the current one) this reads

* **the bill** — Cost Explorer ``GetCostAndUsage``: unblended cost of the Bedrock services, grouped by the
  cost-allocation tag ``application`` that every application inference profile carries (``stacks/access.py``
  tags each profile ``application=<name>``, ``cost-center=<...>``, ``landing-zone=<name>``).  The services are read
  from ``GetDimensionValues(SERVICE)`` for the month: "Amazon Bedrock" and every "<Model> (Amazon Bedrock
  Edition)", the name AWS Marketplace models such as Moonshot's may bill under;
* **the tag's state** — ``ListCostAllocationTags``: an inactive tag, or one activated after the month began, leaves
  (part of) the month's cost untagged, which the output says;
* **the token metrics** — CloudWatch ``GetMetricData``: the month's sums of exactly the series the spend alarms
  price (``plan.cost_alarms.sources``: each application profile, each direct path, Mantle), priced with the alarms'
  own formula and prices (:func:`landing_zone.cost.alarms.priced_expression` at a one-hour period, evaluated by
  :func:`~landing_zone.cost.alarms.evaluate_expression`, so the factor is 1 and the result is USD).

Every AWS call goes through :func:`landing_zone.aws.client`; the arithmetic below is pure and tested with
botocore Stubber.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from landing_zone import aws
from landing_zone.core import naming
from landing_zone.core.catalog.metrics import MetricSource
from landing_zone.cost.alarms import APPLICATION_PROFILE, evaluate_expression, priced_expression, source_metrics
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan

__all__ = [
    "APPLICATION_TAG_KEY",
    "BEDROCK_SERVICE",
    "MONTH_FORM",
    "ActualReport",
    "Month",
    "Row",
    "actual_report",
    "format_actual",
    "parse_month",
]

# The cost-allocation tag key of the application profiles (stacks/access.py) and the budget's tagged scope.
APPLICATION_TAG_KEY = naming.APPLICATION_TAG_KEY  # the tag stacks/access.py puts on every application
BEDROCK_SERVICE = "Amazon Bedrock"
MARKETPLACE_EDITION = "(Amazon Bedrock Edition)"  # "<Model> (Amazon Bedrock Edition)": Marketplace models
COST_EXPLORER_REGION = "us-east-1"  # Cost Explorer's one endpoint (ce.us-east-1.amazonaws.com)
METRIC_PERIOD_SECONDS = 86400  # daily sums over the month; GetMetricData accepts any multiple of 60
MAX_QUERIES_PER_CALL = 500  # GetMetricData: at most 500 MetricDataQuery structures per request
MONTH_FORM = "YYYY-MM (e.g. 2026-11), not after the current month"
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


class ActualError(LandingZoneError):
    """AWS could not be asked (credentials, access, endpoint): one line, exit code 2."""


# --------------------------------------------------------------------------------------------------
# The month
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Month:
    """A calendar month; ``end`` is exclusive (Cost Explorer's ``TimePeriod.End``) and stops at tomorrow for the
    current month (month to date: ``partial``)."""

    label: str  # YYYY-MM
    start: date
    end: date  # exclusive
    month_end: date  # first day of the next month

    @property
    def partial(self) -> bool:
        return self.end < self.month_end

    @property
    def days(self) -> int:
        return (self.end - self.start).days


def parse_month(text: str | None, today: date) -> Month:
    """``YYYY-MM`` (None: the current month) as a :class:`Month`; ValueError naming the allowed form."""
    if text is None:
        year, month = today.year, today.month
    else:
        match = _MONTH.match(text.strip())
        if match is None or not 1 <= int(match.group(2)) <= 12:
            raise ValueError(f"got {text!r}; allowed: {MONTH_FORM}")
        year, month = int(match.group(1)), int(match.group(2))
    start = date(year, month, 1)
    month_end = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    if start > today:
        raise ValueError(f"got {text!r}; allowed: {MONTH_FORM} (the bill of a future month does not exist)")
    end = min(month_end, today + timedelta(days=1))
    return Month(label=f"{year:04d}-{month:02d}", start=start, end=end, month_end=month_end)


# --------------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One line of the comparison: an application (its tag value; "" = untagged) on one path."""

    application: str  # tag value; "" = no application tag (direct calls, Mantle, or the tag inactive)
    path: str  # invocation path and ID, e.g. "geographic-profile us.moonshotai.kimi-k3.1-pro"
    estimate_usd: float | None  # None: the metrics could not be read for it
    billed_usd: float | None  # None: billed together with other rows (see group_billed_usd)
    tokens: Mapping[str, float] = field(default_factory=dict)  # token kind -> month's sum

    @property
    def difference_usd(self) -> float | None:
        if self.estimate_usd is None or self.billed_usd is None:
            return None
        return self.billed_usd - self.estimate_usd

    def as_dict(self) -> dict[str, Any]:
        return {
            "application": self.application,
            "path": self.path,
            "estimate_usd": self.estimate_usd,
            "billed_usd": self.billed_usd,
            "difference_usd": self.difference_usd,
            "tokens": dict(self.tokens),
        }


@dataclass(frozen=True)
class ActualReport:
    month: Month
    tag_key: str
    services: tuple[str, ...]
    rows: tuple[Row, ...]  # one per application and path; untagged paths share one billed figure
    untagged_billed_usd: float
    estimated_by_ce: bool  # Cost Explorer flags the period's figures as estimated
    notes: tuple[str, ...]
    currency: str = "USD"

    @property
    def estimate_usd(self) -> float:
        return sum(r.estimate_usd or 0.0 for r in self.rows)

    @property
    def billed_usd(self) -> float:
        return sum(r.billed_usd or 0.0 for r in self.rows if r.application) + self.untagged_billed_usd

    def as_dict(self) -> dict[str, Any]:
        return {
            "month": self.month.label,
            "start": self.month.start.isoformat(),
            "end_exclusive": self.month.end.isoformat(),
            "partial": self.month.partial,
            "tag_key": self.tag_key,
            "services": list(self.services),
            "rows": [r.as_dict() for r in self.rows],
            "untagged_billed_usd": self.untagged_billed_usd,
            "estimate_usd": self.estimate_usd,
            "billed_usd": self.billed_usd,
            "difference_usd": self.billed_usd - self.estimate_usd,
            "estimated_by_cost_explorer": self.estimated_by_ce,
            "currency": self.currency,
            "notes": list(self.notes),
        }


# --------------------------------------------------------------------------------------------------
# AWS calls (through landing_zone.aws.client)
# --------------------------------------------------------------------------------------------------


def _ask(what: str, call: Callable[[], Any]) -> Any:
    """``call()``; a failure to ask (credentials, access, endpoint) becomes one line naming the API."""
    try:
        return call()
    except LandingZoneError:
        raise
    except Exception as exc:
        reason = aws.failure(exc)
        if reason is None:
            code = aws.error_code(exc)
            if code is None:
                raise
            reason = f"{code}: {(getattr(exc, 'response', {}).get('Error') or {}).get('Message', '')}".rstrip(": ")
        raise ActualError(f"cost actual: {what}: {' '.join(reason.split())}") from None


def _period(month: Month) -> dict[str, str]:
    return {"Start": month.start.isoformat(), "End": month.end.isoformat()}


def bedrock_services(ce: Any, month: Month) -> list[str]:
    """The month's billed services that are Bedrock: "Amazon Bedrock" and "<Model> (Amazon Bedrock Edition)"."""
    names: list[str] = []
    token: str | None = None
    while True:
        request: dict[str, Any] = {
            "TimePeriod": _period(month),
            "Dimension": "SERVICE",
            "SearchString": "Bedrock",
            "Context": "COST_AND_USAGE",
        }
        if token:
            request["NextPageToken"] = token
        page = _ask("ce:GetDimensionValues", functools.partial(ce.get_dimension_values, **request))
        for item in page.get("DimensionValues", []):
            value = str(item.get("Value", ""))
            if value == BEDROCK_SERVICE or value.endswith(MARKETPLACE_EDITION):
                names.append(value)
        token = page.get("NextPageToken")
        if not token:
            return sorted(set(names))


def billed_by_tag(ce: Any, month: Month, services: Sequence[str], tag_key: str) -> tuple[dict[str, float], bool, str]:
    """(tag value -> unblended cost, estimated flag, currency) of ``services`` in the month; "" = untagged."""
    totals: dict[str, float] = {}
    estimated = False
    currency = "USD"
    token: str | None = None
    while True:
        request: dict[str, Any] = {
            "TimePeriod": _period(month),
            "Granularity": "MONTHLY",
            "Metrics": ["UnblendedCost"],
            "Filter": {"Dimensions": {"Key": "SERVICE", "Values": list(services)}},
            "GroupBy": [{"Type": "TAG", "Key": tag_key}],
        }
        if token:
            request["NextPageToken"] = token
        page = _ask("ce:GetCostAndUsage", functools.partial(ce.get_cost_and_usage, **request))
        for result in page.get("ResultsByTime", []):
            estimated = estimated or bool(result.get("Estimated"))
            for group in result.get("Groups", []):
                key = str((group.get("Keys") or [""])[0])
                value = key.split("$", 1)[1] if "$" in key else key
                amount = group.get("Metrics", {}).get("UnblendedCost", {})
                currency = str(amount.get("Unit", currency))
                totals[value] = totals.get(value, 0.0) + float(amount.get("Amount", 0.0))
        token = page.get("NextPageToken")
        if not token:
            return totals, estimated, currency


def tag_note(ce: Any, tag_key: str, month: Month) -> str | None:
    """Why the month's cost may not be (fully) split by ``tag_key``: inactive, activated late, or never seen."""
    page = _ask(
        "ce:ListCostAllocationTags",
        lambda: ce.list_cost_allocation_tags(TagKeys=[tag_key], Type="UserDefined"),
    )
    tags = [t for t in page.get("CostAllocationTags", []) if t.get("TagKey") == tag_key]
    if not tags:
        return (
            f"the cost-allocation tag {tag_key!r} is not listed (ce:ListCostAllocationTags): no tagged resource was "
            "billed yet, or it was applied in the last 24 hours; every cost below is untagged"
        )
    tag = tags[0]
    status = str(tag.get("Status", ""))
    if status != "Active":
        return (
            f"the cost-allocation tag {tag_key!r} is {status or 'not active'}: Cost Explorer does not split the bill "
            "by application, every cost below is untagged (activate it: Billing > Cost allocation tags, or "
            "ce:UpdateCostAllocationTagsStatus)"
        )
    updated = str(tag.get("LastUpdatedDate", ""))[:10]
    try:
        activated = date.fromisoformat(updated)
    except ValueError:
        return None
    if activated > month.start:
        return (
            f"the cost-allocation tag {tag_key!r} was activated on {activated.isoformat()}, after {month.label} "
            "began: the cost before that is untagged (ce:StartCostAllocationTagBackfill re-applies it up to 12 "
            "months back)"
        )
    return None


def _application_arns(bedrock: Any, names: Mapping[str, str]) -> dict[str, str]:
    """Application name -> ARN of its application inference profile, found by profile name (``<lz>-<app>``)."""
    wanted = {profile: app for app, profile in names.items()}
    found: dict[str, str] = {}
    token: str | None = None
    while True:
        request: dict[str, Any] = {"typeEquals": "APPLICATION"}
        if token:
            request["nextToken"] = token
        page = _ask("bedrock:ListInferenceProfiles", functools.partial(bedrock.list_inference_profiles, **request))
        for summary in page.get("inferenceProfileSummaries", []):
            app = wanted.get(str(summary.get("inferenceProfileName", "")))
            if app is not None:
                found[app] = str(summary["inferenceProfileArn"])
        token = page.get("nextToken")
        if not token:
            return found


def _metric_sums(cloudwatch: Any, queries: Sequence[dict[str, Any]], month: Month) -> dict[str, float]:
    """Query ID -> sum of its values over the month (a query without data points sums to 0)."""
    sums: dict[str, float] = {q["Id"]: 0.0 for q in queries}
    start = datetime(month.start.year, month.start.month, month.start.day, tzinfo=UTC)
    end = datetime(month.end.year, month.end.month, month.end.day, tzinfo=UTC)
    for first in range(0, len(queries), MAX_QUERIES_PER_CALL):
        chunk = list(queries[first : first + MAX_QUERIES_PER_CALL])
        token: str | None = None
        while True:
            request: dict[str, Any] = {"MetricDataQueries": chunk, "StartTime": start, "EndTime": end}
            if token:
                request["NextToken"] = token
            page = _ask("cloudwatch:GetMetricData", functools.partial(cloudwatch.get_metric_data, **request))
            for result in page.get("MetricDataResults", []):
                sums[result["Id"]] = sums.get(result["Id"], 0.0) + sum(float(v) for v in result.get("Values", []))
            token = page.get("NextToken")
            if not token:
                break
    return sums


# --------------------------------------------------------------------------------------------------
# The comparison
# --------------------------------------------------------------------------------------------------


def _row_key(plan: Plan, source: MetricSource) -> tuple[str, str]:
    """(application name or "", path label) of an alarm source."""
    if source.dimension_value.startswith(APPLICATION_PROFILE):
        name = source.dimension_value.removeprefix(APPLICATION_PROFILE).partition("+")[0]
        app = next((a for a in plan.applications if a.app.name == name), None)
        route = app.route if app is not None else None
        return name, f"{route.kind.value} {route.invoke_id}" if route is not None else "application profile"
    return "", source.label


def _metric_queries(
    sources: list[MetricSource], arns: dict[str, str]
) -> tuple[list[tuple[MetricSource, list[tuple[Any, str]]]], list[dict[str, Any]]]:
    """The spend alarms' metric series per source (none for an application profile not found) and their
    GetMetricData queries (Sum per hour)."""
    queries: list[dict[str, Any]] = []
    priced: list[tuple[MetricSource, list[tuple[Any, str]]]] = []
    for index, source in enumerate(sources):
        value = source.dimension_value
        if value.startswith(APPLICATION_PROFILE):
            name, plus, tier = value.removeprefix(APPLICATION_PROFILE).partition("+")  # "+<tier>": a tier's series
            arn = arns.get(name)
            if arn is None:
                priced.append((source, []))
                continue
            value = arn + plus + tier
        pairs = source_metrics(source, index, METRIC_PERIOD_SECONDS)
        priced.append((source, pairs))
        queries += [
            {
                "Id": spec.id,
                "MetricStat": {
                    "Metric": {
                        "Namespace": spec.namespace,
                        "MetricName": spec.metric_name,
                        "Dimensions": [{"Name": source.dimension_name, "Value": value}],
                    },
                    "Period": METRIC_PERIOD_SECONDS,
                    "Stat": "Sum",
                },
                "ReturnData": True,
            }
            for spec, _ in pairs
        ]
    return priced, queries


def _row(
    plan: Plan,
    source: MetricSource,
    pairs: list[tuple[Any, str]],
    sums: dict[str, float],
    billed: dict[str, float],
) -> Row:
    """One source's estimate (the alarms' expression over the month's token sums) beside its application's bill."""
    application, path = _row_key(plan, source)
    bill = billed.get(application) if application else None
    if not pairs:
        return Row(application, path, None, bill)
    prices = plan.cost_alarms.prices_of(source)
    # the alarms' expression at a one-hour period: (sum of tokens x price) / 1e6 x 1 = USD for the sums given
    expression = priced_expression([(spec, kind, prices) for spec, kind in pairs], 3600)
    usd = evaluate_expression(expression, {spec.id: sums.get(spec.id, 0.0) for spec, _ in pairs})
    tokens = {kind: sums.get(spec.id, 0.0) for spec, kind in pairs}
    return Row(application, path, usd, bill, tokens)


def actual_report(plan: Plan, month: Month, *, profile: str | None, region: str | None = None) -> ActualReport:
    """Estimate (token metrics x the alarms' prices) against the bill, per application and path, for ``month``."""
    region = region or plan.config.home_region
    ce = aws.client("ce", region=COST_EXPLORER_REGION, profile=profile)
    notes: list[str] = []
    tag_key = APPLICATION_TAG_KEY
    note = tag_note(ce, tag_key, month)
    if note:
        notes.append(note)
    services = bedrock_services(ce, month)
    if services:
        billed, estimated, currency = billed_by_tag(ce, month, services, tag_key)
    else:
        billed, estimated, currency = {}, False, "USD"
        notes.append(f"Cost Explorer lists no Bedrock service billed in {month.label} (searched SERVICE for 'Bedrock')")

    sources = list(plan.cost_alarms.sources)
    apps = {
        s.dimension_value.removeprefix(APPLICATION_PROFILE): f"{plan.config.name}-"
        + s.dimension_value.removeprefix(APPLICATION_PROFILE)
        for s in sources
        if s.dimension_value.startswith(APPLICATION_PROFILE)
    }
    arns: dict[str, str] = {}
    if apps:
        bedrock = aws.client("bedrock", region=region, profile=profile)
        arns = _application_arns(bedrock, apps)
        for name in sorted(set(apps) - set(arns)):
            notes.append(
                f"application {name}: no application inference profile named {apps[name]!r} in {region}: its tokens "
                "are not read (not deployed here?)"
            )
    priced, queries = _metric_queries(sources, arns)
    sums: dict[str, float] = {}
    if queries:
        cloudwatch = aws.client("cloudwatch", region=region, profile=profile)
        sums = _metric_sums(cloudwatch, queries, month)

    rows = [_row(plan, source, pairs, sums, billed) for source, pairs in priced]
    configured = {r.application for r in rows if r.application}
    for value in sorted(set(billed) - configured - {""}):
        rows.append(Row(value, "(not in this configuration)", None, billed[value]))
        notes.append(f"{tag_key}={value} is billed but is not an application of this configuration")
    if month.partial:
        notes.append(
            f"{month.label} is not over: {month.days} day(s) to {month.end - timedelta(days=1)}; Cost Explorer lags "
            "the metrics by up to a day, so the latest day's difference is expected"
        )
    if estimated:
        notes.append("Cost Explorer marks these figures as estimated (the month's bill is not final)")
    if any(s.namespace == plan.metrics.for_endpoint("mantle").namespace for s in sources):
        notes.append(
            "Mantle calls carry no application tag: their cost is in the untagged figure, with direct calls "
            "(Mantle publishes no cache metrics: its input tokens are priced at the input price)"
        )
    return ActualReport(
        month=month,
        tag_key=tag_key,
        services=tuple(services),
        rows=tuple(rows),
        untagged_billed_usd=billed.get("", 0.0),
        estimated_by_ce=estimated,
        notes=tuple(notes),
        currency=currency,
    )


def _usd(value: float | None) -> str:
    return "—" if value is None else f"{value:,.2f}"


def _diff(estimate: float | None, billed: float | None) -> str:
    if estimate is None or billed is None:
        return "—"
    delta = billed - estimate
    share = f" ({delta / estimate:+.1%})" if estimate else ""
    return f"{delta:+,.2f}{share}"


def format_actual(report: ActualReport) -> str:
    """The comparison as a text table, then the untagged group, the totals and the notes."""
    m = report.month
    head = (
        f"{m.label}: {m.start} to {m.end - timedelta(days=1)}{' (month to date)' if m.partial else ''}; billed: "
        f"{', '.join(report.services) or 'no Bedrock service'} by tag {report.tag_key!r} (Cost Explorer, "
        f"unblended {report.currency}); estimate: the spend alarms' token metrics x their prices"
    )
    header = ("application", "path", "estimate", "billed", "billed - estimate")
    body: list[tuple[str, str, str, str, str]] = []
    for r in report.rows:
        if r.application:
            body.append(
                (r.application, r.path, _usd(r.estimate_usd), _usd(r.billed_usd), _diff(r.estimate_usd, r.billed_usd))
            )
    untagged = [r for r in report.rows if not r.application]
    for r in untagged:
        body.append(("(no tag)", r.path, _usd(r.estimate_usd), "", ""))
    untagged_estimate = sum(r.estimate_usd or 0.0 for r in untagged)
    body.append(
        (
            "(no tag) together",
            "direct calls and Mantle",
            _usd(untagged_estimate),
            _usd(report.untagged_billed_usd),
            _diff(untagged_estimate, report.untagged_billed_usd),
        )
    )
    body.append(
        ("total", "", _usd(report.estimate_usd), _usd(report.billed_usd), _diff(report.estimate_usd, report.billed_usd))
    )
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(5)]
    right = (False, False, True, True, True)

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)).rstrip()

    out = [head, "", line(header), line(["-" * w for w in widths])]
    out += [line(row) for row in body]
    out += [f"note: {n}" for n in report.notes]
    return "\n".join(out)
