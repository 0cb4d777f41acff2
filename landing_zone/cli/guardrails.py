"""Guardrail commands: ``simulate`` (one request) and ``threat-model`` (the red-team table)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from landing_zone.cli.common import (
    DEFAULT_ASSEMBLY,
    Subparsers,
    add_config_args,
    add_verbose_arg,
    plan_from_args,
    print_warnings,
)
from landing_zone.cli.request_inputs import check_request
from landing_zone.core.catalog import load_catalog
from landing_zone.errors import LandingZoneError
from landing_zone.policies.evaluator import FULL_AWS_ACCESS
from landing_zone.simulate import (
    Guardrails,
    guardrails_from_assembly,
    guardrails_from_plan,
    parse_context,
    simulate,
)
from landing_zone.tables.attacks import evaluate_attacks, threat_model_markdown

__all__ = ["register"]


def _guardrails(args: argparse.Namespace) -> tuple[Guardrails, str]:
    """The guardrails to evaluate and a line saying where they come from: ``--assembly``; else ``./cdk.out`` when
    it exists and no ``--config``/``--cdk-json`` is given (what was just synthesized); else the configuration."""
    if args.assembly is not None:
        return guardrails_from_assembly(args.assembly), f"simulate: guardrails read from the assembly {args.assembly}"
    local = Path(DEFAULT_ASSEMBLY)
    explicit_config = bool(args.config or args.cdk_json)
    if not explicit_config and (local / "manifest.json").is_file():
        return guardrails_from_assembly(local), (
            f"simulate: guardrails read from the assembly {local.resolve()} (./{DEFAULT_ASSEMBLY}; --config PATH "
            "compiles them from a configuration instead)"
        )
    plan = plan_from_args(args)
    why = "" if explicit_config else f" (no ./{DEFAULT_ASSEMBLY}/manifest.json here)"
    return guardrails_from_plan(plan), f"simulate: guardrails compiled from {plan.source.origin}{why}"


def cmd_simulate(args: argparse.Namespace) -> int:
    context = parse_context(args.context)
    catalog = load_catalog()
    checked = check_request(
        action=args.action,
        resource=args.resource,
        region=args.region,
        principal_arn=args.principal_arn,
        context=context,
        catalog=catalog,
        unchecked=args.unchecked,
    )
    guardrails, source_line = _guardrails(args)
    print(source_line, file=sys.stderr)
    for note in checked.notes:
        print(f"note: {note}", file=sys.stderr)
    print_warnings(checked.warnings, verbose=args.verbose)
    result = simulate(
        action=args.action,
        resource=args.resource,
        region=checked.region,
        principal_arn=args.principal_arn,
        context=context,
        guardrails=guardrails,
        warnings=checked.warnings,
    )
    print(json.dumps(result.as_dict(), indent=2) if args.json else result.text())
    return 0 if result.decision.allowed else 1


def cmd_threat_model(args: argparse.Namespace) -> int:
    """The red-team table of docs/THREAT_MODEL.md, evaluated against the SCPs compiled from the configuration."""
    plan = plan_from_args(args)
    if plan.config.organization is None:
        raise LandingZoneError(
            "threat-model needs an `organization` block: the threat model is an administrator of "
            "a targeted member account, and only SCPs bind one (docs/THREAT_MODEL.md)"
        )
    scps = plan.policies.scp_set
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), *((p.name, p.document) for p in scps.policies)]]
    results, skipped = evaluate_attacks(plan, levels)
    print(threat_model_markdown(plan, results, skipped), end="")
    return 0 if all(r.ok for r in results) else 1


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="would the guardrails allow this request? (exit 0 allowed, 1 denied)",
        description="Evaluate one request against the guardrails the configuration deploys and name the deciding "
        "statement: the SCPs together with FullAWSAccess (organization configurations), or the invoker roles' "
        "permissions boundary (single-account configurations, where no SCP is deployed).",
    )
    add_config_args(p)
    p.add_argument(
        "--action", required=True, help="SERVICE:ACTION known to the IAM action database, e.g. bedrock:InvokeModel"
    )
    p.add_argument("--resource", required=True, help="one resource ARN (Region from the catalog, or none), or *")
    p.add_argument(
        "--region",
        help="aws:RequestedRegion: a catalog Region, or 'unspecified' for the global profile's leg (default: the "
        "resource ARN's Region)",
    )
    p.add_argument("--principal-arn", help="aws:PrincipalARN of the caller")
    p.add_argument(
        "--context",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="further condition keys, repeatable; commas make a multivalued key",
    )
    p.add_argument(
        "--assembly",
        type=Path,
        metavar="DIR",
        help=f"read the guardrails from this cloud assembly (default: ./{DEFAULT_ASSEMBLY} when it exists and no "
        "--config is given; else they are compiled from the configuration)",
    )
    p.add_argument(
        "--unchecked",
        action="store_true",
        help="evaluate a request with an unknown action, ARN or Region as written (problems become warnings), "
        "e.g. a `prove` counterexample",
    )
    p.add_argument("--json", action="store_true")
    add_verbose_arg(p)
    p.set_defaults(func=cmd_simulate)

    p = subparsers.add_parser(
        "threat-model",
        help="evaluate the red-team table against the guardrail SCPs (Markdown; exit 1 if any attack gets through)",
    )
    add_config_args(p)
    p.set_defaults(func=cmd_threat_model)
