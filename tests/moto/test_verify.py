"""verify against moto: the deployed intent passes; each drift is caught by the check that owns it; an empty
account, an unreachable API, missing credentials and a denied API are never a pass."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.stub import Stubber

from landing_zone.aws import use_client_factory
from tests.conftest import ROOT
from tests.moto.conftest import EU
from tests.moto.harness import Deployed, stack_suffix

pytestmark = pytest.mark.moto

KIMI = "moonshotai.kimi-k3.1-pro"
# what the access stack retains is named with its suffix (the deployer's stack ID for it)
ACCESS_SUFFIX = stack_suffix("222222222222", "eu-central-1", "kimi-eu-access")
INVOCATION_LOG_GROUP = f"/kimi-eu/bedrock/invocations-{ACCESS_SUFFIX}"


# the stacks of the eu example, in its deployment account, management account and us-east-1
STACKS = ("keys", "network", "access", "cost", "guardrails", "detection", "detection-global", "detection-management")


def failing(stdout: str) -> dict[str, set[str]]:
    """check name -> statuses of the rows that did not pass (from --json output)."""
    data = json.loads(stdout)
    out: dict[str, set[str]] = {}
    for row in data["checks"]:
        if row["status"] != "PASS":
            out.setdefault(row["check"], set()).add(row["status"])
    return out


def rows(stdout: str, check: str) -> list[dict]:
    return [r for r in json.loads(stdout)["checks"] if r["check"] == check]


# --------------------------------------------------------------------------------------------------
# The intent holds
# --------------------------------------------------------------------------------------------------


def test_verify_passes_when_the_account_holds_the_intent(deployed: Deployed, cli, verify_args) -> None:
    code, stdout, stderr = cli(verify_args())
    assert code == 0, stdout + stderr
    assert "-> OK" in stdout
    assert " DRIFT" not in stdout and " MISSING" not in stdout and " ERROR" not in stdout
    deployed.accounts.assert_stubs_consumed()  # every stubbed Bedrock/Budgets/CE request was made, as pinned


def test_every_kind_of_intent_is_checked(deployed: Deployed, cli, verify_args) -> None:
    code, stdout, _ = cli(verify_args("--json"))
    data = json.loads(stdout)
    assert code == 0 and data["ok"] is True and data["summary"]["PASS"] == len(data["checks"])
    assert {r["check"] for r in data["checks"]} == {
        "account",
        "stack-status",
        "stack-drift",
        "stack-termination-protection",
        "scp-content",
        "scp-attachment",
        "vpc-endpoint",
        "vpc-endpoint-private-dns",
        "vpc-endpoint-policy",
        "security-group-ingress",
        "security-group-egress",
        "default-security-group",
        "route-table",
        "vpc-internet-gateway",
        "vpc-endpoint-unexpected",
        "dns-firewall-association",
        "resolver-rule-association",
        "private-hosted-zone",
        "vpc-lattice",
        "ram-shared-subnet",
        "default-network-acl",
        "flow-log",
        "kms-key",
        "kms-rotation",
        "kms-policy",
        "kms-alias",
        "iam-role",
        "iam-role-trust",
        "iam-role-boundary",
        "iam-role-managed-policies",
        "iam-role-inline-policies",
        "iam-policy",
        "s3-bucket",
        "s3-encryption",
        "s3-versioning",
        "s3-public-access-block",
        "s3-ownership",
        "s3-bucket-policy",
        "s3-lifecycle",
        "s3-access-logging",
        "invocation-logging-s3",
        "invocation-logging-cloudwatch",
        "invocation-logging-delivery",
        "log-group",
        "tags",
        "inference-profile",
        "inference-profile-tags",
        "inference-profile-regions",
        "guardrail",
        "guardrail-version",
        "guardrail-enforcement",
        "model-agreement",
        "sns-topic",
        "sns-topic-policy",
        "sns-subscription",
        "budget",
        "budget-notification",
        "budget-subscribers",
        "budget-action",
        "cost-allocation-tag",
        "data-retention",
        "alarm",
        "events-rule",
        "events-rule-pattern",
        "events-rule-targets",
        "anomaly-monitor",
        "anomaly-subscription",
    }
    # 52 before issue 16 (stacks, IAM, S3, flow log, guardrail, agreements ...); 146 since the guardrails take 3 SCPs
    # 194 since issue 24: +5 termination protection, +2 kms-alias, +8 network rows (security group ingress/egress,
    # default group, 3 route tables, gateways, unexpected endpoints), +33 tags rows
    # 215 since issue 26: +3 cost-allocation-tag, +12 IAM rows (the activation handler's and provider's roles and
    # policies), +2 log groups, +4 tags rows
    # 239 since eu-sovereign sets data_retention.mode and the activation moved to the management account: +1
    # data-retention, +10 IAM role rows and +2 policies of its handler and provider, +2 log groups, +4 tags rows; the
    # management-logs key: kms-key, -rotation, -policy, -alias and its tags row (+5)
    # 256 since issue 33: 8 SCPs, one per concern (8 content rows), 7 attached to the 2 governed accounts and the
    # perimeter SCP to the OU (15 attachment rows), where 3 SCPs made 6 rows: +17
    # 262 since issue 35: the network-path family, one row per check for the one VPC (+6)
    # 287 since the detection stacks: 3 stacks x stack-status, -drift, -termination-protection (+9); the forwarder
    # role of detection-global and of detection-management, each 5 role rows, its policy and its tags row (+14); the
    # 2 legacy-model alarms of detection (+2).
    # 413 since the event-rule family: the detection stacks' 42 EventBridge rules x events-rule, -pattern, -targets
    # (+126).  The bus policy has no check family yet.
    # 416 since detection.config_rules (opt-in; the EU example opts in): the AWS Config compliance alert
    # <name>-detect-config-compliance is a 43rd EventBridge rule (+3); the Config rules have no check family yet.
    # 425 since the account-settings Config rule (custom Lambda, under config_rules): its function's role (5 role
    # rows), policy, log group and 2 tags rows (+9); the function and the rule have no check family yet.
    assert len(data["checks"]) == 425
    assert {r["resource"] for r in rows(stdout, "stack-status")} == {f"kimi-eu-{s}" for s in STACKS}
    roles = {r["resource"] for r in rows(stdout, "iam-role")}
    assert {"kimi-eu-invoker-support-bot", "kimi-eu-invoker-code-review", "kimi-eu-automation-budget-action"} <= roles
    assert any(r.startswith("kimi-eu-network-CustomVpcRestrictDefaultSG") for r in roles)  # generated name, from CFN
    assert {"kimi-eu-invoker-boundary", "kimi-eu-kill-switch", "kimi-eu-invoke-support-bot"} <= {
        r["resource"] for r in rows(stdout, "iam-policy")
    }
    assert {r["resource"] for r in rows(stdout, "s3-encryption")} == {
        f"kimi-eu-invocation-logs-{ACCESS_SUFFIX}",
        f"kimi-eu-access-logs-{ACCESS_SUFFIX}",
    }
    endpoints = {r["resource"] for r in rows(stdout, "vpc-endpoint")}
    assert endpoints == {"bedrock-runtime", "bedrock-mantle", "bedrock"}
    assert {r["resource"] for r in rows(stdout, "kms-key")} == {
        "alias/kimi-eu/logs",
        "alias/kimi-eu/alerts",
        "alias/kimi-eu/management-logs",  # the cost-allocation activation's logs, in the management account
    }
    # the guardrails attach to the governed accounts, the perimeter SCP to the shared OU (the plan's layout)
    attachments = {r["resource"] for r in rows(stdout, "scp-attachment")}
    assert {
        "kimi-eu-guardrails-regions -> 222222222222",
        "kimi-eu-guardrails-perimeter -> ou-abcd-11111111",
    } <= attachments
    assert "kimi-eu-guardrails-regions -> ou-abcd-11111111" not in attachments
    # the bucket is named in the template (inside the protected '<name>-' namespace), ending with the stack's suffix:
    # the name is evaluated with the deployed stack's ID (DescribeStacks), no resource lookup
    s3 = rows(stdout, "invocation-logging-s3")[0]
    assert s3["expected"].startswith(f"s3://kimi-eu-invocation-logs-{ACCESS_SUFFIX}/")
    assert "resolved by name BucketName in the template" in s3["detail"]


# --------------------------------------------------------------------------------------------------
# Drift, one item at a time: exit 1 and exactly the owning check fails
# --------------------------------------------------------------------------------------------------


def detach_scp(d: Deployed) -> None:
    res = d.first("AWS::Organizations::Policy")
    d.client("organizations", management=True).detach_policy(PolicyId=d.ids[res.path], TargetId="222222222222")


def edit_scp(d: Deployed) -> None:
    res = d.first("AWS::Organizations::Policy")
    content = json.loads(res.prop("Content"))
    content["Statement"] = content["Statement"][1:]  # someone dropped the Region deny
    d.client("organizations", management=True).update_policy(PolicyId=d.ids[res.path], Content=json.dumps(content))


def edit_endpoint_policy(d: Deployed) -> None:
    res = next(
        r for r in d.assembly.resources("AWS::EC2::VPCEndpoint") if r.prop("ServiceName").endswith("bedrock-runtime")
    )
    wide_open = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "bedrock:*", "Resource": "*"}],
    }
    d.client("ec2").modify_vpc_endpoint(VpcEndpointId=d.ids[res.path], PolicyDocument=json.dumps(wide_open))


def rotation_off(d: Deployed) -> None:
    kms = d.client("kms")
    kms.disable_key_rotation(KeyId=kms.describe_key(KeyId="alias/kimi-eu/logs")["KeyMetadata"]["KeyId"])


def edit_key_policy(d: Deployed) -> None:
    kms = d.client("kms")
    key_id = kms.describe_key(KeyId="alias/kimi-eu/alerts")["KeyMetadata"]["KeyId"]
    policy = json.loads(kms.get_key_policy(KeyId=key_id, PolicyName="default")["Policy"])
    policy["Statement"][1]["Condition"] = {}  # Budgets may now use the key from anywhere
    kms.put_key_policy(KeyId=key_id, PolicyName="default", Policy=json.dumps(policy))


def logging_elsewhere(d: Deployed) -> None:
    bedrock = d.client("bedrock")
    config = bedrock.get_model_invocation_logging_configuration()["loggingConfig"]
    config["s3Config"] = {"bucketName": "someone-elses-bucket", "keyPrefix": "bedrock-invocation-logs/"}
    bedrock.put_model_invocation_logging_configuration(loggingConfig=config)


def logging_off(d: Deployed) -> None:
    d.client("bedrock").delete_model_invocation_logging_configuration()


def budget_amount(d: Deployed) -> None:
    budgets, account = d.client("budgets"), d.plan.config.deployment_account
    budget = budgets.describe_budget(AccountId=account, BudgetName="kimi-eu-bedrock-monthly")["Budget"]
    notifications = budgets.describe_notifications_for_budget(AccountId=account, BudgetName="kimi-eu-bedrock-monthly")[
        "Notifications"
    ]
    budgets.delete_budget(AccountId=account, BudgetName="kimi-eu-bedrock-monthly")
    spec = {k: budget[k] for k in ("BudgetName", "BudgetType", "TimeUnit", "FilterExpression")}
    spec["BudgetLimit"] = {"Amount": "250000", "Unit": "USD"}  # raised tenfold by hand
    budgets.create_budget(
        AccountId=account,
        Budget=spec,
        NotificationsWithSubscribers=[
            {"Notification": n, "Subscribers": [{"SubscriptionType": "EMAIL", "Address": "finops@example.com"}]}
            for n in notifications
        ],
    )


def delete_alarm(d: Deployed) -> None:
    d.client("cloudwatch").delete_alarms(AlarmNames=["kimi-eu-spend-2-of-2"])


def shorten_retention(d: Deployed) -> None:
    d.client("logs").put_retention_policy(logGroupName=INVOCATION_LOG_GROUP, retentionInDays=1)


def retag_profile(d: Deployed) -> None:  # Bedrock profiles are stubbed: change what the Stubber answers
    d.fake.profile("kimi-eu-support-bot")["tags"]["cost-center"] = "cc-9999"


def profile_leaves_the_eu(d: Deployed) -> None:
    profile = d.fake.profile("kimi-eu-code-review")
    profile["models"].append({"modelArn": f"arn:aws:bedrock:il-central-1::foundation-model/{KIMI}"})


def kill_switch_removed(d: Deployed) -> None:
    d.fake.budget_actions["kimi-eu-bedrock-monthly"].clear()


def kill_switch_manual(d: Deployed) -> None:
    d.fake.budget_actions["kimi-eu-bedrock-monthly"][0]["ApprovalModel"] = "MANUAL"


def _alert_subscription(d: Deployed) -> str:
    sns = d.client("sns")
    (topic,) = [t["TopicArn"] for t in sns.list_topics()["Topics"] if t["TopicArn"].endswith(":kimi-eu-cost-alerts")]
    (sub,) = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    return sub["SubscriptionArn"]


def mute_with_a_filter_policy(d: Deployed) -> None:
    """sns:SetSubscriptionAttributes where AWS authorizes it on '*' (no SCP can name the subscription): a filter
    policy no alert matches keeps the subscription present and drops every message."""
    d.client("sns").set_subscription_attributes(
        SubscriptionArn=_alert_subscription(d),
        AttributeName="FilterPolicy",
        AttributeValue=json.dumps({"never": ["matches"]}),
    )


def unsubscribe_the_alerts(d: Deployed) -> None:
    """The e-mail's own unsubscribe link (no IAM at all), or an Unsubscribe authorized on '*'."""
    d.client("sns").unsubscribe(SubscriptionArn=_alert_subscription(d))


