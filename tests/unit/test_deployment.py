"""`deploy-plan`: which stack goes to which account, in which order, with which bootstrap."""

from __future__ import annotations

import json

import pytest

from landing_zone.plan.deployment import deployment_steps, format_steps, stack_placements
from tests.cli.test_cli import lz
from tests.conftest import ROOT

CASES = [None, "us-single-account", "multi-account-100", "self-hosting", "eu-sovereign", "two-applications-mantle"]


def _config(name: str | None):
    return None if name is None else ROOT / "examples" / f"{name}.yaml"


@pytest.mark.parametrize("name", CASES, ids=[str(c) for c in CASES])
def test_the_placements_are_the_stacks_the_app_synthesizes(synth, name):
    """Each stack's name, account and Region as stacks/landing_zone.py creates it: deploy-plan cannot drift."""
    lz_ = synth(_config(name))
    synthesized = {(s.stack_name, s.account, s.region) for s in lz_.landing_zone.stacks}
    assert {(p.name, p.account, p.region) for p in stack_placements(lz_.plan)} == synthesized


@pytest.mark.parametrize("name", CASES, ids=[str(c) for c in CASES])
def test_every_account_is_bootstrapped_before_anything_deploys_and_the_scps_come_first(plan_for, name):
    plan = plan_for(_config(name))
    steps = deployment_steps(plan)
    kinds = [s.command.split()[1] for s in steps]
    assert kinds == sorted(kinds, key=lambda k: k != "bootstrap"), "every bootstrap precedes every deploy"
    bootstrapped = {s.account for s in steps if " bootstrap " in s.command}
    assert bootstrapped == {p.account for p in stack_placements(plan)}
    deploys = [s.command for s in steps if " deploy " in s.command]
    assert sorted(n for c in deploys for n in c.split()[2:] if n.startswith(plan.config.name)) == sorted(
        p.name for p in stack_placements(plan)
    )
    if plan.config.organization is not None:
        assert f"{plan.config.name}-guardrails" in deploys[0], "the SCPs are deployed before the workload stacks"


def test_a_deployer_in_another_account_is_trusted_at_bootstrap(plan_for):
    deployer = "arn:aws:iam::313131313131:role/pipeline-deployer"
    plan = plan_for(policy_guardrails={"deployer_principal_arns": [deployer]})
    (workload,) = [s for s in deployment_steps(plan) if s.account == "111111111111" and "bootstrap" in s.command]
    assert workload.command.endswith("--trust 313131313131")
    (deploy,) = [s for s in deployment_steps(plan) if "kimi-lz-keys" in s.command]
    assert deployer in deploy.why and "DenyDeploymentRoleAssumption" not in deploy.command


def test_the_printed_plan_is_a_commented_script_and_json_is_valid():
    text = lz("deploy-plan", "--config", str(ROOT / "examples" / "us-organization.yaml"))
    assert text.returncode == 0, text.stderr
    commands = [line for line in text.stdout.splitlines() if line and not line.startswith("#")]
    assert commands[0].startswith(
        "cdk bootstrap --qualifier kimilz --toolkit-stack-name cdk-kimilz-toolkit aws://777777777777/us-east-1"
    )
    assert all(len(line) <= 120 for line in text.stdout.splitlines() if line.startswith("#"))
    data = json.loads(lz("deploy-plan", "--json").stdout)
    assert [d["account"] for d in data] == ["111111111111", "999999999999", "999999999999", "111111111111"]


def test_format_names_the_mode(plan_for):
    plan = plan_for(_config("us-single-account"))
    assert "single account mode" in format_steps(plan, deployment_steps(plan))
