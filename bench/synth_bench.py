"""`make bench`: synth time and template limits, measured in one run on this machine.

Cases (each synthesized with the real CDK CLI, cdk-nag gate on, like `make synth`; median of --repeat runs):
  empty app · default landing zone · member baseline with 1, 10 and 100 accounts.
Reports the 100/1 ratio (StackSets reuse one template: it should stay <= 2x), the largest template against
CloudFormation's limits (1 MB template via S3, 500 resources per stack) and every SCP against its limit.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.member_configs import write as write_member_config  # noqa: E402
from landing_zone.core.catalog import load_catalog  # noqa: E402

WORK = ROOT / ".bench"
EMPTY_APP = """import aws_cdk as cdk
app = cdk.App()
cdk.Stack(app, "Empty")
app.synth()
"""


def cdk_synth(cwd: Path, out: Path, config: Path | None) -> float:
    shutil.rmtree(out, ignore_errors=True)
    cmd = ["cdk", "synth", "--quiet", "--no-notices", "--output", str(out)]
    if config:
        cmd += ["-c", f"config={config}"]
    start = time.perf_counter()
    result = subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, env={**os.environ, "CDK_DISABLE_CLI_TELEMETRY": "true"}
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"synth failed in {cwd} ({config}):\n{result.stderr[-3000:]}")
    return elapsed


def templates(out: Path) -> list[tuple[str, int, int]]:
    rows = []
    for path in sorted(out.glob("*.template.json")):
        data = json.loads(path.read_text())
        rows.append((path.name, path.stat().st_size, len(data.get("Resources", {}))))
    return rows


def scp_sizes(out: Path) -> list[tuple[str, int]]:
    sizes = []
    for path in sorted(out.glob("*.template.json")):
        for res in json.loads(path.read_text()).get("Resources", {}).values():
            if res.get("Type") == "AWS::Organizations::Policy":
                sizes.append((res["Properties"]["Name"], len(res["Properties"]["Content"])))
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    empty = WORK / "empty-app"
    empty.mkdir(exist_ok=True)
    (empty / "app.py").write_text(EMPTY_APP)
    (empty / "cdk.json").write_text(
        json.dumps({"app": f"{sys.executable} app.py", "context": {"cli-telemetry": False}})
    )
    configs = {n: write_member_config(n, WORK / f"members-{n}.yaml") for n in (1, 10, 100)}
    cases = [("empty CDK app", empty, None), ("default landing zone", ROOT, None)] + [
        (f"member baseline, {n} account{'s' if n > 1 else ''}", ROOT, path) for n, path in configs.items()
    ]
    results = []
    for label, cwd, config in cases:
        out = WORK / ("out-" + label.replace(" ", "-").replace(",", ""))
        times = [cdk_synth(cwd, out, config) for _ in range(args.repeat)]
        results.append(
            {
                "case": label,
                "median_s": statistics.median(times),
                "runs_s": times,
                "templates": templates(out),
                "scps": scp_sizes(out),
            }
        )
        print(f"  measured {label}: {', '.join(f'{t:.2f}' for t in times)} s", file=sys.stderr)

    catalog = load_catalog()
    max_bytes, max_resources = catalog.limit("cfn_max_template_bytes"), catalog.limit("cfn_max_resources_per_stack")
    scp_limit = catalog.limit("scp_max_characters")
    by_case = {r["case"]: r for r in results}
    one, hundred = by_case["member baseline, 1 account"], by_case["member baseline, 100 accounts"]
    ratio = hundred["median_s"] / one["median_s"]

    print(f"\nSynth time (cdk synth via the pinned CLI, cdk-nag on; median of {args.repeat}) on {os.cpu_count()} cores")
    print(f"{'case':<32} {'median s':>9} {'vs empty':>9} {'templates':>9}")
    base = by_case["empty CDK app"]["median_s"]
    for r in results:
        print(f"{r['case']:<32} {r['median_s']:>9.2f} {r['median_s'] / base:>8.2f}x {len(r['templates']):>9}")
    print(f"\n100 accounts / 1 account: {ratio:.2f}x ({'OK' if ratio <= 2 else 'OVER'} the 2x budget)")
    print(
        f"100 accounts / 10 accounts: {hundred['median_s'] / by_case['member baseline, 10 accounts']['median_s']:.2f}x"
    )

    print(f"\nLargest templates (limits: {max_bytes:,} bytes via S3, {max_resources} resources per stack)")
    print(f"{'case':<32} {'template':<56} {'bytes':>9} {'% of 1MB':>8} {'resources':>9}")
    for r in results[1:]:
        name, size, count = max(r["templates"], key=lambda t: t[1])
        print(f"{r['case']:<32} {name:<56} {size:>9,} {size / max_bytes:>7.1%} {count:>9}")
        worst = max(r["templates"], key=lambda t: t[2])
        if worst[0] != name:
            print(f"{'':<32} {worst[0]:<56} {worst[1]:>9,} {worst[1] / max_bytes:>7.1%} {worst[2]:>9}")

    print(f"\nSCPs (limit {scp_limit:,} characters each)")
    seen = set()
    for r in results:
        for name, size in r["scps"]:
            if (name, size) not in seen:
                seen.add((name, size))
                print(f"{r['case']:<32} {name:<40} {size:>6,} {size / scp_limit:>7.1%}")
    (WORK / "results.json").write_text(json.dumps({"results": results, "ratio_100_to_1": ratio}, indent=2))
    print(f"\nraw figures: {WORK / 'results.json'}")
    return 0 if ratio <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
