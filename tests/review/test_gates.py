"""The gates: cfn-lint without errors, checkov without unlisted failures, and no blocking finding — for the default
configuration and every example.  Each assembly is synthesized once and scanned once (``reviewed`` fixture)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from landing_zone.review.scanners import DEFAULT_SKIPS_FILE, load_skips
from tests.conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.scanners

CONFIGS = [None, *EXAMPLES]
IDS = [getattr(p, "stem", "default") for p in CONFIGS]


@pytest.mark.parametrize("example", CONFIGS, ids=IDS)
def test_cfn_lint_reports_no_error(reviewed, example):
    lint = reviewed(example).data["scanners"]["cfn_lint"]
    assert lint["error"] is None, lint["error"]
    assert lint["errors"] == [], "\n".join(
        f"{e['template']} {e['logical_id']}: {e['rule']} {e['message']}" for e in lint["errors"]
    )


@pytest.mark.parametrize("example", CONFIGS, ids=IDS)
def test_checkov_fails_only_listed_checks(reviewed, example):
    checkov = reviewed(example).data["scanners"]["checkov"]
    assert checkov["error"] is None, checkov["error"]
    assert checkov["passed"] > 0
    assert checkov["failed"] == [], "not in checkov-skips.yaml:\n" + "\n".join(
        f"{f['check']} {f['resource']} ({f['template']}): {f['name']}" for f in checkov["failed"]
    )
    assert all(len(s["reason"]) >= 20 for s in checkov["skipped"])


@pytest.mark.parametrize("example", CONFIGS, ids=IDS)
def test_review_has_no_blocking_finding(reviewed, example):
    data = reviewed(example).data
    blocking = [f for f in data["findings"] if f["level"] == "blocking"]
    assert blocking == [], "\n".join(f"{f['rule']} {f['template']} {f['logical_id']}: {f['message']}" for f in blocking)
    assert data["decision_matrix"]["mismatches"] == 0
    assert data["decision_matrix"]["cases"] >= 40


def test_a_finding_shows_why_checkov_skipped_the_same_thing_and_the_scanner_versions(reviewed):
    """The invoker boundary's wildcard: the checkov skip's reason (CKV_AWS_111) is in the finding's row, next to the
    cdk-nag acknowledgment; the scanners' versions are in the provenance and no longer qualify the verdict."""
    data = reviewed(None).data
    boundary = [f for f in data["findings"] if f["rule"] == "LZ-WILDCARD-IN-BOUNDARY"]
    assert boundary
    skip = next(s for s in load_skips(DEFAULT_SKIPS_FILE) if s.check == "CKV_AWS_111")
    for f in boundary:
        assert {"tool": "checkov", "ids": ["CKV_AWS_111"], "reason": skip.reason} in f["justifications"]
        assert any(j["tool"] == "cdk-nag" for j in f["justifications"])
    review = data["summary"]["provenance"]["review"]
    assert review["cfn_lint"] == data["scanners"]["cfn_lint"]["version"] != "not run"
    assert review["checkov"] == data["scanners"]["checkov"]["version"] != "not run"
    assert "scanners-not-run" not in [q["kind"] for q in data["summary"]["qualifiers"]]


def test_every_skip_is_used_by_some_assembly(reviewed):
    used = {
        (s["check"], s["skip_resource"])
        for example in CONFIGS
        for s in reviewed(example).data["scanners"]["checkov"]["skipped"]
    }
    unused = [(s.check, s.resource) for s in load_skips(DEFAULT_SKIPS_FILE) if (s.check, s.resource) not in used]
    assert unused == [], "checkov-skips.yaml entries that match nothing: remove them"


@pytest.mark.skipif(shutil.which("strace") is None or sys.platform != "linux", reason="needs strace")
def test_checkov_opens_no_network_connection(synth, tmp_path):
    """Run the scanner command exactly as the review does, traced: no connect() to an IP address."""
    from landing_zone.review.scanners import _checkov_env, checkov_command, scanner_python

    outdir = synth(None).outdir
    template = sorted(Path(outdir).glob("*keys.template.json"))[0]
    trace = tmp_path / "trace"
    command = [
        "strace",
        "-f",
        "-qq",
        "-e",
        "trace=connect",
        "-o",
        str(trace),
        *checkov_command(scanner_python(), [template.name]),  # the review's own command, not a copy of it
    ]
    # an empty per-user cache: checkov's update check (cached for an hour in ~/.cache/checkov) would otherwise ask
    # PyPI only in some runs
    env = {**_checkov_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(command, cwd=outdir, env=env, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip().startswith(("{", "[")), done.stderr[-2000:]
    connects = [line for line in trace.read_text().splitlines() if "AF_INET" in line]
    assert connects == []


def test_the_skips_file_is_at_the_repository_root():
    assert DEFAULT_SKIPS_FILE == ROOT / "checkov-skips.yaml" and DEFAULT_SKIPS_FILE.is_file()
    assert not list((ROOT / "landing_zone").rglob("*.sh")), "scripts that install things belong to the tests"
