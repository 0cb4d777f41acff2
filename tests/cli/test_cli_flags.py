"""Every flag of every command, given a bad value (issue 35, "errors that name the wrong thing"): exit 2, the flag's
own name in the message, no traceback, nothing written and no AWS client made.

The flags are taken from the parser itself: a flag added without a case here fails
:func:`test_every_flag_that_takes_a_value_has_a_case`."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from landing_zone import aws
from landing_zone.cli import build_parser, main

MISSING = "{tmp}/missing.yaml"
UNDER_A_FILE = "{tmp}/a-file/out"  # its parent is a regular file: nothing can be created there
ASSEMBLY = "{tmp}/assembly"  # a directory with a manifest.json: passes the flag check
SIMULATE = ["simulate", "--action", "bedrock:InvokeModel", "--resource", "*"]
REVIEW = ["review", "--assembly", ASSEMBLY, "--out", "{tmp}/r"]

# (command path, flag) -> the command line that gives that flag a bad value
CASES: dict[tuple[str, str], list[str]] = {
    ("simulate", "--action"): ["simulate", "--action", "bedrock:InvokeModl", "--resource", "*"],
    ("simulate", "--resource"): ["simulate", "--action", "bedrock:InvokeModel", "--resource", "arn:aws:bedrock"],
    ("simulate", "--region"): [*SIMULATE, "--region", "xx-nowhere-9"],
    ("simulate", "--principal-arn"): [*SIMULATE, "--principal-arn", "bob"],
    ("simulate", "--context"): [*SIMULATE, "--context", "no-equals-sign"],
    ("simulate", "--assembly"): [*SIMULATE, "--assembly", "{tmp}"],
    ("prove", "--assembly"): ["prove", "--assembly", "{tmp}"],
    ("prove", "--timeout"): ["prove", "--assembly", ASSEMBLY, "--timeout", "0"],
    ("cost", "--requests-per-day"): ["cost", "--requests-per-day", "-1"],
    ("cost", "--input-tokens"): ["cost", "--input-tokens", "lots"],
    ("cost", "--output-tokens"): ["cost", "--output-tokens", "nan"],
    ("cost", "--cached-fraction"): ["cost", "--cached-fraction", "0.8", "--cache-write-fraction", "0.5"],
    ("cost", "--cache-write-fraction"): ["cost", "--cache-write-fraction", "0.9"],  # + the configured 0.5 cached
    ("cost", "--price-source"): ["cost", "--price-source", "cheapest"],
    ("cost actual", "--profile"): ["cost", "actual", "--profile", "no-such-profile"],
    ("cost actual", "--month"): ["cost", "actual", "--month", "2026-13"],
    ("cost actual", "--region"): ["cost", "actual", "--region", "xx-nowhere-9"],
    ("breakeven", "--tokens-per-second"): ["breakeven", "--tokens-per-second", "0"],
    ("breakeven", "--hourly-usd"): ["breakeven", "--hourly-usd", "-5"],
    ("breakeven", "--price-source"): ["breakeven", "--price-source", "cheapest"],
    ("breakeven", "--input-output-ratio"): ["breakeven", "--input-output-ratio", "-1"],
    ("breakeven", "--cached-input-fraction"): ["breakeven", "--cached-input-fraction", "1.5"],
    ("breakeven", "--cache-write-fraction"): ["breakeven", "--cache-write-fraction", "0.9"],
    ("breakeven", "--instance-type"): ["breakeven", "--instance-type", "m5.large"],
    ("cost-report", "--out"): ["cost-report", "--out", UNDER_A_FILE],
    ("review", "--assembly"): ["review", "--assembly", "{tmp}", "--out", "{tmp}/reports"],
    ("review", "--out"): ["review", "--assembly", ASSEMBLY, "--out", UNDER_A_FILE],
    # the outside look's input: a --baseline that is a directory but no assembly was reported as --assembly
    ("review", "--baseline"): ["review", "--assembly", ASSEMBLY, "--out", "{tmp}/r", "--baseline", "{tmp}"],
    ("review", "--acknowledge"): [*REVIEW, "--baseline", ASSEMBLY, "--acknowledge", MISSING],
    ("review", "--profile"): [*REVIEW, "--access-analyzer", "--profile", "no-such-profile"],
    ("review", "--proof-timeout"): ["review", "--assembly", ASSEMBLY, "--out", "{tmp}/r", "--proof-timeout", "0"],
    ("review", "--checkov-skips"): ["review", "--assembly", ASSEMBLY, "--out", "{tmp}/r", "--checkov-skips", MISSING],
    ("verify", "--assembly"): ["verify", "--assembly", "{tmp}"],
    ("verify", "--profile"): ["verify", "--assembly", ASSEMBLY, "--profile", "no-such-profile"],
    ("verify", "--management-profile"): ["verify", "--assembly", ASSEMBLY, "--management-profile", "nope"],
    ("verify", "--region"): ["verify", "--assembly", ASSEMBLY, "--region", "EU-CENTRAL-1"],
    ("verify", "--invocation-log-bucket"): ["verify", "--assembly", ASSEMBLY, "--invocation-log-bucket", "Logs_B"],
    ("discover", "--regions"): ["discover", "--regions", "xx-nowhere-9"],
    ("discover", "--models"): ["discover", "--regions", "us-east-1", "--models", ","],
    # the outside look's input: --out was checked only after the API calls (exit 1)
    ("discover", "--out"): ["discover", "--regions", "us-east-1", "--out", UNDER_A_FILE],
    ("discover", "--profile"): ["discover", "--regions", "us-east-1", "--profile", "no-such-profile"],
    ("replacements", "--new"): ["replacements", "--old", "{tmp}/none", "--new", "{tmp}"],
    ("replacements", "--old"): ["replacements", "--old", "{tmp}/a-file", "--new", ASSEMBLY],
    ("replacements", "--accept"): ["replacements", "--old", "{tmp}/none", "--new", ASSEMBLY, "--accept", "no-slash"],
    ("actiondb refresh", "--source"): ["actiondb", "refresh", "--source", "{tmp}"],  # not a copy of iam-data
    ("preflight", "--profile"): ["preflight", "--profile", "no-such-profile"],
    ("preflight", "--management-profile"): ["preflight", "--management-profile", "no-such-profile"],
    ("preflight", "--account-profile"): ["preflight", "--account-profile", "no-equals-sign"],
}
# Every command that reads the configuration takes --config and --cdk-json: both are checked for each.
CONFIG_COMMANDS = {
    "validate": ["validate"],
    "routes": ["routes"],
    "deploy-plan": ["deploy-plan"],
    "simulate": SIMULATE,
    "threat-model": ["threat-model"],
    "prove": ["prove", "--assembly", ASSEMBLY],
    "cost": ["cost"],
    "cost actual": ["cost", "actual"],
    "breakeven": ["breakeven"],
    "cost-report": ["cost-report", "--out", "{tmp}/reports"],
    "review": ["review", "--assembly", ASSEMBLY, "--out", "{tmp}/reports"],
    "verify": ["verify", "--assembly", ASSEMBLY],
    "discover": ["discover", "--regions", "us-east-1"],
    "preflight": ["preflight"],
}
for _command, _argv in CONFIG_COMMANDS.items():
    CASES[(_command, "--config")] = [*_argv, "--config", MISSING]
    CASES[(_command, "--cdk-json")] = [*_argv, "--cdk-json", MISSING]


def _value_flags(parser: argparse.ArgumentParser, prefix: str = "") -> set[tuple[str, str]]:
    """(command path, long flag) of every option that takes a value, from the parser."""
    found: set[tuple[str, str]] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= _value_flags(sub, f"{prefix} {name}".strip())
        elif action.option_strings and action.nargs != 0 and action.dest != "help":
            found.add((prefix, max(action.option_strings, key=len)))
    return found


def test_every_flag_that_takes_a_value_has_a_case():
    assert _value_flags(build_parser()) == set(CASES)


@pytest.fixture
def no_aws(monkeypatch):
    """The AWS seam, standing in for boto3 (so profiles are checked as with the real one): a command that makes a
    client before refusing a bad flag fails the test."""
    made: list[str] = []

    def factory(service: str, *, region: str | None = None, profile: str | None = None):
        made.append(service)
        raise AssertionError(f"an AWS client ({service}) was made before the bad flag was refused")

    monkeypatch.setattr(aws, "boto3_client", factory)
    monkeypatch.setattr(aws, "_factory", factory)
    return made


def _files(root: Path) -> set[Path]:
    return set(root.rglob("*"))


@pytest.mark.parametrize("case", sorted(CASES), ids=[" ".join(c) for c in sorted(CASES)])
def test_a_bad_value_is_refused_naming_its_flag_before_any_work(case, tmp_path, monkeypatch, capsys, no_aws):
    command, flag = case
    monkeypatch.chdir(tmp_path)  # no ./cdk.json, no ./cdk.out: the repository's defaults, no assembly
    (tmp_path / "a-file").write_text("a regular file\n")
    (tmp_path / "assembly").mkdir()
    (tmp_path / "assembly" / "manifest.json").write_text("{}")
    before = _files(tmp_path)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in CASES[case]]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses a value its type rejects
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert flag in err, err
    assert _files(tmp_path) == before  # nothing written
    assert no_aws == []
