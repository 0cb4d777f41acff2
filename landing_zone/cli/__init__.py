"""Command line: ``python -m landing_zone <command>``.

Commands read the same configuration as the CDK app: ``cdk.json`` context defaults, overridden by ``--config``.
Exit codes: 0 success, 2 invalid input (config, flags) with a readable message and no traceback.

Every command module has one entry point, ``register(subparsers)``, and takes its configuration flags and plan
from :mod:`landing_zone.cli.common`; :data:`COMMANDS` lists them in the order ``--help`` shows them.  A command
module imports only the runtime (requirements.txt) at load time; a command that needs more declares its tier with
:func:`landing_zone.cli.tiers.needs` and loads it when it runs (:mod:`landing_zone.cli.tiers`).
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Sequence

from landing_zone import __version__
from landing_zone.cli import (
    actiondb,
    config,
    cost,
    discover,
    guardrails,
    preflight,
    prove,
    replacements,
    review,
    verify,
)
from landing_zone.cli.tiers import require
from landing_zone.errors import LandingZoneError
from landing_zone.plan.record import installed_version

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS = (config, guardrails, prove, cost, review, replacements, preflight, verify, discover, actiondb)


def version_text() -> str:
    """This tool's version and the pinned libraries that decide what it synthesizes."""

    return (
        f"landing_zone {__version__} (aws-cdk-lib {installed_version('aws-cdk-lib')}, cdk-nag {installed_version('cdk-nag')}, "
        f"pydantic {installed_version('pydantic')}, Python {platform.python_version()})"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m landing_zone",
        description="The Kimi K3.1 Pro on Amazon Bedrock landing zone: validate, explain, cost, review and verify it.",
    )
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        require(args)
        return int(args.func(args))
    except LandingZoneError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
