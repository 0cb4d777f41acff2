"""``python -m landing_zone cost actual``: the month's estimate (token metrics x catalogued prices) against the bill.

A sub-command of ``cost`` (``cost`` with its flags keeps working): reads Cost Explorer and CloudWatch through
:func:`landing_zone.aws.client`; the comparison is :mod:`landing_zone.finops.actual`.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime

from landing_zone.cli.common import add_config_args, plan_from_args
from landing_zone.cli.flags import check_all, profile_problem, region_problem
from landing_zone.cli.tiers import CLI, needs
from landing_zone.finops.actual import MONTH_FORM, actual_report, format_actual, parse_month

__all__ = ["register_under"]


def _month(text: str) -> str:
    try:
        parse_month(text, datetime.now(UTC).date())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _cmd_actual(args: argparse.Namespace) -> int:
    check_all(  # every flag before any AWS call
        [
            ("--profile", args.profile, lambda: profile_problem(args.profile)),
            ("--region", args.region, lambda: region_problem(args.region)),
        ]
    )
    plan = plan_from_args(args)
    month = parse_month(args.month, datetime.now(UTC).date())
    report = actual_report(plan, month, profile=args.profile, region=args.region)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print(format_actual(report))
    return 0


def register_under(cost_parser: argparse.ArgumentParser) -> None:
    """Add ``actual`` as a sub-command of ``cost``."""
    sub = cost_parser.add_subparsers(dest="cost_command", metavar="{actual}", required=False)
    p = sub.add_parser(
        "actual",
        help="the month's estimate from token metrics against the Cost Explorer bill, per application and path",
        description="Reads ce:GetCostAndUsage (Bedrock services, including '<Model> (Amazon Bedrock Edition)', "
        "grouped by the 'application' cost-allocation tag), ce:ListCostAllocationTags, "
        "bedrock:ListInferenceProfiles and cloudwatch:GetMetricData (the spend alarms' token series), and prints "
        "the estimate, the billed cost and the difference.",
    )
    p.add_argument("--profile", metavar="P", help="AWS profile of the deployment account (default: the SDK's chain)")
    p.add_argument("--month", type=_month, metavar="YYYY-MM", help=f"{MONTH_FORM}; default: the current month")
    p.add_argument("--region", metavar="R", help="Region of the token metrics (default: home_region)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_config_args(p)
    p.set_defaults(func=_cmd_actual)
    needs(p, CLI)  # boto3, loaded by landing_zone.aws on the first call
