"""Tests for landing_zone.policies.evaluator: each case states the request and the expected decision.

Policy shapes marked "documented" are taken from AWS documentation / aws-samples:
- Bedrock User Guide, global-cross-region-inference.html (deny global cross-Region inference);
- aws-samples/service-control-policy-examples, "deny all outside approved Regions";
- IAM User Guide, "Condition operators", "...IfExists", "Single-valued vs. multivalued context keys".
"""

from __future__ import annotations

import pytest

from landing_zone.policies.evaluator import (
    FULL_AWS_ACCESS,
    Decision,
    Request,
    StatementMatch,
    UnsupportedPolicyElement,
    evaluate,
    evaluate_scp_levels,
    statement_matches,
)

MODEL = "moonshotai.kimi-k3.1-pro"
ACCOUNT = "111122223333"


def doc(*statements: dict) -> dict:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def decide(policy: dict, request: Request, *, name: str = "scp") -> str:
    return evaluate([("FullAWSAccess", FULL_AWS_ACCESS), (name, policy)], request).decision


# ----------------------------------------------------------------------------- 1. global CRIS deny (documented)

DENY_GLOBAL_CRIS = doc(
    {
        "Sid": "DenyGlobalCRIS",
        "Effect": "Deny",
        "Action": "bedrock:*",
        "Resource": "*",
        "Condition": {
            "StringEquals": {"aws:RequestedRegion": "unspecified"},
            "ArnLike": {"bedrock:InferenceProfileArn": "arn:aws:bedrock:*:*:inference-profile/global.*"},
        },
    }
)


@pytest.mark.parametrize(
    ("resource", "context", "expected"),
    [
        # global leg: Region-less FM ARN, RequestedRegion "unspecified", global profile ARN
        (
            f"arn:aws:bedrock:::foundation-model/{MODEL}",
            {
                "aws:RequestedRegion": "unspecified",
                "bedrock:InferenceProfileArn": f"arn:aws:bedrock:eu-west-1:{ACCOUNT}:inference-profile/global.{MODEL}",
            },
            "explicit_deny",
        ),
        # same, without the profile ARN key: ArnLike on an absent key is false
        (f"arn:aws:bedrock:::foundation-model/{MODEL}", {"aws:RequestedRegion": "unspecified"}, "allow"),
        # geographic (eu.) profile: ArnLike does not match
        (
            f"arn:aws:bedrock:eu-west-1::foundation-model/{MODEL}",
            {
                "aws:RequestedRegion": "eu-west-1",
                "bedrock:InferenceProfileArn": f"arn:aws:bedrock:eu-west-1:{ACCOUNT}:inference-profile/eu.{MODEL}",
            },
            "allow",
        ),
        # eu. profile ARN even with RequestedRegion unspecified: still allowed
        (
            f"arn:aws:bedrock:::foundation-model/{MODEL}",
            {
                "aws:RequestedRegion": "unspecified",
                "bedrock:InferenceProfileArn": f"arn:aws:bedrock:eu-west-1:{ACCOUNT}:inference-profile/eu.{MODEL}",
            },
            "allow",
        ),
        # the global profile call itself (source Region leg) is not denied: RequestedRegion is a real Region
        (
            f"arn:aws:bedrock:eu-west-1:{ACCOUNT}:inference-profile/global.{MODEL}",
            {
                "aws:RequestedRegion": "eu-west-1",
                "bedrock:InferenceProfileArn": f"arn:aws:bedrock:eu-west-1:{ACCOUNT}:inference-profile/global.{MODEL}",
            },
            "allow",
        ),
    ],
)
def test_documented_global_cris_deny(resource, context, expected):
    request = Request("bedrock:InvokeModel", resource, context)
    assert decide(DENY_GLOBAL_CRIS, request) == expected


def test_global_cris_deny_explains_deciding_statement():
    request = Request(
        "bedrock:InvokeModel",
        f"arn:aws:bedrock:::foundation-model/{MODEL}",
        {
            "aws:RequestedRegion": "unspecified",
            "bedrock:InferenceProfileArn": f"arn:aws:bedrock:eu-west-1:{ACCOUNT}:inference-profile/global.{MODEL}",
        },
    )
    decision = evaluate([("FullAWSAccess", FULL_AWS_ACCESS), ("deny-global", DENY_GLOBAL_CRIS)], request)
    assert decision == Decision(
        "explicit_deny",
        False,
        (StatementMatch("deny-global", "DenyGlobalCRIS", 0, "Deny"),),
        (StatementMatch("FullAWSAccess", None, 0, "Allow"),),
    )
    assert decision.explain() == "explicit_deny by deny-global/DenyGlobalCRIS"


