"""``python -m landing_zone review``: the policy review of a synthesized cloud assembly.

Writes ``policy-review.md``, ``policy-review.html``, ``policy-review.json`` and ``policy-review.sarif`` into
``--out``.  Exit codes: 0 no blocking finding, 1 blocking findings, 2 invalid input (assembly, config, flags;
raised as :class:`~landing_zone.errors.LandingZoneError` and printed by ``__main__.main`` without traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from landing_zone.cli.common import Subparsers, add_config_args, plan_for_assembly
from landing_zone.cli.flags import assembly_problem, check_all, out_dir_problem
from landing_zone.cli.tiers import CLI, needs
from landing_zone.errors import LandingZoneError
from landing_zone.review.exports import findings_asff, findings_csv
from landing_zone.review.render_html import render_html
from landing_zone.review.render_md import render_markdown
from landing_zone.review.sarif import render_sarif
from landing_zone.review.scanners import DEFAULT_SKIPS_FILE

__all__ = ["OUTPUT_NAMES", "register", "run_review", "write_reports"]

OUTPUT_NAMES = (
    "policy-review.md",
    "policy-review.html",
    "policy-review.json",
    "policy-review.sarif",
    "policy-review.csv",
    "policy-review.asff.json",
)


def write_reports(data: dict[str, Any], out: Path) -> list[Path]:
    """The report files (OUTPUT_NAMES); returns their paths."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LandingZoneError(f"--out {out}: cannot create the directory: {exc}") from None
    contents = {
        "policy-review.md": render_markdown(data),
        "policy-review.html": render_html(data),
        "policy-review.json": json.dumps(data, indent=2, ensure_ascii=False) + "\n",
        "policy-review.sarif": json.dumps(render_sarif(data), indent=2, ensure_ascii=False) + "\n",
        "policy-review.csv": findings_csv(data),
        "policy-review.asff.json": json.dumps(findings_asff(data), indent=2, ensure_ascii=False) + "\n",
    }
    paths = []
    for name in OUTPUT_NAMES:
        path = out / name
        path.write_text(contents[name], encoding="utf-8")
        paths.append(path)
    return paths


def run_review(args: argparse.Namespace) -> int:
    from landing_zone.review.report import build_review  # z3 and policy_sentry (the CLI tier)

    plan = plan_for_assembly(args, args.assembly)
    result = build_review(
        args.assembly,
        plan,
        config_origin=plan.source.origin,
        baseline=args.baseline,
        scanners=args.scanners,
        skips_file=args.checkov_skips,
        proofs=args.proofs,
        proof_timeout_ms=int(args.proof_timeout * 1000),
        acknowledge=args.acknowledge,
        access_analyzer=_analyzer(args, plan.config.home_region),
    )
    paths = write_reports(result.data, args.out)
    if result.scanner_runs:
        timings = ", ".join(f"{name} {run.seconds:.1f} s" for name, run in sorted(result.scanner_runs.items()))
        print(f"scanners: {timings} (run concurrently)", file=sys.stderr)
    s = result.data["summary"]
    verdict = s["verdict"].upper() + (" (qualified)" if s.get("qualified") else "")
    print(
        f"policy review of {args.assembly}: {verdict} — {s['blocking']} blocking, {s['advisory']} advisory "
        f"finding(s); {s['policies']} policies, {s['decision_cases']} decision cases ({s['decision_mismatches']} "
        "mismatches)"
    )
    if result.data.get("proofs") is not None:
        proven = s["properties_proven"]
        print(
            f"  proofs: {', '.join(proven) or 'none'} proven for every request"
            + (f"; NOT proven: {', '.join(s['properties_not_proven'])}" if s["properties_not_proven"] else "")
            + (
                f"; not applicable: {', '.join(s['properties_not_applicable'])}"
                if s["properties_not_applicable"]
                else ""
            )
        )
    for qualifier in s.get("qualifiers", []):
        print(f"  qualified: {qualifier['text']}")
    for f in result.data["findings"]:
        if f["level"] == "blocking":
            print(f"  BLOCKING {f['rule']}: {f['message']}")
    for path in paths:
        print(f"wrote {path}")
    return 1 if result.blocking else 0


def _analyzer(args: argparse.Namespace, region: str) -> Any:
    """``--access-analyzer``: an IAM Access Analyzer client in ``home_region`` with ``--profile``; otherwise None."""
    if not args.access_analyzer:
        return None
    from landing_zone.aws import client

    return client("accessanalyzer", region=region, profile=args.profile)


