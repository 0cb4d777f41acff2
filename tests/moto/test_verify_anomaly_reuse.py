"""verify's ``anomaly`` family with ``cost.anomaly_monitor_arn``: the cost stack has no ``AWS::CE::AnomalyMonitor``, its
subscription names the account's own AWS services monitor by ARN, and verify checks that monitor (it exists, per
service) besides the subscription.  botocore Stubber for ce GetAnomalyMonitors / GetAnomalySubscriptions (moto 5.2.5
implements neither), against a one-resource assembly as the cost stack synthesizes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
from botocore.stub import Stubber

from landing_zone.assembly import Assembly, Stack
from landing_zone.verify.checks import Context
from landing_zone.verify.checks.cost import check_anomaly_detection
from landing_zone.verify.live import Live
from landing_zone.verify.report import Status

ACC, REGION = "111111111111", "us-east-1"
MONITOR = f"arn:aws:ce::{ACC}:anomalymonitor/0a1b2c3d-4e5f-6789-abcd-ef0123456789"
TOPIC = f"arn:aws:sns:{REGION}:{ACC}:kimi-lz-alerts"
THRESHOLD = {
    "Dimensions": {"Key": "ANOMALY_TOTAL_IMPACT_ABSOLUTE", "MatchOptions": ["GREATER_THAN_OR_EQUAL"], "Values": ["100"]}
}
SUBSCRIPTION = {
    "SubscriptionName": "kimi-lz-anomalies",
    "Frequency": "IMMEDIATE",
    "MonitorArnList": [MONITOR],
    "Subscribers": [{"Type": "SNS", "Address": TOPIC}],
    "ThresholdExpression": json.dumps(THRESHOLD),
}


def run(monitors: list[dict[str, Any]]) -> dict[str, Any]:
    stack = Stack(
        "kimi-lz-cost",
        "kimi-lz-cost.template.json",
        ACC,
        REGION,
        {"Resources": {"Subscription": {"Type": "AWS::CE::AnomalySubscription", "Properties": SUBSCRIPTION}}},
    )
    live = Live(profile=None, management_profile=None, region=REGION)
    ce = boto3.client("ce", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="y")
    stub = Stubber(ce)
    stub.add_response("get_anomaly_monitors", {"AnomalyMonitors": monitors}, {})
    live_subscription = {**SUBSCRIPTION, "AccountId": ACC, "ThresholdExpression": THRESHOLD}
    live_subscription["SubscriptionArn"] = f"arn:aws:ce::{ACC}:anomalysubscription/1a2b"
    stub.add_response("get_anomaly_subscriptions", {"AnomalySubscriptions": [live_subscription]}, {})
    live._clients[("ce", REGION, None)] = ce
    ctx = Context(Assembly(Path("."), (stack,)), live, "kimi-lz", REGION, deployment_account=ACC)
    with stub:
        rows = check_anomaly_detection(ctx)
    stub.assert_no_pending_responses()
    return {r.check: r for r in rows}


def monitor(**fields: str) -> dict[str, Any]:
    return {"MonitorArn": MONITOR, "MonitorName": "company-services", "MonitorType": "DIMENSIONAL", **fields}


def test_the_reused_monitor_and_the_subscription_pass() -> None:
    rows = run([monitor(MonitorDimension="SERVICE")])
    assert rows["anomaly-monitor"].status is Status.PASS and rows["anomaly-monitor"].resource == "company-services"
    assert rows["anomaly-subscription"].status is Status.PASS


def test_a_reused_monitor_that_is_gone_is_missing() -> None:
    rows = run([])
    assert rows["anomaly-monitor"].status is Status.MISSING
    assert "cost.anomaly_monitor_arn" in rows["anomaly-monitor"].detail


def test_a_reused_monitor_that_does_not_watch_every_service_is_drift() -> None:
    custom = {"MonitorArn": MONITOR, "MonitorName": "one-team", "MonitorType": "CUSTOM"}
    rows = run([custom])
    assert rows["anomaly-monitor"].status is Status.DRIFT and rows["anomaly-monitor"].actual == "CUSTOM"
