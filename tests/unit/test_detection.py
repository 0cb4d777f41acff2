"""Detection rules (issue 37): derived from the SCP statements and the protected inventory, each event pattern matching
the calls it watches and not its neighbours.

Sources: CloudTrail record contents (errorCode, errorMessage, userIdentity, requestParameters:
https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-record-contents.html); the
access-denied message names the policy type ("with an explicit deny in a service control policy":
https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html); EventBridge content filtering
(exact, prefix, wildcard: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from landing_zone.actiondb.lookup import access_level, actions_of_service
from landing_zone.errors import ConfigError
from landing_zone.policies.detection import DETECTION_ONLY, WATCHED_CHANGES, EventRule
from landing_zone.policies.guardrails import ACCOUNT_SETTING_ACTIONS, RETENTION_ACTIONS
from landing_zone.policies.protected import inventory
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
US_SINGLE = ROOT / "examples" / "us-single-account.yaml"
US_ORG = ROOT / "examples" / "us-organization.yaml"  # organization mode, detection on, config_rules omitted
ACC = "222222222222"
ADMIN = f"arn:aws:iam::{ACC}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0123456789abcdef"
SCP_DENIED = (
    f"User: {ADMIN} is not authorized to perform: {{action}} on resource: {{resource}} with an explicit deny in a "
    "service control policy"
)
IDENTITY_DENIED = (
    f"User: {ADMIN} is not authorized to perform: {{action}} on resource: {{resource}} because no identity-based "
    "policy allows the {action} action"
)


# moto 5.2.5's events TestEventPattern answers without a Result, so the patterns are matched here: only the operators
# the detection patterns use (exact strings, {"prefix"}, {"wildcard"}, nested objects, "$or"), as the EventBridge
# user guide's content-filtering page defines them.
def _value_matches(filters: list[Any], value: Any) -> bool:
    if value is None:
        return False
    for f in filters:
        if isinstance(f, Mapping):
            if "prefix" in f and isinstance(value, str) and value.startswith(f["prefix"]):
                return True
            if "wildcard" in f and isinstance(value, str) and fnmatch.fnmatchcase(value, f["wildcard"]):
                return True
        elif f == value:
            return True
    return False


def matches(pattern: Mapping[str, Any], event: Mapping[str, Any]) -> bool:
    for key, filters in pattern.items():
        if key == "$or":
            if not any(matches(p, event) for p in filters):
                return False
        elif isinstance(filters, Mapping):
            inner = event.get(key)
            if not isinstance(inner, Mapping) or not matches(filters, inner):
                return False
        elif not _value_matches(filters, event.get(key)):
            return False
    return True


def cloudtrail_event(
    source: str, name: str, *, error: str | None = None, message: str = "", **request: Any
) -> dict[str, Any]:
    detail: dict[str, Any] = {
        "eventSource": source,
        "eventName": name,
        "userIdentity": {"arn": ADMIN},
        "requestParameters": request,
    }
    if error is not None:
        detail.update(errorCode=error, errorMessage=message)
    return {
        "detail-type": "AWS API Call via CloudTrail",
        "source": f"aws.{source.split('.')[0]}",
        "account": ACC,
        "region": "eu-central-1",
        "detail": detail,
    }


@pytest.fixture(scope="module")
def eu_rules(plan_for: Callable) -> tuple[EventRule, ...]:
    detection = plan_for(EU).policies.detection
    assert detection is not None
    return detection.rules


def _matching(rules: tuple[EventRule, ...], event: Mapping[str, Any]) -> list[EventRule]:
    return [r for r in rules if matches(r.pattern, event)]


# --------------------------------------------------------------------------------------------- what is watched


def test_watched_changes_are_the_inventory_s_resource_types_and_non_read_actions(plan_for: Callable) -> None:
    """Every watched (service, resource type) is an entry of the protected inventory, or a declared detection-only
    class; every watched name is a Write / Permissions management / Tagging action of that service."""
    config = plan_for(EU).config
    inventoried = {(e.service, rt) for e in inventory(config) for rt in e.resource_types}
    assert set(WATCHED_CHANGES) <= inventoried, set(WATCHED_CHANGES) - inventoried
    assert not set(DETECTION_ONLY) & inventoried, "a detection-only class is in the inventory: move it"
    watched = [*WATCHED_CHANGES.items(), *((k, names) for k, (names, _) in DETECTION_ONLY.items())]
    for (service, _), names in watched:
        levels = {a.name: access_level(a) for a in actions_of_service(service)}
        for name in names:
            # the database lists every level AWS gives an action ("Permissions management, Write")
            written = set((levels.get(name) or "?").split(", "))
            assert written <= {"Write", "Permissions management", "Tagging"}, (service, name, levels.get(name))


def test_every_account_setting_the_scps_deny_is_watched(eu_rules: tuple[EventRule, ...]) -> None:
    for action in (*ACCOUNT_SETTING_ACTIONS, *RETENTION_ACTIONS):
        service, name = action.split(":", 1)
        source = "monitoring.amazonaws.com" if service == "cloudwatch" else f"{service}.amazonaws.com"
        hits = [r for r in _matching(eu_rules, cloudtrail_event(source, name)) if not r.denied]
        assert hits, f"{action} is denied by the SCPs but no rule watches it"
        assert all(r.id.startswith("account-settings-") for r in hits)


def test_every_scp_statement_is_named_by_a_denied_call_rule(plan_for: Callable) -> None:
    plan = plan_for(EU)
    # the detection rules run in the governed accounts: every statement of an SCP that binds them is named; the
    # perimeter SCP binds only the other accounts under the targets, where no rule of the landing zone runs
    policies = plan.policies.scp_set.policies
    sids = {s["Sid"] for p in policies if p.binds != "outside" for s in p.document["Statement"]}
    assert any(p.binds == "outside" for p in policies)  # the example has a shared target: the exclusion is real
    named = {sid for r in plan.policies.detection.rules if r.denied for sid in r.statements}
    assert named == sids


# ------------------------------------------------------------------------- attacker / neighbour, event by event

CASES = [
    # (why, event, rule id expected to match or None)
    (
        "invocation logging deleted by the management account's role (no SCP applies there)",
        cloudtrail_event("bedrock.amazonaws.com", "DeleteModelInvocationLoggingConfiguration"),
        "account-settings-bedrock",
    ),
    (
        "neighbour: reading the logging configuration",
        cloudtrail_event("bedrock.amazonaws.com", "GetModelInvocationLoggingConfiguration"),
        None,
    ),
    (
        "Mantle data retention set through the other prefix",
        cloudtrail_event("bedrock-mantle.amazonaws.com", "PutAccountDataRetention", mode="default"),
        "account-settings-bedrock-mantle",
    ),
    (
        "a long-term Bedrock API key",
        cloudtrail_event("iam.amazonaws.com", "CreateServiceSpecificCredential", serviceName="bedrock.amazonaws.com"),
        "bedrock-api-keys",
    ),
    (
        "neighbour: a CodeCommit Git credential",
        cloudtrail_event(
            "iam.amazonaws.com", "CreateServiceSpecificCredential", serviceName="codecommit.amazonaws.com"
        ),
        None,
    ),
    (
        "the landing zone's log bucket policy rewritten by an exempt principal",
        cloudtrail_event("s3.amazonaws.com", "PutBucketPolicy", bucketName="kimi-eu-invocation-logs-222222222222"),
        "s3-bucket",
    ),
    (
        "neighbour: another team's bucket policy",
        cloudtrail_event("s3.amazonaws.com", "PutBucketPolicy", bucketName="payments-data"),
        None,
    ),
    (
        "a private hosted zone associated with the VPC (no condition key can stop it)",
        cloudtrail_event("route53.amazonaws.com", "AssociateVPCWithHostedZone", hostedZoneId="Z1"),
        "route53-hostedzone",
    ),
    (
        "DNS Firewall rule group disassociated",
        cloudtrail_event("route53resolver.amazonaws.com", "DisassociateFirewallRuleGroup"),
        "route53resolver-association",
    ),
    (
        "SCP detached in the management account",
        cloudtrail_event("organizations.amazonaws.com", "DetachPolicy", policyId="p-a1b2c3d4"),
        "organizations-policy",
    ),
    (
        "SCP policy type disabled on the root",
        cloudtrail_event("organizations.amazonaws.com", "DisablePolicyType", policyType="SERVICE_CONTROL_POLICY"),
        "organizations-root",
    ),
    (
        "neighbour: listing the policies",
        cloudtrail_event("organizations.amazonaws.com", "ListPolicies"),
        None,
    ),
    (
        "the endpoint's security group opened",
        cloudtrail_event("ec2.amazonaws.com", "AuthorizeSecurityGroupIngress", groupId="sg-0a1b"),
        "ec2-security-group",
    ),
    (
        "a network ACL entry replaced",
        cloudtrail_event("ec2.amazonaws.com", "ReplaceNetworkAclEntry"),
        "ec2-network-acl",
    ),
    (
        "the guardrail weakened",
        cloudtrail_event("bedrock.amazonaws.com", "UpdateGuardrail"),
        "bedrock-guardrail",
    ),
]


@pytest.mark.parametrize(("why", "event", "expected"), CASES, ids=[c[0] for c in CASES])
def test_change_events(eu_rules: tuple[EventRule, ...], why: str, event: dict[str, Any], expected: str | None) -> None:
    hits = [r.id for r in _matching(eu_rules, event) if not r.denied]
    assert hits == ([expected] if expected else []), why


def _denied(action: str, resource: str, message: str, error: str = "AccessDeniedException") -> dict[str, Any]:
    service, name = action.split(":", 1)
    text = message.format(action=action, resource=resource)
    return cloudtrail_event(f"{service}.amazonaws.com", name, error=error, message=text)


def test_a_call_an_scp_statement_denied_alerts_naming_that_statement(eu_rules: tuple[EventRule, ...]) -> None:
    event = _denied("bedrock:PutModelInvocationLoggingConfiguration", "*", SCP_DENIED)
    denied = [r for r in _matching(eu_rules, event) if r.denied]
    assert any("DenyAccountSettingChanges" in r.statements for r in denied)
    assert all("DenyLandingZoneTagChanges" not in r.statements for r in denied), "not a tagging call"


def test_neighbour_a_call_only_an_identity_policy_denied_is_not_an_scp_alert(eu_rules: tuple[EventRule, ...]) -> None:
    event = _denied("bedrock:PutModelInvocationLoggingConfiguration", "*", IDENTITY_DENIED)
    assert not [r for r in _matching(eu_rules, event) if r.denied]


def test_a_denied_tag_removal_names_the_tag_statement(eu_rules: tuple[EventRule, ...]) -> None:
    event = _denied("kms:UntagResource", f"arn:aws:kms:eu-central-1:{ACC}:key/1", SCP_DENIED)
    event["detail"]["eventSource"] = "kms.amazonaws.com"
    named = {sid for r in _matching(eu_rules, event) if r.denied for sid in r.statements}
    assert "DenyLandingZoneTagChanges" in named


def test_ec2_denials_use_ec2_s_error_code(eu_rules: tuple[EventRule, ...]) -> None:
    event = _denied("ec2:ModifyVpcEndpoint", "vpce-0a1b", SCP_DENIED, error="Client.UnauthorizedOperation")
    assert [r for r in _matching(eu_rules, event) if r.denied]


# ------------------------------------------------------------------------------------------ where and whether


def test_organizations_changes_are_placed_in_the_management_account(eu_rules: tuple[EventRule, ...]) -> None:
    placed = {r.id for r in eu_rules if r.placement == "management"}
    assert placed == {"organizations-policy", "organizations-root"}


def test_on_by_default_in_organization_mode_off_in_single_account(plan_for: Callable) -> None:
    assert plan_for(EU).policies.detection is not None
    assert plan_for(US_SINGLE).policies.detection is None
    assert plan_for(US_SINGLE, detection={"enabled": True}).policies.detection is not None
    assert plan_for(EU, detection={"enabled": False, "config_rules": False}).policies.detection is None


def test_detection_admits_eventbridge_to_the_alerts_topic_and_key_only_when_on(plan_for: Callable) -> None:
    def publishers(plan: Any) -> set[str]:
        docs = [plan.policies.alerts_topic, plan.policies.keys["alerts"]]
        return {
            str(s["Principal"]["Service"]) for d in docs for s in d["Statement"] if "Service" in s.get("Principal", {})
        }

    assert "events.amazonaws.com" in publishers(plan_for(EU))
    assert "events.amazonaws.com" not in publishers(plan_for(EU, detection={"enabled": False, "config_rules": False}))


def test_the_event_bridge_publisher_is_limited_to_the_detection_rules(plan_for: Callable) -> None:
    topic = plan_for(EU).policies.alerts_topic
    stmt = next(s for s in topic["Statement"] if s.get("Principal", {}).get("Service") == "events.amazonaws.com")
    assert stmt["Condition"]["ArnLike"]["aws:SourceArn"].endswith(":rule/kimi-eu-detect-*")


def test_config_rules_with_the_member_baseline_are_refused(plan_for: Callable) -> None:
    """The member baseline's template carries the detection rules (tests/unit/test_detection_regions.py), not the
    AWS Config rules."""
    with pytest.raises(ConfigError) as err:
        plan_for(ROOT / "examples" / "multi-account-100.yaml", detection={"config_rules": True})
    assert "detection.config_rules: got true" in str(err.value) and "allowed here: false or omitted" in str(err.value)


def test_legacy_alarms_cover_each_invoke_id_of_the_allowed_models(plan_for: Callable) -> None:
    from landing_zone.plan.detection import legacy_alarm_names

    plan = plan_for(EU)
    names = legacy_alarm_names(plan.config, plan.routing)
    ids = {r.invoke_id for mr in plan.routing.models for r in mr.compliant_routes}
    assert ids <= set(names)
    assert legacy_alarm_names(plan_for(EU, detection={"legacy_model_alarm": False}).config, plan.routing) == {}


def test_config_rules_are_opt_in_in_both_modes(plan_for: Callable) -> None:
    assert [r.id for r in plan_for(EU).policies.detection.config_rules] == ["default-sg-closed", "tags"]  # opts in
    organization = plan_for(US_ORG)  # omitted, in organization mode: off, while the rest of detection is on
    assert organization.policies.detection is not None and organization.policies.detection.config_rules == ()
    assert plan_for(EU, detection={"config_rules": False}).policies.detection.config_rules == ()
    single = plan_for(US_SINGLE, detection={"enabled": True})
    assert single.policies.detection.config_rules == ()  # omitted: off
    assert plan_for(US_SINGLE, detection={"enabled": True, "config_rules": True}).policies.detection.config_rules


@pytest.mark.parametrize(
    "detection",
    [{"enabled": False, "config_rules": True}, {"config_rules": True}],  # off explicitly; off in single-account mode
)
def test_config_rules_without_detection_are_refused_naming_the_field(plan_for: Callable, detection: dict) -> None:
    config = EU if detection.get("enabled") is False else US_SINGLE
    with pytest.raises(ConfigError) as err:
        plan_for(config, detection=detection)
    assert "config_rules" in str(err.value) and "allowed" in str(err.value)


def test_the_review_lists_the_states_an_aws_config_rule_checks_continuously(plan_for: Callable) -> None:
    from landing_zone.review.detection import CONFIG_RULE_CHECKS, VERIFY_ONLY, detection_section

    def by_state(plan: Any) -> dict[str, str]:
        return {v["state"]: v["config_rule"] for v in detection_section(plan)["verify_only"]}

    assert set(CONFIG_RULE_CHECKS) <= {state for state, _ in VERIFY_ONLY}  # a renamed state fails here
    on = by_state(plan_for(EU))
    assert on["the protected resources carry the landing-zone tag"].startswith("kimi-eu-config-tags (")
    assert on["the VPC's default security group and network ACL admit nothing"].startswith(
        "kimi-eu-config-default-sg-closed (the security group)"
    )
    # no Config resource type: the custom account-settings rule (tests/unit/test_config_checks.py)
    assert on["the data retention mode in home_region is the configured one"].startswith(
        "kimi-eu-config-account-settings ("
    )
    assert set(by_state(plan_for(EU, detection={"config_rules": False})).values()) == {""}