# ----------------------------------------------------------------------------- 2. Region deny with NotAction (documented)

DENY_OUTSIDE_REGIONS = doc(
    {
        "Sid": "DenyAllOutsideEU",
        "Effect": "Deny",
        "NotAction": [
            "a4b:*",
            "acm:*",
            "aws-marketplace-management:*",
            "aws-marketplace:*",
            "aws-portal:*",
            "budgets:*",
            "ce:*",
            "chime:*",
            "cloudfront:*",
            "config:*",
            "cur:*",
            "directconnect:*",
            "ec2:DescribeRegions",
            "ec2:DescribeTransitGateways",
            "ec2:DescribeVpnGateways",
            "fms:*",
            "globalaccelerator:*",
            "health:*",
            "iam:*",
            "importexport:*",
            "kms:*",
            "mobileanalytics:*",
            "networkmanager:*",
            "organizations:*",
            "pricing:*",
            "route53:*",
            "route53domains:*",
            "route53-recovery-cluster:*",
            "route53-recovery-control-config:*",
            "route53-recovery-readiness:*",
            "s3:GetAccountPublic*",
            "s3:ListAllMyBuckets",
            "s3:ListMultiRegionAccessPoints",
            "s3:PutAccountPublic*",
            "shield:*",
            "sts:*",
            "support:*",
            "trustedadvisor:*",
            "waf-regional:*",
            "waf:*",
            "wafv2:*",
            "wellarchitected:*",
        ],
        "Resource": "*",
        "Condition": {"StringNotEquals": {"aws:RequestedRegion": ["eu-central-1", "eu-west-1"]}},
    }
)


@pytest.mark.parametrize(
    ("action", "resource", "context", "expected"),
    [
        ("sts:GetCallerIdentity", "*", {"aws:RequestedRegion": "us-east-1"}, "allow"),
        ("iam:CreateRole", f"arn:aws:iam::{ACCOUNT}:role/x", {"aws:RequestedRegion": "us-east-1"}, "allow"),
        ("s3:GetObject", "arn:aws:s3:::bucket/key", {"aws:RequestedRegion": "us-east-1"}, "explicit_deny"),
        ("s3:GetObject", "arn:aws:s3:::bucket/key", {"aws:RequestedRegion": "eu-west-1"}, "allow"),
        ("s3:GetObject", "arn:aws:s3:::bucket/key", {"aws:RequestedRegion": "eu-central-1"}, "allow"),
        # negated operator on an ABSENT key is true -> the deny applies
        ("s3:GetObject", "arn:aws:s3:::bucket/key", {}, "explicit_deny"),
        ("sts:AssumeRole", "*", {}, "allow"),
        # NotAction wildcards: s3:PutAccountPublic* exempts s3:PutAccountPublicAccessBlock only
        ("s3:PutAccountPublicAccessBlock", "*", {"aws:RequestedRegion": "us-east-1"}, "allow"),
        ("s3:PutBucketPublicAccessBlock", "*", {"aws:RequestedRegion": "us-east-1"}, "explicit_deny"),
        # values are case-sensitive: "EU-WEST-1" is not an approved Region
        ("bedrock:InvokeModel", "*", {"aws:RequestedRegion": "EU-WEST-1"}, "explicit_deny"),
        ("bedrock:InvokeModel", "*", {"aws:RequestedRegion": "il-central-1"}, "explicit_deny"),
    ],
)
def test_documented_region_deny_with_notaction(action, resource, context, expected):
    assert decide(DENY_OUTSIDE_REGIONS, Request(action, resource, context)) == expected


# ----------------------------------------------------------------------------- 3. tamper protection with ArnNotLike

DEPLOY_ROLE = f"arn:aws:iam::{ACCOUNT}:role/lz-deployment"
TAMPER_PROTECTION = doc(
    {
        "Sid": "ProtectLandingZone",
        "Effect": "Deny",
        "Action": [
            "bedrock:PutModelInvocationLoggingConfiguration",
            "bedrock:DeleteModelInvocationLoggingConfiguration",
        ],
        "Resource": "*",
        "Condition": {"ArnNotLike": {"aws:PrincipalARN": "arn:aws:iam::*:role/lz-deployment"}},
    }
)


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ({"aws:PrincipalARN": DEPLOY_ROLE}, "allow"),
        ({"aws:PrincipalArn": DEPLOY_ROLE}, "allow"),  # key names are case-insensitive
        ({"aws:PrincipalARN": f"arn:aws:iam::{ACCOUNT}:role/app"}, "explicit_deny"),
        ({"aws:PrincipalARN": f"arn:aws:iam::{ACCOUNT}:role/lz-deployment-copy"}, "explicit_deny"),
        ({}, "explicit_deny"),  # absent key: ArnNotLike is true
        ({"aws:PrincipalARN": "lz-deployment"}, "explicit_deny"),  # not an ARN: ArnLike false, ArnNotLike true
    ],
)
def test_tamper_protection_arn_not_like(context, expected):
    request = Request("bedrock:DeleteModelInvocationLoggingConfiguration", "*", context)
    assert decide(TAMPER_PROTECTION, request) == expected


