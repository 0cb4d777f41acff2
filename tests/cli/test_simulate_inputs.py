"""`simulate` cannot mislead: a malformed request is refused (exit 2: the flag, the value, what is allowed, no
traceback, quickly) instead of answered with a DENY; a request that is valid but probably not meant is answered
with a warning; the assembly just built is read by default, and named."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from landing_zone.cli import main
from tests.cli.test_cli import lz
from tests.conftest import ROOT

EU = str(ROOT / "examples" / "eu-sovereign.yaml")
M = "moonshotai.kimi-k3.1-pro"
FM = f"arn:aws:bedrock:eu-west-3::foundation-model/{M}"

# case: (flags, flag named in the message, value echoed, allowed text)
BAD = {
    "bare action": (
        ["--action", "InvokeModel", "--resource", FM],
        "--action",
        "'InvokeModel'",
        "did you mean 'bedrock:InvokeModel'?",
    ),
    "action typo": (
        ["--action", "bedrock:InvokeModle", "--resource", FM],
        "--action",
        "'bedrock:InvokeModle'",
        "not an action of the IAM action database; did you mean 'bedrock:InvokeModel'",
    ),
    "unknown service": (
        ["--action", "bedrok:InvokeModel", "--resource", FM],
        "--action",
        "'bedrok:InvokeModel'",
        "'bedrok' is not a service of the IAM action database; did you mean 'bedrock:InvokeModel'",
    ),
    "wildcard action": (
        ["--action", "bedrock:*", "--resource", FM],
        "--action",
        "'bedrock:*'",
        "one action, without wildcards",
    ),
    "malformed ARN": (
        ["--action", "bedrock:InvokeModel", "--resource", "notanarn", "--region", "eu-west-3"],
        "--resource",
        "'notanarn'",
        "not an ARN: expected arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE",
    ),
    "ARN with five parts": (
        ["--action", "bedrock:InvokeModel", "--resource", "arn:aws:bedrock:eu-west-3:foundation-model"],
        "--resource",
        "'arn:aws:bedrock:eu-west-3:foundation-model'",
        "not an ARN",
    ),
    "unknown partition": (
        ["--action", "bedrock:InvokeModel", "--resource", f"arn:aws-cn:bedrock:cn-north-1::foundation-model/{M}"],
        "--resource",
        "arn:aws-cn:bedrock",
        "partition 'aws-cn' is not one of the catalog's: aws",
    ),
    "unknown ARN service": (
        ["--action", "bedrock:InvokeModel", "--resource", f"arn:aws:bedrockk:eu-west-3::foundation-model/{M}"],
        "--resource",
        "arn:aws:bedrockk",
        "service 'bedrockk' is not in the IAM action database; did you mean 'bedrock'",
    ),
    "ARN Region that does not exist": (
        ["--action", "bedrock:InvokeModel", "--resource", f"arn:aws:bedrock:eu-west-9::foundation-model/{M}"],
        "--resource",
        "arn:aws:bedrock:eu-west-9",
        "the Region 'eu-west-9' must be a Region of core/catalog/regions.yaml",
    ),
    "Region that does not exist": (
        ["--action", "bedrock:InvokeModel", "--resource", FM, "--region", "us-east-9"],
        "--region",
        "'us-east-9'",
        "must be a Region of core/catalog/regions.yaml or 'unspecified'",
    ),
    "wildcard ARN": (
        ["--action", "bedrock:InvokeModel", "--resource", "arn:aws:bedrock:*::foundation-model/*"],
        "--resource",
        "arn:aws:bedrock:*",
        "one ARN without wildcards, or '*' alone",
    ),
    "principal not an ARN": (
        ["--action", "bedrock:InvokeModel", "--resource", FM, "--principal-arn", "bob"],
        "--principal-arn",
        "'bob'",
        "not an ARN",
    ),
    "Region given twice": (
        [
            "--action",
            "bedrock:InvokeModel",
            "--resource",
            FM,
            "--region",
            "eu-west-3",
            "--context",
            "aws:requestedregion=x",
        ],
        "--context",
        "aws:RequestedRegion",
        "give the Region once",
    ),
    "action of 100,000 characters": (
        ["--action", "a" * 100_000, "--resource", FM],
        "--action",
        "(100,000 characters)",
        "characters (the longest action in the database)",
    ),
    "ARN longer than IAM allows": (
        ["--action", "bedrock:InvokeModel", "--resource", FM + "x" * 3000],
        "--resource",
        "characters)",
        "an ARN of at most 2,048 characters",
    ),
    "ARN-valued context key without an ARN": (
        ["--action", "bedrock:InvokeModel", "--resource", FM, "--context", "bedrock:InferenceProfileArn=eu.profile"],
        "--context",
        "'bedrock:InferenceProfileArn=eu.profile'",
        "bedrock:InferenceProfileArn takes an ARN",
    ),
    "context key twice": (
        ["--action", "bedrock:InvokeModel", "--resource", FM, "--context", "k=1", "--context", "K=2"],
        "--context",
        "'K=2'",
        "given twice",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_request_exits_2_naming_flag_value_and_what_is_allowed(case):
    flags, flag, value, allowed = BAD[case]
    result = lz("simulate", "--config", EU, *flags)
    # the refusal itself (in-process: the interpreter's start-up is not ours, and this machine may be loaded)
    start = time.perf_counter()
    with pytest.raises(SystemExit) if result.stderr.startswith("usage:") else contextlib.nullcontext():
        assert main(["simulate", "--config", EU, *flags]) == 2
    assert time.perf_counter() - start < 10
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert flag in result.stderr and value in result.stderr and allowed in result.stderr, result.stderr
    assert result.stdout == ""  # no decision is printed for a request that cannot exist


def test_every_problem_is_listed_at_once():
    result = lz("simulate", "--config", EU, "--action", "InvokeModel", "--resource", "nope", "--region", "mars-1")
    assert result.returncode == 2 and "3 problem(s)" in result.stderr
    assert all(f in result.stderr for f in ("--action", "--resource", "--region"))


# --------------------------------------------------------------------------------------------------
# Valid requests: the real decision, exit 0 / 1; warnings for what is probably not meant
# --------------------------------------------------------------------------------------------------


def test_arn_region_differing_from_region_is_a_warning_not_a_silent_allow():
    """Decision: evaluate the request as written (an SCP keys on aws:RequestedRegion, and a tester may probe that),
    but say that the two Regions differ; the JSON carries the warning too."""
    result = lz(
        "simulate",
        "--config",
        EU,
        "--action",
        "bedrock:InvokeModel",
        "--resource",
        f"arn:aws:bedrock:eu-west-1::foundation-model/{M}",
        "--region",
        "us-east-1",
        "--json",
    )
    assert result.returncode == 1, result.stderr  # us-east-1 is not compliant for the EU configuration
    assert "warning: --region us-east-1 differs from the resource's Region eu-west-1" in result.stderr
    assert json.loads(result.stdout)["warnings"][0].startswith("--region us-east-1 differs")


def test_cross_region_profile_destination_leg_has_no_warning_and_is_allowed():
    """The destination leg of a geographic profile: the FM ARN in the destination Region = --region; the profile
    (in the source Region) is only in the context. Nothing differs, nothing to warn about."""
    profile = f"arn:aws:bedrock:eu-central-1:222222222222:inference-profile/eu.{M}"
    result = lz(
        "simulate",
        "--config",
        EU,
        "--action",
        "bedrock:InvokeModel",
        "--resource",
        FM,
        "--region",
        "eu-west-3",
        "--context",
        f"bedrock:InferenceProfileArn={profile}",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "decision: ALLOW" in result.stdout and "warning" not in result.stderr


def test_region_defaults_to_the_arn_region_and_says_so():
    result = lz(
        "simulate",
        "--config",
        EU,
        "--action",
        "bedrock:InvokeModel",
        "--resource",
        FM.replace("eu-west-3", "us-east-1"),
    )
    assert result.returncode == 1
    assert "--region not given: aws:RequestedRegion is the resource ARN's Region, us-east-1" in result.stderr


def test_global_leg_with_a_regional_arn_warns():
    result = lz(
        "simulate", "--config", EU, "--action", "bedrock:InvokeModel", "--resource", FM, "--region", "unspecified"
    )
    assert result.returncode == 1 and "global profile's leg" in result.stderr


def test_resource_of_the_wrong_type_warns():
    result = lz(
        "simulate",
        "--config",
        EU,
        "--action",
        "bedrock:InvokeModel",
        "--resource",
        "arn:aws:s3:::bucket",
        "--region",
        "eu-central-1",
    )
    assert result.returncode == 1 and "is none of the resource types of bedrock:InvokeModel" in result.stderr


def test_actions_are_case_insensitive_and_late_database_entries_are_known():
    lower = lz("simulate", "--config", EU, "--action", "bedrock:invokemodel", "--resource", FM, "--region", "eu-west-3")
    assert lower.returncode in (0, 1) and "Traceback" not in lower.stderr, lower.stderr
    late = lz(
        "simulate",
        "--config",
        EU,
        "--action",
        "bedrock:PutAccountDataRetention",
        "--resource",
        "*",
        "--region",
        "eu-central-1",
    )
    assert late.returncode == 1 and "DenyAccountSettingChanges" in late.stdout, late.stderr


# --------------------------------------------------------------------------------------------------
# The assembly just built is the default
# --------------------------------------------------------------------------------------------------


def _lz_in(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return lz(*args, cwd=cwd)


def test_cdk_out_in_the_current_directory_is_read_by_default_and_named(synth, tmp_path):
    shutil.copytree(synth(ROOT / "examples" / "us-single-account.yaml").outdir, tmp_path / "cdk.out")
    args = [
        "simulate",
        "--action",
        "bedrock:InvokeModel",
        "--resource",
        f"arn:aws:bedrock:us-west-2:555555555555:inference-profile/us.{M}",
    ]
    result = _lz_in(tmp_path, *args, "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"simulate: guardrails read from the assembly {tmp_path / 'cdk.out'}" in result.stderr
    assert json.loads(result.stdout)["guardrails_from"].startswith("permissions boundary in cdk.out")
    # an explicit --config wins over ./cdk.out, and says so
    explicit = _lz_in(tmp_path, *args, "--config", EU)
    assert "guardrails compiled from" in explicit.stderr and EU in explicit.stderr


def test_without_cdk_out_the_configuration_is_compiled_and_that_is_said(tmp_path):
    result = _lz_in(tmp_path, "simulate", "--action", "bedrock:InvokeModel", "--resource", FM)
    assert result.returncode in (0, 1), result.stderr
    assert "guardrails compiled from cdk.json" in result.stderr and "no ./cdk.out/manifest.json here" in result.stderr


def test_a_long_arn_within_the_limit_is_evaluated_without_a_traceback():
    """The resource-type check recurses per character (actiondb/lookup.py): a long ARN skips it, with a note."""
    long = f"arn:aws:bedrock:eu-west-3::foundation-model/{'a' * 2000}"
    result = lz(
        "simulate", "--config", EU, "--action", "bedrock:InvokeModel", "--resource", long, "--region", "eu-west-3"
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "too long to check against the resource types" in result.stderr


def test_regionless_foundation_model_with_a_region_warns():
    """The Region-less foundation-model ARN is the global profile's leg, evaluated with --region unspecified."""
    regionless = f"arn:aws:bedrock:::foundation-model/{M}"
    result = lz(
        "simulate", "--config", EU, "--action", "bedrock:InvokeModel", "--resource", regionless, "--region", "eu-west-3"
    )
    assert result.returncode in (0, 1) and "global profile's leg, evaluated with --region unspecified" in result.stderr


def test_unchecked_evaluates_what_no_client_sends_and_says_so():
    """prove's counterexamples range over every string (an action the database lacks, a Region that does not exist):
    --unchecked turns the problems into warnings and still gives the decision."""
    args = [
        "simulate",
        "--config",
        EU,
        "--action",
        "bedrock:NotAnAction",
        "--resource",
        "*",
        "--region",
        "xx-outside-1",
    ]
    assert lz(*args).returncode == 2
    result = lz(*args, "--unchecked", "--json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["deciding_statements"] == ["kimi-eu-guardrails-regions/DenyBedrockOutsideCompliantRegions"]
    assert [w.split(":")[1].strip() for w in data["warnings"]] == ["--action", "--region"]
    # what the evaluator cannot take is refused even so
    bare = lz("simulate", "--config", EU, "--action", "InvokeModel", "--resource", "*", "--unchecked")
    assert bare.returncode == 2 and "did you mean 'bedrock:InvokeModel'" in bare.stderr
