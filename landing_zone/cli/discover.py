"""``discover``: what Bedrock offers per Region, written as a catalog overlay (see :mod:`landing_zone.discover`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from landing_zone.cli.common import Subparsers, add_config_args, raw_config_from_args
from landing_zone.cli.flags import out_file_problem, profile_problem
from landing_zone.cli.tiers import CLI, needs
from landing_zone.core.config import catalog_for
from landing_zone.discover import discover, format_summary, overlay_yaml, validate_overlay
from landing_zone.errors import ConfigError, Problem

__all__ = ["register"]


def _csv(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"got {text!r}; allowed: a comma-separated list")
    return items


def _cmd_discover(args: argparse.Namespace) -> int:
    # discover must run even when the current catalog makes the configuration invalid (that is what it fixes),
    # so it reads the raw configuration instead of building a plan.
    raw, origin = raw_config_from_args(args)
    catalog = catalog_for(raw, origin, strict=True)
    problems = []
    known_regions = set(catalog.regions)
    for i, region in enumerate(args.regions):
        if region not in known_regions:
            problems.append(
                Problem(
                    f"--regions[{i}]",
                    region,
                    f"not a Region of core/catalog/regions.yaml (known: {', '.join(sorted(known_regions))})",
                )
            )
    names = args.models or list(raw.get("models") or ())
    if not names:
        problems.append(Problem("--models", names, "give model IDs or aliases, or configure `models`"))
    model_ids = []
    for name in names:
        model = catalog.resolve_model(str(name))
        model_ids.append(model.id if model else str(name))
    for flag, value, why in (
        ("--out", args.out, out_file_problem(args.out) if args.out is not None else None),
        ("--profile", args.profile, profile_problem(args.profile)),
    ):
        if why is not None:
            problems.append(Problem(flag, value, why))
    if problems:  # every flag before any AWS call
        raise ConfigError(problems, origin="discover arguments")
    discovery = discover(args.regions, list(dict.fromkeys(model_ids)), catalog, profile=args.profile)
    text = overlay_yaml(discovery)
    validate_overlay(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
    if args.json:
        data = discovery.as_dict()
        data["out"] = args.out
        print(json.dumps(data, indent=2))
    else:
        summary = format_summary(discovery)
        if args.out:
            print(summary)
            print(f"\nwrote {args.out}: add it to `catalog_overlays` in the configuration to use it")
        else:
            print(text, end="")
            print(summary, file=sys.stderr)
    for problem in discovery.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return 1 if discovery.problems else 0


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "discover",
        help="read ListFoundationModels/ListInferenceProfiles per Region and write a verified catalog overlay",
        description="Per Region: ListFoundationModels (ON_DEMAND = in-Region, INFERENCE_PROFILE only = through a "
        "profile), ListInferenceProfiles(typeEquals=SYSTEM_DEFINED) + GetInferenceProfile (destination Regions) and "
        "GetFoundationModelAvailability for the allow-listed models; writes a catalog overlay (verified, as of "
        "today) to list in config `catalog_overlays`. Fields the APIs cannot see (aliases, context window, Mantle "
        "Regions) are kept from the catalog. Exit 0 written, 1 API failure or undescribable model, 2 usage error.",
    )
    p.add_argument("--regions", type=_csv, required=True, metavar="R1,R2", help="Regions to scan")
    p.add_argument(
        "--models", type=_csv, metavar="ID,...", help="model IDs or aliases (default: the configured models)"
    )
    p.add_argument("--out", metavar="FILE", help="write the overlay here (default: print it)")
    add_config_args(p)
    p.add_argument("--profile", metavar="P", help="AWS profile (default: the SDK's chain)")
    p.add_argument(
        "--json", action="store_true", help="machine-readable output (the overlay is still written with --out)"
    )
    p.set_defaults(func=_cmd_discover)
    needs(p, CLI)  # boto3, loaded by landing_zone.aws on the first call
