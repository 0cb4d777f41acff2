"""Endpoint and key policies: built from the routing decision, least privilege, proven with the evaluator."""

from __future__ import annotations

import pytest

from landing_zone.core import arns
from landing_zone.core.routing import PathKind
from landing_zone.policies.common import actions_of, resources_of
from landing_zone.policies.endpoints import endpoint_policy
from landing_zone.policies.evaluator import Request, evaluate
from landing_zone.policies.kms import alerts_key_policy, logs_key_policy

ACCOUNT = "111111111111"
OTHER_ACCOUNT = "999999999999"
MODEL = "moonshotai.kimi-k3.1-pro"
US_PROFILE = arns.inference_profile("us-east-1", ACCOUNT, f"us.{MODEL}")
INVOKE_ACTIONS = {
    "bedrock:InvokeModel",
    "bedrock:InvokeModelWithResponseStream",
    "bedrock:CreateModelInvocationJob",
    "bedrock-mantle:CreateInference",
}


@pytest.fixture(scope="module")
def us_policies(plan_for):
    plan = plan_for()
    return {
        s: endpoint_policy(s, plan.routing, region="us-east-1", accounts=[ACCOUNT])
        for s in ("bedrock-runtime", "bedrock-mantle", "bedrock")
    }


def decide(policy, action, resource, **context):
    ctx = {"aws:PrincipalAccount": ACCOUNT, "aws:RequestedRegion": "us-east-1", **context}
    return evaluate([("endpoint", policy)], Request(action=action, resource=resource, context=ctx)).decision


@pytest.mark.parametrize(
    ("action", "resource", "context", "expected"),
    [
        # the compliant geographic profile, called in the endpoint's Region
        ("bedrock:InvokeModel", US_PROFILE, {}, "allow"),
        ("bedrock:InvokeModelWithResponseStream", US_PROFILE, {}, "allow"),
        # its destination leg, carrying the profile ARN
        (
            "bedrock:InvokeModel",
            arns.foundation_model("us-west-2", MODEL),
            {"bedrock:InferenceProfileArn": US_PROFILE},
            "allow",
        ),
        # the FM leg without a profile: direct in-Region invocation is not offered for K3.1 Pro
        ("bedrock:InvokeModel", arns.foundation_model("us-east-1", MODEL), {}, "implicit_deny"),
        # the eu. and global profiles are not compliant for a US-only configuration
        ("bedrock:InvokeModel", arns.inference_profile("us-east-1", ACCOUNT, f"eu.{MODEL}"), {}, "implicit_deny"),
        ("bedrock:InvokeModel", arns.inference_profile("us-east-1", ACCOUNT, f"global.{MODEL}"), {}, "implicit_deny"),
        (
            "bedrock:InvokeModel",
            arns.global_foundation_model(MODEL),
            {
                "aws:RequestedRegion": "unspecified",
                "bedrock:InferenceProfileArn": arns.inference_profile("us-east-1", ACCOUNT, f"global.{MODEL}"),
            },
            "implicit_deny",
        ),
        # a destination leg in a non-compliant Region, even with the right profile ARN
        (
            "bedrock:InvokeModel",
            arns.foundation_model("eu-west-1", MODEL),
            {"bedrock:InferenceProfileArn": US_PROFILE},
            "implicit_deny",
        ),
        # an unlisted model
        ("bedrock:InvokeModel", arns.foundation_model("us-east-1", "anthropic.claude-x"), {}, "implicit_deny"),
        # a principal from another account
        ("bedrock:InvokeModel", US_PROFILE, {"aws:PrincipalAccount": OTHER_ACCOUNT}, "implicit_deny"),
        # application inference profiles of the account, in the endpoint's Region
        (
            "bedrock:InvokeModel",
            f"arn:aws:bedrock:us-east-1:{ACCOUNT}:application-inference-profile/abc123",
            {},
            "allow",
        ),
        (
            "bedrock:InvokeModel",
            f"arn:aws:bedrock:us-east-1:{OTHER_ACCOUNT}:application-inference-profile/abc123",
            {},
            "implicit_deny",
        ),
        # anything else through the runtime endpoint
        ("bedrock:ApplyGuardrail", f"arn:aws:bedrock:us-east-1:{ACCOUNT}:guardrail/g1", {}, "allow"),
        ("bedrock:InvokeAgent", "*", {}, "implicit_deny"),
    ],
)
def test_runtime_endpoint_policy_decisions(us_policies, action, resource, context, expected):
    assert decide(us_policies["bedrock-runtime"], action, resource, **context) == expected


