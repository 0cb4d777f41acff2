"""Pure parts of the review, without a synth: intrinsics, wording, each rule, the shared case table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from landing_zone.assembly import Assembly, Stack
from landing_zone.assembly.intrinsics import render, render_document
from landing_zone.review.data_stores import data_store_findings
from landing_zone.review.findings import (
    ReviewContext,
    policy_findings,
)
from landing_zone.review.inventory import PolicyRecord, build_inventory
from landing_zone.review.scanners import SkipsError, load_skips
from landing_zone.review.summarize import condition_clauses, summarize_policy
from landing_zone.tables.decision_cases import CASES, EU_SOVEREIGN, case_rows, cases_for, params_for
from tests.conftest import EXAMPLES, ROOT

EXPORTS = {"keys:ExportLogsKeyArn": ("kimi-keys", {"Fn::GetAtt": ["LogsKeyFE4C4A83", "Arn"]})}


# ----------------------------------------------------------------------------------------- intrinsics


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"Ref": "AWS::AccountId"}, "<AWS::AccountId>"),
        ({"Fn::GetAtt": ["LogsKeyFE4C4A83", "Arn"]}, "<LogsKeyFE4C4A83.Arn>"),
        ({"Fn::GetAtt": "LogsKey.Arn"}, "<LogsKey.Arn>"),
        ({"Fn::Join": ["", [{"Fn::GetAtt": ["Bucket", "Arn"]}, "/*"]]}, "<Bucket.Arn>/*"),
        (
            {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"},
            "arn:<AWS::Partition>:iam::<AWS::AccountId>:root",
        ),
        ({"Fn::Sub": ["arn:aws:s3:::${B}/*", {"B": {"Ref": "Bucket"}}]}, "arn:aws:s3:::<Bucket>/*"),
        ({"Fn::ImportValue": "keys:ExportLogsKeyArn"}, "<kimi-keys:LogsKeyFE4C4A83.Arn>"),
        ({"Fn::ImportValue": "unknown-export"}, "<import unknown-export>"),
        ({"Fn::Select": [1, ["a", "b"]]}, "b"),
        ({"Fn::If": ["IsProd", "x", {"Ref": "AWS::NoValue"}]}, "<if IsProd: x else <AWS::NoValue>>"),
        ({"Fn::GetAZs": ""}, "<AZs of the stack Region>"),
        ({"Fn::Made::Up": {"deep": [1, 2]}}, '<Fn::Made::Up {"deep": [1, 2]}>'),
        ({"Fn::Join": "not-a-list"}, '<Fn::Join "not-a-list">'),
        ({"Fn::Sub": 42}, "<Fn::Sub 42>"),
    ],
)
def test_intrinsics_render_readably(value, expected):
    assert render(value, EXPORTS) == expected


def test_render_document_never_fails_on_odd_values():
    doc = {
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["s3:GetObject"],
                "Resource": {"Fn::GetAtt": []},
                "Condition": {"StringEquals": {"k": {"Fn::Join": [1, 2, 3]}}},
            }
        ]
    }
    rendered = render_document(doc)
    assert isinstance(rendered["Statement"][0]["Resource"], str)
    json.dumps(rendered)  # plain JSON, no intrinsic left


# ----------------------------------------------------------------------------------------- wording


def test_conditions_in_words():
    assert condition_clauses({"StringNotEquals": {"aws:RequestedRegion": ["eu-central-1", "eu-west-1"]}}) == [
        "aws:RequestedRegion is not one of eu-central-1, eu-west-1"
    ]
    assert condition_clauses({"Bool": {"aws:SecureTransport": "false"}}) == ["aws:SecureTransport is false"]
    assert condition_clauses({"Null": {"bedrock-mantle:Model": "true"}}) == ["bedrock-mantle:Model is absent"]
    assert condition_clauses(
        {"ArnLike": {"aws:SourceArn": "arn:aws:bedrock:*"}, "StringEquals": {"aws:SourceAccount": "1"}}
    ) == ["aws:SourceAccount is 1", "aws:SourceArn matches arn:aws:bedrock:*"]
    assert condition_clauses({"ForAnyValue:StringLikeIfExists": {"k": ["a*", "b*"]}}) == [
        "any value of k matches one of a*, b* (when k is present)"
    ]


def record(kind: str, statements: list[dict], **extra) -> PolicyRecord:
    fields = dict(
        id=f"s/L/{kind}",
        stack="s",
        template="s.template.json",
        logical_id="L",
        resource_type="AWS::X",
        kind=kind,
        name="n",
        property_path="Properties.PolicyDocument",
        document={"Version": "2012-10-17", "Statement": statements},
    )
    fields.update(extra)
    return PolicyRecord(**fields)


def test_statement_summary_names_who_what_where_and_when():
    boundary = record(
        "managed",
        [
            {
                "Sid": "Ceiling",
                "Effect": "Allow",
                "Action": "bedrock:InvokeModel",
                "Resource": "*",
                "Condition": {"StringEquals": {"aws:RequestedRegion": "eu-central-1"}},
            }
        ],
        boundary_of=("role app",),
    )
    (s,) = summarize_policy(boundary)
    assert s.text == (
        "as permissions boundary (a ceiling, not a grant) of: role app may bedrock:InvokeModel on any resource (*), "
        "only when aws:RequestedRegion is eu-central-1."
    )
    key = record(
        "key",
        [
            {
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::111111111111:root"},
                "Action": "kms:*",
                "Resource": "*",
            }
        ],
    )
    assert summarize_policy(key)[0].text.startswith(
        "account 111111111111 (its IAM principals, as its IAM policies allow) may kms:* on this key"
    )


# ----------------------------------------------------------------------------------------- rules

CTX = ReviewContext(
    compliant_regions=frozenset({"eu-central-1", "eu-west-1"}),
    known_accounts=frozenset({"111111111111"}),
    organization_id="o-abc",
    global_destinations=frozenset({("us-east-1", "m.model")}),
)
ALLOW_INVOKE = {"Effect": "Allow", "Action": "bedrock:InvokeModel"}


def rules_of(rec: PolicyRecord) -> list[tuple[str, str]]:
    return sorted((f.rule, f.level) for f in policy_findings([rec], CTX))


@pytest.mark.parametrize(
    ("kind", "statement", "expected"),
    [
        ("managed", {**ALLOW_INVOKE, "Resource": "*"}, [("LZ-WILDCARD-INVOKE", "blocking")]),
        (
            "managed",
            {**ALLOW_INVOKE, "Action": "bedrock:Invoke*", "Resource": "arn:aws:bedrock:*:*:*"},
            [("LZ-REGION-WILDCARD", "advisory"), ("LZ-WILDCARD-INVOKE", "blocking")],
        ),
        (
            "managed",
            {**ALLOW_INVOKE, "NotResource": "arn:aws:bedrock:eu-central-1::foundation-model/x"},
            [("LZ-WILDCARD-INVOKE", "blocking")],
        ),
        (
            "inline",
            {"Effect": "Allow", "Action": "iam:PassRole", "Resource": "*"},
            [("LZ-WILDCARD-PASSROLE", "blocking")],
        ),
        ("identity", {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": "*"}, [("LZ-WILDCARD-KMS", "blocking")]),
        ("managed", {"Effect": "Allow", "Action": "s3:Get*", "Resource": "*"}, [("LZ-WILDCARD-DATA", "blocking")]),
        (
            "managed",
            {"Effect": "Allow", "Action": "s3:*", "Resource": "arn:aws:s3:::b/*"},
            [("LZ-FULL-ACTION", "blocking")],
        ),
        (
            "managed",
            {"Effect": "Allow", "NotAction": "iam:*", "Resource": "arn:aws:s3:::b/*"},
            [("LZ-FULL-ACTION", "blocking")],
        ),
        ("managed", {"Effect": "Deny", "Action": "*", "Resource": "*"}, []),
        ("managed", {**ALLOW_INVOKE, "Resource": "arn:aws:bedrock:eu-central-1::foundation-model/m.model"}, []),
        (
            "managed",
            {**ALLOW_INVOKE, "Resource": "arn:aws:bedrock:us-west-2::foundation-model/m.model"},
            [("LZ-NONCOMPLIANT-REGION", "blocking")],
        ),
        (
            "managed",
            {**ALLOW_INVOKE, "Resource": "arn:aws:bedrock:us-east-1::foundation-model/m.model"},
            [],
        ),  # global destination
        (
            "managed",
            {
                **ALLOW_INVOKE,
                "Resource": "arn:aws:bedrock:eu-central-1::foundation-model/m",
                "Condition": {
                    "ArnLike": {"bedrock:InferenceProfileArn": "arn:aws:bedrock:ap-south-1:111111111111:x/y"}
                },
            },
            [("LZ-NONCOMPLIANT-REGION", "blocking")],
        ),
        ("scp", {"Effect": "Deny", "Action": "*", "Resource": "arn:aws:bedrock:us-west-2::foundation-model/m"}, []),
        ("scp", {"Effect": "Allow", "Action": "*", "Resource": "*"}, []),  # FullAWSAccess
        (
            "key",
            {
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::111111111111:root"},
                "Action": "kms:*",
                "Resource": "*",
            },
            [],
        ),
        (
            "key",
            {
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::999999999999:root"},
                "Action": "kms:*",
                "Resource": "*",
            },
            [("LZ-CROSS-ACCOUNT", "blocking"), ("LZ-FULL-ACTION", "blocking")],
        ),
        (
            "key",
            {
                "Effect": "Allow",
                "Principal": {"Service": "logs.eu-central-1.amazonaws.com"},
                "Action": "kms:Decrypt",
                "Resource": "*",
            },
            [("LZ-CONFUSED-DEPUTY", "blocking")],
        ),
        (
            "key",
            {
                "Effect": "Allow",
                "Principal": {"Service": "logs.us-east-1.amazonaws.com"},
                "Action": "kms:Decrypt",
                "Resource": "*",
                "Condition": {
                    "ArnLike": {"kms:EncryptionContext:aws:logs:arn": "arn:aws:logs:us-east-1:111111111111:*"}
                },
            },
            [("LZ-NONCOMPLIANT-REGION", "blocking")] * 2,
        ),  # the principal and the condition ARN
        (
            "bucket",
            {
                "Effect": "Allow",
                "Principal": {"Service": "bedrock.amazonaws.com"},
                "Action": "s3:PutObject",
                "Resource": "arn:aws:s3:::b/*",
                "Condition": {"StringEquals": {"aws:SourceAccount": "111111111111"}},
            },
            [],
        ),
        (
            "trust",
            {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"},
            [("LZ-SERVICE-PRINCIPAL-UNSCOPED", "advisory")],
        ),
        (
            "trust",
            {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::222222222222:role/x"}, "Action": "sts:AssumeRole"},
            [("LZ-CROSS-ACCOUNT", "blocking")],
        ),
        (
            "trust",
            {
                "Effect": "Allow",
                "Principal": {"AWS": "arn:<AWS::Partition>:iam::<AWS::AccountId>:root"},
                "Action": "sts:AssumeRole",
            },
            [],
        ),
        (
            "bucket",
            {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"},
            [("LZ-PUBLIC-PRINCIPAL", "blocking")],
        ),
        (
            "endpoint",
            {
                "Effect": "Allow",
                "Principal": "*",
                "Action": "bedrock:Get*",
                "Resource": "*",
                "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-abc"}},
            },
            [],
        ),
        (
            "endpoint",
            {
                "Effect": "Allow",
                "Principal": "*",
                "Action": "bedrock:Get*",
                "Resource": "*",
                "Condition": {"StringEquals": {"aws:PrincipalAccount": "333333333333"}},
            },
            [("LZ-CROSS-ACCOUNT", "blocking")],
        ),
        (
            "managed",
            {"Effect": "Allow", "Action": "bedrock:PutModelInvocationLoggingConfiguration", "Resource": "*"},
            [("LZ-WILDCARD-OTHER", "advisory")],
        ),
    ],
)
def test_each_rule(kind, statement, expected):
    assert rules_of(record(kind, [statement])) == expected


def test_a_boundary_only_policy_is_advisory():
    rec = record("managed", [{**ALLOW_INVOKE, "Resource": "*"}], boundary_of=("role app",))
    assert rules_of(rec) == [("LZ-WILDCARD-IN-BOUNDARY", "advisory")]
    attached = record(
        "managed", [{**ALLOW_INVOKE, "Resource": "*"}], boundary_of=("role app",), attached_to=("role other",)
    )
    assert rules_of(attached) == [("LZ-WILDCARD-INVOKE", "blocking")]


def test_unencrypted_data_stores_are_blocking():
    template = Stack(
        "s",
        "s.template.json",
        None,
        None,
        {
            "Resources": {
                "Bucket": {"Type": "AWS::S3::Bucket", "Properties": {}},
                "Logs": {"Type": "AWS::Logs::LogGroup", "Properties": {"RetentionInDays": 7}},
                "Topic": {"Type": "AWS::SNS::Topic"},
                "Cluster": {"Type": "AWS::EKS::Cluster", "Properties": {"Name": "c"}},
                "Good": {"Type": "AWS::Logs::LogGroup", "Properties": {"KmsKeyId": {"Fn::GetAtt": ["K", "Arn"]}}},
            }
        },
    )
    found = data_store_findings(Assembly(Path("."), (template,)))
    assert sorted((f.rule, f.logical_id, f.level) for f in found) == [
        ("LZ-UNENCRYPTED-EKS", "Cluster", "blocking"),
        ("LZ-UNENCRYPTED-LOGS", "Logs", "blocking"),
        ("LZ-UNENCRYPTED-S3", "Bucket", "blocking"),
        ("LZ-UNENCRYPTED-SNS", "Topic", "blocking"),
    ]


def test_the_inventory_finds_generic_and_text_policies():
    template = Stack(
        "s",
        "s.template.json",
        None,
        None,
        {
            "Resources": {
                "LogsPolicy": {
                    "Type": "AWS::Logs::ResourcePolicy",
                    "Properties": {
                        "PolicyName": "p",
                        "PolicyDocument": json.dumps(
                            {
                                "Statement": [
                                    {
                                        "Effect": "Allow",
                                        "Principal": {"Service": "es.amazonaws.com"},
                                        "Action": "logs:PutLogEvents",
                                        "Resource": "*",
                                    }
                                ]
                            }
                        ),
                    },
                },
                "Perm": {
                    "Type": "AWS::Lambda::Permission",
                    "Properties": {
                        "Action": "lambda:InvokeFunction",
                        "FunctionName": {"Ref": "Fn"},
                        "Principal": "events.amazonaws.com",
                        "SourceArn": {"Fn::GetAtt": ["Rule", "Arn"]},
                    },
                },
                "Role": {
                    "Type": "AWS::IAM::Role",
                    "Properties": {
                        "AssumeRolePolicyDocument": {
                            "Statement": [
                                {
                                    "Effect": "Allow",
                                    "Principal": {"Service": "ec2.amazonaws.com"},
                                    "Action": "sts:AssumeRole",
                                }
                            ]
                        },
                        "Policies": [
                            {
                                "PolicyName": "a",
                                "PolicyDocument": {
                                    "Statement": [{"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "*"}]
                                },
                            },
                            {
                                "PolicyName": "b",
                                "PolicyDocument": {
                                    "Statement": {"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": "*"}
                                },
                            },
                        ],
                        "PermissionsBoundary": {"Ref": "Boundary"},
                    },
                },
                "Boundary": {"Type": "AWS::IAM::ManagedPolicy", "Properties": {"PolicyDocument": {"Statement": []}}},
                "Broken": {"Type": "AWS::Custom::Thing", "Properties": {"Policy": '{"Statement": [ not json'}},
            }
        },
    )
    records = build_inventory(Assembly(Path("."), (template,)))
    kinds = {(r.logical_id, r.kind, r.name) for r in records}
    assert kinds == {
        ("LogsPolicy", "resource", "p"),
        ("Perm", "lambda-permission", "Perm"),
        ("Role", "trust", "Role"),
        ("Role", "inline", "a"),
        ("Role", "inline", "b"),
        ("Boundary", "managed", "Boundary"),
        ("Broken", "resource", "Broken"),
    }
    boundary = next(r for r in records if r.logical_id == "Boundary")
    assert boundary.boundary_of == ("role Role",) and boundary.is_boundary_only
    perm = next(r for r in records if r.kind == "lambda-permission")
    assert perm.document["Statement"][0]["Condition"] == {"ArnLike": {"aws:SourceArn": "<Rule.Arn>"}}
    broken = next(r for r in records if r.logical_id == "Broken")
    assert broken.parse_error and [f.rule for f in policy_findings([broken], CTX)] == ["LZ-UNPARSEABLE-POLICY"]


# ----------------------------------------------------------------------------------------- cases and skips


def test_the_case_table_is_the_eu_sovereign_table(plan_for):
    assert len(CASES) >= 40 and len({c[0] for c in CASES}) == len(CASES)
    assert params_for(plan_for(ROOT / "examples" / "eu-sovereign.yaml")) == EU_SOVEREIGN
    assert [c.as_tuple() for c in cases_for(plan_for(ROOT / "examples" / "eu-sovereign.yaml"))] == CASES


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=lambda p: getattr(p, "stem", "default"))
def test_cases_for_any_configuration(plan_for, example):
    plan = plan_for(example)
    cases = cases_for(plan)
    assert len({c.case for c in cases}) == len(cases) >= 40
    account = plan.config.deployment_account
    assert all(account in c.principal or c.principal.startswith("arn:aws:iam::*") for c in cases)
    assert len(cases) <= len(case_rows())


def test_global_inference_flips_the_global_rows(plan_for):
    allowed = {c.case: c.expected for c in cases_for(plan_for(allow_global_inference=True))}
    denied = {c.case: c.expected for c in cases_for(plan_for())}
    assert allowed["global profile: Region-less FM leg"] == "allow"
    assert denied["global profile: Region-less FM leg"] == "explicit_deny"


def test_skips_need_a_check_and_a_reason(tmp_path):
    path = tmp_path / "skips.yaml"
    path.write_text(
        "skips:\n  - check: CKV_AWS_1\n    reason: short\n"
        "  - check: X\n    reason: a long enough reason for the skip\n    extra: 1\n"
    )
    with pytest.raises(SkipsError) as exc:
        load_skips(path)
    assert (
        "skips[0].reason" in str(exc.value) and "skips[1].check" in str(exc.value) and "unknown key" in str(exc.value)
    )
    assert load_skips(ROOT / "checkov-skips.yaml")


def test_endpoint_policies_are_judged_as_filters():
    bounded = {
        "Sid": "OwnBuckets",
        "Effect": "Allow",
        "Principal": {"AWS": "*"},
        "Action": "s3:*",
        "Resource": "*",
        "Condition": {"StringEquals": {"aws:ResourceAccount": "111111111111"}},
    }
    specific = {
        "Sid": "EcrLayers",
        "Effect": "Allow",
        "Principal": {"AWS": "*"},
        "Action": "s3:GetObject",
        "Resource": "arn:aws:s3:::prod-us-east-1-starport-layer-bucket/*",
    }
    assert rules_of(record("endpoint", [bounded])) == [("LZ-ENDPOINT-PERIMETER", "advisory")]
    assert rules_of(record("endpoint", [specific])) == []
    foreign = {**bounded, "Condition": {"StringEquals": {"aws:ResourceAccount": "999999999999"}}}
    assert ("LZ-PUBLIC-PRINCIPAL", "blocking") in rules_of(record("endpoint", [foreign]))
    assert ("LZ-FULL-ACTION", "blocking") in rules_of(record("endpoint", [foreign]))
    # the same statement in a bucket policy admits everyone
    assert ("LZ-PUBLIC-PRINCIPAL", "blocking") in rules_of(record("bucket", [specific]))


def test_condition_values_naming_another_account_are_cross_account():
    trust = {
        "Effect": "Allow",
        "Principal": {"AWS": "arn:aws:iam::111111111111:root"},
        "Action": "sts:AssumeRole",
        "Condition": {"ArnLike": {"aws:PrincipalArn": "arn:aws:iam::555555555555:role/ci"}},
    }
    assert rules_of(record("trust", [trust])) == [("LZ-CROSS-ACCOUNT", "blocking")]
    key = {
        "Effect": "Allow",
        "Principal": {"AWS": "*"},
        "Action": "kms:Decrypt",
        "Resource": "*",
        "Condition": {
            "StringEquals": {"kms:CallerAccount": "111111111111"},
            "ArnEquals": {"aws:PrincipalArn": "arn:aws:iam::111111111111:role/aws-service-role/x"},
        },
    }
    assert rules_of(record("key", [key])) == []


# ----------------------------------------------------------------------------------------- cdk-nag


def test_acknowledgments_come_from_the_stack_metadata_and_match_the_nag_report(tmp_path):
    from landing_zone.assembly import load_assembly
    from landing_zone.review.nag import nag_findings, nag_section

    (tmp_path / "manifest.json").write_text(
        json.dumps(
            {
                "version": "55.0.0",
                "artifacts": {
                    "app-stack": {
                        "type": "aws:cloudformation:stack",
                        "environment": "aws://111111111111/eu-central-1",
                        "properties": {"templateFile": "app-stack.template.json"},
                        "additionalMetadataFile": "app-stack.metadata.json",
                    }
                },
            }
        )
    )
    bucket = {"Type": "AWS::S3::Bucket", "Properties": {}, "Metadata": {"aws:cdk:path": "app-stack/Bucket/Resource"}}
    (tmp_path / "app-stack.template.json").write_text(json.dumps({"Resources": {"Bucket": bucket}}))
    (tmp_path / "app-stack.metadata.json").write_text(
        json.dumps(
            {
                "/app-stack/Role": [
                    {
                        "type": "aws:cdk:acknowledged-rules",
                        "data": {"AwsSolutions::AwsSolutions-IAM5[Resource::*]": "the API has no resource ARN"},
                    }
                ],
                "/app-stack/Bucket": [
                    {
                        "type": "aws:cdk:acknowledged-rules",
                        "data": {
                            "AwsSolutions::AwsSolutions-S1": "the access-log bucket itself",
                            "NIST.800.53.R5::NIST.800.53.R5-S3BucketReplicationEnabled": "single-Region by design",
                        },
                    },
                    {"type": "aws:cdk:logicalId", "data": "Bucket"},
                ],
            }
        )
    )
    assembly = load_assembly(tmp_path)
    section = nag_section(assembly)
    assert [(a["construct_path"], a["rule"], a["used"], a["status"]) for a in section["acknowledgments"]] == [
        ("app-stack/Bucket", "AwsSolutions-S1", None, "no report"),
        ("app-stack/Bucket", "NIST.800.53.R5-S3BucketReplicationEnabled", None, "no report"),
        ("app-stack/Role", "AwsSolutions-IAM5", None, "no report"),
    ]
    assert [f.rule for f in nag_findings(section)] == ["LZ-NAG-NOT-RUN"]

    (tmp_path / "validation-report.json").write_text(
        json.dumps(
            {
                "pluginReports": [
                    {
                        "pluginName": "AwsSolutions",
                        "conclusion": "failure",
                        "violations": [
                            {
                                "ruleName": "AwsSolutions-S10",
                                "description": "no TLS",
                                "severity": "error",
                                "violatingConstructs": [
                                    {
                                        "constructPath": "app-stack/Bucket/Resource",
                                        "cloudFormationResource": {
                                            "templatePath": "app-stack.template.json",
                                            "logicalId": "Bucket",
                                        },
                                    }
                                ],
                            }
                        ],
                        "suppressedViolations": [
                            {
                                "ruleName": "AwsSolutions-IAM5[Resource::*]",
                                "acknowledgedId": "AwsSolutions::AwsSolutions-IAM5[Resource::*]",
                                "acknowledgedAt": "app-stack/Role",
                                "violatingConstructs": [{"constructPath": "app-stack/Role/Resource"}],
                            }
                        ],
                    },
                    {
                        "pluginName": "CloudFormation Validate",
                        "conclusion": "success",
                        "violations": [
                            {"ruleName": "W3010", "description": "AZ", "severity": "warning", "violatingConstructs": []}
                        ],
                    },
                ]
            }
        )
    )
    section = nag_section(load_assembly(tmp_path))
    status = {a["rule"]: (a["used"], a["status"]) for a in section["acknowledgments"]}
    assert status == {
        "AwsSolutions-IAM5": (True, "used"),
        "AwsSolutions-S1": (False, "unused"),  # AwsSolutions ran and suppressed nothing at app-stack/Bucket
        # NIST.800.53.R5 did not run: nothing can be said about its acknowledgment
        "NIST.800.53.R5-S3BucketReplicationEnabled": (None, "plugin not run"),
    }
    assert section["packs_run"] == ["AwsSolutions"]  # "CloudFormation Validate" is CDK's, not a cdk-nag pack
    found = sorted((f.rule, f.level, f.logical_id) for f in nag_findings(section))
    assert found == [
        ("LZ-NAG-UNUSED-ACK", "advisory", "Bucket"),  # located by the bucket's aws:cdk:path
        ("LZ-NAG-VIOLATION", "blocking", "Bucket"),
        ("LZ-VALIDATION-WARNING", "advisory", ""),
    ]
    (unused,) = [f for f in nag_findings(section) if f.rule == "LZ-NAG-UNUSED-ACK"]
    assert "AwsSolutions::AwsSolutions-S1 at app-stack/Bucket" in unused.message
    assert "the access-log bucket itself" in unused.message  # the acknowledgment's own reason


def test_without_the_packs_no_acknowledgment_is_called_unused_and_nag_is_reported_not_run(synth):
    """The tests synthesize in-process without the packs: CDK still writes a validation report, with no plugin."""
    from landing_zone.assembly import load_assembly
    from landing_zone.review.nag import nag_findings, nag_section

    section = nag_section(load_assembly(synth(None).outdir))
    assert section["report_found"] and section["packs_run"] == []
    assert {a["status"] for a in section["acknowledgments"]} == {"plugin not run"}
    assert [f.rule for f in nag_findings(section)] == ["LZ-NAG-NOT-RUN"]
    assert "lists no cdk-nag pack" in nag_findings(section)[0].message


def test_every_acknowledgment_of_a_synthesized_assembly_is_listed_with_its_reason(synth):
    from landing_zone.assembly import load_assembly
    from landing_zone.review.nag import nag_section

    synthesized = synth(None)
    acknowledgments = nag_section(load_assembly(synthesized.outdir))["acknowledgments"]
    metadata = [
        (path.lstrip("/"), ack_id)
        for file in Path(synthesized.outdir).glob("*.metadata.json")
        for path, entries in json.loads(file.read_text()).items()
        for entry in entries
        if entry["type"] == "aws:cdk:acknowledged-rules"
        for ack_id in entry["data"]
    ]
    assert sorted((a["construct_path"], a["id"]) for a in acknowledgments) == sorted(metadata)
    assert metadata and all(a["reason"] for a in acknowledgments)


def test_every_rule_is_documented():
    from landing_zone.review.rules import RULES

    text = (ROOT / "docs" / "REVIEW.md").read_text()
    missing = [r.id for r in RULES.values() if f"`{r.id}`" not in text]
    assert missing == []
    for rule in RULES.values():
        assert rule.level in ("blocking", "advisory") and rule.title and rule.description


def test_a_pseudo_parameter_root_principal_reads_as_the_stack_account():
    key = record(
        "key",
        [
            {
                "Effect": "Allow",
                "Principal": {"AWS": "arn:<AWS::Partition>:iam::<AWS::AccountId>:root"},
                "Action": "kms:*",
                "Resource": "*",
            }
        ],
    )
    assert summarize_policy(key)[0].text.startswith("account of the stack (<AWS::AccountId>) (its IAM principals")
    assert rules_of(key) == []


def test_cdk_own_validation_plugins_are_not_cdk_nag_packs():
    """A report with only CDK's plugins ("CloudFormation Validate", "Construct Annotations") means the packs did not
    run; an unused acknowledgment of CDK's own plugin says that it usually comes from aws-cdk-lib."""
    from landing_zone.assembly import Acknowledgment
    from landing_zone.review.nag import nag_findings, nag_section, plugin_key

    assert plugin_key("CloudFormation Validate") == plugin_key("CloudFormation-Validate") == "cloudformation-validate"
    stack = Stack("app", "app.template.json", "111111111111", "eu-central-1", {"Resources": {}})
    report = {
        "pluginReports": [
            {"pluginName": "CloudFormation Validate", "conclusion": "success", "violations": []},
            {"pluginName": "Construct Annotations", "conclusion": "success", "violations": []},
        ]
    }
    ack = Acknowledgment("CloudFormation-Validate::F3002", "camelCase DestinationOptions", "app/FlowLog", "app")
    section = nag_section(Assembly(Path("."), (stack,), acknowledgments=(ack,), nag_report=report))
    assert section["packs_run"] == []
    assert [a["status"] for a in section["acknowledgments"]] == ["unused"]  # its plugin ran
    found = {f.rule: f for f in nag_findings(section)}
    assert set(found) == {"LZ-NAG-NOT-RUN", "LZ-NAG-UNUSED-ACK"}
    assert "usually come from aws-cdk-lib" in found["LZ-NAG-UNUSED-ACK"].message
