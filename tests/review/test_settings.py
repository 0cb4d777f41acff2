"""The "Governed Bedrock settings" section: each control the configuration sets is looked up in the *assembly*.

Attacker's side: a template edited after synth (or a builder that drops a statement) must turn the row VOID and the
verdict FAIL (``LZ-VOID-SETTING``); the legitimate assembly shows every control enforced.  The expected Sids come
from the configuration (``landing_zone.review.settings``), not from the plan that built the policies.
AWS pages the controls rest on: service-tiers-inference.html, api-keys-permissions.html, bedrockagentcore-controls.html,
data-retention.html, orgs_manage_policies_bedrock.html (cited in the module and in docs/REVIEW.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from landing_zone.assembly import load_assembly
from landing_zone.review.inventory import build_inventory
from landing_zone.review.report import build_review
from landing_zone.review.settings import settings_findings, settings_section

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
US_ORG = EXAMPLES / "us-organization.yaml"
EU = EXAMPLES / "eu-sovereign.yaml"
SINGLE = EXAMPLES / "us-single-account.yaml"


def rows_of(outdir: Path, plan: Any) -> dict[str, dict[str, Any]]:
    assembly = load_assembly(outdir)
    return {r["key"]: r for r in settings_section(plan, assembly, build_inventory(assembly))}


def edit_templates(outdir: Path, edit: Callable[[dict[str, Any]], bool]) -> None:
    """Apply ``edit`` to every resource of every template; at least one must report a change."""
    changed = False
    for path in outdir.glob("*.template.json"):
        template = json.loads(path.read_text())
        hit = False
        for res in template.get("Resources", {}).values():
            hit = edit(res) or hit
        if hit:
            path.write_text(json.dumps(template))
            changed = True
    assert changed, "the edit matched no resource"


def drop_sid(sid: str) -> Callable[[dict[str, Any]], bool]:
    def edit(res: dict[str, Any]) -> bool:
        props = res.get("Properties", {})
        if res.get("Type") != "AWS::Organizations::Policy" or props.get("Type") != "SERVICE_CONTROL_POLICY":
            return False
        doc = json.loads(props["Content"])
        kept = [s for s in doc["Statement"] if s.get("Sid") != sid]
        if len(kept) == len(doc["Statement"]):
            return False
        doc["Statement"] = kept
        props["Content"] = json.dumps(doc)
        return True

    return edit


def test_organization_example_shows_every_control_enforced(synth) -> None:
    s = synth(US_ORG)
    rows = rows_of(s.outdir, s.plan)
    assert set(rows) == {"service-tiers", "api-keys", "agentcore", "guardrail-organization-policy"}
    assert {r["status"] for r in rows.values()} == {"enforced"}
    api = rows["api-keys"]
    assert "short-term-only" in api["setting"]
    assert {e["sid"] for e in api["enforced_by"]} == {
        "DenyBedrockApiKeyCreation",
        "DenyLongTermBearerTokenCalls",
        "DenyLongTermMantleBearerTokenCalls",
        "DenyBearerTokenCallsByUnlistedPrincipals",
    }
    assert all(e["policies"] for e in api["enforced_by"])
    org = rows["guardrail-organization-policy"]
    # attached to the canary OU only (rollout: canary), with the guardrail ARN:version and input_tags
    assert any("on ou-efgh-11111111" in a and "ou-efgh-22222222" not in a for a in org["applied_by"])
    assert any(".GuardrailArn>:<" in a and "input_tags ignore" in a for a in org["applied_by"])
    assert settings_findings(rows.values()) == []


@pytest.mark.parametrize(
    ("sid", "key"),
    [
        ("DenyUnlistedServiceTiers", "service-tiers"),  # a member admin could then buy priority capacity
        ("DenyLongTermBearerTokenCalls", "api-keys"),  # a long-term key would then call Bedrock
        ("DenyAgentCoreGatewayWithoutAuthorizer", "agentcore"),  # an open gateway could be published
    ],
)
def test_a_dropped_deny_makes_the_control_void_and_the_verdict_fail(synth, assembly_copy, sid, key) -> None:
    s = synth(US_ORG)
    out = assembly_copy(s.outdir)
    edit_templates(out, drop_sid(sid))
    row = rows_of(out, s.plan)[key]
    assert row["status"] == "void"
    assert row["missing"] == [sid]
    [found] = settings_findings([row])
    assert found.rule == "LZ-VOID-SETTING" and found.level == "blocking" and sid in found.message


def test_a_bedrock_policy_moved_off_the_canary_is_void(synth, assembly_copy) -> None:
    s = synth(US_ORG)
    out = assembly_copy(s.outdir)

    def retarget(res: dict[str, Any]) -> bool:
        props = res.get("Properties", {})
        if props.get("Type") != "BEDROCK_POLICY":
            return False
        props["TargetIds"] = ["ou-efgh-22222222"]
        return True

    edit_templates(out, retarget)
    row = rows_of(out, s.plan)["guardrail-organization-policy"]
    assert row["status"] == "void"
    assert row["missing"] == ["attachment to canary target ou-efgh-11111111"]


def test_retention_mode_applied_is_read_from_the_custom_resource(synth, assembly_copy) -> None:
    s = synth(EU)
    row = rows_of(s.outdir, s.plan)["data-retention"]
    assert row["status"] == "enforced"
    assert any("Mode none" in a and "eu-central-1" in a for a in row["applied_by"])
    out = assembly_copy(s.outdir)

    def loosen(res: dict[str, Any]) -> bool:
        if res.get("Type") != "Custom::BedrockDataRetention":
            return False
        res["Properties"]["Mode"] = "default"
        return True

    edit_templates(out, loosen)
    row = rows_of(out, s.plan)["data-retention"]
    assert row["status"] == "void"
    assert row["missing"] == ["Custom::BedrockDataRetention with Mode none"]


def test_single_account_agentcore_is_scp_only_and_tiers_sit_in_the_boundary(synth) -> None:
    s = synth(SINGLE)
    rows = rows_of(s.outdir, s.plan)
    assert rows["agentcore"]["status"] == "scp-only"
    tiers = rows["service-tiers"]
    assert tiers["status"] == "enforced"
    assert all(any("boundary" in p for p in e["policies"]) for e in tiers["enforced_by"])
    rules = {f.rule: f.level for f in settings_findings(rows.values())}
    assert rules == {"LZ-SETTING-SCP-ONLY": "advisory"}


def test_the_report_carries_the_section_and_the_blocking_finding(synth, assembly_copy) -> None:
    s = synth(US_ORG)
    out = assembly_copy(s.outdir)
    edit_templates(out, drop_sid("DenyUnlistedMantleServiceTiers"))
    data = build_review(out, s.plan, scanners=False, proofs=False).data
    assert [r["status"] for r in data["settings"] if r["key"] == "service-tiers"] == ["void"]
    assert data["summary"]["verdict"] == "fail"
    assert any(f["rule"] == "LZ-VOID-SETTING" for f in data["findings"])