def test_tamper_protection_does_not_touch_other_actions():
    request = Request("bedrock:InvokeModel", "*", {"aws:PrincipalARN": f"arn:aws:iam::{ACCOUNT}:role/app"})
    assert decide(TAMPER_PROTECTION, request) == "allow"


# ----------------------------------------------------------------------------- 4. operators on absent / present keys


def allow_if(condition: dict) -> dict:
    return {"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": condition}


@pytest.mark.parametrize(
    ("condition", "context", "expected"),
    [
        # positive operators on an absent key: false
        ({"StringEquals": {"k": "v"}}, {}, False),
        ({"StringLike": {"k": "*"}}, {}, False),
        ({"ArnLike": {"k": "arn:*:*:*:*:*"}}, {}, False),
        ({"Bool": {"k": "true"}}, {}, False),
        ({"NumericLessThan": {"k": "5"}}, {}, False),
        # negated operators on an absent key: true
        ({"StringNotEquals": {"k": "v"}}, {}, True),
        ({"StringNotLike": {"k": "v*"}}, {}, True),
        ({"StringNotEqualsIgnoreCase": {"k": "v"}}, {}, True),
        ({"ArnNotEquals": {"k": "arn:aws:s3:::b"}}, {}, True),
        ({"NumericNotEquals": {"k": "1"}}, {}, True),
        # ...IfExists: true when absent, the plain operator when present
        ({"StringEqualsIfExists": {"k": "v"}}, {}, True),
        ({"StringEqualsIfExists": {"k": "v"}}, {"k": "v"}, True),
        ({"StringEqualsIfExists": {"k": "v"}}, {"k": "w"}, False),
        ({"StringNotEqualsIfExists": {"k": "v"}}, {"k": "v"}, False),
        ({"ArnLikeIfExists": {"k": "arn:aws:iam::*:role/a"}}, {}, True),
        ({"BoolIfExists": {"aws:MultiFactorAuthPresent": "false"}}, {}, True),
        ({"BoolIfExists": {"aws:MultiFactorAuthPresent": "false"}}, {"aws:MultiFactorAuthPresent": True}, False),
        # Null
        ({"Null": {"k": "true"}}, {}, True),
        ({"Null": {"k": "true"}}, {"k": "x"}, False),
        ({"Null": {"k": "false"}}, {"k": "x"}, True),
        ({"Null": {"k": "false"}}, {}, False),
        ({"Null": {"k": True}}, {}, True),  # JSON boolean in the policy
        ({"Null": {"k": "true"}}, {"k": []}, True),  # empty multivalued key counts as absent
        # set operators on an absent / empty key
        ({"ForAllValues:StringEquals": {"aws:TagKeys": ["a", "b"]}}, {}, True),
        ({"ForAllValues:StringEquals": {"aws:TagKeys": ["a", "b"]}}, {"aws:TagKeys": []}, True),
        ({"ForAnyValue:StringEquals": {"aws:TagKeys": ["a", "b"]}}, {}, False),
        ({"ForAnyValue:StringEquals": {"aws:TagKeys": ["a", "b"]}}, {"aws:TagKeys": []}, False),
        ({"ForAnyValue:StringNotEquals": {"aws:TagKeys": "a"}}, {}, False),
        ({"ForAnyValue:StringEqualsIfExists": {"aws:TagKeys": "a"}}, {}, True),
        # set operators on present values
        ({"ForAllValues:StringEquals": {"aws:TagKeys": ["a", "b"]}}, {"aws:TagKeys": ["a"]}, True),
        ({"ForAllValues:StringEquals": {"aws:TagKeys": ["a", "b"]}}, {"aws:TagKeys": ["a", "b"]}, True),
        ({"ForAllValues:StringEquals": {"aws:TagKeys": ["a", "b"]}}, {"aws:TagKeys": ["a", "c"]}, False),
        ({"ForAnyValue:StringEquals": {"aws:TagKeys": ["a", "b"]}}, {"aws:TagKeys": ["c", "b"]}, True),
        ({"ForAnyValue:StringEquals": {"aws:TagKeys": ["a", "b"]}}, {"aws:TagKeys": ["c", "d"]}, False),
        ({"ForAllValues:StringNotEquals": {"aws:TagKeys": ["a"]}}, {"aws:TagKeys": ["b", "c"]}, True),
        ({"ForAllValues:StringNotEquals": {"aws:TagKeys": ["a"]}}, {"aws:TagKeys": ["b", "a"]}, False),
        ({"ForAnyValue:StringLike": {"aws:TagKeys": "cost*"}}, {"aws:TagKeys": ["x", "costcenter"]}, True),
        # a single-valued key given as a string is a one-element set
        ({"ForAnyValue:StringEquals": {"k": "a"}}, {"k": "a"}, True),
        # plain operator, multivalued request value: matches if any request value does
        ({"StringEquals": {"k": "a"}}, {"k": ["b", "a"]}, True),
        ({"StringEquals": {"k": "a"}}, {"k": ["b", "c"]}, False),
    ],
)
def test_condition_operator_semantics(condition, context, expected):
    assert statement_matches(allow_if(condition), Request("s3:GetObject", "*", context)) is expected


