"""Command line: ``python -m landing_zone <command>``.

Commands read the same configuration as the CDK app: ``cdk.json`` context defaults, overridden by ``--config``.
Exit codes: 0 success, 2 invalid input (config, flags) with a readable message and no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from landing_zone import cost_cli, discover, verify
from landing_zone.review import cli as review_cli
from landing_zone.config import json_schema, read_cdk_json_defaults
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan, load_plan
from landing_zone.routing import format_table

REPO_ROOT = Path(__file__).resolve().parent.parent


def _default_cdk_json() -> Path:
    local = Path("cdk.json")
    return local if local.is_file() else REPO_ROOT / "cdk.json"


def add_config_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", help="YAML/JSON config file merged over the cdk.json defaults")
    parser.add_argument("--cdk-json", metavar="PATH", type=Path, default=None, help="cdk.json with the defaults")


def plan_from_args(args: argparse.Namespace) -> Plan:
    defaults = read_cdk_json_defaults(args.cdk_json or _default_cdk_json())
    return load_plan(defaults, args.config)


def cmd_schema(args: argparse.Namespace) -> int:
    print(json.dumps(json_schema(), indent=2, sort_keys=True))
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    plan = plan_from_args(args)
    if not args.quiet:  # `make synth` validates quietly: the CDK app prints the same warnings once
        for warning in plan.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if plan.placeholder_warning:  # valid, so exit 0, but said out loud
            print(f"warning: {plan.placeholder_warning}", file=sys.stderr)
    routes = plan.routing.compliant_routes()
    print(
        f"configuration OK: {plan.config.name} in {plan.config.home_region}, "
        f"{len(plan.models)} model(s), {len(routes)} compliant path(s)"
    )
    return 0


def cmd_routes(args: argparse.Namespace) -> int:
    plan = plan_from_args(args)
    if args.json:
        print(
            json.dumps(
                {
                    "home_region": plan.routing.home_region,
                    "compliant_regions": list(plan.routing.compliant_regions),
                    "allow_global_inference": plan.routing.allow_global_inference,
                    "routes": plan.routing.as_rows(),
                    "warnings": list(plan.warnings),
                },
                indent=2,
            )
        )
    else:
        print(format_table(plan.routing))
        for warning in plan.warnings:
            print(f"\nwarning: {warning}", file=sys.stderr)
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from landing_zone.simulate import parse_context, scps_from_assembly, scps_from_plan, simulate

    context = parse_context(args.context)
    if args.assembly:
        scps, source = scps_from_assembly(args.assembly), f"SCPs in {args.assembly}"
    else:
        scps, source = scps_from_plan(plan_from_args(args)), "guardrails compiled from the configuration"
    result = simulate(
        action=args.action,
        resource=args.resource,
        region=args.region,
        principal_arn=args.principal_arn,
        context=context,
        scps=scps,
        source=source,
    )
    print(json.dumps(result.as_dict(), indent=2) if args.json else result.text())
    return 0 if result.decision.allowed else 1


def cmd_threat_model(args: argparse.Namespace) -> int:
    """The red-team table of docs/THREAT_MODEL.md, evaluated against the SCPs compiled from the configuration."""
    from landing_zone.policies.evaluator import FULL_AWS_ACCESS
    from landing_zone.policies.guardrails import scp_documents
    from landing_zone.review.redteam import evaluate_attacks, threat_model_markdown

    plan = plan_from_args(args)
    if plan.config.organization is None:
        raise LandingZoneError("threat-model needs an `organization` block: the threat model is an administrator of "
                               "a targeted member account, and only SCPs bind one (docs/THREAT_MODEL.md)")
    scps = scp_documents(plan.config, plan.routing, plan.catalog)
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), *((f"scp-{i}", d) for i, d in enumerate(scps.documents, start=1))]]
    results, skipped = evaluate_attacks(plan, levels)
    print(threat_model_markdown(plan, results, skipped), end="")
    return 0 if all(r.ok for r in results) else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m landing_zone", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("schema", help="print the JSON Schema of the configuration")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser("validate", help="validate the configuration (what `make synth` runs first)")
    add_config_args(p)
    p.add_argument("--quiet", action="store_true", help="print problems only, not the warnings")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("routes", help="print the routing matrix: compliant and rejected invocation paths")
    add_config_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_routes)

    p = sub.add_parser(
        "simulate",
        help="would the guardrail SCPs allow this request? (exit 0 allowed, 1 denied)",
        description="Evaluate one request against FullAWSAccess + the guardrail SCPs and name the deciding statement.",
    )
    add_config_args(p)
    p.add_argument("--action", required=True, help="e.g. bedrock:InvokeModel")
    p.add_argument("--resource", required=True, help="resource ARN, or *")
    p.add_argument("--region", help="aws:RequestedRegion (use 'unspecified' for the global leg)")
    p.add_argument("--principal-arn", help="aws:PrincipalARN of the caller")
    p.add_argument("--context", action="append", default=[], metavar="KEY=VALUE",
                   help="further condition keys, repeatable; commas make a multivalued key")
    p.add_argument("--assembly", type=Path, help="read the SCPs from this cloud assembly instead of the config")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "threat-model",
        help="evaluate the red-team table against the guardrail SCPs (Markdown; exit 1 if any attack gets through)",
    )
    add_config_args(p)
    p.set_defaults(func=cmd_threat_model)

    cost_cli.register(sub, add_config_args, plan_from_args)
    review_cli.register(sub)
    verify.register(sub, add_config_args, plan_from_args)
    discover.register(sub, add_config_args, plan_from_args)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except LandingZoneError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
