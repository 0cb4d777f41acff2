"""Every command line `make deploy` prints runs as printed: from a fresh shell, its `cd` and `PATH` lines find the
project's Python and the pinned CDK CLI; each `cdk` line uses flags that CLI has, a `-c config=` file that exists,
stack names and environments of the synthesized assembly, the qualifier the stacks were synthesized with, and the
landing zone's own bootstrap stack (`--toolkit-stack-name`, never the account's shared CDKToolkit).
Nothing is deployed: the checks are the dry ones (the CLI's own --help, the assembly's manifest)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from tests.cli.test_cli import lz, run
from tests.conftest import ROOT
from tests.support.cli import app

# A stamped layer (tests/support/layers.py): every test here runs `make deploy`, the pinned cdk CLI or the app as a
# user's shell would; `make test` reruns them when the app, the Makefile or the locks change, CI every time.
pytestmark = pytest.mark.synth

CONFIGS = [None, "examples/us-single-account.yaml", "examples/multi-account-100.yaml"]


def make_deploy(config: str | None) -> list[str]:
    result = run("make", "--no-print-directory", "deploy", *([f"CONFIG={config}"] if config else []))
    assert result.returncode == 0, result.stderr
    return [line for line in result.stdout.splitlines() if line.strip() and not line.startswith("#")]


@cache
def cdk_flags(cdk: str, subcommand: str) -> frozenset[str]:
    """The flags `cdk SUBCOMMAND --help` lists (long and short forms), global options included."""
    text = subprocess.run([cdk, subcommand, "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT).stdout
    return frozenset(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", text))


def _fresh_shell_path(lines: list[str]) -> str:
    """The PATH after the printed `cd` and `export PATH=` lines, starting from a shell without the venv."""
    cd, export = shlex.split(lines[0]), lines[1]
    assert cd[0] == "cd" and Path(cd[1]).resolve() == ROOT
    match = re.fullmatch(r'export PATH="(.*):\$PATH"', export)
    assert match, export
    return match.group(1) + os.pathsep + "/usr/bin:/bin"


def _manifest(outdir: Path) -> dict[str, dict]:
    manifest = json.loads((outdir / "manifest.json").read_text())
    return {k: v for k, v in manifest["artifacts"].items() if v["type"] == "aws:cloudformation:stack"}


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c or "cdk.json")
def test_every_printed_command_runs_as_printed(config, synth):
    lines = make_deploy(config)
    path = _fresh_shell_path(lines)
    cdk = shutil.which("cdk", path=path)
    python = shutil.which("python", path=path)
    assert cdk and Path(cdk).resolve().is_relative_to(ROOT), "the pinned CDK CLI must come first on the printed PATH"
    assert python and Path(python).parent == ROOT / ".venv" / "bin", "cdk.json runs `python app.py`: the venv's"

    synthesized = synth(ROOT / config if config else None)
    stacks = _manifest(synthesized.outdir)
    toolkit = synthesized.plan.config.policy_guardrails.toolkit_stack_name
    environments = {s["environment"] for s in stacks.values()}
    qualifiers = {s["properties"]["bootstrapStackVersionSsmParameter"].split("/")[2] for s in stacks.values()}
    commands = [shlex.split(line) for line in lines[2:]]
    assert commands and all(argv[0] == "cdk" for argv in commands), lines[2:]
    deployed: list[str] = []
    for argv in commands:
        subcommand, rest = argv[1], argv[2:]
        assert subcommand in ("bootstrap", "deploy"), argv
        known = cdk_flags(cdk, subcommand)
        positional: list[str] = []
        i = 0
        while i < len(rest):
            token = rest[i]
            if token.startswith("-"):
                assert token in known, f"`cdk {subcommand}` has no flag {token}"
                value = rest[i + 1]
                if token in ("-c", "--context"):
                    key, _, file = value.partition("=")
                    assert key == "config" and file == config and (ROOT / file).is_file(), value
                if token == "--qualifier":
                    assert {value} == qualifiers, f"bootstrap qualifier {value}, stacks synthesized with {qualifiers}"
                if token == "--toolkit-stack-name":
                    assert value == toolkit != "CDKToolkit", (value, toolkit)
                i += 2
                continue
            positional.append(token)
            i += 1
        assert "--toolkit-stack-name" in rest, f"`cdk {subcommand}` without the landing zone's toolkit stack: {argv}"
        if subcommand == "bootstrap":
            assert len(positional) == 1 and positional[0] in environments, (positional, environments)
        else:
            assert positional and set(positional) <= set(stacks), (positional, sorted(stacks))
            deployed += positional
    assert sorted(deployed) == sorted(stacks), "every stack is deployed exactly once"


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c or "cdk.json")
def test_every_removal_command_runs_as_printed(config, synth):
    """`deploy-plan --remove`: each `cdk` line uses flags the CLI has, stacks of the assembly and context keys the
    app reads (the configuration and the detach flag); each `aws` line is an operation of botocore's model with
    flags that are members of its input (the AWS CLI is generated from the same model)."""
    import botocore.session
    from botocore import xform_name

    from landing_zone.plan.deployment import DETACH_CONTEXT

    result = lz("deploy-plan", "--remove", *(["--config", config] if config else []))
    assert result.returncode == 0, result.stderr
    commands = [shlex.split(line) for line in result.stdout.splitlines() if line.strip() and not line.startswith("#")]
    cdk = str(ROOT / "node_modules" / ".bin" / "cdk")
    stacks = _manifest(synth(ROOT / config if config else None).outdir)
    destroyed: list[str] = []
    for argv in commands:
        if argv[0] == "aws":
            model = botocore.session.get_session().get_service_model(argv[1])
            (operation,) = [o for o in model.operation_names if xform_name(o, "-") == argv[2]]
            members = {xform_name(m, "-") for m in model.operation_model(operation).input_shape.members}
            flags = [a.removeprefix("--") for a in argv[3:] if a.startswith("--")]
            unknown = [f for f in flags if f not in ("profile", "region") and f.removeprefix("no-") not in members]
            assert not unknown, f"aws {argv[1]} {argv[2]}: no flag {unknown}"
            continue
        assert argv[0] == "cdk" and argv[1] in ("deploy", "destroy"), argv
        known = cdk_flags(cdk, argv[1])
        positional, i = [], 2
        while i < len(argv):
            if argv[i].startswith("-"):
                assert argv[i] in known, f"`cdk {argv[1]}` has no flag {argv[i]}"
                if argv[i] in ("-c", "--context"):
                    key, _, value = argv[i + 1].partition("=")
                    assert (key, value) in (("config", config), (DETACH_CONTEXT, "true")), argv[i + 1]
                i += 2
                continue
            positional.append(argv[i])
            i += 1
        assert positional and set(positional) <= set(stacks), (positional, sorted(stacks))
        destroyed += positional if argv[1] == "destroy" else []
    assert sorted(destroyed) == sorted(stacks), "every stack is destroyed exactly once"


def test_the_printed_detach_synthesizes_the_organizations_policies_with_no_target(tmp_path, default_lz):
    """The removal's first command, synthesized through app.py with the command's own context (in this process:
    tests/support/cli.py; the pinned CLI's `-c key=value` reaches the app as a string, as here): every Organizations
    policy of the guardrails stack has `TargetIds: []` (CloudFormation then detaches them), while the same app without
    the flag (the default assembly) attaches them to organization.target_ids."""
    from landing_zone.plan.deployment import DETACH_CONTEXT
    from tests.conftest import cdk_context

    detach = shlex.split(
        next(line for line in lz("deploy-plan", "--remove").stdout.splitlines() if line.startswith("cdk deploy "))
    )
    contexts = [a for i, a in enumerate(detach) if i and detach[i - 1] == "-c"]
    assert contexts == [f"{DETACH_CONTEXT}=true"]
    key, value = contexts[0].split("=", 1)
    result = app({**cdk_context(), key: value}, tmp_path / "detached")
    assert result.returncode == 0, result.stderr
    targets = {}
    for label, outdir in (("detached", tmp_path / "detached"), ("attached", default_lz.outdir)):
        template = json.loads((outdir / f"{detach[2]}.template.json").read_text())
        policies = [r for r in template["Resources"].values() if r["Type"] == "AWS::Organizations::Policy"]
        assert policies
        targets[label] = [p["Properties"].get("TargetIds") for p in policies]
    assert all(t == [] for t in targets["detached"])
    assert all(t for t in targets["attached"])
