"""The organization-level guardrail (``content_guardrail.organization_policy``): for each ``AWS::Organizations::Policy``
of ``Type: BEDROCK_POLICY``, the effective Bedrock policy of each canary account (the 12-digit account IDs among its
``TargetIds``, which lists the canary targets first; DescribeEffectivePolicy does not take a root or an OU) names,
for the stack's Region, the guardrail identifier the guardrails stack recorded (output
``GuardrailInferenceIdentifier``: ``<guardrail ARN>:<version>``), in a well-formed shape.  "Validate changes to
your Amazon Bedrock policies using DescribeEffectivePolicy"
(https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_bedrock_best_practices.html).
Calls organizations DescribeEffectivePolicy (PolicyType BEDROCK_POLICY) and CloudFormation DescribeStacks, with the
management profile.
"""

from __future__ import annotations

import re
from functools import partial

from botocore.exceptions import ClientError

from landing_zone.assembly import Resource
from landing_zone.core import arns
from landing_zone.policies.bedrock_policy import policy_identifier
from landing_zone.verify.checks.common import DRIFT, ERROR, PASS, Context, guarded, is_not_found, make_row
from landing_zone.verify.report import CheckResult

POLICY_TYPE = "AWS::Organizations::Policy"
CHECK = "guardrail-org-policy"
OUTPUT = "GuardrailInferenceIdentifier"
_ACCOUNT = re.compile(r"^[0-9]{12}$")


def check_bedrock_policies(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources(POLICY_TYPE):
        if res.prop("Type") != "BEDROCK_POLICY":
            continue
        region = ctx.region_of(res.stack)
        targets = res.prop("TargetIds") or []
        accounts = [t for t in targets if isinstance(t, str) and _ACCOUNT.match(t)]
        if not accounts:
            rows.append(
                make_row(
                    CHECK,
                    f"BEDROCK_POLICY in {region}",
                    "effective policy of a canary account",
                    "not checked",
                    ERROR,
                    f"no account ID among the policy's targets {targets}: DescribeEffectivePolicy reads accounts "
                    "only; add an account to content_guardrail.canary_target_ids",
                    res,
                )
            )
            continue
        expected = _recorded_identifier(ctx, res)
        for account in accounts:
            label = f"BEDROCK_POLICY of {account} in {region}"
            rows += guarded([CHECK], label, res, partial(_check_account, ctx, res, account, region, expected, label))
    return rows


def _recorded_identifier(ctx: Context, res: Resource) -> str | None:
    stack = ctx.resolver.describe_stack(res.stack) or {}
    for output in stack.get("Outputs") or []:
        if output.get("OutputKey") == OUTPUT:
            return str(output.get("OutputValue"))
    return None


def _check_account(
    ctx: Context, res: Resource, account: str, region: str, expected: str | None, label: str
) -> list[CheckResult]:
    want = expected or "(the guardrails stack's GuardrailInferenceIdentifier output)"
    try:
        answer = ctx.live.call(
            "organizations",
            "describe_effective_policy",
            region=ctx.global_region(),
            management=True,
            PolicyType="BEDROCK_POLICY",
            TargetId=account,
        )
    except ClientError as exc:
        if is_not_found(exc, "EffectivePolicyNotFoundException"):
            return [make_row(CHECK, label, want, "no effective policy", DRIFT, "the policy is not attached", res)]
        raise
    content = (answer.get("EffectivePolicy") or {}).get("PolicyContent") or "{}"
    try:
        live = policy_identifier(content, region)
    except ValueError:
        return [make_row(CHECK, label, want, "not valid JSON", DRIFT, str(content)[:400], res)]
    if live is None:
        return [make_row(CHECK, label, want, f"no guardrail for {region}", DRIFT, str(content)[:400], res)]
    problem = arns.guardrail_identifier_problem(live, region=region)
    if problem:
        detail = f"malformed: {problem}; every Bedrock call of {account} fails"
        return [make_row(CHECK, label, want, live, DRIFT, detail, res)]
    if expected is None:
        return [make_row(CHECK, label, want, live, ERROR, f"the stack has no {OUTPUT} output to compare with", res)]
    if live != expected:
        return [make_row(CHECK, label, expected, live, DRIFT, "another guardrail or version is enforced", res)]
    return [make_row(CHECK, label, expected, live, PASS, "", res)]
