"""A slow tool's output, kept by the digest of its inputs: the test asserts on it every time, the tool runs once per
change to them.

For a test whose slow part is one run of an external tool with a machine-readable result (pip resolving a lock
against the package index, say): :func:`cached_result` returns the tool's own output for exactly these inputs — from
``.synth-cache/tools/<kind>-<digest>.json`` when an earlier run with the same inputs kept it, otherwise by running the
tool — and the test's assertions run on that output, so a test still fails when what it asserts breaks.  The key is
the SHA-256 of ``inputs`` (a JSON-able mapping the caller fills with the bytes and versions the result depends on) and
of the repository-relative names and bytes of ``files``.  Only a result the caller calls good is kept (a failing run
is never cached: the next run runs the tool again).  ``CI=true`` or ``LZ_LAYERS=all`` (as for the stamped layers,
tests/support/layers.py) neither reads nor writes the cache: the tool runs every time.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tests.support.digest import SYNTH_CACHE, files_digest
from tests.support.layers import forced

TOOL_CACHE = SYNTH_CACHE / "tools"
STATS = {"kept": 0, "ran": 0}


def cache_key(kind: str, inputs: Mapping[str, Any], files: Iterable[str]) -> str:
    digest = hashlib.sha256(json.dumps(dict(inputs), sort_keys=True, default=str).encode())
    digest.update(files_digest(files).encode())
    return f"{kind}-{digest.hexdigest()[:32]}"


def cached_result(
    kind: str,
    inputs: Mapping[str, Any],
    files: Iterable[str],
    run: Callable[[], dict[str, Any]],
    good: Callable[[dict[str, Any]], bool],
) -> dict[str, Any]:
    """``run()``'s result for these inputs, kept in ``.synth-cache/tools/`` when ``good(result)`` (never with
    ``CI=true`` or ``LZ_LAYERS=all``)."""
    if forced():
        STATS["ran"] += 1
        return run()
    path = TOOL_CACHE / f"{cache_key(kind, inputs, files)}.json"
    try:
        result: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        STATS["kept"] += 1
        return result
    except (OSError, ValueError):
        pass
    result = run()
    STATS["ran"] += 1
    if good(result):
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_name(f".{path.name}.{os.getpid()}")
        staging.write_text(json.dumps(result, sort_keys=True), encoding="utf-8")
        staging.replace(path)  # atomic: another worker never reads half a result
    return result
