"""`deploy-plan`: which stack goes to which account, in which order, with which bootstrap."""

from __future__ import annotations

import json

import pytest

from landing_zone.plan.deployment import DETACH_CONTEXT, deployment_steps, format_steps, removal_steps, stack_placements
from tests.cli.test_cli import lz
from tests.conftest import ROOT

CASES = [None, "us-single-account", "multi-account-100", "self-hosting", "eu-sovereign", "two-applications-mantle"]


def _config(name: str | None):
    return None if name is None else ROOT / "examples" / f"{name}.yaml"


@pytest.mark.parametrize("name", CASES, ids=[str(c) for c in CASES])
def test_the_placements_are_the_stacks_the_app_synthesizes(synth, name):
    """Each stack's name, account and Region as stacks/landing_zone.py creates it (the assembly's manifest, which
    `cdk deploy` reads): deploy-plan cannot drift."""
    lz_ = synth(_config(name))
    synthesized = {(s.stack_name, s.account, s.region, s.termination_protection) for s in lz_.stacks}
    placements = {(p.name, p.account, p.region, p.termination_protection) for p in stack_placements(lz_.plan)}
    assert placements == synthesized


@pytest.mark.parametrize("name", CASES, ids=[str(c) for c in CASES])
def test_every_account_is_bootstrapped_before_anything_deploys_and_the_scps_come_first(plan_for, name):
    plan = plan_for(_config(name))
    steps = deployment_steps(plan)
    kinds = [s.command.split()[1] for s in steps]
    assert kinds == sorted(kinds, key=lambda k: k != "bootstrap"), "every bootstrap precedes every deploy"
    bootstrapped = {
        (s.account, s.command.split("aws://", 1)[1].split()[0].split("/")[1])
        for s in steps
        if " bootstrap " in s.command
    }
    assert bootstrapped == {(p.account, p.region) for p in stack_placements(plan)}, "every account and Region"
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
    # bootstraps, the SCPs, the workload, then the management account's detection rules (issue 37)
    assert [d["account"] for d in data] == [
        "111111111111",
        "999999999999",
        "999999999999",
        "111111111111",
        "999999999999",
    ]


def test_format_names_the_mode(plan_for):
    plan = plan_for(_config("us-single-account"))
    assert "single account mode" in format_steps(plan, deployment_steps(plan))


@pytest.mark.parametrize("name", CASES, ids=[str(c) for c in CASES])
def test_the_removal_detaches_the_scps_then_destroys_the_workload_then_the_management_stack(plan_for, name):
    """docs/DEPLOY.md, "Remove the landing zone": every stack is destroyed exactly once, in its own account, the
    management stack last; with an organization the SCPs are detached first; a protected stack is unprotected
    before its destroy (make e2e runs these commands)."""
    plan = plan_for(_config(name))
    steps = removal_steps(plan)
    argv = [s.command.split() for s in steps]
    placements = {p.name: p for p in stack_placements(plan)}
    destroyed = [
        (n, s.account) for s, a in zip(steps, argv, strict=True) if a[1] == "destroy" for n in a[2:] if n in placements
    ]
    assert sorted(destroyed) == sorted((p.name, p.account) for p in placements.values())
    guardrails = f"{plan.config.name}-guardrails"
    if plan.config.organization is None:
        assert all(a[1] != "deploy" for a in argv) and guardrails not in placements
        return
    assert argv[0][:3] == ["cdk", "deploy", guardrails] and f"{DETACH_CONTEXT}=true" in argv[0]
    assert steps[0].account == plan.config.organization.management_account_id
    assert [n for n, _ in destroyed][-1] == guardrails, "the management stack goes last"
    assert sum(a[1] == "deploy" for a in argv) == 1, "nothing is deployed but the detach"


@pytest.mark.parametrize("name", CASES, ids=[str(c) for c in CASES])
def test_termination_protection_is_turned_off_right_before_the_protected_stack_is_destroyed(plan_for, name):
    plan = plan_for(_config(name))
    steps = removal_steps(plan)
    protected = [p for p in stack_placements(plan) if p.termination_protection]
    for p in protected:
        (i,) = [i for i, s in enumerate(steps) if "update-termination-protection" in s.command and p.name in s.command]
        assert "--no-enable-termination-protection" in steps[i].command and steps[i].account == p.account
        assert steps[i + 1].command.startswith("cdk destroy ") and p.name in steps[i + 1].command.split()
    assert sum("update-termination-protection" in s.command for s in steps) == len(protected)


def test_the_removal_is_printed_and_json_is_valid():
    text = lz("deploy-plan", "--remove", "--config", str(ROOT / "examples" / "us-organization.yaml"))
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("# Removal of kimi-us-org (organization mode).")
    commands = [line for line in text.stdout.splitlines() if line and not line.startswith("#")]
    assert commands[0].startswith("cdk deploy kimi-us-org-guardrails ") and commands[-1].startswith("cdk destroy ")
    data = json.loads(lz("deploy-plan", "--remove", "--json").stdout)
    assert [d["command"].split()[:2] for d in data] == [
        ["cdk", "deploy"],
        ["aws", "cloudformation"],
        ["cdk", "destroy"],
        ["cdk", "destroy"],  # the management account's detection rules (issue 37)
        ["cdk", "destroy"],
    ]
