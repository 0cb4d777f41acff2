"""Quota values (``cost.quota_alarms``): each quota headroom alarm the configuration plans fires at headroom x the
quota value it was built from (``cost.quota_alarms.overrides`` or a ``discover`` overlay); this family reads the
account's live value of that quota, by ``QuotaName`` (matched as ``discover`` matches it:
:class:`~landing_zone.core.catalog.quotas.QuotaNameMatcher`), in the alarm's Region (``home_region``).  Equal is
PASS; a raised or lowered quota is DRIFT (the alarm fires at headroom x the old value), with the fix; a quota
Service Quotas does not list is DRIFT (the model's or the quota's name changed).  Calls service-quotas
ListServiceQuotas (ServiceCode ``bedrock``, paginated: the account's applied values) once per Region, and
ListAWSDefaultServiceQuotas (AWS defaults) only when an alarm's quota is not in the applied list; the row says
when the value is the AWS default.  No quota alarm (no value configured or discovered): no row and no call.
The intent is configuration, not a template resource: without ``--config`` the family has nothing to compare.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from landing_zone.core.catalog.quotas import QuotaNameMatcher
from landing_zone.cost.quotas import QuotaAlarm
from landing_zone.verify.checks.common import DRIFT, PASS, Context, guarded, make_row
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult

CHECK = "quota-value"
SERVICE_CODE = "bedrock"
APPLIED = "ListServiceQuotas"
DEFAULT = "ListAWSDefaultServiceQuotas"
_OPERATIONS = {APPLIED: "list_service_quotas", DEFAULT: "list_aws_default_service_quotas"}

Listing = list[dict[str, Any]]


def check_quota_values(ctx: Context) -> list[CheckResult]:
    alarms = ctx.quota_alarms
    if not alarms:
        return []
    matcher = ctx.catalog.quota_name_matcher(sorted({a.model_id for a in alarms})) if ctx.catalog else None
    cache: dict[tuple[str, str], Listing | Exception] = {}
    rows: list[CheckResult] = []
    for alarm in alarms:
        label = f"{alarm.quota_name} ({alarm.model_id}, {alarm.region})"
        listed = partial(_listed, ctx, cache, alarm.region)
        rows += guarded([CHECK], label, None, partial(_check, alarm, label, matcher, listed))
    return rows


def _listed(ctx: Context, cache: dict[tuple[str, str], Listing | Exception], region: str, api: str) -> Listing:
    """One Service Quotas listing of ``region``, asked once per run (a failure is raised again for each alarm)."""
    key = (region, api)
    if key not in cache:
        try:
            cache[key] = ctx.live.paginate(
                "service-quotas", _OPERATIONS[api], "Quotas", region=region, ServiceCode=SERVICE_CODE
            )
        except (ApiError, ClientError) as exc:
            cache[key] = exc
    found = cache[key]
    if isinstance(found, Exception):
        raise found
    return found


def _find(alarm: QuotaAlarm, matcher: QuotaNameMatcher | None, quotas: Listing) -> dict[str, Any] | None:
    for quota in quotas:
        name = str(quota.get("QuotaName") or "")
        if quota.get("Value") is None:
            continue
        if matcher is not None:
            if (alarm.kind, alarm.model_id) in set(matcher.match(name)):
                return quota
        elif " ".join(name.lower().split()) == " ".join(alarm.quota_name.lower().split()):
            return quota
    return None


def _check(
    alarm: QuotaAlarm, label: str, matcher: QuotaNameMatcher | None, listed: Callable[[str], Listing]
) -> list[CheckResult]:
    expected = f"{alarm.quota:g} {alarm.unit} ({alarm.source})"
    api = APPLIED
    quota = _find(alarm, matcher, listed(APPLIED))
    if quota is None:
        api = DEFAULT
        quota = _find(alarm, matcher, listed(DEFAULT))
    if quota is None:
        detail = (
            f"Service Quotas (service code {SERVICE_CODE}, {alarm.region}) lists no quota named "
            f"{alarm.quota_name!r}, applied or AWS default: the model's name in Service Quotas or the quota's name "
            f"changed, so the alarm watches a quota that may no longer apply.  Run `python -m landing_zone discover "
            f"--regions {alarm.region}` to see the names listed now, then correct the model name (catalog) or the "
            "quota name template (core/catalog/quotas.yaml) and deploy"
        )
        return [make_row(CHECK, label, expected, "not listed", DRIFT, detail)]
    live = float(quota["Value"])
    where = "applied value" if api == APPLIED else "AWS default: no applied value listed"
    actual = f"{live:g} {alarm.unit} ({where}, service-quotas {api} {quota.get('QuotaCode') or ''})".replace(" )", ")")
    default_note = (
        ""
        if api == APPLIED
        else f"ListServiceQuotas lists no applied value in {alarm.region}, so the AWS default was read; the "
        "account's applied value may differ (Service Quotas console)"
    )
    if live == alarm.quota:
        return [make_row(CHECK, label, expected, actual, PASS, default_note)]
    detail = (
        f"the account's quota is {live:g} {alarm.unit}, the alarm was built from {alarm.quota:g}: it fires at "
        f"{alarm.headroom:g} x {alarm.quota:g} = {alarm.threshold:g} {alarm.unit}, and headroom x the live quota "
        f"is now {alarm.headroom:g} x {live:g} = {alarm.headroom * live:g}.  Re-run `python -m landing_zone discover "
        f"--regions {alarm.region}` (its overlay in catalog_overlays) or update cost.quota_alarms.overrides."
        f"{alarm.model_id}.{alarm.kind}, then deploy"
    )
    return [make_row(CHECK, label, expected, actual, DRIFT, "; ".join(filter(None, (detail, default_note))))]