@pytest.mark.parametrize(
    ("condition", "context", "expected"),
    [
        # several values for one key: OR (positive) / NOR (negated)
        ({"StringEquals": {"k": ["a", "b"]}}, {"k": "b"}, True),
        ({"StringNotEquals": {"k": ["a", "b"]}}, {"k": "b"}, False),
        ({"StringNotEquals": {"k": ["a", "b"]}}, {"k": "c"}, True),
        ({"StringNotLike": {"k": ["a*", "b*"]}}, {"k": "bz"}, False),
        # several keys in one operator: AND
        ({"StringEquals": {"k": "a", "j": "b"}}, {"k": "a", "j": "b"}, True),
        ({"StringEquals": {"k": "a", "j": "b"}}, {"k": "a"}, False),
        # several operators: AND
        ({"StringEquals": {"k": "a"}, "Bool": {"j": "true"}}, {"k": "a", "j": "false"}, False),
        ({"StringEquals": {"k": "a"}, "Bool": {"j": "true"}}, {"k": "a", "j": "TRUE"}, True),
        # string operators
        ({"StringEquals": {"k": "Abc"}}, {"k": "abc"}, False),
        ({"StringEqualsIgnoreCase": {"k": "Abc"}}, {"k": "aBC"}, True),
        ({"StringNotEqualsIgnoreCase": {"k": "Abc"}}, {"k": "aBC"}, False),
        ({"StringEquals": {"k": "a*"}}, {"k": "ab"}, False),  # no wildcards in StringEquals
        ({"StringLike": {"k": "a?c*"}}, {"k": "abcdef"}, True),
        ({"StringLike": {"k": "a?c"}}, {"k": "ac"}, False),
        ({"StringLike": {"k": "A*"}}, {"k": "abc"}, False),  # StringLike is case-sensitive
        ({"StringLike": {"k": "a.c"}}, {"k": "abc"}, False),  # regex characters are literal
        # Bool: JSON and string spellings, Python bools in the context
        ({"Bool": {"aws:SecureTransport": False}}, {"aws:SecureTransport": False}, True),
        ({"Bool": {"aws:SecureTransport": "False"}}, {"aws:SecureTransport": "false"}, True),
        ({"Bool": {"aws:SecureTransport": "true"}}, {"aws:SecureTransport": False}, False),
        # numeric
        ({"NumericLessThanEquals": {"k": "10"}}, {"k": 10}, True),
        ({"NumericLessThan": {"k": "10"}}, {"k": "10"}, False),
        ({"NumericGreaterThan": {"k": 3}}, {"k": "3.5"}, True),
        ({"NumericGreaterThanEquals": {"k": "3"}}, {"k": 2}, False),
        ({"NumericEquals": {"k": "3"}}, {"k": "3.0"}, True),
        ({"NumericNotEquals": {"k": ["1", "2"]}}, {"k": 2}, False),
        # ARN operators: segment by segment
        ({"ArnLike": {"k": "arn:aws:iam::*:role/*"}}, {"k": f"arn:aws:iam::{ACCOUNT}:role/a/b"}, True),
        ({"ArnLike": {"k": "arn:aws:iam::*:role/*"}}, {"k": f"arn:aws:sts::{ACCOUNT}:assumed-role/a/b"}, False),
        ({"ArnEquals": {"k": "arn:aws:iam::*:role/a"}}, {"k": f"arn:aws:iam::{ACCOUNT}:role/a"}, True),
        ({"ArnNotEquals": {"k": "arn:aws:iam::*:role/a"}}, {"k": f"arn:aws:iam::{ACCOUNT}:role/a"}, False),
        # a "*" stays inside its segment: it cannot absorb the colon before the resource segment
        (
            {"ArnLike": {"k": "arn:aws:bedrock:*:*:inference-profile/global.*"}},
            {"k": "arn:aws:bedrock:eu-west-1:1:2:inference-profile/global.m"},
            False,
        ),
        # a pattern that is not a 6-segment ARN is rejected, not guessed
        ({"ArnLike": {"k": "arn:aws:bedrock:*:inference-profile/x"}}, {"k": "arn:aws:bedrock:r:1:x"}, None),
        ({"ArnNotLike": {"k": "*"}}, {"k": "arn:aws:bedrock:r:1:x"}, None),
        (
            {"ArnLike": {"k": "arn:aws:bedrock:eu-*:*:inference-profile/eu.*"}},
            {"k": f"arn:aws:bedrock:eu-west-1:{ACCOUNT}:inference-profile/eu.m"},
            True,
        ),
        (
            {"ArnLike": {"k": "arn:aws:bedrock:eu-*:*:inference-profile/eu.*"}},
            {"k": f"arn:aws:bedrock:us-east-1:{ACCOUNT}:inference-profile/eu.m"},
            False,
        ),
        ({"ArnLike": {"k": "arn:aws:bedrock:???:*:*"}}, {"k": "arn:aws:bedrock:eu-west-1:1:x"}, False),
        # the resource segment may contain colons
        (
            {"ArnLike": {"k": "arn:aws:logs:*:*:log-group:/aws/*"}},
            {"k": f"arn:aws:logs:eu-west-1:{ACCOUNT}:log-group:/aws/x:log-stream:y"},
            True,
        ),
        ({"ArnLike": {"k": "arn:aws:s3:::b/*"}}, {"k": "arn:aws:s3:::b/k"}, True),
        ({"ArnLike": {"k": "arn:aws:s3:::b/*"}}, {"k": "not-an-arn"}, False),
        ({"ArnNotLike": {"k": "arn:aws:s3:::b/*"}}, {"k": "not-an-arn"}, True),
        ({"ArnLike": {"k": "arn:*:*:*:*:*"}}, {"k": "arn:aws:s3"}, False),  # fewer than 6 segments
    ],
)
def test_condition_values(condition, context, expected):
    statement = allow_if(condition)
    request = Request("s3:GetObject", "*", context)
    if expected is None:  # a malformed ARN pattern is rejected, not guessed
        with pytest.raises(UnsupportedPolicyElement, match="ARN pattern"):
            statement_matches(statement, request)
    else:
        assert statement_matches(statement, request) is expected


