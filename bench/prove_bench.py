"""Per-example, per-property solve times of ``prove`` (issue 22).  ``python bench/prove_bench.py [example ...]``:
synthesizes each example in-process, proves P1-P5 and prints one row per (example, property) with its status,
obligation count and seconds; exit 1 when a property of an example does not decide (timeout) or fails."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    import aws_cdk as cdk

    from landing_zone.core.config import raw_config
    from landing_zone.plan import build_plan
    from landing_zone.plan.record import write_record
    from landing_zone.review.proofs import prove_assembly
    from stacks.landing_zone import build_landing_zone

    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    names = argv or ["default", *(p.stem for p in sorted((ROOT / "examples").glob("*.yaml")))]
    bad = 0
    print(f"{'example':<20} {'property':<4} {'status':<14} {'obligations':>11} {'seconds':>8}")
    for name in names:
        raw, origin = raw_config(
            context["landing_zone"], None if name == "default" else ROOT / "examples" / f"{name}.yaml"
        )
        plan = build_plan(raw, origin=origin)
        with tempfile.TemporaryDirectory() as out:
            app = cdk.App(context=context, outdir=out)
            build_landing_zone(app, plan)
            app.synth()
            write_record(plan, Path(out))
            start = time.perf_counter()
            report = prove_assembly(out, plan, timeout_ms=5_000)
            for p in report.properties:
                print(f"{name:<20} {p.id:<4} {p.status:<14} {len(p.obligations):>11} {p.seconds:>8.2f}", flush=True)
                bad += p.status not in ("holds", "not-applicable")
            print(f"{name:<20} all  {'':<14} {'':>11} {time.perf_counter() - start:>8.2f}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