ALERT_SUBSCRIPTION = "kimi-eu-cost-alerts -> email:finops@example.com"

DRIFTS: list[tuple[Callable[[Deployed], None], dict[str, set[str]], str]] = [
    (mute_with_a_filter_policy, {"sns-subscription": {"DRIFT"}}, ALERT_SUBSCRIPTION),
    (unsubscribe_the_alerts, {"sns-subscription": {"MISSING"}}, ALERT_SUBSCRIPTION),
    (detach_scp, {"scp-attachment": {"MISSING"}}, "kimi-eu-guardrails-regions -> 222222222222"),
    (edit_scp, {"scp-content": {"DRIFT"}}, "kimi-eu-guardrails-regions"),
    (edit_endpoint_policy, {"vpc-endpoint-policy": {"DRIFT"}}, "bedrock-runtime"),
    (rotation_off, {"kms-rotation": {"DRIFT"}}, "alias/kimi-eu/logs"),
    (edit_key_policy, {"kms-policy": {"DRIFT"}}, "alias/kimi-eu/alerts"),
    (logging_elsewhere, {"invocation-logging-s3": {"DRIFT"}}, "bedrock in eu-central-1"),
    (
        logging_off,
        {
            "invocation-logging-s3": {"MISSING"},
            "invocation-logging-cloudwatch": {"MISSING"},
            "invocation-logging-delivery": {"MISSING"},
        },
        "bedrock in eu-central-1",
    ),
    (budget_amount, {"budget": {"DRIFT"}}, "kimi-eu-bedrock-monthly"),
    (delete_alarm, {"alarm": {"MISSING"}}, "kimi-eu-spend-2-of-2"),
    (shorten_retention, {"log-group": {"DRIFT"}}, INVOCATION_LOG_GROUP),
    (retag_profile, {"inference-profile-tags": {"DRIFT"}}, "kimi-eu-support-bot"),
    (profile_leaves_the_eu, {"inference-profile-regions": {"DRIFT"}}, "kimi-eu-code-review"),
    (kill_switch_removed, {"budget-action": {"MISSING"}}, "kimi-eu-bedrock-monthly: APPLY_IAM_POLICY"),
    (kill_switch_manual, {"budget-action": {"DRIFT"}}, "kimi-eu-bedrock-monthly: APPLY_IAM_POLICY"),
]


