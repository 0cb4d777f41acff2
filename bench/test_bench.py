"""`make bench` (second part): how long `make test` takes on this machine, cold and warm (issue 36: 120 s warm).

* **cold**: the caches a fresh clone lacks are removed first (``.synth-cache/`` — assemblies, scanner and proof
  reports, layer stamps — and the lint caches), then ``make test``: every configuration is synthesized, scanned and
  proved, every test of the stamped layers runs.  This is what CI pays for the tests from a fresh clone (CI also
  sets ``CI=true``, which makes the stamped layers run whatever their stamps say; on a cold cache there are none).
* **warm**: ``make test`` again, nothing changed: assemblies, reports and stamps are reused, the stamped layers
  (nag, scanners, mutation, package, synth, runtime, browser, simulator;
  tests/support/layers.py) are not rerun.

Prints the wall-clock and CPU seconds of each run, the test count line, the synthesis cache's hit rate and the
stamped layers' summary, and writes them to ``.bench/test-times.json`` (each run's output: ``.bench/make-test-*.log``).
Exits 1 if a run fails.  Timing lives here, not in a test: a timed test would be flaky on a busy machine and would
measure nothing useful in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_WARM_SECONDS = 120.0  # `make test`, warm, on a 2-core machine (issue 36)
COLD_CACHES = (".synth-cache", ".mypy_cache", ".ruff_cache", ".import_linter_cache")
SUMMARY_LINES = re.compile(
    r"^(\d+ passed|.* in [\d.]+s|\d+ synth\(\) calls|synthesized: |moto state"
    r"|nag |scanners |mutation |package |synth |runtime |browser |simulator )"
)


def make_test(label: str, pytest_args: str, make_args: list[str]) -> dict:
    """``make test``, its output streamed into .bench/make-test-<label>.log (to follow a long run with tail -f)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "LZ_LAYERS")}  # as on a developer's machine
    log = ROOT / ".bench" / f"make-test-{label}.log"
    log.parent.mkdir(exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with log.open("w") as out:
        code = subprocess.call(
            ["make", "--no-print-directory", *make_args, "test", f"PYTEST_ARGS={pytest_args}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = log.read_text().splitlines()
    summary = [line.strip(" =") for line in lines if SUMMARY_LINES.match(line.strip(" ="))]
    if code != 0:
        sys.stderr.write("\n".join(lines[-60:]) + "\n")
    return {"seconds": round(wall, 1), "cpu_seconds": round(cpu, 1), "exit": code, "summary": summary, "log": str(log)}


def remove_cold_caches() -> None:
    for name in COLD_CACHES:
        shutil.rmtree(ROOT / name, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", choices=("cold,warm", "cold", "warm"), default="cold,warm")
    parser.add_argument("--pytest-args", default="--file-durations=10", help="PYTEST_ARGS for make test")
    parser.add_argument("--make-args", default="", help="more arguments for make, e.g. 'JOBS=4'")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    results: dict[str, dict] = {}
    for label in args.runs.split(","):
        if label == "cold":
            remove_cold_caches()
        results[label] = make_test(label, args.pytest_args, shlex.split(args.make_args))
        r = results[label]
        print(f"make test, {label:5s} {r['seconds']:7.1f} s wall, {r['cpu_seconds']:7.1f} s CPU   exit {r['exit']}")
        for line in r["summary"]:
            print(f"    {line}")
        if r["exit"] != 0:
            return 1
    warm = results.get("warm")
    if warm:
        verdict = "met" if warm["seconds"] <= TARGET_WARM_SECONDS else "NOT met"
        print(
            f"target: make test warm within {TARGET_WARM_SECONDS:.0f} s on 2 cores: {verdict} on {os.cpu_count()} core(s)"
        )
    record = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cores": os.cpu_count(),
        "load_average_at_start": round(load, 2),
        **results,
    }
    out = ROOT / ".bench" / "test-times.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"load average at start {load:.1f} (a busy machine inflates the wall clock; CPU seconds less so)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
