"""Post-deploy verification: does the live account hold what the cloud assembly says was deployed?

``python -m landing_zone verify --assembly cdk.out`` compares, resource type by resource type, the synthesized
templates (and the configuration) with the account, family by family: the CloudFormation stacks themselves first,
then every family of :data:`landing_zone.verify.checks.CHECK_FAMILIES` (the one list of them).  A resource of a
stack that is not deployed (rolled back, failed, absent) never passes.  Exit 0 when everything holds, 1 on any
drift, missing resource or unanswerable check, 2 on usage errors.  Every AWS call goes through :func:`landing_zone.aws.client`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from landing_zone.assembly import Assembly, AssemblyError
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan
from landing_zone.verify.checks import SCP_TYPE, Context, run_checks
from landing_zone.verify.live import CREDENTIAL_FAILURES, ApiError, Live
from landing_zone.verify.report import CheckResult, Report, Status

__all__ = ["Assembly", "AssemblyError", "CheckResult", "Report", "Status", "verify"]


def verify(
    assembly_path: str | Path,
    *,
    plan: Plan | None = None,
    profile: str | None = None,
    management_profile: str | None = None,
    region: str | None = None,
    invocation_log_bucket: str | None = None,
    families: Iterable[str] | None = None,
    stackset_member: bool = False,
) -> Report:
    """Run every check (or only ``families``) and return the report.  ``stackset_member``: check the template a
    StackSet of the assembly rolls out, in the member account of ``profile`` (its instance stack gives the
    generated names and the account's parameter values).  Raises :class:`AssemblyError` /
    :class:`~landing_zone.errors.LandingZoneError` (exit code 2) for unusable input."""

    assembly = Assembly.load(assembly_path)
    if stackset_member:
        assembly = assembly.member_view()
    name = _landing_zone_name(assembly, assembly_path, plan)
    home = _home_region(assembly, plan, region)
    ctx = Context(
        assembly=assembly,
        live=Live(profile=profile, management_profile=management_profile, region=home),
        name=name,
        home_region=home,
        region_override=region,
        deployment_account=None if stackset_member else _deployment_account(assembly, plan),
        **_plan_settings(plan),
        invocation_log_bucket=invocation_log_bucket,
    )
    _require_credentials(ctx, profile)
    results = run_checks(ctx, families)
    account = next((r.actual for r in results if r.check == "account" and r.status is Status.PASS), None)
    return Report(landing_zone=name, assembly=str(assembly_path), account=account, region=home, results=tuple(results))


def _landing_zone_name(assembly: Assembly, assembly_path: str | Path, plan: Plan | None) -> str:
    name = assembly.landing_zone_name or (plan.config.name if plan else None)
    if plan is not None and assembly.landing_zone_name and plan.config.name != assembly.landing_zone_name:
        raise AssemblyError(
            f"--assembly {assembly_path}: synthesized for landing zone {assembly.landing_zone_name!r}, but the "
            f"configuration names {plan.config.name!r}; pass the --config the assembly was synthesized with"
        )
    if not name:
        raise AssemblyError(f"--assembly {assembly_path}: no 'landing-zone' stack tag and no configuration to name it")
    return name


def _home_region(assembly: Assembly, plan: Plan | None, region: str | None) -> str:
    home = (
        region
        or (plan.config.home_region if plan else None)
        or next((s.region for s in assembly.stacks if s.region), None)
    )
    if not home:
        raise LandingZoneError("--region: the assembly is environment-agnostic and no configuration gives home_region")
    return home


def _plan_settings(plan: Plan | None) -> dict[str, Any]:
    """The context's settings that come from the plan (empty without one)."""
    if plan is None:
        return {
            "compliant_regions": (),
            "catalog": None,
            "config_target_ids": (),
            "self_hosting": None,
            "quota_alarms": (),
        }
    organization = plan.config.organization
    return {
        "compliant_regions": tuple(plan.config.compliant_regions),
        "catalog": plan.catalog,
        "config_target_ids": tuple(organization.target_ids) if organization else (),
        "self_hosting": plan.config.self_hosting,
        "quota_alarms": plan.quota_alarms.alarms,
    }


def _require_credentials(ctx: Context, profile: str | None) -> None:
    """No credentials (or expired ones): one actionable line, not one ERROR row per check.  An unreachable API
    stays a row per family (ERROR, exit 1): the network may fail for some endpoints only."""
    try:
        ctx.live.account()
    except ApiError as exc:
        if exc.description.startswith(CREDENTIAL_FAILURES):
            who = f"account {ctx.deployment_account}" if ctx.deployment_account else "the deployment account"
            using = f"profile {profile!r}" if profile else "the SDK's default credential chain"
            raise LandingZoneError(
                f"verify needs AWS credentials for {who}: {exc.description} ({using}); set AWS_PROFILE or pass "
                "--profile (after `aws sso login --profile NAME` for SSO)"
            ) from None


def _deployment_account(assembly: Assembly, plan: Plan | None) -> str | None:
    accounts = {s.account for s in assembly.stacks if s.account and any(r.type != SCP_TYPE for r in s.resources())}
    if len(accounts) == 1:
        return accounts.pop()
    return plan.config.deployment_account if plan else None
