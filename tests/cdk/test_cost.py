"""The cost-controls stack: numbers from the cost model, budget filter, kill switch, alarms, anomalies."""

from __future__ import annotations

import json

import pytest

from landing_zone.cost.pricing import Workload, estimate_cost
from landing_zone.policies.evaluator import Request, evaluate
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def cost(default_lz):
    return default_lz.template("cost")


def only(template, type_):
    (res,) = template.find_resources(type_).values()
    return res["Properties"]


def test_budget_amount_is_the_cost_model_number_times_headroom(default_lz, cost):
    plan = default_lz.plan
    w = plan.config.cost.workload
    estimate = estimate_cost(
        Workload(w.requests_per_day, w.input_tokens_per_request, w.output_tokens_per_request, w.cached_input_fraction),
        plan.prices.prices("bedrock"),
        hours_per_month=730,
    )
    # the default workload: 10,000 requests/day x 6,000 input (50% cached) + 1,200 output tokens
    expected_daily = 10_000 * (6_000 * 0.5 * 3.00 + 6_000 * 0.5 * 0.75 + 1_200 * 12.00) / 1e6
    assert estimate.daily_usd == pytest.approx(expected_daily)
    budget = only(cost, "AWS::Budgets::Budget")["Budget"]
    assert budget["BudgetLimit"] == {"Amount": round(expected_daily * 730 / 24 * 1.2, 2), "Unit": "USD"}
    assert budget["BudgetType"] == "COST" and budget["TimeUnit"] == "MONTHLY"


def test_budget_filter_is_the_deployment_account_never_a_service_name(cost):
    """Default budget_scope auto is tagged here: the default application's Mantle path runs in its own Mantle Project
    (access.mantle_projects auto, us-east-1 has the CloudFormation type), so every path it has carries the landing
    zone's tags and the budget counts the deployment account AND those tags, never a service name (a Marketplace
    model bills under its own)."""
    budget = only(cost, "AWS::Budgets::Budget")["Budget"]
    (account, *tags) = budget["FilterExpression"]["And"]
    assert account == {"Dimensions": {"Key": "LINKED_ACCOUNT", "Values": ["111111111111"], "MatchOptions": ["EQUALS"]}}
    assert {t["Tags"]["Key"]: t["Tags"]["Values"] for t in tags} == {
        "landing-zone": ["kimi-lz"],
        "application": ["workload"],
    }
    assert "SERVICE" not in json.dumps(budget)


def test_a_tagged_budget_is_refused_while_invokers_can_spend_through_untagged_paths(plan_for):
    """A kill switch filtered on the landing-zone tag could never fire on Mantle spend in the default project
    (untaggable): a Mantle-only application where CloudFormation has no AWS::BedrockMantle::Project (eu-central-1)
    has no other path, so the configuration is refused at validate, naming the application and path."""
    from landing_zone.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        plan_for(ROOT / "examples" / "eu-core-regions.yaml", cost={"budget_scope": "tagged"})
    (problem,) = [p for p in info.value.problems if p.path == "cost.budget_scope"]
    assert "assistant (Mantle in the default project)" in str(problem) and "budget_scope: account" in str(problem)
    assert "access.mantle_projects" in str(problem)


def test_a_tagged_budget_without_a_kill_switch_is_accepted(plan_for):
    plan = plan_for(cost={"budget_scope": "tagged", "kill_switch": False})
    assert plan.config.cost.budget_scope == "tagged"


def test_notifications_at_50_80_100_actual_and_100_forecast_to_the_topic(cost):
    notes = only(cost, "AWS::Budgets::Budget")["NotificationsWithSubscribers"]
    kinds = sorted((n["Notification"]["NotificationType"], n["Notification"]["Threshold"]) for n in notes)
    assert kinds == [("ACTUAL", 50), ("ACTUAL", 80), ("ACTUAL", 100), ("FORECASTED", 100)]
    for n in notes:
        assert n["Subscribers"][0]["SubscriptionType"] == "SNS"


