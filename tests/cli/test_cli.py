"""The command line and the two-command workflow, run as a user runs them (``make`` and the entry point in
subprocesses; the commands' own behaviour in-process, tests/support/cli.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT
from tests.support.cli import lz, lz_process

BAD = FIXTURES / "bad-config.yaml"


def run(*args: str, env: dict | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=600)


def test_validate_bad_config_exits_2_with_every_problem_and_no_traceback():
    """The real entry point (``python -m landing_zone`` in a new process); the other commands run in-process."""
    result = lz_process("validate", "--config", str(BAD))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "11 problem(s)" in result.stderr
    assert "  - cost.price_source: got 'cheapest'; unknown price source" in result.stderr
    assert result.stdout == ""


def test_validate_good_config_prints_summary_and_unverified_warnings():
    result = lz("validate", "--config", str(ROOT / "examples" / "eu-sovereign.yaml"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("configuration OK: kimi-eu in eu-central-1")
    assert "warning: catalog model 'moonshotai.kimi-k3.1-pro' is unverified" in result.stderr


def test_schema_prints_the_json_schema():
    result = lz("schema")
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    assert schema["title"] == "LandingZoneConfig"
    assert "compliant_regions" in schema["properties"]


def test_routes_json_and_table():
    result = lz("routes", "--json", "--config", str(ROOT / "examples" / "eu-sovereign.yaml"))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    decisions = {(r["invoke_id"], r["path"], tuple(r["source_regions"])): r["decision"] for r in data["routes"]}
    assert (
        decisions[
            (
                "eu.moonshotai.kimi-k3.1-pro",
                "geographic-profile",
                ("eu-central-1", "eu-north-1", "eu-west-1", "eu-west-3"),
            )
        ]
        == "allowed"
    )
    assert (
        decisions[
            (
                "global.moonshotai.kimi-k3.1-pro",
                "global-profile",
                tuple(
                    sorted(
                        [
                            "us-east-1",
                            "us-east-2",
                            "us-west-2",
                            "eu-central-1",
                            "eu-west-1",
                            "eu-west-3",
                            "eu-north-1",
                            "ap-northeast-1",
                            "ap-south-1",
                        ]
                    )
                ),
            )
        ]
        == "rejected"
    )
    table = lz("routes")
    assert table.returncode == 0 and "REJECTED" in table.stdout


def test_unknown_command_is_a_usage_error():
    result = lz("frobnicate")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


@pytest.mark.synth
def test_app_with_bad_config_exits_2_writes_nothing_and_shows_no_traceback(tmp_path):
    outdir = tmp_path / "out"
    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    context["config"] = str(BAD)
    result = run(sys.executable, "app.py", env={"CDK_CONTEXT_JSON": json.dumps(context), "CDK_OUTDIR": str(outdir)})
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "invalid configuration" in result.stderr
    assert not outdir.exists() or not any(outdir.iterdir())


@pytest.mark.synth
def test_make_synth_with_bad_config_exits_2_and_keeps_previous_output(tmp_path):
    out = tmp_path / "assembly"
    out.mkdir()
    (out / "sentinel").write_text("previous synth")
    result = run("make", "--no-print-directory", "synth", f"CONFIG={BAD}", f"OUT={out}")
    assert result.returncode == 2
    assert "11 problem(s)" in result.stderr
    assert "Traceback" not in result.stderr
    assert (out / "sentinel").read_text() == "previous synth"
    assert not Path(f"{out}.tmp").exists()


@pytest.mark.synth
def test_make_synth_with_the_cdk_cli_writes_the_cloud_assembly(tmp_path):
    """The real `cdk synth` through the pinned CLI and the venv's Node.js, no AWS credentials."""
    out = tmp_path / "assembly"
    env = {"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""}
    result = run("make", "--no-print-directory", "synth", f"OUT={out}", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    stacks = {k for k, v in manifest["artifacts"].items() if v["type"] == "aws:cloudformation:stack"}
    # cdk.json's default has an organization block and home_region us-east-1: detection in the deployment account
    # and the management account's, no -detection-global (docs/CONFIG.md, detection.enabled)
    workload = {"kimi-lz-keys", "kimi-lz-network", "kimi-lz-access", "kimi-lz-cost", "kimi-lz-detection"}
    assert stacks == workload | {"kimi-lz-guardrails", "kimi-lz-detection-management"}
    assert "synthesized 7 stack template(s)" in result.stdout
    # the CDK CLI's own line names the scratch folder that was just moved: the recipe drops it
    lines = (result.stdout + result.stderr).splitlines()
    assert not [line for line in lines if line.startswith(("Successfully synthesized to", "Supply a stack id"))]
    assert all(len(line) <= 160 for line in result.stderr.splitlines() if line.startswith("warning: "))
    # every feature flag the pinned aws-cdk-lib recommends is decided in cdk.json (docs/CONFIG.md#feature-flags)
    assert "feature flags are not configured" not in result.stdout + result.stderr
    record = json.loads((out / "landing-zone.json").read_text())  # the assembly describes its configuration
    assert record["name"] == "kimi-lz" and len(record["config_sha256"]) == 64 and record["routing"]["routes"]


@pytest.mark.synth
def test_make_synth_refuses_to_replace_a_named_profile_unless_accepted(tmp_path, synth):
    """An application that changes model: its application inference profile keeps its name and its ModelSource
    (create-only) changes, which CloudFormation cannot do. `make synth` prints it with the way out, exits 2 and keeps
    the previous cdk.out; ACCEPT_REPLACEMENT=<stack>/<logical id> goes on (LZ-FORCED-REPLACEMENT).  The previous
    cdk.out is the example's assembly as the app synthesizes it (the session's, tests/conftest.py)."""
    out = tmp_path / "cdk.out"
    example = ROOT / "examples" / "us-single-account.yaml"
    shutil.copytree(synth(example).outdir, out)
    changed = tmp_path / "k2.yaml"
    changed.write_text(
        example.read_text()
        + "applications:\n  - {name: us-workload, cost_center: us-workload, model: kimi-k2-thinking}\n"
    )
    before = (out / "kimi-us-access.template.json").read_text()
    refused = run("make", "--no-print-directory", "synth", f"CONFIG={changed}", f"OUT={out}")
    assert refused.returncode == 2
    (line,) = [x for x in refused.stderr.splitlines() if x.startswith("REFUSED LZ-FORCED-REPLACEMENT")]
    assert "AWS::Bedrock::ApplicationInferenceProfile" in line and "ModelSource" in line and "new name" in line
    profile = line.split(": ", 1)[1].split(" ", 1)[0]  # kimi-us-access/<logical id>
    assert "ACCEPT_REPLACEMENT" in refused.stderr and "Traceback" not in refused.stderr
    assert (out / "kimi-us-access.template.json").read_text() == before and not Path(f"{out}.tmp").exists()
    accepted = run(
        "make", "--no-print-directory", "synth", f"CONFIG={changed}", f"OUT={out}", f"ACCEPT_REPLACEMENT={profile}"
    )
    assert accepted.returncode == 0, accepted.stderr
    assert f"accepted LZ-FORCED-REPLACEMENT: {profile}" in accepted.stderr
    assert "moonshot.kimi-k2-thinking" in (out / "kimi-us-access.template.json").read_text()


def test_make_schema_prints_the_schema_only():
    """`make schema > schema.json` gives valid JSON: no echoed recipe line, set-up progress on stderr."""
    result = run("make", "--no-print-directory", "schema")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["title"]


def test_make_help_lists_every_user_target():
    result = run("make", "--no-print-directory", "help")
    for target in ("synth", "test", "validate", "routes", "deploy", "review", "cost", "schema", "lint", "bench"):
        assert f"make {target}" in result.stdout, target


def test_config_paths_with_spaces_work_through_make(tmp_path):
    folder = tmp_path / "my configs"
    folder.mkdir()
    config = folder / "eu sovereign.yaml"
    config.write_text((ROOT / "examples" / "eu-sovereign.yaml").read_text())
    result = run("make", "--no-print-directory", "validate", f"CONFIG={config}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "configuration OK: kimi-eu" in result.stdout


def test_version_names_the_tool_and_the_pinned_libraries():
    result = lz("--version")
    assert result.returncode == 0
    assert re.match(r"landing_zone \d+\.\d+\.\d+ \(aws-cdk-lib 2\.\d+\.\d+, cdk-nag 3\.", result.stdout)


def test_top_level_help_has_no_raw_markup():
    result = lz("--help")
    assert result.returncode == 0 and "``" not in result.stdout
