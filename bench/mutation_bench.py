"""The mutation table of the prover (issue 22).  ``python bench/mutation_bench.py [example ...]`` (default: the
organization examples): synthesizes each example in-process, mutates every Deny statement of its SCPs
(landing_zone/prove/mutations.py) and prints one row per mutant — killed (by which property, in how many seconds)
or redundant (no property P1-P4, P6 or PO1-PO3 depends on the statement) — then the counts.
Exit 1 when a mutant is not decided."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ORGANIZATION_EXAMPLES = ("us-organization", "eu-sovereign", "eu-core-regions", "multi-account-100")


def main(argv: list[str]) -> int:
    import aws_cdk as cdk

    from landing_zone.core.config import raw_config
    from landing_zone.plan import build_plan
    from landing_zone.prove.mutations import run_mutations
    from landing_zone.prove.proofs import inputs_from_assembly
    from stacks.landing_zone import build_landing_zone

    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    bad = 0
    for name in argv or ORGANIZATION_EXAMPLES:
        raw, origin = raw_config(context["landing_zone"], ROOT / "examples" / f"{name}.yaml")
        plan = build_plan(raw, origin=origin)
        with tempfile.TemporaryDirectory() as out:
            app = cdk.App(context=context, outdir=out)
            build_landing_zone(app, plan)
            app.synth()
            start = time.perf_counter()
            results = run_mutations(inputs_from_assembly(Path(out), plan), timeout_ms=10_000)
        print(f"\n{name}: {'mutant':<78} {'status':<11} {'by':<3} {'seconds':>7}")
        for r in results:
            print(f"{'':<{len(name) + 2}}{r.mutant.label:<78} {r.status:<11} {r.property:<3} {r.seconds:>7.2f}")
        counts = Counter(r.status for r in results)
        print(f"{name}: {len(results)} mutants, {dict(counts)}, {time.perf_counter() - start:.1f} s", flush=True)
        bad += counts.get("not-decided", 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
