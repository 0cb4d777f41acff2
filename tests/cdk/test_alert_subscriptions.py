"""Alerts that cannot be muted and can be extended (issue 35 item 2), in the synthesized templates.

* The recipients are configuration (``cost.alert_emails``, ``cost.alert_recipients``: e-mail or HTTPS), each an
  ``AWS::SNS::Subscription`` of the alerts topic.
* The synthesized SCPs deny adding a subscriber to anyone but the exempt principals and the documented subscribers
  (``cost.alert_subscriber_principal_arns``, e-mail or HTTPS only), and removing or re-filtering a subscription of
  the landing zone's topics to anyone but the exempt principals; another team's topics stay theirs.  The attacker /
  neighbour pairs are rows of the red-team table (``landing_zone/tables/attacks.py``, tests/cdk/test_redteam.py).
* A documented subscriber of another account is admitted by the topic policy, a grant the review lists; without the
  grant the review refuses it.
"""

from __future__ import annotations

from typing import Any

import pytest

from landing_zone.assembly import load_assembly
from landing_zone.errors import ConfigError
from landing_zone.review.deployability import deployability_findings
from landing_zone.review.inventory import build_inventory
from tests.cdk.test_kill_switch_reset import _scp
from tests.conftest import ROOT

US_ORG = ROOT / "examples" / "us-organization.yaml"  # one e-mail, one HTTPS recipient, a documented subscriber
ACC = "777777777777"
TOPIC = f"arn:aws:sns:us-east-1:{ACC}:kimi-us-org-cost-alerts"
SUBSCRIPTION = f"{TOPIC}:0a1b2c3d-0a1b-4c5d-8e9f-0a1b2c3d4e5f"
ONCALL = "arn:aws:iam::121212121212:role/finops-kill-switch-oncall"
ADMIN = f"arn:aws:iam::{ACC}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0123456789abcdef"


@pytest.fixture(scope="module")
def us_org(synth):
    return synth(US_ORG)


def test_every_configured_recipient_is_a_subscription_of_the_alerts_topic(us_org):
    cost = us_org.template("cost")
    subscriptions = {
        (r["Properties"]["Protocol"], r["Properties"]["Endpoint"])
        for r in cost.find_resources("AWS::SNS::Subscription").values()
    }
    config = us_org.plan.config.cost
    assert subscriptions == {("email", e) for e in config.alert_emails} | {
        (r.protocol, r.endpoint) for r in config.alert_recipients
    }
    assert ("https", "https://events.pagerduty.example.com/integration/kimi-us-org/enqueue") in subscriptions


@pytest.mark.parametrize(
    ("who", "action", "resource", "context", "expected"),
    [
        # the documented subscriber (in an account outside the targets) adds a paging endpoint
        (ONCALL, "sns:Subscribe", TOPIC, {"sns:Protocol": "https"}, "allow"),
        # a member-account administrator: neither adds nor removes nor filters; another team's topic stays theirs
        (ADMIN, "sns:Subscribe", TOPIC, {"sns:Protocol": "email"}, "explicit_deny"),
        (ADMIN, "sns:Unsubscribe", SUBSCRIPTION, {}, "explicit_deny"),
        (ADMIN, "sns:SetSubscriptionAttributes", SUBSCRIPTION, {}, "explicit_deny"),
        (ADMIN, "sns:Unsubscribe", f"arn:aws:sns:us-east-1:{ACC}:team-b-alerts:0a1b", {}, "allow"),
        (ADMIN, "sns:Subscribe", f"arn:aws:sns:us-east-1:{ACC}:team-b-alerts", {"sns:Protocol": "email"}, "allow"),
    ],
)
def test_the_synthesized_scps_decide_who_changes_the_subscribers(us_org, who, action, resource, context, expected):
    assert _scp(us_org, who, action, resource, **context) == expected


