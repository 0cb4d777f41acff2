"""Every stack can be deployed in its own account, updated in place and deployed again after `cdk destroy`
(issue 32): the deployability rules pass on the default configuration and every example, and catch the bug of
issue 32 and a forced replacement in real assemblies.  The rules' failing and passing fixtures are in
test_rule_fixtures.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from landing_zone.assembly import load_assembly
from landing_zone.policies.kms import key_policy
from landing_zone.review.deployability import (
    deployability_findings,
    grants_section,
    resource_schemas,
    retained_name_findings,
)
from landing_zone.review.inventory import build_inventory
from tests.conftest import EXAMPLES, ROOT
from tests.review.conftest import run_cli

CONFIGS = [None, *EXAMPLES]
IDS = [getattr(p, "stem", "default") for p in CONFIGS]
EU = ROOT / "examples" / "eu-sovereign.yaml"
US = ROOT / "examples" / "us-single-account.yaml"


def _review(synthesized):
    assembly = load_assembly(synthesized.outdir)
    records = build_inventory(assembly)
    return assembly, records


@pytest.mark.parametrize("example", CONFIGS, ids=IDS)
def test_every_stack_of_every_example_deploys_in_its_own_account_and_again(synth, example):
    synthesized = synth(example)
    assembly, records = _review(synthesized)
    grants = synthesized.plan.cross_account_grants
    found = deployability_findings(records, assembly, grants)
    assert found == [], "\n".join(f"{f.rule} {f.stack}/{f.logical_id}: {f.message}" for f in found)
    assert all(len(g.reason) > 40 for g in grants)


def test_every_example_retains_named_resources_and_each_name_ends_with_its_stacks_suffix(synth):
    """The collision rule is not vacuous: the examples retain named log groups and buckets, all suffixed."""
    _, schemas = resource_schemas()
    named = 0
    for example in CONFIGS:
        for t in load_assembly(synth(example).outdir).templates:
            for res in t.resource_map.values():
                schema = schemas.get(res.get("Type"))
                if schema and res.get("DeletionPolicy") == "Retain":
                    names = [
                        res["Properties"][p.split("/")[2]] for p in schema.names if p.split("/")[2] in res["Properties"]
                    ]
                    named += len(names)
                    assert all("AWS::StackId" in json.dumps(n) for n in names), (t.name, names)
    assert named >= 40


def test_the_grants_of_a_configuration_with_a_caller_account_are_listed_with_their_statements(synth):
    synthesized = synth(EU)
    assembly, records = _review(synthesized)
    section = {g["id"]: g for g in grants_section(records, assembly, synthesized.plan.cross_account_grants)}
    assert set(section) == {
        "scp-landing-zone-roles",
        "scp-governed-accounts",
        "invoker-trust-code-review",
        "endpoints-configured-accounts",
        "detection-management-forwards",
        "detection-home-bus-admits-management",
    }
    scp = section["scp-landing-zone-roles"]
    assert scp["stack"] == "kimi-eu-guardrails" and scp["accounts"] == ["222222222222"] and scp["reason"]
    assert any("DenyLogForgery" in use and "role 222222222222" in use for use in scp["used_by"])
    # the perimeter SCP (issue 35): the governed accounts named in aws:PrincipalAccount, by its statements only
    governed = section["scp-governed-accounts"]
    assert governed["stack"] == "kimi-eu-guardrails" and governed["accounts"] == ["222222222222", "333333333333"]
    assert {use.split(" ", 1)[0] for use in governed["used_by"]} == {"kimi-eu-guardrails-perimeter"}
    assert {use.rsplit(": ", 1)[1] for use in governed["used_by"]} == {"account 222222222222", "account 333333333333"}
    trust = section["invoker-trust-code-review"]
    assert trust["stack"] == "kimi-eu-access" and trust["accounts"] == ["333333333333"]
    assert {use.rsplit(": ", 1)[1] for use in trust["used_by"]} == {"root 333333333333", "role 333333333333"}
    # detection (issue 37): the management account's forwarder names the deployment account's bus, which admits it
    forwards = section["detection-management-forwards"]
    assert forwards["stack"] == "kimi-eu-detection-management" and forwards["accounts"] == ["222222222222"]
    assert {use.rsplit(": ", 1)[1] for use in forwards["used_by"]} == {"event-bus 222222222222"}
    admits = section["detection-home-bus-admits-management"]
    assert {use.rsplit(": ", 1)[1] for use in admits["used_by"]} == {"root 444444444444"}


def test_without_its_grant_the_management_forwarder_is_refused(synth):
    synthesized = synth(EU)
    assembly, records = _review(synthesized)
    grants = [g for g in synthesized.plan.cross_account_grants if g.id != "detection-management-forwards"]
    found = deployability_findings(records, assembly, grants)
    assert {(f.rule, f.stack) for f in found} == {("LZ-FOREIGN-ACCOUNT", "kimi-eu-detection-management")}


def test_without_its_grant_the_caller_accounts_trust_is_refused(synth):
    synthesized = synth(EU)
    assembly, records = _review(synthesized)
    grants = [g for g in synthesized.plan.cross_account_grants if g.id != "invoker-trust-code-review"]
    found = deployability_findings(records, assembly, grants)
    assert {(f.rule, f.stack, f.element.split(" ")[0]) for f in found} == {
        ("LZ-FOREIGN-ACCOUNT", "kimi-eu-access", "Principal"),
        ("LZ-FOREIGN-ACCOUNT", "kimi-eu-access", "Condition"),
    }


def test_the_management_key_of_issue_32_is_refused(synth, assembly_copy):
    """The guardrails stack's key as it was before the fix (the workload account's logs key policy, in the
    management account): a key its own account cannot administer, another account's administrator, and a Logs
    condition naming the workload account's log groups."""
    synthesized = synth(None)
    cfg = synthesized.plan.config
    outdir = assembly_copy(synthesized.outdir)
    template_file = outdir / f"{cfg.name}-guardrails.template.json"
    template = json.loads(template_file.read_text())
    (key,) = (r for r in template["Resources"].values() if r["Type"] == "AWS::KMS::Key")
    key["Properties"]["KeyPolicy"] = key_policy(
        "logs", account=cfg.deployment_account, region=cfg.home_region, name=cfg.name
    )
    template_file.write_text(json.dumps(template))
    assembly = load_assembly(outdir)
    found = deployability_findings(build_inventory(assembly), assembly, synthesized.plan.cross_account_grants)
    rules = sorted((f.rule, f.stack) for f in found)
    assert rules == [("LZ-FOREIGN-ACCOUNT", "kimi-lz-guardrails")] * 3 + [("LZ-KEY-LOCKOUT", "kimi-lz-guardrails")] * 2
    elements = " ".join(f.element for f in found)
    assert "kms:EncryptionContext:aws:logs:arn" in elements and cfg.deployment_account in elements


