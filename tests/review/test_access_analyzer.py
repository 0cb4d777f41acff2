"""``review --access-analyzer`` (issue 37): IAM Access Analyzer (not in moto) answered by a botocore Stubber that pins
each request — ValidatePolicy on an SCP with SERVICE_CONTROL_POLICY, CheckNoNewAccess against the previous release's
policy of the same record, CheckAccessNotGranted with the actions that kind of policy must never grant — and the rows
the report shows next to the offline proofs.  API: IAM Access Analyzer API reference (ValidatePolicy,
CheckNoNewAccess, CheckAccessNotGranted)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from landing_zone.aws import failure
from landing_zone.review.access_analyzer import MUST_NOT_GRANT, analyze, concrete, targets
from landing_zone.review.inventory import PolicyRecord

ACC, REGION = "222222222222", "eu-central-1"
SCP = {
    "Version": "2012-10-17",
    "Statement": [{"Sid": "DenyX", "Effect": "Deny", "Action": "bedrock:*", "Resource": "*"}],
}
INVOKE_OLD = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Action": "bedrock:InvokeModel",
            "Resource": "arn:aws:bedrock:<AWS--Region>::foundation-model/m",
        }
    ],
}
INVOKE_NEW = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "bedrock:InvokeModel", "Resource": "*"}],
}


def record(kind: str, doc: dict[str, Any], **extra: Any) -> PolicyRecord:
    return PolicyRecord(
        id=f"lz-x/{kind}/PolicyDocument",
        stack="lz-x",
        template="lz-x.template.json",
        logical_id=kind,
        resource_type="AWS::IAM::ManagedPolicy",
        kind=kind,
        name=f"lz-{kind}",
        property_path="PolicyDocument",
        document=doc,
        **extra,
    )


@pytest.fixture
def client() -> Any:
    return boto3.client("accessanalyzer", region_name=REGION)


def _text(doc: dict[str, Any]) -> str:
    return concrete(doc, account=ACC, region=REGION)


def test_scp_invoker_and_baseline_are_each_asked_exactly_once(client: Any) -> None:
    scp = record("scp", SCP)
    invoker = record("managed", INVOKE_NEW, attached_to=("role lz-invoker-app",))
    old_invoker = replace(invoker, document=INVOKE_OLD)
    stub = Stubber(client)
    stub.add_response(
        "validate_policy",
        {
            "findings": [
                {
                    "findingDetails": "Wildcard in a deny",
                    "findingType": "SUGGESTION",
                    "issueCode": "X",
                    "learnMoreLink": "https://docs.aws.amazon.com/",
                    "locations": [],
                }
            ]
        },
        {"policyDocument": _text(SCP), "policyType": "SERVICE_CONTROL_POLICY"},
    )
    stub.add_response(
        "check_no_new_access",
        {"result": "FAIL", "message": "new access", "reasons": [{"description": "Resource * is broader"}]},
        {
            "newPolicyDocument": _text(INVOKE_NEW),
            "existingPolicyDocument": _text(INVOKE_OLD),
            "policyType": "IDENTITY_POLICY",
        },
    )
    stub.add_response(
        "check_access_not_granted",
        {"result": "PASS", "message": "ok", "reasons": []},
        {
            "policyDocument": _text(INVOKE_NEW),
            "access": [{"actions": list(MUST_NOT_GRANT["invoker"])}],
            "policyType": "IDENTITY_POLICY",
        },
    )
    with stub:
        out = analyze(
            client, [scp, invoker], stacks={"lz-x": (ACC, REGION)}, baseline=[old_invoker], is_client_error=failure
        )
    stub.assert_no_pending_responses()
    assert [(r["role"], r["check"], r["result"]) for r in out["rows"]] == [
        ("scp", "ValidatePolicy", "PASS"),  # a suggestion is not a failure
        ("invoker", "CheckNoNewAccess", "FAIL"),  # Resource * is wider than the previous release's model ARN
        ("invoker", "CheckAccessNotGranted", "PASS"),
    ]
    assert out["rows"][1]["detail"] == "Resource * is broader"
    assert out["counts"] == {"FAIL": 1, "PASS": 2}


def test_an_error_finding_fails_the_scp(client: Any) -> None:
    stub = Stubber(client)
    finding = {
        "findingDetails": "bad",
        "findingType": "ERROR",
        "issueCode": "E",
        "learnMoreLink": "https://x",
        "locations": [],
    }
    stub.add_response("validate_policy", {"findings": [finding]})
    with stub:
        out = analyze(client, [record("scp", SCP)], stacks={}, baseline=None, is_client_error=failure)
    assert out["rows"][0]["result"] == "FAIL" and "ERROR E: bad" in out["rows"][0]["detail"]
    assert "needs --baseline" in out["why"]


def test_without_a_baseline_no_new_access_is_not_asked_and_a_new_policy_is_new(client: Any) -> None:
    endpoint = record("endpoint", INVOKE_NEW)
    stub = Stubber(client)
    stub.add_response("check_access_not_granted", {"result": "PASS", "message": "", "reasons": []})
    with stub:
        out = analyze(client, [endpoint], stacks={}, baseline=None, is_client_error=failure)
    assert [r["check"] for r in out["rows"]] == ["CheckAccessNotGranted"]
    stub = Stubber(client)
    stub.add_response("check_access_not_granted", {"result": "PASS", "message": "", "reasons": []})
    with stub:
        out = analyze(client, [endpoint], stacks={}, baseline=[], is_client_error=failure)
    assert [(r["check"], r["result"]) for r in out["rows"]] == [
        ("CheckNoNewAccess", "NEW"),
        ("CheckAccessNotGranted", "PASS"),
    ]


def test_access_denied_is_an_error_row_not_an_answer(client: Any) -> None:
    stub = Stubber(client)
    stub.add_client_error("validate_policy", service_error_code="AccessDeniedException", service_message="no")
    with stub:
        out = analyze(client, [record("scp", SCP)], stacks={}, baseline=None, is_client_error=failure)
    assert out["rows"][0]["result"] == "ERROR" and "AccessDeniedException" in out["rows"][0]["detail"]


def test_key_policies_are_compared_with_the_previous_release_only(client: Any) -> None:
    """The key policy's root statement grants kms:* to the account by design: CheckAccessNotGranted would always
    fail, so a key policy is only compared (neighbour: a bucket policy is checked for what it must not grant)."""
    key, bucket = record("key", SCP), record("bucket", SCP)
    assert "key" not in MUST_NOT_GRANT and "bucket" in MUST_NOT_GRANT
    assert [t.role for t in targets([key, bucket])] == ["key", "bucket"]


def test_placeholders_become_the_stack_s_account_and_region() -> None:
    text = concrete(INVOKE_OLD, account=ACC, region=REGION)
    assert json.loads(text)["Statement"][0]["Resource"] == f"arn:aws:bedrock:{REGION}::foundation-model/m"
    assert "<" not in concrete({"Resource": "arn:aws:s3:::<Ref--Bucket>"}, account=ACC, region=REGION)


def test_the_targets_of_a_synthesized_organization(synth: Any) -> None:
    from landing_zone.assembly import Assembly
    from landing_zone.review.inventory import build_inventory
    from tests.conftest import ROOT

    lz = synth(ROOT / "examples" / "eu-sovereign.yaml")
    roles = {t.role for t in targets(build_inventory(Assembly.load(lz.outdir)))}
    assert roles == {"scp", "invoker", "boundary", "endpoint", "key", "bucket"}


def test_the_report_shows_the_rows_next_to_the_proofs() -> None:
    from landing_zone.review.sections import SECTIONS

    anchors = [a for a, _ in SECTIONS]
    assert anchors.index("access-analyzer") == anchors.index("proofs") + 1


def test_profile_without_access_analyzer_is_refused_naming_the_flag(synth: Any, tmp_path: Any) -> None:
    from tests.cli.test_cli import lz
    from tests.conftest import ROOT

    assembly = synth(ROOT / "examples" / "eu-sovereign.yaml").outdir
    out = lz("review", "--assembly", str(assembly), "--out", str(tmp_path / "r"), "--profile", "p")
    assert out.returncode == 2
    assert "--profile" in out.stderr and "used only with --access-analyzer" in out.stderr
    assert not (tmp_path / "r").exists()
