"""``python -m landing_zone.actiondb refresh [--source DIR] [--check]``: the same as ``python -m landing_zone actiondb
refresh``, without loading the rest of the landing zone (which reads the action space this rewrites)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from landing_zone.actiondb.refresh import RefreshError, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m landing_zone.actiondb", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("refresh")
    r.add_argument("--source", type=Path, default=None)
    r.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    try:
        return run(args.source, check=args.check)
    except RefreshError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
