"""``python -m landing_zone preflight``: read the organization and the governed accounts before the first deploy, and
report every conflict between what is there and what the deploy of the configuration will do.

Read-only.  Every AWS call goes through :func:`landing_zone.aws.client` (the standard credential chain, a profile per
account role, ``AWS_ENDPOINT_URL`` honoured by the SDK).  What it reads and judges:

* the organization (:mod:`.organization`): the policy types enabled on the root, the delegated administrators, the
  SCPs attached to and inherited by each target and governed account (:mod:`.governance`);
* slot arithmetic per target (:mod:`.slots`);
* the organization's SCPs against the landing zone's routes and the deploy's own calls (:mod:`.scps`, with the
  project's evaluator);
* each workload account's singletons (:mod:`.accounts`) and each bootstrapped account's toolkit stacks
  (:mod:`.bootstrap`).

Exit 0 when nothing blocks the deploy, 1 on a conflict or something that could not be read, 2 on bad input.
"""

from __future__ import annotations

from collections.abc import Mapping

from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan
from landing_zone.preflight import intent
from landing_zone.preflight.accounts import check_account
from landing_zone.preflight.bootstrap import check_bootstrap
from landing_zone.preflight.governance import check_delegated, check_policy_types
from landing_zone.preflight.model import Finding, Report, Severity, SlotRow
from landing_zone.preflight.organization import read_organization
from landing_zone.preflight.reading import Context
from landing_zone.preflight.scps import check_account_scps
from landing_zone.preflight.slots import check_slots
from landing_zone.verify.live import CREDENTIAL_FAILURES, ApiError, Live

__all__ = ["Finding", "Report", "Severity", "preflight"]


def preflight(
    plan: Plan,
    *,
    profile: str | None = None,
    management_profile: str | None = None,
    account_profiles: Mapping[str, str] | None = None,
) -> Report:
    """Read and judge (see the module docstring).  ``profile``: the deployment account's; ``management_profile``:
    Organizations (the management account or a delegated administrator; default ``profile``); ``account_profiles``:
    account ID -> profile for the other accounts preflight reads (default: the credential chain, used only when it
    is that account's)."""
    cfg = plan.config
    management_profile = management_profile or profile
    home = cfg.home_region
    management = Live(profile=management_profile, management_profile=management_profile, region=home)
    ctx = Context(plan, management, {})
    _require_credentials(management, management_profile)
    applying: dict[str, list[tuple[str, str, str]]] = {}
    slots: tuple[SlotRow, ...] = ()
    if cfg.organization is not None:
        nodes = tuple(dict.fromkeys((*intent.attachment_targets(plan), *intent.governed_accounts(plan))))
        org = read_organization(ctx, nodes)
        if org is not None:
            check_policy_types(ctx, org)
            check_delegated(ctx, org)
            slots = check_slots(ctx, org)
            for account in intent.governed_accounts(plan):
                applying[account] = check_account_scps(ctx, org, account)
    for account in intent.workload_accounts(plan):
        live = _confirmed(ctx, account, profile, management_profile, account_profiles)
        if live is not None:
            check_account(ctx, account, live)
    for boot in intent.bootstraps(plan):
        live = _confirmed(ctx, boot.account, profile, management_profile, account_profiles)
        if live is not None:
            check_bootstrap(ctx, boot, live)
    order = {Severity.CONFLICT: 0, Severity.UNCHECKED: 1, Severity.NOTE: 2}
    findings = tuple(sorted(ctx.findings, key=lambda f: order[f.severity]))
    return Report(cfg.name, findings, slots, applying)


def _profile_for(
    plan: Plan,
    account: str,
    profile: str | None,
    management_profile: str | None,
    account_profiles: Mapping[str, str] | None,
) -> str | None:
    if account_profiles and account in account_profiles:
        return account_profiles[account]
    org = plan.config.organization
    if org is not None and account == org.management_account_id:
        return management_profile
    return profile if account == plan.config.deployment_account else None


def _confirmed(
    ctx: Context,
    account: str,
    profile: str | None,
    management_profile: str | None,
    account_profiles: Mapping[str, str] | None,
) -> Live | None:
    """The account's Live once its credentials are confirmed to be that account's; None, with one ``unchecked``
    finding, when they are not (both remembered per account)."""
    if account in ctx.accounts:
        return ctx.accounts[account]
    chosen = _profile_for(ctx.plan, account, profile, management_profile, account_profiles)
    live = Live(profile=chosen, management_profile=management_profile, region=ctx.home)
    using = f"profile {chosen!r}" if chosen else "the default credential chain"
    resolve = f"pass --account-profile {account}=PROFILE (read-only credentials of account {account})"
    finding = None
    try:
        actual = live.account()
    except ApiError as exc:
        finding = f"{using}: {exc.description}"
    else:
        if actual != account:
            finding = f"{using} are account {actual}'s"
    ctx.accounts[account] = None if finding else live
    if finding:
        ctx.add(Finding("credentials", f"account {account}", finding, "not read", resolve, Severity.UNCHECKED))
    return ctx.accounts[account]


def _require_credentials(live: Live, profile: str | None) -> None:
    """No credentials at all: one actionable line (exit 2), as ``verify`` does."""
    try:
        live.account()
    except ApiError as exc:
        if exc.description.startswith(CREDENTIAL_FAILURES):
            using = f"profile {profile!r}" if profile else "the SDK's default credential chain"
            raise LandingZoneError(
                f"preflight needs AWS credentials: {exc.description} ({using}); set AWS_PROFILE or pass --profile / "
                "--management-profile (after `aws sso login --profile NAME` for SSO)"
            ) from None
