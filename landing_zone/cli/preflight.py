"""``python -m landing_zone preflight``: the organization and the governed accounts against the deploy of a
configuration, before deploying (see :mod:`landing_zone.preflight`)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from landing_zone.cli.common import Subparsers, add_config_args, plan_from_args
from landing_zone.cli.flags import FlagCheck, check_all, profile_problem
from landing_zone.cli.tiers import CLI, needs
from landing_zone.plan import Plan

__all__ = ["register"]

ACCOUNT_PROFILE = re.compile(r"^(?P<account>[^=\s]+)=(?P<profile>\S+)$")


def _account_profile(text: str) -> tuple[str, str]:
    found = ACCOUNT_PROFILE.match(text)
    if not found:
        raise argparse.ArgumentTypeError(
            f"got {text!r}; allowed: ACCOUNT=PROFILE (an account ID or name of `accounts`)"
        )
    return found["account"], found["profile"]


def _known_accounts(plan: Plan) -> dict[str, str]:
    """Account ID by every name or ID an --account-profile may use."""
    cfg = plan.config
    known = dict(cfg.account_ids_by_name_or_id)
    for account in (cfg.deployment_account, *(b for b in _bootstrap_accounts(plan))):
        known.setdefault(account, account)
    if cfg.organization is not None:
        known.setdefault(cfg.organization.management_account_id, cfg.organization.management_account_id)
    return known


def _refused(why: str) -> Callable[[], str | None]:
    return lambda: why


def _account_profiles(plan: Plan, given: list[tuple[str, str]]) -> tuple[dict[str, str], list[FlagCheck]]:
    """The profiles of ACCOUNT=PROFILE by account ID, and a refusal for each account the configuration does not
    have or that is given twice."""
    known, out = _known_accounts(plan), {}
    refused: list[FlagCheck] = []
    for i, (account, profile) in enumerate(given):
        account_id = known.get(account)
        if account_id is None:
            why = f"not an account of the configuration (known: {', '.join(sorted(known))})"
            refused.append((f"--account-profile[{i}]", account, _refused(why)))
        elif account_id in out:
            refused.append((f"--account-profile[{i}]", account, _refused("given twice: one profile per account")))
        else:
            out[account_id] = profile
    return out, refused


def _bootstrap_accounts(plan: Plan) -> list[str]:
    from landing_zone.preflight.intent import bootstraps

    return [b.account for b in bootstraps(plan)]


def _cmd_preflight(args: argparse.Namespace) -> int:
    # On use: preflight needs boto3 (the CLI tier, requirements-cli.txt); the CLI edge loads it late, as verify does.
    from landing_zone.preflight import preflight
    from landing_zone.preflight.render import to_json, to_text

    plan = plan_from_args(args)  # local: the configuration names the accounts an --account-profile may use
    given = args.account_profile or []
    account_profiles, refused = _account_profiles(plan, given)
    check_all(  # every flag before any AWS call
        [
            ("--profile", args.profile, lambda: profile_problem(args.profile)),
            ("--management-profile", args.management_profile, lambda: profile_problem(args.management_profile)),
            *refused,
            *(
                (f"--account-profile[{i}]", f"{account}={profile}", lambda p=profile: profile_problem(p))
                for i, (account, profile) in enumerate(given)
                if not any(flag == f"--account-profile[{i}]" for flag, _, _ in refused)
            ),
        ]
    )
    report = preflight(
        plan, profile=args.profile, management_profile=args.management_profile, account_profiles=account_profiles
    )
    print(to_json(report) if args.json else to_text(report))
    return report.exit_code


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "preflight",
        help="read the organization and the governed accounts before deploying: every conflict with the deploy "
        "(exit 0 none, 1 a conflict or something unread)",
        description="Read-only, before the first deploy: the SCPs attached to and inherited by each target and "
        "governed account (Control Tower's aws-guardrails-*, Landing Zone Accelerator's AcceleratorGuardrails*, "
        "yours), the slots left per target, the policy types and delegated administrators, the organization's SCPs "
        "evaluated against the landing zone's routes and deploy calls, and in each governed account the invocation "
        "logging configuration, the data retention mode per Region, the anomaly monitors, the AWS Config recorder and "
        "the CDK bootstrap stacks. Prints each conflict with what the deploy would do and how to resolve it "
        "(docs/LANDING_IN_AN_EXISTING_ORGANIZATION.md). Exit 0 when nothing blocks the deploy, 1 on a conflict or a "
        "read that failed, 2 on usage errors. Honours AWS_ENDPOINT_URL.",
    )
    add_config_args(p)
    p.add_argument("--profile", metavar="P", help="AWS profile of the deployment account (default: the SDK's chain)")
    p.add_argument(
        "--management-profile",
        metavar="P",
        help="AWS profile for the Organizations reads (management or delegated administrator account; "
        "default: --profile)",
    )
    p.add_argument(
        "--account-profile",
        action="append",
        type=_account_profile,
        metavar="ACCOUNT=PROFILE",
        help="AWS profile of another account preflight reads (an account ID or name of `accounts`; repeat per "
        "account). Without one, an account is read with the default chain only when that is its credentials",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_cmd_preflight)
    needs(p, CLI)
