"""``python -m landing_zone verify``: the live account against the synthesized assembly."""

from __future__ import annotations

import argparse
from pathlib import Path

from landing_zone.cli.common import Subparsers, add_config_args, plan_for_assembly
from landing_zone.cli.flags import assembly_problem, bucket_problem, check_all, profile_problem, region_problem
from landing_zone.cli.tiers import CLI, needs

__all__ = ["register"]


def _cmd_verify(args: argparse.Namespace) -> int:
    from landing_zone.verify import verify  # boto3 (the CLI tier)

    check_all(  # every flag before any AWS call
        [
            ("--assembly", str(args.assembly), lambda: assembly_problem(args.assembly)),
            ("--profile", args.profile, lambda: profile_problem(args.profile)),
            ("--management-profile", args.management_profile, lambda: profile_problem(args.management_profile)),
            ("--region", args.region, lambda: region_problem(args.region)),
            ("--invocation-log-bucket", args.invocation_log_bucket, lambda: bucket_problem(args.invocation_log_bucket)),
        ]
    )
    plan = plan_for_assembly(args, args.assembly)
    report = verify(
        args.assembly,
        plan=plan,
        profile=args.profile,
        management_profile=args.management_profile,
        region=args.region,
        invocation_log_bucket=args.invocation_log_bucket,
        stackset_member=args.stackset_member,
    )
    print(report.to_json() if args.json else report.text())
    return report.exit_code


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "verify",
        help="compare the live account with the synthesized assembly (exit 0 all holds, 1 drift/missing/error)",
        description="Post-deploy verification: every resource of the cloud assembly, read by resource type and "
        "compared with the live account, check family by check family (docs/VERIFY.md lists them; --json names "
        "each row's check). Exit 0 when everything holds, 1 on any "
        "drift, missing resource or check that could not be made (API unreachable or unauthorised), 2 on usage "
        "errors.",
    )
    p.add_argument(
        "--assembly",
        type=Path,
        default=Path("cdk.out"),
        metavar="DIR",
        help="cloud assembly to verify against (default: cdk.out)",
    )
    add_config_args(p)
    p.add_argument("--profile", metavar="P", help="AWS profile of the deployment account (default: the SDK's chain)")
    p.add_argument(
        "--management-profile",
        metavar="P",
        help="AWS profile for the Organizations checks (management or delegated administrator account; "
        "default: --profile)",
    )
    p.add_argument("--region", metavar="R", help="Region of the stacks (default: each stack's Region in the assembly)")
    p.add_argument(
        "--invocation-log-bucket",
        metavar="NAME",
        help="invocation-log bucket name (default: resolved from the access stack with CloudFormation "
        "ListStackResources, else from the configured bucket's aws:cloudformation:* tags)",
    )
    p.add_argument(
        "--stackset-member",
        action="store_true",
        help="member_baseline: verify the StackSet's member template in the account of --profile (a member "
        "account) instead of the assembly's own stacks",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_cmd_verify)
    needs(p, CLI)