def test_a_retained_name_without_the_stacks_suffix_is_refused(synth, assembly_copy):
    synthesized = synth(US)
    outdir = assembly_copy(synthesized.outdir)
    template_file = outdir / "kimi-us-network.template.json"
    template = json.loads(template_file.read_text())
    (logical_id,) = (k for k, r in template["Resources"].items() if r["Type"] == "AWS::Logs::LogGroup")
    template["Resources"][logical_id]["Properties"]["LogGroupName"] = "/kimi-us/vpc-flow-logs"  # before issue 32
    template_file.write_text(json.dumps(template))
    (hit,) = retained_name_findings(load_assembly(outdir))
    assert (hit.rule, hit.stack, hit.logical_id) == ("LZ-RETAINED-NAME-COLLISION", "kimi-us-network", logical_id)


def _profile(template: dict) -> tuple[str, dict]:
    return next(
        (k, r) for k, r in template["Resources"].items() if r["Type"] == "AWS::Bedrock::ApplicationInferenceProfile"
    )


def test_review_with_a_baseline_refuses_a_named_profile_whose_model_changed(synth, assembly_copy, tmp_path):
    """The deployed assembly (the baseline) had the application's profile copy another model: deploying this one
    would replace the profile, which keeps its name; `review --baseline` says so, blocking, with the way out."""
    synthesized = synth(US)
    baseline = assembly_copy(synthesized.outdir)
    template_file = baseline / "kimi-us-access.template.json"
    template = json.loads(template_file.read_text())
    logical_id, profile = _profile(template)
    profile["Properties"]["ModelSource"] = {
        "CopyFrom": "arn:aws:bedrock:us-west-2::foundation-model/moonshot.kimi-k2-thinking"
    }
    template_file.write_text(json.dumps(template))
    out = tmp_path / "reports"
    code = run_cli(
        [
            "review",
            "--assembly",
            str(synthesized.outdir),
            "--config",
            str(US),
            "--out",
            str(out),
            "--baseline",
            str(baseline),
            "--no-scanners",
            "--no-proofs",
        ]
    )
    assert code == 1
    data = json.loads((out / "policy-review.json").read_text())
    (hit,) = [f for f in data["findings"] if f["rule"] == "LZ-FORCED-REPLACEMENT"]
    assert (hit["level"], hit["stack"], hit["logical_id"], hit["element"]) == (
        "blocking",
        "kimi-us-access",
        logical_id,
        "ModelSource",
    )
    assert "give it a new name" in hit["message"] and "kimi-k2-thinking" in hit["message"]
    # without the baseline, nothing to compare: no such finding
    assert run_cli(
        [
            "review",
            "--assembly",
            str(synthesized.outdir),
            "--config",
            str(US),
            "--out",
            str(out),
            "--no-scanners",
            "--no-proofs",
        ]
    ) in (0, 1)
    data = json.loads((out / "policy-review.json").read_text())
    assert not [f for f in data["findings"] if f["rule"] == "LZ-FORCED-REPLACEMENT"]


def test_the_replacements_command_refuses_and_accepts(synth, assembly_copy, capsys):
    synthesized = synth(US)
    old = assembly_copy(synthesized.outdir)
    template_file = Path(old) / "kimi-us-access.template.json"
    template = json.loads(template_file.read_text())
    logical_id, profile = _profile(template)
    profile["Properties"]["ModelSource"] = {"CopyFrom": "arn:aws:bedrock:us-west-2::foundation-model/x"}
    template_file.write_text(json.dumps(template))
    new = str(synthesized.outdir)
    assert run_cli(["replacements", "--old", str(old), "--new", new]) == 2
    err = capsys.readouterr().err
    assert f"REFUSED LZ-FORCED-REPLACEMENT: kimi-us-access/{logical_id}" in err and "ACCEPT_REPLACEMENT" in err
    assert run_cli(["replacements", "--old", str(old), "--new", new, "--accept", f"kimi-us-access/{logical_id}"]) == 0
    assert f"accepted LZ-FORCED-REPLACEMENT: kimi-us-access/{logical_id}" in capsys.readouterr().err
    assert run_cli(["replacements", "--old", new, "--new", new]) == 0  # the same assembly: nothing to replace
    assert run_cli(["replacements", "--old", str(Path(old) / "nothing"), "--new", new]) == 0  # the first synth
    assert run_cli(["replacements", "--old", new, "--new", str(Path(old) / "nothing")]) == 2  # no new assembly