@pytest.mark.parametrize(
    ("model", "account", "expected"),
    [
        (MODEL, ACCOUNT, "allow"),
        ("moonshotai.kimi-k2.5", ACCOUNT, "implicit_deny"),
        (MODEL, OTHER_ACCOUNT, "implicit_deny"),
    ],
)
def test_mantle_endpoint_policy_is_scoped_by_model_and_account(us_policies, model, account, expected):
    resource = f"arn:aws:bedrock-mantle:us-east-1:{account}:project/default"
    assert (
        decide(
            us_policies["bedrock-mantle"],
            "bedrock-mantle:CreateInference",
            resource,
            **{"bedrock-mantle:Model": model, "aws:PrincipalAccount": account},
        )
        == expected
    )


def test_mantle_request_without_model_key_is_not_allowed(us_policies):
    resource = f"arn:aws:bedrock-mantle:us-east-1:{ACCOUNT}:project/default"
    assert decide(us_policies["bedrock-mantle"], "bedrock-mantle:CreateInference", resource) == "implicit_deny"


def test_control_plane_endpoint_allows_reads_and_compliant_batch_only(us_policies):
    p = us_policies["bedrock"]
    assert decide(p, "bedrock:ListFoundationModels", "*") == "allow"
    # batch is authorised against the job and the foundation model (Service Authorization Reference: no profile
    # resource type), in compliant Regions only
    assert (
        decide(p, "bedrock:CreateModelInvocationJob", arns.batch_jobs("us-east-1", ACCOUNT).replace("*", "j1"))
        == "allow"
    )
    assert decide(p, "bedrock:CreateModelInvocationJob", arns.foundation_model("us-west-2", MODEL)) == "allow"
    assert decide(p, "bedrock:CreateModelInvocationJob", arns.foundation_model("eu-west-1", MODEL)) == "implicit_deny"
    assert decide(p, "bedrock:CreateModelInvocationJob", arns.global_foundation_model(MODEL)) == "implicit_deny"
    assert decide(p, "bedrock:DeleteModelInvocationLoggingConfiguration", "*") == "implicit_deny"


@pytest.mark.parametrize("service", ["bedrock-runtime", "bedrock-mantle", "bedrock"])
@pytest.mark.parametrize("example", [None, "eu-sovereign.yaml", "global-inference.yaml", "us-single-account.yaml"])
def test_no_invoke_statement_has_a_wildcard_resource_or_a_non_compliant_region(plan_for, service, example):
    from tests.conftest import ROOT

    plan = plan_for(ROOT / "examples" / example if example else None)
    cfg = plan.config
    policy = endpoint_policy(service, plan.routing, region=cfg.home_region, accounts=cfg.account_ids)
    allowed_regions = set(cfg.compliant_regions) | {""}
    if cfg.allow_global_inference:
        glob = [r for mr in plan.routing.models for r in mr.compliant_routes if r.kind is PathKind.GLOBAL_PROFILE]
        allowed_regions |= {d for r in glob for d in r.destination_regions}
    for stmt in policy["Statement"]:
        assert stmt["Effect"] == "Allow"
        if INVOKE_ACTIONS & set(actions_of(stmt)):
            for resource in resources_of(stmt):
                assert resource != "*" and not resource.endswith(":*"), stmt
                assert arns.region_of(resource) in allowed_regions, (resource, stmt["Sid"])


def test_organization_id_admits_principals_by_org(plan_for):
    plan = plan_for()
    policy = endpoint_policy(
        "bedrock-runtime", plan.routing, region="us-east-1", accounts=[ACCOUNT], organization_id="o-abcdefghij"
    )
    for stmt in policy["Statement"]:
        assert stmt["Condition"]["StringEquals"]["aws:PrincipalOrgID"] == "o-abcdefghij"
        assert "aws:PrincipalAccount" not in stmt["Condition"]["StringEquals"]
    req = Request("bedrock:InvokeModel", US_PROFILE, {"aws:PrincipalOrgID": "o-abcdefghij"})
    assert evaluate([("p", policy)], req).allowed
    req = Request("bedrock:InvokeModel", US_PROFILE, {"aws:PrincipalOrgID": "o-zzzzzzzzzz"})
    assert not evaluate([("p", policy)], req).allowed


