"""``prove`` as the policies grow (issue 35): each example's properties proven in-process with 0 and with N extra
deny statements of other teams (bench/extra_denies.py) at the account level, one row per (example, extra, property)
with its status, obligations that do not hold by kind (fails / gave up / timeout / vacuous) and seconds.
``python bench/prove_extra_bench.py [--extra N] [--timeout S] [example ...]``; exit 1 when a property does not hold
with the extra statements or one run takes longer than the budget (``--budget``, default 60 s)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extra", type=int, default=40)
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--show", type=int, default=3, help="obligations not holding to print per property")
    parser.add_argument("examples", nargs="*", default=["us-organization"])
    args = parser.parse_args(argv)

    import dataclasses

    import aws_cdk as cdk

    from bench.extra_denies import with_extra_denies
    from landing_zone.core.config import raw_config
    from landing_zone.plan import build_plan
    from landing_zone.plan.record import write_record
    from landing_zone.prove.proofs import default_jobs, inputs_from_assembly, prove_all
    from stacks.landing_zone import build_landing_zone

    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    bad = 0
    print(
        f"{'example':<18} {'extra':>5} {'prop':<4} {'status':<12} {'obligations':>11} {'not holding':<28} {'seconds':>8}"
    )
    for name in args.examples:
        raw, origin = raw_config(
            context["landing_zone"], None if name == "default" else ROOT / "examples" / f"{name}.yaml"
        )
        plan = build_plan(raw, origin=origin)
        with tempfile.TemporaryDirectory() as out:
            app = cdk.App(context=context, outdir=out)
            build_landing_zone(app, plan)
            app.synth()
            write_record(plan, Path(out))
            base = inputs_from_assembly(Path(out), plan)
            for extra in sorted({0, args.extra}):
                guard = with_extra_denies(base.guardrails, extra, sorted(plan.config.compliant_regions))
                inputs = dataclasses.replace(base, guardrails=guard)
                start = time.perf_counter()
                report = prove_all(inputs, timeout_ms=int(args.timeout * 1000), jobs=default_jobs())
                wall = time.perf_counter() - start
                for p in report.properties:
                    kinds = Counter(o.as_dict()["status"] for o in p.obligations if o.result.status != "holds")
                    text = ", ".join(f"{v} {k}" for k, v in sorted(kinds.items())) or "-"
                    print(
                        f"{name:<18} {extra:>5} {p.id:<4} {p.status:<12} {len(p.obligations):>11} {text:<28} "
                        f"{p.seconds:>8.2f}",
                        flush=True,
                    )
                    bad += extra > 0 and p.status not in ("holds", "not-applicable")
                    for o in [o for o in p.obligations if o.result.status != "holds"][: args.show]:
                        print(
                            f"{'':<24} {o.as_dict()['status']}: {o.label} ({o.result.seconds:.2f} s) {o.command or ''}"
                        )
                print(f"{name:<18} {extra:>5} all  {'wall, ' + str(default_jobs()) + ' process(es)':<58} {wall:>8.2f}")
                bad += wall > args.budget
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