def register(subparsers: Subparsers) -> None:
    """Add the ``review`` subcommand to the ``python -m landing_zone`` subparsers."""
    p = subparsers.add_parser(
        "review",
        help="policy review of a synthesized assembly: md/html/json/sarif report (exit 1 on blocking findings)",
        description="Inventory every policy of the cloud assembly in plain words, check it against the review rules, "
        "evaluate the standard request cases against the synthesized guardrails, and list cdk-nag, cfn-lint and "
        "checkov results. Exit codes: 0 no blocking finding, 1 blocking findings, 2 invalid input.",
    )
    p.add_argument(
        "--assembly", type=Path, default=Path("cdk.out"), metavar="DIR", help="the cloud assembly (default: cdk.out)"
    )
    p.add_argument(
        "--out", type=Path, default=Path("reports"), metavar="DIR", help="where to write the reports (default: reports)"
    )
    add_config_args(p)  # the configuration the assembly was synthesized with
    p.add_argument(
        "--baseline", type=Path, metavar="OLD_CDK_OUT", help="an earlier assembly: report access added and removed"
    )
    p.add_argument(
        "--acknowledge",
        type=Path,
        metavar="YAML",
        help="with --baseline: the weakenings acknowledged since the baseline, a list of {id, reason, by, date}; an "
        "unacknowledged weakening is a blocking finding (LZ-BASELINE-WEAKENING)",
    )
    p.add_argument(
        "--scanners",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run cfn-lint and checkov (offline) over the templates (default: on)",
    )
    p.add_argument(
        "--proofs",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="prove the guardrail properties P1-P6 for every request with the z3 solver (default: on; without "
        "them the verdict is qualified: sampled only)",
    )
    p.add_argument(
        "--proof-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="solver time per proof obligation (default: 10); a timeout is reported as not proven, never as holding",
    )
    p.add_argument(
        "--access-analyzer",
        action="store_true",
        help="also ask IAM Access Analyzer (calls AWS): ValidatePolicy on the SCPs, CheckNoNewAccess against "
        "--baseline and CheckAccessNotGranted on the invoker, boundary, endpoint, key and bucket policies "
        "(docs/REVIEW.md); the results are shown next to the offline proofs",
    )
    p.add_argument(
        "--profile", metavar="P", help="with --access-analyzer: the AWS profile to ask with (default: the SDK's chain)"
    )
    p.add_argument(
        "--checkov-skips",
        type=Path,
        default=None,
        metavar="YAML",
        help="checkov checks accepted with a reason (default: checkov-skips.yaml at the repository root)",
    )
    p.set_defaults(func=_run)
    needs(p, CLI)


def _profile_problem(args: argparse.Namespace) -> str | None:
    if args.profile is None:
        return None
    if not args.access_analyzer:
        return "used only with --access-analyzer (the rest of the review calls no AWS API)"
    from landing_zone.aws import profile_problem

    return profile_problem(args.profile)


def _run(args: argparse.Namespace) -> int:
    """Every flag checked first (each refusal names its flag), then the review; nothing is written before it ends."""
    check_all(
        [
            ("--assembly", str(args.assembly), lambda: assembly_problem(args.assembly)),
            ("--baseline", str(args.baseline), lambda: assembly_problem(args.baseline) if args.baseline else None),
            ("--out", str(args.out), lambda: out_dir_problem(args.out)),
            ("--profile", str(args.profile), lambda: _profile_problem(args)),
            (
                "--acknowledge",
                str(args.acknowledge),
                lambda: (
                    "no such file"
                    if args.acknowledge is not None and not args.acknowledge.is_file()
                    else "needs --baseline"
                    if args.acknowledge is not None and args.baseline is None
                    else None
                ),
            ),
            (
                "--proof-timeout",
                args.proof_timeout,
                lambda: None if 0 < args.proof_timeout <= 3600 else "seconds between 0 (exclusive) and 3600",
            ),
            (
                "--checkov-skips",
                str(args.checkov_skips),
                lambda: "no such file" if args.checkov_skips is not None and not args.checkov_skips.is_file() else None,
            ),
        ]
    )
    if args.checkov_skips is None:
        args.checkov_skips = DEFAULT_SKIPS_FILE
    return run_review(args)
