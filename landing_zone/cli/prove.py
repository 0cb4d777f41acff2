"""``prove``: properties P1-P6 of the synthesized policies, for every request (landing_zone.prove.proofs)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from landing_zone.cli.common import Subparsers, add_config_args, plan_for_assembly
from landing_zone.cli.flags import assembly_problem, check_all
from landing_zone.cli.tiers import CLI, needs

__all__ = ["register"]

_TIMEOUT = "seconds between 0 (exclusive) and 3600"


def cmd_prove(args: argparse.Namespace) -> int:
    check_all(
        [
            ("--timeout", args.timeout, lambda: None if 0 < args.timeout <= 3600 else _TIMEOUT),
            ("--assembly", str(args.assembly), lambda: assembly_problem(args.assembly)),
        ]
    )
    from landing_zone.prove.proofs import default_jobs, inputs_from_assembly, prove_all  # z3 (the CLI tier)

    plan = plan_for_assembly(args, args.assembly)
    report = prove_all(
        inputs_from_assembly(args.assembly, plan), timeout_ms=int(args.timeout * 1000), jobs=default_jobs()
    )
    print(json.dumps(report.as_dict(), indent=2) if args.json else report.text(every_obligation=args.obligations))
    return 0 if report.all_hold else 1


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "prove",
        help="prove P1-P6 of the synthesized policies for every request (exit 0 all hold, 1 one does not, 2 bad input)",
        description="Encode the synthesized SCPs, invoker boundary, invoker identity policies and VPC endpoint "
        "policies for the z3 SMT solver and prove the properties of docs/PROVE.md; a property that does not hold is "
        "shown with a counterexample as a `simulate` command line, replayed through the evaluator.",
    )
    add_config_args(p)
    p.add_argument("--assembly", type=Path, default=Path("cdk.out"), help="the cloud assembly (default: cdk.out)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per proof obligation (default: 10)")
    p.add_argument("--json", action="store_true", help="the report as JSON: per property every obligation by verdict")
    p.add_argument(
        "--obligations", action="store_true", help="list the obligations that hold too (default: those that do not)"
    )
    p.set_defaults(func=cmd_prove)
    needs(p, CLI)
