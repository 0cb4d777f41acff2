"""docs/CLI.md's exit-code table is the contract: this test reads it and checks every cell of every command.

A cell with text says the command exits with that code in that situation: a scenario here must produce it (run as a
user runs it; in-process with the expensive part replaced where the real one needs an AWS account or a proof run;
or a named test elsewhere that already asserts it). A cell `—` says never: no scenario may claim it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from landing_zone.actiondb.source import DATA_FILE
from landing_zone.cli import build_parser, main
from landing_zone.core.catalog.action_space import ACTION_SPACE_FILE
from tests.cli.test_cli import lz
from tests.conftest import FIXTURES, ROOT

DOC = ROOT / "docs" / "CLI.md"
BAD = str(FIXTURES / "bad-config.yaml")
EU = str(ROOT / "examples" / "eu-sovereign.yaml")
US_ORG = str(ROOT / "examples" / "us-organization.yaml")
US_SINGLE = str(ROOT / "examples" / "us-single-account.yaml")
M = "moonshotai.kimi-k3.1-pro"


def documented() -> dict[str, dict[int, str]]:
    """command -> {exit code: what the table says} (only the codes the table gives a meaning)."""
    text = DOC.read_text()
    section = text[text.index("## Exit codes") :]
    table = section[section.index("| command | 0 | 1 | 2 |") :].split("\n\n", 1)[0]
    out: dict[str, dict[int, str]] = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.fullmatch(r"`([a-z-]+)`", cells[0])
        assert name, f"docs/CLI.md exit-code row does not start with a `command`: {line}"
        out[name.group(1)] = {code: cell for code, cell in enumerate(cells[1:4]) if cell != "—"}
    return out


def _commands() -> set[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return set(sub.choices)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------------
# Scenarios: argv (a subprocess), a callable (in-process, returns the exit code), or "file::test" that asserts it
# --------------------------------------------------------------------------------------------------


def _threat_model_attack_gets_through(monkeypatch: pytest.MonkeyPatch) -> int:
    import landing_zone.cli.guardrails as guardrails

    monkeypatch.setattr(guardrails, "evaluate_attacks", lambda plan, levels: ([SimpleNamespace(ok=False)], []))
    monkeypatch.setattr(guardrails, "threat_model_markdown", lambda plan, results, skipped: "")
    return main(["threat-model", "--config", US_ORG])


def _prove(all_hold: bool) -> Callable[[pytest.MonkeyPatch], int]:
    def run(monkeypatch: pytest.MonkeyPatch) -> int:
        import landing_zone.cli.prove as prove
        import landing_zone.prove.proofs as proofs  # what `prove` loads when it runs

        report = SimpleNamespace(all_hold=all_hold, text=lambda every_obligation=False: "", as_dict=dict)
        monkeypatch.setattr(prove, "plan_for_assembly", lambda args, path: None)
        monkeypatch.setattr(proofs, "inputs_from_assembly", lambda path, plan: None)
        monkeypatch.setattr(proofs, "prove_all", lambda inputs, **kw: report)
        assembly = Path("assembly")  # any directory with a manifest (the flag check): the proof itself is replaced
        assembly.mkdir()
        (assembly / "manifest.json").write_text("{}")
        return main(["prove", "--assembly", str(assembly)])

    return run


def _actiondb_check_finds_a_stale_snapshot(monkeypatch: pytest.MonkeyPatch) -> int:
    """`actiondb refresh --check` against a source whose data differs from the committed snapshot: exit 1, and the
    committed files are left as they were."""
    before = DATA_FILE.read_bytes(), ACTION_SPACE_FILE.read_bytes()
    source = Path("iam-data")  # iam-data's layout with one service: not what the committed snapshot holds
    (source / "data" / "actions").mkdir(parents=True)
    (source / "package.json").write_text(json.dumps({"version": "0.0.1", "updatedAt": "2020-01-01T00:00:00Z"}))
    (source / "data" / "actions" / "bedrock.json").write_text(json.dumps({"x": {"name": "X", "accessLevel": "Read"}}))
    code = main(["actiondb", "refresh", "--check", "--source", str(source)])
    assert (DATA_FILE.read_bytes(), ACTION_SPACE_FILE.read_bytes()) == before
    return code


ALLOWED_LEG = [
    "--action",
    "bedrock:InvokeModel",
    "--resource",
    f"arn:aws:bedrock:eu-west-3::foundation-model/{M}",
    "--region",
    "eu-west-3",
    "--context",
    f"bedrock:InferenceProfileArn=arn:aws:bedrock:eu-central-1:222222222222:inference-profile/eu.{M}",
]

Scenario = list[str] | Callable[[pytest.MonkeyPatch], int] | str
SCENARIOS: dict[tuple[str, int], Scenario] = {
    ("schema", 0): ["schema"],
    ("schema", 2): ["schema", "--no-such-flag"],
    ("validate", 0): ["validate", "--config", EU],
    ("validate", 2): ["validate", "--config", BAD],
    ("routes", 0): ["routes", "--config", EU],
    ("routes", 2): ["routes", "--config", BAD],
    ("deploy-plan", 0): ["deploy-plan", "--config", EU],
    ("deploy-plan", 2): ["deploy-plan", "--config", BAD],
    ("simulate", 0): ["simulate", "--config", EU, *ALLOWED_LEG],
    ("simulate", 1): ["simulate", "--config", EU, *ALLOWED_LEG[:3], f"arn:aws:bedrock:us-east-1::foundation-model/{M}"],
    ("simulate", 2): ["simulate", "--config", EU, "--action", "InvokeModel", "--resource", "*"],
    ("threat-model", 0): ["threat-model", "--config", US_ORG],
    ("threat-model", 1): _threat_model_attack_gets_through,
    ("threat-model", 2): ["threat-model", "--config", US_SINGLE],
    ("prove", 0): _prove(True),
    ("prove", 1): _prove(False),
    ("prove", 2): ["prove", "--assembly", "/nonexistent-assembly"],
    ("actiondb", 0): ["actiondb", "show"],
    ("actiondb", 1): _actiondb_check_finds_a_stale_snapshot,
    ("actiondb", 2): ["actiondb", "refresh", "--source", "/nonexistent-iam-data"],
    ("cost", 0): ["cost", "--config", EU],
    ("cost", 2): ["cost", "--requests-per-day", "1e30"],
    ("breakeven", 0): ["breakeven", "--tokens-per-second", "516"],
    ("breakeven", 2): ["breakeven", "--tokens-per-second", "1e308"],
    ("cost-report", 0): ["cost-report", "--config", EU, "--out", "{tmp}/reports"],
    ("cost-report", 2): ["cost-report", "--config", BAD, "--out", "/nonexistent-dir/reports"],
    ("review", 0): "tests/review/test_review_cli.py::test_writes_four_reports_listing_every_policy",
    ("review", 1): "tests/review/test_review_cli.py::test_an_over_broad_policy_is_blocking_and_fails_the_review",
    ("review", 2): ["review", "--assembly", "/nonexistent-assembly"],
    ("preflight", 0): "tests/moto/test_preflight.py::test_a_clean_organization_exits_0",
    ("preflight", 1): "tests/moto/test_preflight.py::test_preflight_exits_1_with_every_conflict_in_json",
    ("preflight", 2): ["preflight", "--config", EU, "--account-profile", "999999999999=x"],
    ("replacements", 0): "tests/review/test_deployability.py::test_the_replacements_command_refuses_and_accepts",
    ("replacements", 2): ["replacements", "--old", "/nonexistent-assembly", "--new", "/nonexistent-assembly"],
    ("verify", 0): "tests/moto/test_verify.py::test_verify_passes_when_the_account_holds_the_intent",
    ("verify", 1): "tests/moto/test_verify.py::test_drift_is_caught_by_its_check",
    ("verify", 2): "tests/moto/test_verify.py::test_missing_credentials_are_errors_with_the_real_client_factory",
    ("discover", 0): "tests/unit/test_discover.py::test_cli_writes_the_overlay",
    ("discover", 1): "tests/unit/test_discover.py::test_cli_access_denied_writes_nothing_and_exits_1",
    ("discover", 2): ["discover", "--regions", "eu-central-9"],
}


def test_the_table_lists_every_command_and_only_those():
    assert set(documented()) == _commands()


def test_every_documented_code_has_a_scenario_and_every_scenario_is_documented():
    cells = {(command, code) for command, codes in documented().items() for code in codes}
    assert cells - set(SCENARIOS) == set(), "a documented exit code nobody checks"
    assert set(SCENARIOS) - cells == set(), "a command exits with a code docs/CLI.md says it never uses"


@pytest.mark.parametrize("cell", sorted(SCENARIOS), ids=lambda c: f"{c[0]}-{c[1]}")
def test_the_command_exits_as_documented(cell: tuple[str, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    command, code = cell
    scenario: Any = SCENARIOS[cell]
    if isinstance(scenario, str):
        path, name = scenario.split("::")
        source = (ROOT / path).read_text()
        assert f"def {name}(" in source, f"{scenario} is gone: check {command} exit {code} again"
        body = source[source.index(f"def {name}(") :].split("\ndef ", 1)[0]
        assert re.search(rf"(returncode|code|\)) == {code}\b", body), f"{scenario} does not assert exit {code}"
        return
    if callable(scenario):
        monkeypatch.chdir(tmp_path)
        assert scenario(monkeypatch) == code
        return
    result = lz(*(a.replace("{tmp}", str(tmp_path)) for a in scenario))
    assert result.returncode == code, result.stdout[-2000:] + result.stderr[-2000:]
    assert "Traceback" not in result.stderr


def test_discover_without_credentials_is_a_usage_error_like_verify(tmp_path: Path):
    """No credentials at all: exit 2 with one actionable line (as `verify` does), not exit 1 per Region."""
    import os
    import subprocess
    import sys

    drop = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("AWS_CONTAINER_")}
    env |= {
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }
    env.pop("AWS_WEB_IDENTITY_TOKEN_FILE", None)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "landing_zone",
            "discover",
            "--regions",
            "eu-central-1",
            "--out",
            str(tmp_path / "o.yaml"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: discover needs AWS credentials: no usable credentials")
    assert "--profile" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "o.yaml").exists()