# ----------------------------------------------------------------------------- action / resource matching


@pytest.mark.parametrize(
    ("statement", "action", "resource", "expected"),
    [
        ({"Action": "bedrock:InvokeModel", "Resource": "*"}, "BEDROCK:invokemodel", "*", True),
        ({"Action": "Bedrock:Invoke*", "Resource": "*"}, "bedrock:InvokeModelWithResponseStream", "*", True),
        ({"Action": "bedrock:Invoke?odel", "Resource": "*"}, "bedrock:InvokeModel", "*", True),
        ({"Action": "bedrock:Invoke?odel", "Resource": "*"}, "bedrock:InvokeModels", "*", False),
        ({"Action": ["s3:*", "sts:*"], "Resource": "*"}, "bedrock:InvokeModel", "*", False),
        ({"NotAction": ["s3:*", "sts:*"], "Resource": "*"}, "bedrock:InvokeModel", "*", True),
        ({"NotAction": "bedrock:*", "Resource": "*"}, "Bedrock:InvokeModel", "*", False),
        # resources: case-sensitive, wildcards
        ({"Action": "*", "Resource": "arn:aws:s3:::b/*"}, "s3:GetObject", "arn:aws:s3:::b/k/x", True),
        ({"Action": "*", "Resource": "arn:aws:s3:::b/*"}, "s3:GetObject", "arn:aws:s3:::B/k", False),
        ({"Action": "*", "Resource": "arn:aws:s3:::b/?"}, "s3:GetObject", "arn:aws:s3:::b/kk", False),
        ({"Action": "*", "Resource": "arn:aws:s3:::b/*"}, "s3:ListAllMyBuckets", "*", False),
        (
            {"Action": "*", "Resource": f"arn:aws:bedrock:*::foundation-model/{MODEL}"},
            "bedrock:InvokeModel",
            f"arn:aws:bedrock:::foundation-model/{MODEL}",
            True,
        ),
        (
            {"Action": "*", "Resource": f"arn:aws:bedrock:eu-*::foundation-model/{MODEL}"},
            "bedrock:InvokeModel",
            f"arn:aws:bedrock:us-east-1::foundation-model/{MODEL}",
            False,
        ),
        (
            {"Action": "*", "Resource": f"arn:aws:bedrock:eu-west-1:{ACCOUNT}:application-inference-profile/*"},
            "bedrock:InvokeModel",
            f"arn:aws:bedrock:eu-west-1:{ACCOUNT}:application-inference-profile/abc",
            True,
        ),
        # a "*" at the end of a segment may cross colons (IAM User Guide, Resource element)
        ({"Action": "*", "Resource": "arn:aws:s3:*"}, "s3:GetObject", "arn:aws:s3:::b/k", True),
        ({"Action": "*", "Resource": "arn:aws:s3:::b*"}, "s3:GetObject", "arn:aws:s3:::b:x", True),
        # ... a "*" inside a segment does not
        ({"Action": "*", "Resource": "arn:aws:ec2:eu-*1:1:x"}, "s3:GetObject", "arn:aws:ec2:eu-west:1:1:x", False),
        # NotResource
        ({"Action": "*", "NotResource": "arn:aws:s3:::b/*"}, "s3:GetObject", "arn:aws:s3:::b/k", False),
        ({"Action": "*", "NotResource": "arn:aws:s3:::b/*"}, "s3:GetObject", "arn:aws:s3:::other/k", True),
        (
            {"Action": "*", "NotResource": ["arn:aws:s3:::b", "arn:aws:s3:::b/*"]},
            "s3:ListBucket",
            "arn:aws:s3:::b",
            False,
        ),
        ({"Action": "*", "NotResource": "arn:aws:s3:::b/*"}, "s3:ListAllMyBuckets", "*", True),
    ],
)
def test_action_and_resource_matching(statement, action, resource, expected):
    assert statement_matches({"Effect": "Allow", **statement}, Request(action, resource, {})) is expected


