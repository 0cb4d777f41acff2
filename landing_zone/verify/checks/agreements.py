"""Model agreements (``model_access.accept_agreements``): for each model of each
``Custom::BedrockModelAgreements`` (its ``ModelIds``, comma-separated), the account's Marketplace agreement is
accepted in the stack's Region — ``agreementAvailability.status`` AVAILABLE.  PENDING (still being processed) and
ERROR are DRIFT, NOT_AVAILABLE is MISSING; the authorization, entitlement and Region availability Bedrock reports
are shown with it.  Calls bedrock GetFoundationModelAvailability.
"""

from __future__ import annotations

from functools import partial

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import DRIFT, MISSING, PASS, Context, guarded, make_row, unresolvable_rows
from landing_zone.verify.compare import Unresolved
from landing_zone.verify.report import CheckResult

AGREEMENTS_TYPE = "Custom::BedrockModelAgreements"


def check_model_agreements(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources(AGREEMENTS_TYPE):
        region = ctx.region_of(res.stack)
        ids = ctx.resolve(res.prop("ModelIds"), res)
        if isinstance(ids, Unresolved) or not isinstance(ids, str):
            rows += unresolvable_rows(["model-agreement"], f"{res.logical_id} in {region}", ids, res)
            continue
        for model_id in sorted({i.strip() for i in ids.split(",") if i.strip()}):
            label = f"{model_id} in {region}"
            rows += guarded(["model-agreement"], label, res, partial(_check_model, ctx, res, model_id, label))
    return rows


def _check_model(ctx: Context, res: Resource, model_id: str, label: str) -> list[CheckResult]:
    region = ctx.region_of(res.stack)
    answer = ctx.live.call("bedrock", "get_foundation_model_availability", region=region, modelId=model_id)
    agreement = answer.get("agreementAvailability") or {}
    status = str(agreement.get("status") or "?")
    facts = (
        f"authorization {answer.get('authorizationStatus')}, entitlement {answer.get('entitlementAvailability')}, "
        f"Region {answer.get('regionAvailability')}"
    )
    detail = {
        "AVAILABLE": "",
        "PENDING": "the agreement is being processed: verify again in a few minutes",
        "NOT_AVAILABLE": "no agreement accepted: deploy the access stack again (its custom resource accepts it), or "
        "accept the offer in the Bedrock console",
        "ERROR": f"the agreement failed: {agreement.get('errorMessage') or 'no message'}; deploy the access stack "
        "again",
    }.get(status, f"unknown agreement status {status}")
    result = PASS if status == "AVAILABLE" else MISSING if status == "NOT_AVAILABLE" else DRIFT
    return [
        make_row(
            "model-agreement",
            label,
            "agreement AVAILABLE",
            f"agreement {status}",
            result,
            "\n".join(filter(None, [detail, facts])),
            res,
        )
    ]