@pytest.mark.parametrize("drift, expected, resource", DRIFTS, ids=[d[0].__name__ for d in DRIFTS])
def test_drift_is_caught_by_its_check(deployed: Deployed, cli, verify_args, drift, expected, resource) -> None:
    drift(deployed)
    code, stdout, _ = cli(verify_args("--json"))
    assert code == 1
    assert failing(stdout) == expected
    bad = [r for r in json.loads(stdout)["checks"] if r["status"] != "PASS"]
    assert {r["resource"] for r in bad} == {resource}


def test_drift_table_names_the_check_and_shows_the_diff(deployed: Deployed, cli, verify_args) -> None:
    edit_endpoint_policy(deployed)
    code, stdout, _ = cli(verify_args())
    assert code == 1
    line = next(
        line for line in stdout.splitlines() if line.startswith("vpc-endpoint-policy") and "bedrock-runtime" in line
    )
    assert line.rstrip().endswith("DRIFT")
    assert "-> NOT OK" in stdout
    assert '+ {"Action":"bedrock:*","Effect":"Allow","Principal":"*","Resource":"*"}' in stdout  # the statement diff


# --------------------------------------------------------------------------------------------------
# Nothing deployed, nothing reachable, nothing allowed: never a pass
# --------------------------------------------------------------------------------------------------


