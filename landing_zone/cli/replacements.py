"""``python -m landing_zone replacements``: would deploying the new assembly over the old one replace a resource
that has a name of its own?  CloudFormation cannot (review rule ``LZ-FORCED-REPLACEMENT``), so ``make synth`` runs
this between the assembly it just synthesized (``cdk.out.tmp``) and the one it is about to replace (``cdk.out``).

Exit codes: 0 nothing to replace (or every replacement accepted with ``--accept``), 2 a replacement nobody accepted
(each printed with its way out) or invalid input.  Needs the runtime dependencies only.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from landing_zone.assembly import load_assembly
from landing_zone.cli.common import Subparsers
from landing_zone.cli.flags import assembly_problem, check_all
from landing_zone.review.deployability import replacement_findings

__all__ = ["register"]

ACCEPT_HELP = (
    "make synth ACCEPT_REPLACEMENT='<stack>/<logical id> ...' (or --accept): you will remove the resource before "
    "deploying (deploy without it, or destroy its stack), or you give it a new name instead"
)


ACCEPTED = re.compile(r"^[A-Za-z][A-Za-z0-9-]*/[A-Za-z0-9]+$")  # a stack name, then a CloudFormation logical ID


def _old_problem(old: Path) -> str | None:
    if old.exists() and not old.is_dir():
        return "a directory: the assembly last synthesized, or none yet (the first synth)"
    return None


def _accept_problem(accepted: list[str]) -> str | None:
    bad = [a for a in accepted if not ACCEPTED.match(a)]
    return f"STACK/LOGICAL_ID (a stack name, '/', a logical ID); not: {', '.join(bad)}" if bad else None


def cmd_replacements(args: argparse.Namespace) -> int:
    check_all(  # every flag before any work
        [
            ("--new", str(args.new), lambda: assembly_problem(args.new)),
            ("--old", str(args.old), lambda: _old_problem(args.old)),
            ("--accept", args.accept, lambda: _accept_problem(args.accept)),
        ]
    )
    if not (args.old / "manifest.json").is_file():
        return 0  # the first synth: nothing is replaced
    findings = replacement_findings(load_assembly(args.old), load_assembly(args.new))
    accepted = set(args.accept)
    refused = [f for f in findings if f"{f.stack}/{f.logical_id}" not in accepted]
    for f in findings:
        where = f"{f.stack}/{f.logical_id}"
        label = "accepted" if where in accepted else "REFUSED"
        print(f"{label} {f.rule}: {f.message}", file=sys.stderr)
    unused = sorted(accepted - {f"{f.stack}/{f.logical_id}" for f in findings})
    for item in unused:
        print(f"note: --accept {item}: no resource of that stack and logical ID would be replaced", file=sys.stderr)
    if refused:
        print(
            f"error: {len(refused)} resource(s) with a name of their own would have to be replaced, which "
            f"CloudFormation cannot do; {args.old} is left as it was. To go on: {ACCEPT_HELP}",
            file=sys.stderr,
        )
        return 2
    return 0


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "replacements",
        help="refuse an assembly whose deployment would have to replace a resource with a name of its own "
        "(what `make synth` runs before it replaces cdk.out)",
        description="Compares two cloud assemblies per stack and logical ID: a resource that keeps its name "
        "property while one of its create-only properties (CloudFormation resource provider schema) changed would "
        "have to be replaced, which CloudFormation refuses for a custom-named resource. Exit 2 unless each is "
        "accepted.",
    )
    p.add_argument("--old", type=Path, required=True, metavar="DIR", help="the assembly deployed (or last synthesized)")
    p.add_argument("--new", type=Path, required=True, metavar="DIR", help="the assembly to deploy")
    p.add_argument(
        "--accept",
        action="append",
        default=[],
        metavar="STACK/LOGICAL_ID",
        help="a replacement you will make possible yourself (remove the resource first); repeatable",
    )
    p.set_defaults(func=cmd_replacements)
