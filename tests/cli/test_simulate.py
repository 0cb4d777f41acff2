"""`python -m landing_zone simulate`: reviewers ask whether the guardrails allow a request."""

from __future__ import annotations

import json

from tests.cli.test_cli import lz
from tests.conftest import ROOT

EU = str(ROOT / "examples" / "eu-sovereign.yaml")
M = "moonshotai.kimi-k3.1-pro"


def test_denied_request_names_the_deciding_statement_and_exits_1():
    result = lz(
        "simulate",
        "--config",
        EU,
        "--action",
        "bedrock:InvokeModel",
        "--resource",
        f"arn:aws:bedrock:us-east-1::foundation-model/{M}",
        "--region",
        "us-east-1",
        "--json",
    )
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["decision"] == "explicit_deny"
    # outside the compliant Regions, and (a direct call) outside the inference source Regions too
    assert data["deciding_statements"] == [
        "kimi-eu-guardrails-regions/DenyBedrockOutsideCompliantRegions",
        "kimi-eu-guardrails-regions/DenyDirectInferenceOutsideSourceRegions",
    ]
    assert data["mode"] == "scp" and "FullAWSAccess" in data["guardrails_from"]


def test_allowed_request_from_the_synthesized_assembly_exits_0(synth):
    assembly = synth(ROOT / "examples" / "eu-sovereign.yaml").outdir
    profile = f"arn:aws:bedrock:eu-central-1:222222222222:inference-profile/eu.{M}"
    result = lz(
        "simulate",
        "--assembly",
        str(assembly),
        "--action",
        "bedrock:InvokeModel",
        "--resource",
        f"arn:aws:bedrock:eu-west-3::foundation-model/{M}",
        "--region",
        "eu-west-3",
        "--context",
        f"bedrock:InferenceProfileArn={profile}",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "decision: ALLOW" in result.stdout
    assert "SCPs in" in result.stdout


def test_tamper_by_app_role_vs_deployment_role():
    common = [
        "simulate",
        "--config",
        EU,
        "--action",
        "bedrock:PutModelInvocationLoggingConfiguration",
        "--resource",
        "*",
        "--region",
        "eu-central-1",
    ]
    app = lz(*common, "--principal-arn", "arn:aws:iam::222222222222:role/app")
    deployer = lz(
        *common,
        "--principal-arn",
        "arn:aws:iam::222222222222:role/cdk-kimilz-cfn-exec-role-222222222222-eu-central-1",
    )
    assert app.returncode == 1 and "DenyAccountSettingChanges" in app.stdout
    assert deployer.returncode == 0


def test_bad_context_and_missing_assembly_are_usage_errors(tmp_path):
    bad = lz("simulate", "--config", EU, "--action", "s3:GetObject", "--resource", "*", "--context", "novalue")
    assert bad.returncode == 2 and "expected KEY=VALUE" in bad.stderr and "Traceback" not in bad.stderr
    missing = lz("simulate", "--assembly", str(tmp_path), "--action", "s3:GetObject", "--resource", "*")
    assert missing.returncode == 2 and "no manifest.json" in missing.stderr


def test_threat_model_command_matches_the_published_page():
    """docs/THREAT_MODEL.md carries the table `threat-model` prints for examples/us-organization.yaml."""
    result = lz("threat-model", "--config", str(ROOT / "examples" / "us-organization.yaml"))
    assert result.returncode == 0, result.stdout + result.stderr
    page = (ROOT / "docs" / "THREAT_MODEL.md").read_text()
    begin = page.index("-->", page.index("<!-- BEGIN GENERATED")) + 3
    generated = page[begin : page.index("<!-- END GENERATED -->")].strip()
    assert generated == result.stdout.strip(), "regenerate the table: see the marker in docs/THREAT_MODEL.md"
    assert "0 failure(s)" in result.stdout


def test_threat_model_needs_an_organization():
    result = lz("threat-model", "--config", str(ROOT / "examples" / "us-single-account.yaml"))
    assert result.returncode == 2 and "organization" in result.stderr and "Traceback" not in result.stderr


# --------------------------------------------------------------------------------------------------
# Single-account mode: no SCP is deployed; the guardrail is the invoker roles' permissions boundary
# --------------------------------------------------------------------------------------------------

US = str(ROOT / "examples" / "us-single-account.yaml")
US_PROFILE = f"arn:aws:bedrock:us-west-2:555555555555:inference-profile/us.{M}"


def _simulate(*args: str):
    return lz("simulate", *args, "--json")


def test_single_account_mode_evaluates_the_permissions_boundary_not_an_scp():
    """A request outside compliant_regions is denied by the boundary that is deployed, named as such."""
    result = _simulate(
        "--config",
        US,
        "--action",
        "bedrock:InvokeModel",
        "--resource",
        f"arn:aws:bedrock:eu-west-1::foundation-model/{M}",
        "--region",
        "eu-west-1",
    )
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["mode"] == "boundary"
    assert data["deciding_statements"] == [
        "kimi-us-invoker-boundary/DenyBedrockOutsideCompliantRegions",
        "kimi-us-invoker-boundary/DenyDirectInferenceOutsideSourceRegions",
    ]
    assert "no SCP is deployed" in data["guardrails_from"] and "SCP" not in data["deciding_statements"][0]


def test_single_account_mode_allows_the_compliant_call_through_the_boundary():
    result = _simulate(
        "--config", US, "--action", "bedrock:InvokeModel", "--resource", US_PROFILE, "--region", "us-west-2"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["decision"] == "allow"


def test_single_account_mode_outside_the_ceiling_is_an_implicit_deny():
    """The boundary is a ceiling of inference actions: anything else is not allowed through it."""
    result = _simulate(
        "--config", US, "--action", "s3:GetObject", "--resource", "arn:aws:s3:::bucket/key", "--region", "us-west-2"
    )
    assert result.returncode == 1
    assert json.loads(result.stdout)["decision"] == "implicit_deny"


def test_single_account_assembly_is_simulated_against_its_synthesized_boundary(synth):
    assembly = synth(ROOT / "examples" / "us-single-account.yaml").outdir
    denied = _simulate(
        "--assembly",
        str(assembly),
        "--action",
        "bedrock:InvokeModel",
        "--resource",
        f"arn:aws:bedrock:eu-west-1::foundation-model/{M}",
        "--region",
        "eu-west-1",
    )
    allowed = _simulate(
        "--assembly",
        str(assembly),
        "--action",
        "bedrock:InvokeModel",
        "--resource",
        US_PROFILE,
        "--region",
        "us-west-2",
    )
    assert denied.returncode == 1 and allowed.returncode == 0, denied.stdout + allowed.stdout + allowed.stderr
    data = json.loads(denied.stdout)
    assert data["mode"] == "boundary" and f"permissions boundary in {assembly}" in data["guardrails_from"]
