"""Organization-wide facts the deploy depends on: the policy types enabled on the root and the delegated
administrators.

* ``SERVICE_CONTROL_POLICY`` must be enabled for the guardrails to attach; ``BEDROCK_POLICY`` too when
  ``content_guardrail.organization_policy`` is set (CloudFormation has no resource that enables a policy type:
  ``aws organizations enable-policy-type``).
* The member baseline's StackSet administrator, when it is not the management account, must be registered as a
  delegated administrator for StackSets (CloudFormation user guide, "Register a delegated administrator",
  https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/stacksets-orgs-delegated-admin.html).
* A delegated administrator inside a target is bound by the landing zone's SCPs like any member account: said as a
  note, with the services it administers.
"""

from __future__ import annotations

from landing_zone.preflight.model import Finding, Severity
from landing_zone.preflight.organization import Organization
from landing_zone.preflight.reading import Context

__all__ = ["STACKSETS_PRINCIPAL", "check_delegated", "check_policy_types"]

STACKSETS_PRINCIPAL = "member.org.stacksets.cloudformation.amazonaws.com"


def check_policy_types(ctx: Context, org: Organization) -> None:
    cfg = ctx.plan.config
    needed = {"SERVICE_CONTROL_POLICY": "the guardrail SCPs"}
    if cfg.content_guardrail.enabled and cfg.content_guardrail.organization_policy:
        needed["BEDROCK_POLICY"] = "the content guardrail's BEDROCK_POLICY (content_guardrail.organization_policy)"
    where = f"root {org.root}"
    enabled = ", ".join(org.policy_types) or "none"
    for policy_type, what in needed.items():
        if policy_type in org.policy_types:
            continue
        ctx.add(
            Finding(
                "policy-types", where, f"{policy_type} is not enabled (enabled: {enabled})",
                f"the deploy fails to attach {what}",
                f"aws organizations enable-policy-type --root-id {org.root} --policy-type {policy_type}",
                Severity.CONFLICT,
            )
        )  # fmt: skip
    ctx.add(Finding("policy-types", where, f"enabled: {enabled}", "the landing zone enables none", "", Severity.NOTE))


def check_delegated(ctx: Context, org: Organization) -> None:
    cfg = ctx.plan.config
    perim = ctx.plan.policies.scp_set.perimeter if cfg.organization else None
    targets = set(cfg.organization.target_ids if cfg.organization else ())
    for admin in org.delegated:
        path = org.paths.get(admin.account, ())
        under = [t for t in path if t in targets]
        governed = perim is not None and (admin.account in perim.accounts or any(t in perim.ous for t in path))
        bound = (
            "outside the targets"
            if not under
            else f"under target {under[0]}: a governed account, the landing zone's guardrail SCPs bind it"
            if governed
            else f"under target {under[0]}, outside the governed perimeter: only the perimeter SCP binds it (the "
            "landing zone's models are denied to it)"
        )
        found = f"delegated administrator {admin.account} ({admin.name}) for {', '.join(admin.services) or 'nothing'}"
        ctx.add(Finding("delegated-administrator", f"account {admin.account}", found, bound, "", Severity.NOTE))
    administrator = cfg.member_baseline.administrator_account_id
    if not cfg.member_baseline.enabled or not administrator or administrator == org.management_account:
        return
    if any(a.account == administrator and STACKSETS_PRINCIPAL in a.services for a in org.delegated):
        return
    ctx.add(
        Finding(
            "delegated-administrator", f"account {administrator}",
            f"not a delegated administrator for {STACKSETS_PRINCIPAL}",
            "the rollout stack's service-managed StackSet fails (member_baseline.administrator_account_id)",
            "from the management account: aws organizations register-delegated-administrator --account-id "
            f"{administrator} --service-principal {STACKSETS_PRINCIPAL}",
            Severity.CONFLICT,
        )
    )  # fmt: skip
