"""Data retention (``data_retention.mode``): for each ``Custom::BedrockDataRetention`` (its ``Mode``), the account's
Bedrock data retention mode in the stack's Region is that mode; any other mode (``inherit`` included: the custom
resource never ran, or someone exempt changed it) is DRIFT.  The mode is per Region
(https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html).  Calls bedrock GetAccountDataRetention
(``GET /data-retention``, https://docs.aws.amazon.com/bedrock/latest/APIReference/API_GetAccountDataRetention.html).
"""

from __future__ import annotations

from functools import partial

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import DRIFT, PASS, Context, guarded, make_row, unresolvable_rows
from landing_zone.verify.compare import Unresolved
from landing_zone.verify.report import CheckResult

RETENTION_TYPE = "Custom::BedrockDataRetention"
CHECK = "data-retention"


def check_data_retention(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources(RETENTION_TYPE):
        region = ctx.region_of(res.stack)
        label = f"account data retention in {region}"
        mode = ctx.resolve(res.prop("Mode"), res)
        if isinstance(mode, Unresolved) or not isinstance(mode, str):
            rows += unresolvable_rows([CHECK], label, mode, res)
            continue
        rows += guarded([CHECK], label, res, partial(_check_mode, ctx, res, region, mode, label))
    return rows


def _check_mode(ctx: Context, res: Resource, region: str, expected: str, label: str) -> list[CheckResult]:
    answer = ctx.live.call("bedrock", "get_account_data_retention", region=region)
    live = str(answer.get("mode") or "?")
    updated = answer.get("updatedAt")
    if live == expected:
        return [make_row(CHECK, label, f"mode {expected}", f"mode {live}", PASS, "", res)]
    detail = (
        f"the account's mode in {region} is {live}"
        + (f" (changed {updated})" if updated else "")
        + f", not the configured {expected}: deploy the access stack again (its custom resource sets the mode), "
        "and find out who changed it (CloudTrail PutAccountDataRetention; only the exempt deployment principals may)"
    )
    return [make_row(CHECK, label, f"mode {expected}", f"mode {live}", DRIFT, detail, res)]
