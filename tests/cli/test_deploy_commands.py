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

from tests.cli.test_cli import run
from tests.conftest import ROOT

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
