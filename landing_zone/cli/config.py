"""Configuration commands: ``schema``, ``validate``, ``routes``, ``deploy-plan``."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from landing_zone.cli.common import Subparsers, add_config_args, add_verbose_arg, plan_from_args, print_warnings
from landing_zone.core.config import json_schema
from landing_zone.core.routing import format_table
from landing_zone.plan import Plan
from landing_zone.plan.deployment import deployment_steps, format_steps, removal_steps
from landing_zone.review.matrices import service_tiers, tier_text

__all__ = ["register"]


def cmd_schema(args: argparse.Namespace) -> int:
    print(json.dumps(json_schema(), indent=2, sort_keys=True))
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    plan = plan_from_args(args)
    if not args.quiet:  # `make synth` validates quietly: the CDK app prints the same warnings once
        # the placeholder warning too: valid, so exit 0, but said out loud
        print_warnings([*plan.warnings, plan.placeholder_warning], verbose=args.verbose)
    routes = plan.routing.compliant_routes()
    print(
        f"configuration OK: {plan.config.name} in {plan.config.home_region}, "
        f"{len(plan.models)} model(s), {len(routes)} compliant path(s)"
    )
    return 0


def _tier_lines(plan: Plan) -> list[dict[str, Any]]:
    """Per compliant (model, path): the allowed service tiers with their prices (the review's routing matrix)."""
    pairs = dict.fromkeys((r.model_id, r.kind.value) for r in plan.routing.compliant_routes())
    return [{"model_id": m, "path": p, "tiers": service_tiers(plan, m, p)} for m, p in pairs]


def cmd_routes(args: argparse.Namespace) -> int:
    plan = plan_from_args(args)
    tiers = _tier_lines(plan)
    if args.json:
        print(
            json.dumps(
                {
                    "home_region": plan.routing.home_region,
                    "compliant_regions": list(plan.routing.compliant_regions),
                    "inference_source_regions": list(plan.config.source_regions),
                    "allow_global_inference": plan.routing.allow_global_inference,
                    "routes": plan.routing.as_rows(),
                    "allowed_service_tiers": list(plan.config.policy_guardrails.allowed_service_tiers),
                    "service_tiers": tiers,
                    "warnings": list(plan.warnings),
                },
                indent=2,
            )
        )
    else:
        print(format_table(plan.routing))
        print(
            f"\ninference_source_regions: {', '.join(plan.config.source_regions)} (inference may be started only "
            "there, where invocation logging and the spend alarms are; a compliant path's legs still reach its "
            "destinations)"
        )
        print(
            f"service tiers allowed: {', '.join(plan.config.policy_guardrails.allowed_service_tiers)} "
            "(policy_guardrails.allowed_service_tiers; any other tier is denied)"
        )
        for line in tiers:
            print(f"  {line['model_id']} {line['path']}: {tier_text(line['tiers'])}")
        print_warnings(plan.warnings, verbose=args.verbose)
    return 0


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("schema", help="print the JSON Schema of the configuration")
    p.set_defaults(func=cmd_schema)

    p = subparsers.add_parser("validate", help="validate the configuration (what `make synth` runs first)")
    add_config_args(p)
    p.add_argument("--quiet", action="store_true", help="print problems only, not the warnings")
    add_verbose_arg(p)
    p.set_defaults(func=cmd_validate)

    p = subparsers.add_parser("routes", help="print the routing matrix: compliant and rejected invocation paths")
    add_config_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_verbose_arg(p)
    p.set_defaults(func=cmd_routes)
    register_deploy_plan(subparsers)


def cmd_deploy_plan(args: argparse.Namespace) -> int:
    plan = plan_from_args(args)
    steps = (removal_steps if args.remove else deployment_steps)(plan, config_path=args.config)
    if args.json:
        print(json.dumps([asdict(s) for s in steps], indent=2))
    else:
        print(format_steps(plan, steps, removal=args.remove), end="")
        print_warnings([plan.placeholder_warning], verbose=args.verbose)
    return 0


def register_deploy_plan(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "deploy-plan",
        help="print the commands of a first deployment: which stack goes to which account, in which order",
        description="An organization configuration spans accounts: the guardrail SCPs go to the management account, "
        "the workload stacks to the deployment account, the member-baseline StackSet to its administrator. This "
        "prints the bootstrap and deploy commands in order, each with the account it must run in; --remove prints the "
        "way out (docs/DEPLOY.md, 'Remove the landing zone').",
    )
    add_config_args(p)
    p.add_argument(
        "--remove",
        action="store_true",
        help="the commands that remove the landing zone instead: detach the SCPs, destroy the workload stacks, then "
        "the management stack",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_verbose_arg(p)
    p.set_defaults(func=cmd_deploy_plan)
