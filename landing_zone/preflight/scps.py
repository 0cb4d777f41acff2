"""The SCPs that apply to each governed account, and what they do to the landing zone's requests there.

A path the routing allows but an SCP of the organization denies fails at run time: a geographic profile may send any
request to any of its destination Regions, so one denied destination makes a share of the calls fail (Bedrock user
guide, geographic-cross-region-inference.html).  A denied deploy call fails the deploy.  Both are conflicts to
resolve before deploying, each named with the statement that denies it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from landing_zone.preflight import intent
from landing_zone.preflight.evaluation import Level, Outcome, Verdict, decide, levels_of
from landing_zone.preflight.model import Finding, Severity
from landing_zone.preflight.organization import CONTROL_TOWER, LANDING_ZONE, LANDING_ZONE_ACCELERATOR, Organization
from landing_zone.preflight.reading import Context
from landing_zone.preflight.requests import Call, deploy_calls, inference_calls

__all__ = ["check_account_scps"]


@dataclass(frozen=True)
class _Group:
    subject: str  # the path (model + invoke ID) or "deploy"
    verdict: str
    outcome: Outcome


def check_account_scps(ctx: Context, org: Organization, account: str) -> list[tuple[str, str, str]]:
    """Findings for ``account``'s SCPs; returns every SCP that applies to it (level, name, kind), root first."""
    where = f"account {account}"
    if account == org.management_account:
        ctx.add(_note(where, "the management account", "SCPs do not apply to the management account"))
        return []
    path = org.levels(account)
    if path is None:
        return []  # not in the organization (reported with the targets) or not read (reported as unchecked)
    applying = [(level, scp.name, scp.kind) for level, scps in path for scp in scps]
    levels = levels_of(path, leave_out=(LANDING_ZONE,))
    calls: list[Call] = []
    if account in intent.invoker_accounts(ctx.plan):
        for principal in intent.invoker_principals(ctx.plan, account):
            calls += inference_calls(ctx.plan, principal, org.id)
    if account in intent.workload_accounts(ctx.plan):
        calls += deploy_calls(ctx.plan, account, org.id)
    _report(ctx, where, levels, calls)
    return applying


def _report(ctx: Context, where: str, levels: Sequence[Level], calls: Sequence[Call]) -> None:
    groups: dict[_Group, list[tuple[Call, Verdict]]] = {}
    for call in calls:
        verdict = decide(levels, call.request)
        if verdict.outcome is Outcome.ALLOWED:
            continue
        subject = f"{call.route.invoke_id} ({call.route.kind.value})" if call.route else "deploy"
        groups.setdefault(_Group(subject, verdict.explain(), verdict.outcome), []).append((call, verdict))
    for group, hits in groups.items():
        ctx.add(_finding(ctx, where, group, hits))


def _finding(ctx: Context, where: str, group: _Group, hits: list[tuple[Call, Verdict]]) -> Finding:
    labels = sorted({call.label for call, _ in hits})
    principals = sorted({str(call.request.context["aws:PrincipalARN"]).split("/")[-1] for call, _ in hits})
    found = f"{'; '.join(labels)} (as {', '.join(principals)}): {group.verdict}"
    verdict = hits[0][1]
    if group.outcome is Outcome.UNKNOWN:
        return Finding(
            "scp-unreadable", where, found, "unknown: the evaluator cannot decide these statements",
            "review the named statements against these requests by hand", Severity.UNCHECKED,
        )  # fmt: skip
    if group.subject == "deploy":
        return Finding(
            "deploy-denied", where, found, "the deploy fails on these calls",
            f"exempt the landing zone's deploy roles in {_owners(verdict)}; {_ownership_hint(verdict)}",
            Severity.CONFLICT,
        )  # fmt: skip
    route = hits[0][0].route
    assert route is not None
    regions = sorted({call.region for call, _ in hits})
    deploy = "the deploy succeeds; these invocations fail at run time with AccessDenied" + (
        " (a geographic or global profile may route any request to any destination: a share of all calls fail)"
        if route.kind.value.endswith("profile")
        else ""
    )
    resolve = (
        f"allow these requests of the landing zone's invoker roles in {_owners(verdict)} ({_ownership_hint(verdict)}), "
        f"or remove {', '.join(regions)} from compliant_regions so that the routing rejects this path"
    )
    return Finding("scp-route", where, found, deploy, resolve, Severity.CONFLICT)


def _owners(verdict: Verdict) -> str:
    if verdict.outcome is Outcome.NOT_ALLOWED:
        return f"an SCP attached to {verdict.level} (FullAWSAccess, or an Allow of your own)"
    return ", ".join(sorted({s.policy.name for s in verdict.by}))


def _ownership_hint(verdict: Verdict) -> str:
    kinds = {s.policy.kind for s in verdict.by}
    hints = []
    if CONTROL_TOWER in kinds:
        hints.append(
            "Control Tower owns aws-guardrails-* and reports an edited one as drift: change the governed Regions in "
            "its landing zone settings or the OU's Region deny control instead"
        )
    if LANDING_ZONE_ACCELERATOR in kinds:
        hints.append("Landing Zone Accelerator owns AcceleratorGuardrails*: change them in its configuration")
    return "; ".join(hints) or "the policy is your organization's"


def _note(where: str, found: str, why: str) -> Finding:
    return Finding("scps-applying", where, found, why, "", Severity.NOTE)
