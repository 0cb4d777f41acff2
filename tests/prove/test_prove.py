"""The prover on synthesized assemblies (issue 22: proofs, not samples).  Light on purpose: the full
per-example, per-property matrix with solve times is ``bench/prove_bench.py`` (``make bench``)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from landing_zone.prove.proofs import ProofError, prove_all, prove_assembly
from landing_zone.prove.proofs import inputs_from_assembly as _inputs
from landing_zone.prove.prover import Guard, Prover, SymbolicRequest
from tests.conftest import ROOT

pytest.importorskip("z3")
pytest.importorskip("policy_sentry")


@pytest.mark.parametrize("prop", ["P1", "P5"])
def test_fast_properties_hold_on_default(default_lz, prop: str) -> None:
    start = time.perf_counter()
    report = prove_assembly(default_lz.outdir, default_lz.plan, timeout_ms=10_000, properties=[prop])
    (result,) = report.properties
    print(f"{prop}: {result.status} in {time.perf_counter() - start:.2f} s, {len(result.obligations)} obligations")
    assert result.status == "holds", report.text()
    assert report.to_dict()["properties"][0]["status"] == "holds"


def test_unsupported_element_stops_the_proof(default_lz) -> None:
    inputs = _inputs(default_lz.outdir, default_lz.plan)
    bad = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Deny",
                "Action": "*",
                "Resource": "*",
                "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}},
            }
        ],
    }
    with pytest.raises(ProofError, match=r"unsupported: .* in bad-scp"):
        prove_all(
            type(inputs)(inputs.plan, inputs.source, None, Guard.scps("scps", [("bad-scp", bad)]), None, (), ()),
            properties=["P1"],
        )


def test_timeout_is_never_holds() -> None:
    doc = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
    guard = Guard.policies("p", [("p", doc)])
    prover = Prover(SymbolicRequest.for_documents(guard.documents), timeout_ms=1)
    enc = prover.encoder
    import z3

    hard = z3.InRe(enc.request.resource, z3.Star(z3.Re("ab")))
    result = prover.check(hard, z3.Not(z3.InRe(enc.request.resource, z3.Star(z3.Re("abab")))), guards=[guard])
    assert result.status in ("unknown", "fails")  # a 1 ms budget: never "holds" without a proof


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "landing_zone", "prove", *args], capture_output=True, text=True, cwd=ROOT, check=False
    )


def test_cli_bad_input_exit_2_without_traceback(tmp_path) -> None:
    out = _cli("--assembly", str(tmp_path / "missing"))
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_a_bad_acknowledgements_file_is_a_clear_error(tmp_path) -> None:
    from landing_zone.prove.proofs import load_acknowledgements

    bad = tmp_path / "acks.yaml"
    bad.write_text("acknowledgements:\n- {property: P9, obligation: '*', reason: because}\n")
    with pytest.raises(ProofError, match=r"acknowledgements\[0\]\.property is 'P9'; allowed: P1, P2, P3, P4, P5, P6"):
        load_acknowledgements(bad)
    bad.write_text("acknowledgements:\n- {property: P2, obligation: '*'}\n")
    with pytest.raises(
        ProofError, match=r"acknowledgements\[0\] needs non-empty strings property, obligation and reason"
    ):
        load_acknowledgements(bad)


def test_an_acknowledgement_covers_a_timeout(default_lz) -> None:
    """A timeout acknowledged with a reason stops blocking: the property is 'acknowledged', the reason is shown and
    the acknowledgement is marked used (proofs_section never acknowledges a 'fails' obligation: see its code)."""
    from landing_zone.prove.proofs import Acknowledgement, proofs_section

    inputs = _inputs(default_lz.outdir, default_lz.plan)
    ack = Acknowledgement("P5", "*", "accepted for the test")
    timed_out = proofs_section(inputs, timeout_ms=0, properties=["P5"], acknowledgements=[ack])
    (p5,) = timed_out["properties"]
    assert p5["status"] == "not-proven" and p5["acknowledged"] is True
    assert all(o["acknowledged"] == "accepted for the test" for o in p5["not_holding"])
    assert timed_out["acknowledgements"][0]["used"] is True


def test_the_properties_table_is_the_provers() -> None:
    """docs/PROVE.md lists every property the prover proves, with the prover's own wording."""
    from pathlib import Path

    from landing_zone.prove.proofs import PROPERTIES

    text = (Path(__file__).resolve().parents[2] / "docs" / "PROVE.md").read_text(encoding="utf-8")
    rows = dict(line.split(" | ")[0:2] for line in (r.strip("| ") for r in text.splitlines() if r.startswith("| P")))
    assert list(rows) == list(PROPERTIES)
    for pid, statement in PROPERTIES.items():
        assert rows[pid].replace("`", "").startswith(statement.split(":")[0]), (pid, rows[pid])


def test_proofs_run_in_a_forkserver_child_while_another_thread_runs(default_lz) -> None:
    """A test worker runs the CDK's jsii reader thread, and forking a process with threads can deadlock: the proofs
    then go to a forkserver child (the plan, with its read-only mappings, pickled to it) and come back the same as
    proven in this process."""
    import gc
    import threading

    import z3

    from landing_zone.prove.proofs import process_context

    stop = threading.Event()
    waiter = threading.Thread(target=stop.wait, daemon=True)
    waiter.start()
    try:
        assert process_context().get_start_method() == "forkserver"
        inputs = _inputs(default_lz.outdir, default_lz.plan)
        gc.disable()  # so that no z3 object of an earlier test is freed meanwhile: z3's allocation stays put
        before = z3.Z3_get_estimated_alloc_size()
        child = prove_all(inputs, properties=["P5", "PO2"], timeout_ms=10_000, jobs=2)  # one per child
        assert z3.Z3_get_estimated_alloc_size() == before, "this process's z3 did the work"
    finally:
        gc.enable()
        stop.set()
        waiter.join()
    here = prove_all(inputs, properties=["P5", "PO2"], timeout_ms=10_000, jobs=1)
    assert [(p.id, p.status, [o.label for o in p.obligations]) for p in child.properties] == [
        (p.id, p.status, [o.label for o in p.obligations]) for p in here.properties
    ]
    assert [p.status for p in here.properties] == ["holds", "holds"]
