"""The proof cache's code key: every module the proofs import, transitively, and nothing they do not import.

A stale key would serve proofs of old code (a dishonest PASS); a key over the whole package re-proves every example
after an edit of a renderer.  The closure is read from the import statements, so it is checked here against what
Python actually loads when the proofs' modules are imported in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from landing_zone.prove import proofs

ROOT = Path(proofs.__file__).resolve().parent.parent


def _loaded(module: str) -> set[str]:
    code = (
        f"import sys, json, {module}; print(json.dumps(sorted(m for m in sys.modules if m.startswith('landing_zone'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT.parent)
    return set(json.loads(out.stdout))


def _as_module(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)


def test_the_key_covers_every_module_python_loads_for_the_proofs() -> None:
    for module in ("landing_zone.prove.proofs", "landing_zone.prove.mutations"):
        closure = {_as_module(p) for p in proofs._import_closure(module, ROOT)}
        missing = _loaded(module) - closure
        assert not missing, f"{module} loads {sorted(missing)}, which the proof cache key does not cover"


def test_the_key_leaves_out_what_the_proofs_do_not_run() -> None:
    closure = {_as_module(p) for p in proofs._import_closure("landing_zone.prove.proofs", ROOT)}
    assert {"landing_zone.prove.prover", "landing_zone.policies.guardrails", "landing_zone.plan.build"} <= closure
    assert not closure & {"landing_zone.review.render_md", "landing_zone.review.render_html", "landing_zone.cli"}