def test_global_inference_adds_the_three_statement_form(plan_for):
    plan = plan_for(allow_global_inference=True)
    policy = endpoint_policy("bedrock-runtime", plan.routing, region="us-east-1", accounts=[ACCOUNT])
    sids = [s["Sid"] for s in policy["Statement"]]
    assert "InvokeGlobalProfileUnspecifiedRegion" in sids
    global_profile = arns.inference_profile("us-east-1", ACCOUNT, f"global.{MODEL}")
    leg = Request(
        "bedrock:InvokeModel",
        arns.global_foundation_model(MODEL),
        {
            "aws:PrincipalAccount": ACCOUNT,
            "aws:RequestedRegion": "unspecified",
            "bedrock:InferenceProfileArn": global_profile,
        },
    )
    assert evaluate([("p", policy)], leg).allowed
    # the Region-less FM ARN is only reachable through the global profile
    direct = Request(
        "bedrock:InvokeModel",
        arns.global_foundation_model(MODEL),
        {"aws:PrincipalAccount": ACCOUNT, "aws:RequestedRegion": "unspecified"},
    )
    assert not evaluate([("p", policy)], direct).allowed


def test_policies_are_deterministic(plan_for):
    a = endpoint_policy("bedrock-runtime", plan_for().routing, region="us-east-1", accounts=["222222222222", ACCOUNT])
    b = endpoint_policy("bedrock-runtime", plan_for().routing, region="us-east-1", accounts=[ACCOUNT, "222222222222"])
    assert a == b


def test_unknown_endpoint_service_is_rejected(plan_for):
    with pytest.raises(ValueError, match="not supported"):
        endpoint_policy("bedrock-agent", plan_for().routing, region="us-east-1", accounts=[ACCOUNT])


LOG_GROUP = f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/kimi-lz/vpc-flow-logs"


@pytest.mark.parametrize(
    ("principal_service", "action", "context", "expected"),
    [
        (
            "logs.us-east-1.amazonaws.com",
            "kms:GenerateDataKey",
            {"kms:EncryptionContext:aws:logs:arn": LOG_GROUP},
            True,
        ),
        (
            "logs.us-east-1.amazonaws.com",
            "kms:GenerateDataKey",
            {"kms:EncryptionContext:aws:logs:arn": f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/someone-else/x"},
            False,
        ),
        ("logs.us-east-1.amazonaws.com", "kms:GenerateDataKey", {}, False),
        (
            "bedrock.amazonaws.com",
            "kms:GenerateDataKey",
            {
                "aws:SourceAccount": ACCOUNT,
                "aws:SourceArn": f"arn:aws:bedrock:us-east-1:{ACCOUNT}:model-invocation-logging",
            },
            True,
        ),
        (
            "bedrock.amazonaws.com",
            "kms:GenerateDataKey",
            {"aws:SourceAccount": OTHER_ACCOUNT, "aws:SourceArn": f"arn:aws:bedrock:us-east-1:{OTHER_ACCOUNT}:x"},
            False,
        ),
    ],
)
def test_logs_key_policy_service_statements_carry_confused_deputy_conditions(
    principal_service, action, context, expected
):
    policy = logs_key_policy(account=ACCOUNT, region="us-east-1", name="kimi-lz")
    service_stmts = [s for s in policy["Statement"] if s.get("Principal", {}).get("Service") == principal_service]
    assert service_stmts, principal_service
    stripped = [{k: v for k, v in s.items() if k != "Principal"} for s in service_stmts]
    result = evaluate([("key", {"Version": "2012-10-17", "Statement": stripped})], Request(action, "*", context))
    assert result.allowed is expected


def test_alerts_key_policy_admits_each_publisher_only_for_this_account():
    policy = alerts_key_policy(account=ACCOUNT, region="us-east-1")
    services = {s["Principal"]["Service"]: s for s in policy["Statement"] if "Service" in s.get("Principal", {})}
    assert set(services) == {"budgets.amazonaws.com", "costalerts.amazonaws.com", "cloudwatch.amazonaws.com"}
    for stmt in services.values():
        assert stmt["Condition"]["StringEquals"]["aws:SourceAccount"] == ACCOUNT
        assert ACCOUNT in stmt["Condition"]["ArnLike"]["aws:SourceArn"]