def test_kill_switch_applies_a_deny_inference_policy_to_the_invokers_at_100_percent(default_lz, cost):
    action = only(cost, "AWS::Budgets::BudgetsAction")
    assert action["ActionType"] == "APPLY_IAM_POLICY"
    assert action["ActionThreshold"] == {"Type": "PERCENTAGE", "Value": 100}
    assert action["ApprovalModel"] == "AUTOMATIC" and action["NotificationType"] == "ACTUAL"
    assert len(action["Definition"]["IamActionDefinition"]["Roles"]) == len(default_lz.plan.applications)
    policies = cost.find_resources(
        "AWS::IAM::ManagedPolicy", {"Properties": {"ManagedPolicyName": "kimi-lz-kill-switch"}}
    )
    (deny,) = [p["Properties"]["PolicyDocument"] for p in policies.values()]
    decision = evaluate(
        [("kill-switch", deny)],
        Request("bedrock:InvokeModel", "arn:aws:bedrock:us-east-1:1:application-inference-profile/x", {}),
    )
    assert decision.decision == "explicit_deny"
    mantle = evaluate(
        [("kill-switch", deny)],
        Request("bedrock-mantle:CreateInference", "arn:aws:bedrock-mantle:us-east-1:1:project/p", {}),
    )
    assert mantle.decision == "explicit_deny"
    roles = cost.find_resources("AWS::IAM::Role", {"Properties": {"RoleName": "kimi-lz-automation-budget-action"}})
    (role,) = roles.values()
    trust = role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]
    assert trust["Principal"] == {"Service": "budgets.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "111111111111"}


def test_kill_switch_can_be_turned_off(synth_with):
    synth_with("kill-switch-off", cost={"kill_switch": False}).template("cost").resource_count_is(
        "AWS::Budgets::BudgetsAction", 0
    )


def test_spend_alarm_prices_token_metrics_at_the_configured_prices(default_lz, cost):
    alarms = cost.find_resources("AWS::CloudWatch::Alarm", {"Properties": {"AlarmName": "kimi-lz-spend"}})
    (alarm,) = [a["Properties"] for a in alarms.values()]
    expression = next(m["Expression"] for m in alarm["Metrics"] if "Expression" in m)
    # bedrock prices 3.00 / 0.75 / 3.00 / 12.00 USD per 1M tokens, 300 s periods -> x12 per hour
    assert "FILL(m0_in, 0) * 3 + FILL(m0_cr, 0) * 0.75 + FILL(m0_cw, 0) * 3.75 + FILL(m0_out, 0) * 12" in expression
    assert expression.endswith("/ 1000000 * 12")
    budget = default_lz.plan.budget
    assert alarm["Threshold"] == pytest.approx(round(budget.usd / 730 * 2.0, 4))
    metrics = [m for m in alarm["Metrics"] if "MetricStat" in m]
    assert len(metrics) <= 10
    names = {(m["MetricStat"]["Metric"]["Namespace"], m["MetricStat"]["Metric"]["MetricName"]) for m in metrics}
    assert ("AWS/Bedrock", "InputTokenCount") in names and ("AWS/Bedrock", "CacheReadInputTokenCount") in names
    dims = {
        d["Value"] if isinstance(d["Value"], str) else "token"
        for m in metrics
        for d in m["MetricStat"]["Metric"]["Dimensions"]
    }
    assert "us.moonshotai.kimi-k3.1-pro" in dims
    assert alarm["TreatMissingData"] == "notBreaching"
    (action,) = alarm["AlarmActions"]
    assert action["Ref"].startswith("AlertsTopic")


def test_more_sources_than_fit_one_alarm_are_split(synth):
    lz = synth(ROOT / "examples" / "us-single-account.yaml")  # two models -> more than 10 metrics
    alarms = lz.template("cost").find_resources("AWS::CloudWatch::Alarm")
    spend = [a["Properties"] for a in alarms.values() if "-spend" in a["Properties"]["AlarmName"]]
    assert len(spend) >= 2
    for alarm in spend:
        assert len([m for m in alarm["Metrics"] if "MetricStat" in m]) <= 10


def test_mantle_usage_alarm_watches_the_mantle_namespace(cost):
    alarms = cost.find_resources("AWS::CloudWatch::Alarm", {"Properties": {"AlarmName": "kimi-lz-mantle-usage"}})
    (alarm,) = [a["Properties"] for a in alarms.values()]
    namespaces = {m["MetricStat"]["Metric"]["Namespace"] for m in alarm["Metrics"] if "MetricStat" in m}
    assert namespaces == {"AWS/BedrockMantle"}
    assert alarm["Threshold"] == 0 and alarm["ComparisonOperator"] == "GreaterThanThreshold"


def test_anomaly_subscription_sends_immediately_above_the_threshold(cost):
    sub = only(cost, "AWS::CE::AnomalySubscription")
    assert sub["Frequency"] == "IMMEDIATE"
    assert json.loads(sub["ThresholdExpression"])["Dimensions"]["Values"] == ["100"]
    assert sub["Subscribers"][0]["Type"] == "SNS"
    cost.has_resource_properties(
        "AWS::CE::AnomalyMonitor", {"MonitorType": "DIMENSIONAL", "MonitorDimension": "SERVICE"}
    )


def test_alerts_topic_is_encrypted_tls_only_and_publishers_are_confined(cost):
    topic = only(cost, "AWS::SNS::Topic")
    assert "KmsMasterKeyId" in topic
    policy = only(cost, "AWS::SNS::TopicPolicy")["PolicyDocument"]
    stmts = {s["Sid"]: s for s in policy["Statement"]}
    assert stmts["DenyInsecureTransport"]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    for sid, service in (
        ("BudgetsPublish", "budgets.amazonaws.com"),
        ("CostAnomalyDetectionPublish", "costalerts.amazonaws.com"),
        ("CloudWatchAlarmsPublish", "cloudwatch.amazonaws.com"),
    ):
        assert stmts[sid]["Principal"] == {"Service": service}
        assert stmts[sid]["Condition"]["StringEquals"] == {"aws:SourceAccount": "111111111111"}
        assert "111111111111" in stmts[sid]["Condition"]["ArnLike"]["aws:SourceArn"]


def test_email_subscriptions_from_config(synth):
    lz = synth(ROOT / "examples" / "eu-sovereign.yaml")
    lz.template("cost").has_resource_properties(
        "AWS::SNS::Subscription", {"Protocol": "email", "Endpoint": "finops@example.com"}
    )


def test_explicit_budget_below_spend_warns_with_both_numbers(plan_for):
    plan = plan_for(cost={"monthly_budget_usd": 5000})
    (warning,) = [w for w in plan.warnings if "monthly_budget_usd" in w]
    assert "5,000.00 USD is below the computed monthly spend of 7,801.88 USD" in warning


def test_too_many_alert_emails_is_a_config_error(plan_for):
    from landing_zone.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        plan_for(cost={"alert_emails": [f"a{i}@example.com" for i in range(11)]})
    assert "at most 10 e-mail subscribers" in str(info.value)


def test_an_allowed_tier_adds_its_series_to_the_spend_alarms(synth):
    """global-inference allows flex: the alarms also read "<id>+flex" (service-tiers-inference.html: tier metrics
    report under "model-id+flex"), for the system profile and for the application profile's ARN + "+flex"."""
    lz = synth(ROOT / "examples" / "global-inference.yaml")
    alarms = lz.template("cost").find_resources("AWS::CloudWatch::Alarm")
    spend = [a["Properties"] for a in alarms.values() if "-spend" in a["Properties"]["AlarmName"]]
    values = [
        d["Value"]
        for alarm in spend
        for m in alarm["Metrics"]
        if "MetricStat" in m
        for d in m["MetricStat"]["Metric"]["Dimensions"]
    ]
    plain = {v for v in values if isinstance(v, str)}
    assert {"us.moonshotai.kimi-k3.1-pro", "us.moonshotai.kimi-k3.1-pro+flex"} <= plain
    assert not any(v.startswith("application-profile:") for v in plain)  # every marker replaced
    # the application profile's series: its ARN (a token) joined with "+flex"
    joined = [v["Fn::Join"][1] for v in values if isinstance(v, dict) and "Fn::Join" in v]
    assert any(parts[-1] == "+flex" for parts in joined), values
    assert any(not isinstance(v, str) and "Fn::Join" not in v for v in values)  # and the plain ARN