def test_not_resource_deny_in_policy():
    policy = doc(
        {
            "Sid": "OnlyBucketB",
            "Effect": "Deny",
            "Action": "s3:*",
            "NotResource": ["arn:aws:s3:::b", "arn:aws:s3:::b/*"],
        }
    )
    assert decide(policy, Request("s3:GetObject", "arn:aws:s3:::b/k", {})) == "allow"
    assert decide(policy, Request("s3:GetObject", "arn:aws:s3:::c/k", {})) == "explicit_deny"


def test_condition_key_names_are_case_insensitive():
    statement = allow_if({"StringEquals": {"AWS:RequestedRegion": "eu-west-1"}})
    assert statement_matches(statement, Request("s3:GetObject", "*", {"aws:requestedregion": "eu-west-1"}))
    assert not statement_matches(statement, Request("s3:GetObject", "*", {"aws:requestedregion": "us-east-1"}))


# ----------------------------------------------------------------------------- evaluation logic


def test_implicit_deny_without_allow():
    decision = evaluate([("deny-only", DENY_GLOBAL_CRIS)], Request("s3:GetObject", "*", {}))
    assert (decision.decision, decision.allowed) == ("implicit_deny", False)
    assert decision.explain() == "implicit_deny: no Allow statement matched"


def test_explicit_deny_beats_allow_in_same_policy():
    policy = doc(
        {"Sid": "AllowAll", "Effect": "Allow", "Action": "*", "Resource": "*"},
        {"Effect": "Deny", "Action": "s3:DeleteBucket", "Resource": "*"},
    )
    decision = evaluate([("p", policy)], Request("s3:DeleteBucket", "arn:aws:s3:::b", {}))
    assert decision.decision == "explicit_deny"
    assert decision.matched_denies == (StatementMatch("p", None, 1, "Deny"),)
    assert decision.explain() == "explicit_deny by p/#1"


def test_allow_explain_names_statement():
    policy = {
        "Version": "2012-10-17",
        "Statement": {"Sid": "S3Read", "Effect": "Allow", "Action": "s3:Get*", "Resource": "*"},
    }
    decision = evaluate([("reader", policy)], Request("s3:GetObject", "arn:aws:s3:::b/k", {}))
    assert decision.allowed and decision.explain() == "allow by reader/S3Read"


ONLY_BEDROCK = doc({"Sid": "AllowBedrockOnly", "Effect": "Allow", "Action": ["bedrock:*", "sts:*"], "Resource": "*"})


