"""`validate` refuses every input synth would refuse, through the real command line: exit 2, the key, the value
received and what is allowed, no traceback, nothing written, well under 10 s (and never a hang).  Each refusal has
an accepted case beside it."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from landing_zone.core.config import check_regular_file
from landing_zone.errors import ConfigError
from tests.cli.test_cli import run
from tests.conftest import ROOT
from tests.support.cli import app, lz

CDK_JSON = str(ROOT / "cdk.json")


def validate(tmp_path: Path, *args: str):
    """``python -m landing_zone validate --quiet ARGS`` in an empty working directory (to see that nothing is
    written), in this process (tests/support/cli.py: the interpreter's start-up is not counted, so a loaded machine
    does not make a refusal look slow); returns the completed process and the seconds the refusal took."""
    before = sorted(p.name for p in tmp_path.iterdir())
    start = time.perf_counter()
    result = lz("validate", "--quiet", "--cdk-json", CDK_JSON, *args, cwd=tmp_path)
    seconds = time.perf_counter() - start
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "validate wrote something"
    return result, seconds


def assert_refused(result, seconds: float, *fragments: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
    assert seconds < 10, seconds


# -- the CONFIG path -------------------------------------------------------------------------------------------
def _fifo(tmp_path: Path) -> str:
    path = tmp_path / "config.fifo"
    os.mkfifo(path)
    return str(path)


def _directory(tmp_path: Path) -> str:
    (tmp_path / "conf.d").mkdir()
    return str(tmp_path / "conf.d")


PATH_CASES = {
    # input: (the --config value, built in tmp_path, and the allowed text)
    "FIFO (must not hang)": (_fifo, "is a named pipe (FIFO), not a regular file: give the path of a YAML or JSON file"),
    "/dev/null": (lambda t: "/dev/null", "is a character device, not a regular file"),
    "/dev/zero": (lambda t: "/dev/zero", "is a character device, not a regular file"),
    "directory": (_directory, "is a directory, not a regular file"),
    "empty string": (lambda t: "", "an empty path: give the path of a YAML or JSON file, or leave the option out"),
    "blank string": (lambda t: "  ", "an empty path"),
    "nonexistent": (lambda t: str(t / "nope.yaml"), "the file does not exist"),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX named pipes")
@pytest.mark.parametrize("case", PATH_CASES, ids=list(PATH_CASES))
def test_a_config_path_that_is_not_a_regular_file_is_refused_without_blocking(tmp_path, case):
    make, allowed = PATH_CASES[case]
    value = make(tmp_path)
    result, seconds = validate(tmp_path, "--config", value)
    assert_refused(result, seconds, f"  - --config: got {value!r}; {allowed}")


def test_a_path_with_a_trailing_space_is_not_trimmed_but_gets_a_did_you_mean(tmp_path):
    real = tmp_path / "c.yaml"
    real.write_text("name: lz-ok\n")
    result, seconds = validate(tmp_path, "--config", f"{real} ")
    assert_refused(result, seconds, f"  - --config: got '{real} '; the file does not exist: did you mean '{real}'?")


def test_accepted_a_regular_config_file_and_no_config_at_all(tmp_path):
    real = tmp_path / "c.yaml"
    real.write_text("name: lz-ok\n")
    result, _ = validate(tmp_path, "--config", str(real))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("configuration OK: lz-ok")
    result, _ = validate(tmp_path)  # no --config: the cdk.json defaults
    assert result.returncode == 0, result.stderr


def test_an_unreadable_file_is_refused(tmp_path, monkeypatch):
    # The tests may run as root, who can read anything: the permission check is simulated.
    real = tmp_path / "c.yaml"
    real.write_text("name: lz-ok\n")
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(ConfigError) as info:
        check_regular_file(real, key="config", origin="test")
    assert f"config: got {str(real)!r}; cannot be read (permission denied)" in str(info.value)


def test_a_fifo_as_cdk_json_is_refused_too(tmp_path):
    fifo = _fifo(tmp_path)
    start = time.monotonic()
    result = run(sys.executable, "-m", "landing_zone", "validate", "--cdk-json", fifo, env={"PYTHONPATH": str(ROOT)})
    assert_refused(result, time.monotonic() - start, f"  - --cdk-json: got {fifo!r}; is a named pipe (FIFO)")


# -- generated names: validate and the CDK app refuse them alike -------------------------------------------------
OVER_LONG = (
    "name: abcdefghijklmnopqrstuvwxyz-names\napplications:\n  - {name: assistant-twenty-three12, cost_center: cc}\n"
)
ROLE_TOO_LONG = (
    "  - applications[0].name: got 'assistant-twenty-three12'; the landing zone would set the IAM role name "
    "'abcdefghijklmnopqrstuvwxyz-names-invoker-assistant-twenty-three12' (65 characters), longer than the 64 AWS "
    "allows"
)


def test_validate_refuses_an_invoker_role_name_over_the_iam_limit(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(OVER_LONG)
    result, seconds = validate(tmp_path, "--config", str(config))
    assert_refused(result, seconds, ROLE_TOO_LONG, "shorten applications[0].name (or name) by at least 1")


def test_accepted_the_same_role_name_at_the_limit(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(OVER_LONG.replace("three12", "three1"))
    result, _ = validate(tmp_path, "--config", str(config))
    assert result.returncode == 0, result.stderr


def test_the_cdk_app_refuses_it_too_without_a_traceback_or_an_assembly(tmp_path):
    import json

    config = tmp_path / "c.yaml"
    config.write_text(OVER_LONG)
    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    context["config"] = str(config)
    outdir = tmp_path / "cdk.out.tmp"
    result = app(context, outdir)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "jsii" not in result.stderr
    assert ROLE_TOO_LONG in result.stderr
    assert not outdir.exists()


# -- whitespace and case: refused with a did-you-mean, never cleaned ------------------------------------------------
SPELLING_CASES = {
    # input file: the problem line
    "models: ['Kimi-K3.1-Pro ']": (
        "models: ['Kimi-K3.1-Pro ']\n",
        "  - models[0]: got 'Kimi-K3.1-Pro '; not in the catalog as written: model IDs and aliases are exact (aliases "
        "are lowercase; values are never trimmed or lower-cased); did you mean 'kimi-k3.1-pro'?",
    ),
    "home_region: US-EAST-1": (
        "home_region: US-EAST-1\n",
        "  - home_region: got 'US-EAST-1'; not a Region as written: Region codes are lowercase, with nothing around "
        "them (values are never trimmed or lower-cased); did you mean 'us-east-1'?",
    ),
    "tags: {Landing-Zone: x}": (
        "tags: {Landing-Zone: x}\n",
        "  - tags.Landing-Zone: got 'Landing-Zone'; a key the landing zone sets itself (landing-zone, managed-by, "
        "application, cost-center) (it differs from 'landing-zone' only in case or whitespace)",
    ),
    "name: 'kimi-lz '": (
        "name: 'kimi-lz '\n",
        "  - name: got 'kimi-lz '; has whitespace at its start or end: values are taken exactly as written, never "
        "trimmed (docs/CONFIG.md, 'Whitespace and case'); did you mean 'kimi-lz'?",
    ),
}


@pytest.mark.parametrize("case", SPELLING_CASES, ids=list(SPELLING_CASES))
def test_an_identifier_with_whitespace_or_the_wrong_case_is_refused(tmp_path, case):
    text, line = SPELLING_CASES[case]
    config = tmp_path / "c.yaml"
    config.write_text(text)
    result, seconds = validate(tmp_path, "--config", str(config))
    assert_refused(result, seconds, line)


def test_accepted_the_exact_spellings(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("name: kimi-lz\nhome_region: us-east-1\nmodels: [kimi-k3.1-pro]\ntags: {landing-zone-team: x}\n")
    result, _ = validate(tmp_path, "--config", str(config))
    assert result.returncode == 0, result.stderr
