"""The proof cache keeps what the policies decide, never what the machine's load decided: a report with an
obligation the solver could not decide in its budget (timeout, gave-up) is not stored, so the next run proves again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from landing_zone.prove.proofs import PROOF_CACHE_ENV, cache_path, inputs_from_assembly, proofs_section


def test_an_undecided_obligation_is_not_cached_and_a_decided_report_is(
    organization: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PROOF_CACHE_ENV, str(tmp_path))
    inputs = inputs_from_assembly(organization.outdir, organization.plan)
    # a 1 ms budget: the real solver cannot decide P1's obligations in it (P1: about a second with its budget;
    # P2 would take 15 s here)
    starved = proofs_section(inputs, timeout_ms=1, properties=["P1"])
    verdicts = {i["status"] for p in starved["properties"] for i in p["not_holding"]}
    assert verdicts & {"timeout", "gave-up"}, verdicts
    starved_file = cache_path(inputs, 1, ["P1"])
    assert starved_file is not None and not starved_file.exists()
    # the same property with its budget: decided, and kept
    decided = proofs_section(inputs, timeout_ms=60_000, properties=["P1"])
    assert [p["status"] for p in decided["properties"]] == ["holds"]
    kept = cache_path(inputs, 60_000, ["P1"])
    assert kept is not None and kept.is_file()


def test_a_second_process_asking_for_the_same_proofs_waits_and_reads_the_first_ones(
    organization: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two test workers reviewing the same assembly (the gates and the review command's tests) proved it twice on a
    cold run; the cache's lock makes the second wait for the first and read its report.  Here the first is a child
    process holding the lock (as a worker proving would) that stores a report and exits; this process asks meanwhile."""
    import subprocess
    import sys
    import time

    monkeypatch.setenv(PROOF_CACHE_ENV, str(tmp_path))
    inputs = inputs_from_assembly(organization.outdir, organization.plan)
    decided = proofs_section(inputs, timeout_ms=60_000, properties=["P1"])
    kept = cache_path(inputs, 60_000, ["P1"])
    assert kept is not None and kept.is_file()
    stored = kept.read_text()
    kept.unlink()
    holder = (
        "import fcntl, json, pathlib, sys, time\n"
        "cache = pathlib.Path(sys.argv[1])\n"
        "handle = open(str(cache) + '.lock', 'w'); fcntl.flock(handle, fcntl.LOCK_EX)\n"
        "print('locked', flush=True); time.sleep(1.5)\n"
        "cache.write_text(json.dumps({**json.loads(sys.argv[2]), 'seconds': 1000.0}))\n"
    )
    child = subprocess.Popen([sys.executable, "-c", holder, str(kept), stored], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "locked"
    start = time.monotonic()
    waited = proofs_section(inputs, timeout_ms=60_000, properties=["P1"])
    assert child.wait() == 0
    assert time.monotonic() - start >= 1.0  # it waited for the holder ...
    # ... and read what the holder stored instead of proving again (only the holder's report took 1000 s)
    assert waited["seconds"] >= 1000 > decided["seconds"]
    assert [p["status"] for p in waited["properties"]] == ["holds"]
