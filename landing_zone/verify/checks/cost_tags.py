"""Cost allocation tags (``cost.activate_cost_allocation_tags``): each key of each ``Custom::CostAllocationTags``
(its ``TagKeys``, comma-separated) is a user-defined cost allocation tag with status ``Active``.  ``Inactive`` is
DRIFT; a key Billing does not list yet is DRIFT too (a key appears only after AWS has seen it on a resource, which
can take up to 24 hours after the tag is first applied), with the command that activates it.  Calls ce
ListCostAllocationTags (Type UserDefined, the keys named), in the partition's global Region (us-east-1), with the
management profile when the resource's stack is in another account (organization mode: the management account).
"""

from __future__ import annotations

from functools import partial

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import DRIFT, PASS, Context, guarded, make_row, unresolvable_rows
from landing_zone.verify.compare import Unresolved
from landing_zone.verify.report import CheckResult

COST_TAGS_TYPE = "Custom::CostAllocationTags"
CHECK = "cost-allocation-tag"


def activate_command(keys: list[str]) -> str:
    entries = " ".join(f"TagKey={k},Status=Active" for k in keys)
    return f"aws ce update-cost-allocation-tags-status --region us-east-1 --cost-allocation-tags-status {entries}"


def check_cost_allocation_tags(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources(COST_TAGS_TYPE):
        keys = ctx.resolve(res.prop("TagKeys"), res)
        if isinstance(keys, Unresolved) or not isinstance(keys, str):
            rows += unresolvable_rows([CHECK], res.logical_id, keys, res)
            continue
        wanted = sorted({k.strip() for k in keys.split(",") if k.strip()})
        rows += guarded([CHECK], ", ".join(wanted), res, partial(_check, ctx, res, wanted))
    return rows


def _check(ctx: Context, res: Resource, wanted: list[str]) -> list[CheckResult]:
    answer = ctx.live.call(
        "ce",
        "list_cost_allocation_tags",
        region=ctx.global_region(),
        # with an organization the tags are activated in the management (payer) account's guardrails stack
        management=ctx.management_of(res.stack),
        TagKeys=wanted,
        Type="UserDefined",
        MaxResults=len(wanted),
    )
    found = {t.get("TagKey"): t for t in answer.get("CostAllocationTags") or []}
    rows: list[CheckResult] = []
    for key in wanted:
        tag = found.get(key)
        if tag is None:
            actual, detail = (
                "not listed",
                "Billing does not list this key yet: it appears up to 24 hours after the tag is first applied to a "
                f"resource. Then activate it: {activate_command([key])} (or deploy the stack that holds it again)",
            )
        else:
            actual = str(tag.get("Status") or "?")
            detail = "" if actual == "Active" else f"activate it: {activate_command([key])}"
        status = PASS if actual == "Active" else DRIFT
        rows.append(make_row(CHECK, key, "Active", actual, status, detail, res))
    return rows
