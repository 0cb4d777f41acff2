"""Settings under which a guarantee of the guardrails could not hold are refused at validate (exit 2, the field, the
value, what is allowed), before anything is synthesized."""

from __future__ import annotations

import subprocess
import sys

import pytest

from landing_zone.errors import ConfigError
from landing_zone.policies.guardrails import guardrail_statements
from tests.conftest import ROOT

US_SINGLE = ROOT / "examples" / "us-single-account.yaml"
EU = ROOT / "examples" / "eu-sovereign.yaml"


def _problem(info: pytest.ExceptionInfo[ConfigError], path: str) -> str:
    (problem,) = [p for p in info.value.problems if p.path == path]
    return str(problem)


def test_the_shared_default_bootstrap_is_refused_in_organization_mode(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(policy_guardrails={"cdk_bootstrap_qualifier": "hnb659fds"})
    text = _problem(info, "policy_guardrails.cdk_bootstrap_qualifier")
    assert "'hnb659fds'" in text and "cdk bootstrap --qualifier" in text and "docs/DEPLOY.md" in text


def test_the_default_bootstrap_is_fine_in_a_single_account(plan_for):
    plan = plan_for(US_SINGLE, policy_guardrails={"cdk_bootstrap_qualifier": "hnb659fds"})
    assert plan.config.organization is None


def test_validate_exits_2_naming_the_qualifier(tmp_path):
    config = tmp_path / "shared-bootstrap.yaml"
    config.write_text("policy_guardrails:\n  cdk_bootstrap_qualifier: hnb659fds\n")
    result = subprocess.run(
        [sys.executable, "-m", "landing_zone", "validate", "--config", str(config)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "policy_guardrails.cdk_bootstrap_qualifier" in result.stderr and "hnb659fds" in result.stderr


def test_an_inference_source_region_without_monitoring_is_refused(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(EU, inference_source_regions=["eu-central-1", "eu-west-1"])
    text = _problem(info, "inference_source_regions[1]")
    assert "'eu-west-1'" in text and "neither logged nor alarmed" in text and "[eu-central-1]" in text


def test_an_inference_source_region_outside_the_compliant_ones_is_refused(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(EU, inference_source_regions=["us-east-1"])
    assert "not in compliant_regions" in _problem(info, "inference_source_regions[0]")


def test_the_source_region_denies_exist_only_when_sources_are_fewer_than_the_compliant_regions(plan_for):
    def sids(plan):
        return {s["Sid"] for s in guardrail_statements(plan.config, plan.routing, plan.catalog)}

    several = plan_for(EU, inference_source_regions=["eu-central-1"])
    assert "DenyInferenceStartedOutsideSourceRegions" in sids(several)
    one = plan_for(EU, compliant_regions=["eu-central-1"])
    assert "DenyInferenceStartedOutsideSourceRegions" not in sids(one)
