"""What every command shares: the configuration flags and the plan they select."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeAlias

from landing_zone.assembly import load_assembly
from landing_zone.core.config import check_regular_file, packaged_defaults, raw_config, read_cdk_json_defaults
from landing_zone.plan import Plan, load_plan
from landing_zone.plan.record import check_matches, plan_from_record
from landing_zone.plan.warnings import headline

__all__ = [
    "DEFAULT_ASSEMBLY",
    "Subparsers",
    "add_config_args",
    "add_verbose_arg",
    "default_cdk_json",
    "plan_for_assembly",
    "plan_from_args",
    "print_warnings",
    "raw_config_from_args",
]

DEFAULT_ASSEMBLY = "cdk.out"  # where `make synth` writes the cloud assembly
# The object `ArgumentParser.add_subparsers()` returns; every command module has `register(subparsers: Subparsers)`.
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def default_cdk_json() -> Path | None:
    """``./cdk.json`` when there is one (a project of its own), else None: the defaults the package ships
    (:func:`~landing_zone.core.config.packaged_defaults`, the repository's cdk.json context), so that the installed
    command reads no file of a checkout."""
    local = Path("cdk.json")
    return local if local.is_file() else None


def add_config_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", help="YAML/JSON config file merged over the cdk.json defaults")
    parser.add_argument("--cdk-json", metavar="PATH", type=Path, default=None, help="cdk.json with the defaults")


def add_verbose_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--verbose", action="store_true", help="print each warning in full, with its sources (default: one line each)"
    )


def print_warnings(warnings: Iterable[str | None], *, verbose: bool) -> None:
    """Each warning on stderr as one line (:func:`~landing_zone.plan.warnings.headline`), or in full with
    ``--verbose``; a last line says how many were shortened and where the full text is."""
    shortened = 0
    for warning in warnings:
        if not warning:
            continue
        text = warning if verbose else headline(warning)
        shortened += text != warning
        print(f"warning: {text}", file=sys.stderr)
    if shortened:
        print(
            f"({shortened} warning(s) shortened: --verbose prints them with their sources; the review report lists "
            "them in full)",
            file=sys.stderr,
        )


# What the configuration flags are called in messages: every problem of a file given on the command line names the
# flag the user typed (`--config`, `--cdk-json`), not the CDK context key (`config`).
CONFIG_FLAG = "--config"
CDK_JSON_FLAG = "--cdk-json"


def _defaults(args: argparse.Namespace) -> dict[str, Any]:
    """The ``landing_zone`` defaults of ``--cdk-json`` (refused when given and missing), of ./cdk.json, or the
    package's."""
    given = args.cdk_json is not None
    path = args.cdk_json if given else default_cdk_json()
    if path is None:
        return packaged_defaults()
    return read_cdk_json_defaults(path, key=CDK_JSON_FLAG if given else "cdk.json", required=given)


def plan_from_args(args: argparse.Namespace) -> Plan:
    """The plan of ``--config`` over the ``--cdk-json`` defaults (ConfigError, exit 2, when it is invalid)."""
    return load_plan(_defaults(args), args.config, key=CONFIG_FLAG)


def plan_for_assembly(args: argparse.Namespace, assembly_path: Path) -> Plan:
    """The plan an assembly was synthesized from: its recorded configuration (landing-zone.json) by default; with
    ``--config`` / ``--cdk-json``, that configuration, checked to resolve to the recorded one.  Assemblies without
    a record (synthesized before it existed) fall back to the configuration given, or the cdk.json defaults."""
    for flag, given in ((CONFIG_FLAG, args.config), (CDK_JSON_FLAG, args.cdk_json)):
        if given is not None:  # the files given are checked before the assembly is read
            check_regular_file(given, key=flag, origin=f"{flag} {given}")
    record = load_assembly(assembly_path).plan_record
    if record is None:
        return plan_from_args(args)
    where = f"--assembly {assembly_path}"
    if not (args.config or args.cdk_json):
        return plan_from_record(record, where=where)
    plan = plan_from_args(args)
    check_matches(plan, record, where=where)
    return plan


def raw_config_from_args(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """The merged raw configuration, for commands that must run while it does not validate (``discover``)."""
    raw, origin = raw_config(_defaults(args), args.config, key=CONFIG_FLAG)
    return dict(raw), origin