@pytest.mark.parametrize(
    ("levels", "action", "expected", "missing_level"),
    [
        # root FullAWSAccess, OU with a narrower allow list, account FullAWSAccess
        (
            [[("FullAWSAccess", FULL_AWS_ACCESS)], [("ou-allow", ONLY_BEDROCK)], [("FullAWSAccess", FULL_AWS_ACCESS)]],
            "bedrock:InvokeModel",
            "allow",
            None,
        ),
        (
            [[("FullAWSAccess", FULL_AWS_ACCESS)], [("ou-allow", ONLY_BEDROCK)], [("FullAWSAccess", FULL_AWS_ACCESS)]],
            "s3:GetObject",
            "implicit_deny",
            1,
        ),
        # OU level has only a Deny SCP (no Allow at all): implicit deny although root has FullAWSAccess
        (
            [
                [("FullAWSAccess", FULL_AWS_ACCESS)],
                [("deny-global", DENY_GLOBAL_CRIS)],
                [("FullAWSAccess", FULL_AWS_ACCESS)],
            ],
            "bedrock:InvokeModel",
            "implicit_deny",
            1,
        ),
        # the account level lacks an allow
        (
            [[("FullAWSAccess", FULL_AWS_ACCESS)], [("FullAWSAccess", FULL_AWS_ACCESS)], []],
            "bedrock:InvokeModel",
            "implicit_deny",
            2,
        ),
        # a deny at the account level denies even with allows everywhere
        (
            [
                [("FullAWSAccess", FULL_AWS_ACCESS)],
                [("FullAWSAccess", FULL_AWS_ACCESS)],
                [("FullAWSAccess", FULL_AWS_ACCESS), ("region", DENY_OUTSIDE_REGIONS)],
            ],
            "bedrock:InvokeModel",
            "explicit_deny",
            None,
        ),
    ],
)
def test_scp_levels(levels, action, expected, missing_level):
    request = Request(action, "*", {"aws:RequestedRegion": "us-east-1"})
    decision = evaluate_scp_levels(levels, request)
    assert decision.decision == expected
    assert decision.allowed is (expected == "allow")
    assert decision.missing_allow_level == missing_level


def test_scp_levels_explain():
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS)], [("ou-allow", ONLY_BEDROCK)]]
    denied = evaluate_scp_levels(levels, Request("s3:GetObject", "*", {}))
    assert denied.explain() == "implicit_deny: no Allow statement matched at SCP level 1"
    allowed = evaluate_scp_levels(levels, Request("bedrock:InvokeModel", "*", {}))
    assert allowed.explain() == "allow by FullAWSAccess/#0, ou-allow/AllowBedrockOnly"
    with pytest.raises(ValueError):
        evaluate_scp_levels([], Request("bedrock:InvokeModel", "*", {}))


def test_full_aws_access_document():
    assert FULL_AWS_ACCESS == {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
    }


# ----------------------------------------------------------------------------- unsupported grammar raises


