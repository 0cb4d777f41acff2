"""The landing zone's own CDK bootstrap stack (issue 33 item 4): a stack name of its own next to its own qualifier, in
deploy-plan's commands and cdk.json, protected by the tamper SCP — and the account's shared ``CDKToolkit`` never named,
never protected, never re-parameterised."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from landing_zone.errors import ConfigError
from landing_zone.plan.deployment import deployment_steps
from landing_zone.policies.evaluator import FULL_AWS_ACCESS, Request, evaluate_scp_levels
from landing_zone.policies.protected import name_patterns
from tests.conftest import ROOT

EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
ADMIN = "arn:aws:iam::111111111111:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0a1b"


def _problem(info: pytest.ExceptionInfo[ConfigError], path: str) -> str:
    (problem,) = [p for p in info.value.problems if p.path == path]
    return str(problem)


def _flag(command: str, flag: str) -> str | None:
    argv = shlex.split(command)
    return argv[argv.index(flag) + 1] if flag in argv else None


def test_the_default_is_derived_from_the_qualifier(plan_for):
    plan = plan_for(policy_guardrails={"cdk_bootstrap_qualifier": "lz2026"})
    assert plan.config.policy_guardrails.toolkit_stack_name == "cdk-lz2026-toolkit"


@pytest.mark.parametrize("config", [None, *EXAMPLES], ids=lambda p: p.stem if p else "cdk.json")
def test_every_bootstrap_and_deploy_names_the_landing_zones_own_toolkit_stack(plan_for, config):
    """A `cdk bootstrap --qualifier` without a stack name would update the account's CDKToolkit (issue 33)."""
    plan = plan_for(config)
    g = plan.config.policy_guardrails
    steps = deployment_steps(plan)
    assert steps
    for step in steps:
        assert _flag(step.command, "--toolkit-stack-name") == g.toolkit_stack_name, step.command
        assert "CDKToolkit" not in shlex.split(step.command)
        if " bootstrap " in f" {step.command} ":
            assert _flag(step.command, "--qualifier") == g.cdk_bootstrap_qualifier


def test_a_configured_name_goes_into_every_command(plan_for):
    plan = plan_for(policy_guardrails={"cdk_toolkit_stack_name": "kimi-lz-cdk-toolkit"})
    assert {_flag(s.command, "--toolkit-stack-name") for s in deployment_steps(plan)} == {"kimi-lz-cdk-toolkit"}


def test_cdk_json_names_the_default_configurations_toolkit_stack(plan_for):
    """`cdk destroy` has no --toolkit-stack-name (the pinned CLI ignores it); every CLI command reads the top-level
    `toolkitStackName` of cdk.json, so a hand-typed `cdk bootstrap` of the default configuration lands there too."""
    settings = json.loads((ROOT / "cdk.json").read_text())
    assert settings["toolkitStackName"] == plan_for().config.policy_guardrails.toolkit_stack_name


@pytest.mark.parametrize("name", ["CDKToolkit", "cdktoolkit"])
def test_the_accounts_shared_toolkit_stack_is_refused(plan_for, name):
    with pytest.raises(ConfigError) as info:
        plan_for(policy_guardrails={"cdk_toolkit_stack_name": name})
    text = _problem(info, "policy_guardrails.cdk_toolkit_stack_name")
    assert repr(name) in text and "shared CDK bootstrap" in text and "cdk-kimilz-toolkit" in text


def test_the_shared_toolkit_stack_is_refused_in_a_single_account_too(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(
            ROOT / "examples" / "us-single-account.yaml", policy_guardrails={"cdk_toolkit_stack_name": "CDKToolkit"}
        )
    assert "re-parameterise" in _problem(info, "policy_guardrails.cdk_toolkit_stack_name")


@pytest.mark.parametrize("name", ["1-toolkit", "my_toolkit", "a" * 129, "tool kit", ""])
def test_a_name_cloudformation_refuses_is_refused(plan_for, name):
    with pytest.raises(ConfigError) as info:
        plan_for(policy_guardrails={"cdk_toolkit_stack_name": name})
    text = _problem(info, "policy_guardrails.cdk_toolkit_stack_name")
    assert "CloudFormation stack name" in text and "128 characters" in text


def test_a_name_of_the_landing_zones_own_stacks_is_refused(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(policy_guardrails={"cdk_toolkit_stack_name": "kimi-lz-keys"})
    assert "one of the landing zone's own stacks" in _problem(info, "policy_guardrails.cdk_toolkit_stack_name")


def test_validate_exits_2_naming_the_field(tmp_path):
    config = tmp_path / "shared-toolkit.yaml"
    config.write_text("policy_guardrails:\n  cdk_toolkit_stack_name: CDKToolkit\n")
    result = subprocess.run(
        [sys.executable, "-m", "landing_zone", "validate", "--config", str(config)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "policy_guardrails.cdk_toolkit_stack_name" in result.stderr and "CDKToolkit" in result.stderr


@pytest.mark.parametrize("config", [None, *EXAMPLES], ids=lambda p: p.stem if p else "cdk.json")
def test_the_scp_protects_the_own_toolkit_stack_and_never_cdktoolkit(plan_for, config):
    plan = plan_for(config)
    stacks = [p for p in name_patterns(plan.config) if ":cloudformation:" in p and ":stack/" in p]
    assert f"arn:aws:cloudformation:*:*:stack/{plan.config.policy_guardrails.toolkit_stack_name}/*" in stacks
    assert not any("CDKToolkit" in p for p in stacks), stacks


def _levels(plan):
    return [
        [
            ("FullAWSAccess", FULL_AWS_ACCESS),
            *((f"scp-{i}", d) for i, d in enumerate(plan.policies.scps.inside_documents)),
        ]
    ]


@pytest.mark.parametrize("action", ["cloudformation:DeleteStack", "cloudformation:UpdateStack"])
def test_a_member_admin_is_denied_the_landing_zones_toolkit_and_allowed_its_own_cdktoolkit(plan_for, action):
    plan = plan_for()
    toolkit = plan.config.policy_guardrails.toolkit_stack_name
    context = {"aws:PrincipalARN": ADMIN, "aws:RequestedRegion": "us-east-1"}

    def decide(stack: str) -> str:
        resource = f"arn:aws:cloudformation:us-east-1:111111111111:stack/{stack}/0a1b"
        return evaluate_scp_levels(_levels(plan), Request(action, resource, context)).decision

    assert decide(toolkit) == "explicit_deny"
    assert decide("CDKToolkit") == "allow"
