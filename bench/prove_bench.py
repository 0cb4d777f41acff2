"""Per-example, per-property solve times of ``prove`` (issue 22).  ``python bench/prove_bench.py [example ...]``:
synthesizes each example in-process, proves P1-P6 and prints one row per (example, property) with its status,
obligation count and seconds (in-process, one after the other), then the wall time of `python -m landing_zone prove`
as a user runs it (two processes on two cores, start-up included); exit 1 when a property of an example does not
hold or the command takes 30 s or more."""

from __future__ import annotations

import json
import subprocess
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
    from landing_zone.prove.proofs import prove_assembly
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
            print(f"{name:<20} all  {'in-process, serial':<26} {time.perf_counter() - start:>8.2f}", flush=True)
            # what a user runs: the CLI, which proves the properties in two processes on two cores
            config = [] if name == "default" else ["--config", str(ROOT / "examples" / f"{name}.yaml")]
            command = [sys.executable, "-m", "landing_zone", "prove", "--assembly", out, "--timeout", "5", *config]
            start = time.perf_counter()
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
            wall = time.perf_counter() - start
            print(f"{name:<20} CLI  {'prove, exit ' + str(done.returncode):<26} {wall:>8.2f}", flush=True)
            bad += done.returncode != 0 or wall >= 30
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