@pytest.mark.parametrize(
    ("statement", "element"),
    [
        (allow_if({"StringEqualsFoo": {"k": "v"}}), "StringEqualsFoo"),
        (allow_if({"DateLessThan": {"aws:CurrentTime": "2030-01-01T00:00:00Z"}}), "DateLessThan"),
        (allow_if({"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}), "IpAddress"),
        (allow_if({"stringequals": {"k": "v"}}), "stringequals"),
        (allow_if({"ForSomeValues:StringEquals": {"k": "v"}}), "ForSomeValues"),
        (allow_if({"NullIfExists": {"k": "true"}}), "NullIfExists"),
        (allow_if({"ForAnyValue:Null": {"k": "true"}}), "ForAnyValue:Null"),
        (allow_if({"StringEquals": {"k": "${aws:PrincipalTag/team}"}}), "policy variables"),
        (allow_if({"Bool": {"k": "yes"}}), "'yes'"),
        (allow_if({"NumericEquals": {"k": "ten"}}), "'ten'"),
        (allow_if({"StringEquals": {"k": []}}), "empty"),
        ({"Effect": "Allow", "Action": "*", "Resource": "arn:aws:s3:::${aws:username}/*"}, "policy variables"),
        ({"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::1:root"}, "Action": "*", "Resource": "*"}, "Principal"),
        ({"Effect": "Allow", "NotPrincipal": "*", "Action": "*", "Resource": "*"}, "NotPrincipal"),
        ({"Effect": "allow", "Action": "*", "Resource": "*"}, "Effect"),
        ({"Effect": "Allow", "Action": "*", "NotAction": "s3:*", "Resource": "*"}, "Action/NotAction"),
        ({"Effect": "Allow", "Action": "*"}, "Resource/NotResource"),
    ],
)
def test_unsupported_elements_raise(statement, element):
    request = Request("s3:GetObject", "*", {"k": "10"})
    with pytest.raises(UnsupportedPolicyElement, match=element.replace("$", r"\$").replace("{", r"\{")):
        statement_matches(statement, request)


def test_unknown_operator_raises_even_when_action_does_not_match():
    policy = doc(
        {"Effect": "Allow", "Action": "*", "Resource": "*"},
        {"Effect": "Deny", "Action": "iam:*", "Resource": "*", "Condition": {"StringWhatever": {"k": "v"}}},
    )
    with pytest.raises(UnsupportedPolicyElement, match="StringWhatever"):
        evaluate([("p", policy)], Request("s3:GetObject", "*", {}))


def test_unsupported_policy_keys_raise():
    with pytest.raises(UnsupportedPolicyElement, match="Statements"):
        evaluate([("p", {"Version": "2012-10-17", "Statements": []})], Request("s3:GetObject", "*", {}))


def test_principal_star_is_accepted():
    statement = {"Effect": "Allow", "Principal": "*", "Action": "bedrock:InvokeModel", "Resource": "*"}
    assert statement_matches(statement, Request("bedrock:InvokeModel", "*", {}))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"action": "InvokeModel", "resource": "*", "context": {}},
        {"action": "bedrock:InvokeModel", "resource": "", "context": {}},
        {"action": "bedrock:InvokeModel", "resource": "*", "context": {"k": "a", "K": "b"}},
        {"action": "bedrock:InvokeModel", "resource": "*", "context": {"k": {"nested": 1}}},
    ],
)
def test_bad_requests_are_rejected(kwargs):
    with pytest.raises((ValueError, TypeError)):
        Request(**kwargs)


def test_bad_request_values_for_typed_operators_raise():
    with pytest.raises(ValueError, match="request context"):
        statement_matches(allow_if({"Bool": {"k": "true"}}), Request("s3:GetObject", "*", {"k": "maybe"}))
    with pytest.raises(ValueError, match="request context"):
        statement_matches(allow_if({"NumericEquals": {"k": "1"}}), Request("s3:GetObject", "*", {"k": "one"}))


def test_a_statements_list_matches_as_its_entries_one_by_one(plan_for) -> None:
    """The evaluator matches a statement's Action and Resource lists with one alternation each: it must decide as
    matching the entries one by one does, for every Action / NotAction and Resource / NotResource list of the
    us-organization SCPs, against every action the IAM action database lists for the services those lists name
    (as written and upper-cased), and against resources made from the lists' own patterns (each wildcard filled
    with nothing, a word, a colon-separated run)."""
    from landing_zone.actiondb.lookup import actions_of_service
    from landing_zone.policies.evaluator import (
        _any_glob_compiled,
        _any_resource_compiled,
        _glob,
        _resource_match,
    )
    from landing_zone.policies.scp_layout import scp_documents
    from tests.conftest import EXAMPLES

    plan = plan_for(next(p for p in EXAMPLES if p.stem == "us-organization"))
    statements = [
        s for scp in scp_documents(plan.config, plan.routing, plan.catalog).policies for s in scp.document["Statement"]
    ]

    def lists(*keys: str) -> list[tuple[str, ...]]:
        found = [s[k] for s in statements for k in keys if k in s]
        return [tuple([v] if isinstance(v, str) else v) for v in found]

    action_lists, resource_lists = lists("Action", "NotAction"), lists("Resource", "NotResource")
    services = {p.split(":")[0] for lst in action_lists for p in lst if ":" in p}
    actions = [a.full for s in sorted(services) for a in actions_of_service(s)]
    actions += [a.upper() for a in actions] + ["bedrock:", "*"]
    assert len(action_lists) >= 20 and len(actions) > 200
    for lst in action_lists:
        alternation = _any_glob_compiled(lst, True)
        for action in actions:
            assert (alternation.fullmatch(action) is not None) == any(_glob(p, action, True) for p in lst), (
                lst,
                action,
            )
    patterns = {p for lst in resource_lists for p in lst}
    resources = {p.replace("*", fill).replace("?", "x") for p in patterns for fill in ("", "x", "a:b/c")} | {"*"}
    assert len(resource_lists) >= 20 and len(resources) > 20
    for lst in resource_lists:
        alternation = _any_resource_compiled(lst)
        for resource in resources:
            expected = any(_resource_match(p, resource) for p in lst)
            assert (alternation.fullmatch(resource) is not None) == expected, (lst, resource)