def test_without_subscribers_only_the_exempt_principals_subscribe(plan_for):
    """No cost.alert_subscriber_principal_arns: DenyAlertSubscribe exempts the exempt principals only, and there is no
    protocol statement (nobody else may subscribe at all)."""
    plan = plan_for(US_ORG, cost={"alert_subscriber_principal_arns": []})
    statements = {s["Sid"]: s for d in plan.policies.scps.documents for s in d["Statement"]}
    assert "DenyAlertSubscribeProtocols" not in statements
    assert ONCALL not in str(statements["DenyAlertSubscribe"])
    assert "DocumentedSubscribersSubscribe" not in str(plan.policies.alerts_topic)


def _review(synthesized: Any, grants: Any) -> list[Any]:
    assembly = load_assembly(synthesized.outdir)
    return deployability_findings(build_inventory(assembly), assembly, grants)


def test_the_topic_policy_names_the_subscribers_account_only_through_its_grant(us_org):
    grants = us_org.plan.cross_account_grants
    (grant,) = [g for g in grants if g.id == "alerts-topic-subscribers"]
    assert grant.stack == "kimi-us-org-cost" and grant.accounts == ("121212121212",)
    assert _review(us_org, grants) == []
    refused = _review(us_org, [g for g in grants if g.id != "alerts-topic-subscribers"])
    assert refused and {(f.rule, f.stack) for f in refused} == {("LZ-FOREIGN-ACCOUNT", "kimi-us-org-cost")}


@pytest.mark.parametrize(
    ("recipient", "rule"),
    [
        ({"protocol": "https", "endpoint": "http://hooks.example.com/x"}, "must be an https:// URL"),
        ({"protocol": "https", "endpoint": "https://user:secret@hooks.example.com/x"}, "must be an https:// URL"),
        ({"protocol": "email", "endpoint": "https://hooks.example.com/x"}, "must be an e-mail address"),
    ],
)
def test_a_recipient_whose_endpoint_does_not_fit_its_protocol_is_refused(plan_for, recipient, rule):
    with pytest.raises(ConfigError) as info:
        plan_for(US_ORG, cost={"alert_recipients": [recipient]})
    (problem,) = [p for p in info.value.problems if p.path.startswith("cost.alert_recipients")]
    assert problem.path == "cost.alert_recipients[0].endpoint" and rule in str(problem)


def test_the_topic_policy_admits_the_documented_subscriber_with_email_or_https_only(us_org):
    """The on-call role sits outside the targets, so no SCP binds it: the alerts topic's policy is what admits its
    cross-account Subscribe, for e-mail and HTTPS only, and nothing else (no Unsubscribe)."""
    from landing_zone.policies.evaluator import Request, evaluate

    (policy,) = [
        r["Properties"]["PolicyDocument"]
        for r in us_org.template("cost").find_resources("AWS::SNS::TopicPolicy").values()
    ]
    (stmt,) = [s for s in policy["Statement"] if s.get("Sid") == "DocumentedSubscribersSubscribe"]
    assert stmt["Principal"] == {"AWS": ["arn:aws:iam::121212121212:root"]}
    body = {
        "Version": "2012-10-17",
        "Statement": [{k: v for k, v in stmt.items() if k != "Principal"} | {"Resource": "*"}],
    }

    def decide(action: str, who: str, **keys: str) -> str:
        return evaluate([("topic", body)], Request(action, TOPIC, {"aws:PrincipalArn": who, **keys})).decision

    assert decide("sns:Subscribe", ONCALL, **{"sns:Protocol": "https"}) == "allow"
    assert decide("sns:Subscribe", ONCALL, **{"sns:Protocol": "email"}) == "allow"
    assert decide("sns:Subscribe", ONCALL, **{"sns:Protocol": "lambda"}) == "implicit_deny"
    assert decide("sns:Unsubscribe", ONCALL) == "implicit_deny"
    assert decide("sns:Subscribe", "arn:aws:iam::121212121212:role/someone-else", **{"sns:Protocol": "https"}) == (
        "implicit_deny"
    )
