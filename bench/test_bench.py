"""`make bench` (second part): how long the test suite takes, serial against parallel, on this machine.

Runs the whole suite (``python -m pytest -q``) once serially and once the way ``make test`` runs it
(``-n <workers> --dist loadfile``), after one warm-up run so that both measure a warm machine (imports cached by the
OS, the scanners' virtualenv built).  Prints the wall-clock times and the ratio; exits 1 if a run fails.  Timing
lives here, not in a test: a timed test would be flaky on a busy machine and would measure nothing useful in CI.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 120.0  # the suite, warm, on a 2-core machine (issue 14)


def run(args: list[str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--no-header", *args], cwd=ROOT, capture_output=True, text=True
    )
    tail = (done.stdout.strip().splitlines() or [""])[-1]
    return time.perf_counter() - start, done.returncode, tail


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workers", type=int, default=min(os.cpu_count() or 2, 4))
    parser.add_argument("--no-warm-up", action="store_true")
    args = parser.parse_args()
    parallel = ["-n", str(args.workers), "--dist", "loadfile"]
    if not args.no_warm_up:
        run(parallel)
    results = {}
    for label, extra in (("serial", ["-p", "no:xdist"]), (f"parallel ({args.workers} workers)", parallel)):
        seconds, code, tail = run(extra)
        results[label] = seconds
        print(f"{label:24s} {seconds:7.1f} s   {tail}")
        if code != 0:
            return 1
    serial, fast = results["serial"], results[f"parallel ({args.workers} workers)"]
    print(
        f"{'speed-up':24s} {serial / fast:7.2f}x   target: the parallel run within {TARGET_SECONDS:.0f} s "
        f"({'met' if fast <= TARGET_SECONDS else 'NOT met'}) on {os.cpu_count()} core(s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