def test_empty_account_lists_what_is_missing(empty_account: Deployed, cli, verify_args) -> None:
    code, stdout, _ = cli(verify_args("--json"))
    assert code == 1
    data = json.loads(stdout)
    passed = {r["check"] for r in data["checks"] if r["status"] == "PASS"}
    assert passed == {"account"}
    missing = {r["check"] for r in data["checks"] if r["status"] == "MISSING"}
    assert {
        "scp-content",
        "scp-attachment",
        "vpc-endpoint",
        "kms-key",
        "invocation-logging-s3",
        "log-group",
        "inference-profile",
        "sns-topic",
        "budget",
        "alarm",
        "anomaly-monitor",
        "anomaly-subscription",
    } <= missing
    assert data["summary"]["MISSING"] >= 30


def test_unreachable_endpoints_are_errors_not_passes(eu, cli, verify_args) -> None:
    def unreachable(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
        return boto3.client(
            service,
            region_name=region,
            endpoint_url="http://127.0.0.1:9",
            config=Config(retries={"max_attempts": 1}, connect_timeout=1),
        )

    started = time.monotonic()
    with use_client_factory(unreachable):
        code, stdout, _ = cli(verify_args("--json"))
    assert code == 1
    data = json.loads(stdout)
    assert {r["status"] for r in data["checks"]} == {"ERROR"}
    assert "unreachable" in data["checks"][0]["actual"]
    assert time.monotonic() - started < 30  # an unreachable service is asked once, not once per item


def test_missing_credentials_are_errors_with_the_real_client_factory(eu, cli, verify_args, monkeypatch) -> None:
    for var in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    code, stdout, stderr = cli(["verify", "--assembly", str(eu.outdir), "--config", str(EU), "--json"])
    assert code == 2 and stdout == ""
    (line,) = stderr.strip().splitlines()  # one actionable line, not one ERROR row per check
    assert line.startswith("error: verify needs AWS credentials for account 222222222222: no usable credentials")
    assert "--profile" in line


def test_denied_organizations_api_is_reported_as_error(deployed: Deployed, cli, verify_args) -> None:
    moto_factory = deployed.factory()

    def denied_orgs(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
        if service != "organizations":
            return moto_factory(service, region=region, profile=profile)
        client = boto3.client(service, region_name=region)
        stubber = Stubber(client)
        stubber.add_client_error(
            "list_policies", "AccessDeniedException", "You don't have permissions to access this resource.", 403
        )
        stubber.activate()
        return client

    with use_client_factory(denied_orgs):
        code, stdout, _ = cli(verify_args("--json"))
    assert code == 1
    assert failing(stdout) == {"scp-content": {"ERROR"}, "scp-attachment": {"ERROR"}}
    assert "unauthorised: AccessDeniedException" in rows(stdout, "scp-content")[0]["actual"]


def test_wrong_account_stops_before_checking_someone_elses_resources(deployed: Deployed, cli, verify_args) -> None:
    deployed.accounts.accounts["other"] = "999999999999"
    code, stdout, _ = cli(verify_args("--profile", "other", "--json"))
    assert code == 1
    data = json.loads(stdout)
    assert [(r["check"], r["status"], r["expected"], r["actual"]) for r in data["checks"]] == [
        ("account", "DRIFT", "222222222222", "999999999999")
    ]


# --------------------------------------------------------------------------------------------------
# Finding the generated bucket name
# --------------------------------------------------------------------------------------------------


def cloudformation_unreachable(deployed: Deployed) -> Callable[..., Any]:
    """verify's client factory, with CloudFormation unreachable (nothing can be asked of the stacks)."""
    moto_factory = deployed.factory()

    def factory(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
        if service != "cloudformation":
            return moto_factory(service, region=region, profile=profile)
        return boto3.client(
            service,
            region_name=region,
            endpoint_url="http://127.0.0.1:9",
            config=Config(retries={"max_attempts": 1}, connect_timeout=1),
        )

    return factory


def test_a_bucket_named_with_its_stacks_suffix_is_not_guessed_without_cloudformation(
    deployed: Deployed, cli, verify_args
) -> None:
    """The invocation-log bucket's name ends with its stack's suffix (retained: landing_zone.core.naming), which only
    the deployed stack's ID gives: without CloudFormation the row is an error naming --invocation-log-bucket."""
    with use_client_factory(cloudformation_unreachable(deployed)):
        code, stdout, _ = cli(verify_args("--json"))
    assert code == 1  # the stacks themselves cannot be checked
    (s3,) = rows(stdout, "invocation-logging-s3")
    assert s3["status"] == "ERROR" and "--invocation-log-bucket" in s3["detail"]
    assert {status for statuses in failing(stdout).values() for status in statuses} == {"ERROR"}  # no guess
    assert rows(stdout, "stack-status")[0]["actual"] == "unreachable"


def test_bucket_given_on_the_command_line(deployed: Deployed, cli, verify_args) -> None:
    bucket = deployed.client("bedrock").get_model_invocation_logging_configuration()["loggingConfig"]["s3Config"][
        "bucketName"
    ]
    with use_client_factory(cloudformation_unreachable(deployed)):
        _, stdout, _ = cli(verify_args("--invocation-log-bucket", bucket, "--json"))
        assert rows(stdout, "invocation-logging-s3")[0]["status"] == "PASS"
        assert "--invocation-log-bucket" in rows(stdout, "invocation-logging-s3")[0]["detail"]
        _, stdout, _ = cli(verify_args("--invocation-log-bucket", "another-bucket", "--json"))
    assert rows(stdout, "invocation-logging-s3")[0]["status"] == "DRIFT"
    assert {c for c, statuses in failing(stdout).items() if statuses != {"ERROR"}} == {"invocation-logging-s3"}


# --------------------------------------------------------------------------------------------------
# Usage errors: exit 2
# --------------------------------------------------------------------------------------------------


def test_missing_assembly_is_a_usage_error(tmp_path, cli) -> None:
    code, _, stderr = cli(["verify", "--assembly", str(tmp_path / "nowhere"), "--config", str(EU)])
    assert code == 2 and "--assembly: got" in stderr and "not a directory: give the cdk.out directory" in stderr


def test_assembly_of_another_configuration_is_a_usage_error(eu, cli) -> None:
    """--config checks the assembly's recorded configuration (landing-zone.json) instead of replacing it."""
    other = str(ROOT / "examples" / "us-single-account.yaml")
    code, _, stderr = cli(["verify", "--assembly", str(eu.outdir), "--config", other])
    assert code == 2
    assert "was synthesized from a different configuration" in stderr and "drop --config" in stderr


def test_verify_reads_the_configuration_recorded_in_the_assembly(deployed: Deployed, cli) -> None:
    """A cdk.out handed over alone is enough: no --config needed, the recorded one is used."""
    code, stdout, stderr = cli(
        ["verify", "--assembly", str(deployed.assembly.path), "--management-profile", "management"]
    )
    assert code == 0, stdout + stderr
    assert "-> OK" in stdout


def test_unknown_profile_is_a_usage_error(eu, cli) -> None:
    code, _, stderr = cli(["verify", "--assembly", str(eu.outdir), "--config", str(EU), "--profile", "no-such-profile"])
    assert code == 2 and "--profile: got 'no-such-profile'; not a configured AWS profile" in stderr


def test_unknown_flag_is_a_usage_error(eu, cli) -> None:
    code, _, _ = cli(["verify", "--assembly", str(eu.outdir), "--frobnicate"])
    assert code == 2


def test_unknown_management_profile_is_a_usage_error(deployed: Deployed, cli, verify_args) -> None:
    from landing_zone.aws import boto3_client

    moto_factory = deployed.factory()

    def factory(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
        if profile == "nope":  # the real factory: fails at session creation, before any request
            return boto3_client(service, region=region, profile=profile)
        return moto_factory(service, region=region, profile=profile)

    with use_client_factory(factory):
        code, _, stderr = cli(
            ["verify", "--assembly", str(deployed.assembly.path), "--config", str(EU), "--management-profile", "nope"]
        )
    assert code == 2 and "AWS profile 'nope'" in stderr
