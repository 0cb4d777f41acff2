"""Detective controls as data: the EventBridge rules on CloudTrail management events that notice what the SCPs
cannot prevent (the management account, service-linked roles, exempt principals, changes no condition key reaches)
and every attempt an SCP statement of the landing zone denied.

One source for what is watched: the denies themselves.

* **Account settings** — the actions of ``DenyAccountSettingChanges`` and ``DenyDataRetentionModeChange`` (the same
  tuples: :data:`~landing_zone.policies.guardrails.ACCOUNT_SETTING_ACTIONS`, ``RETENTION_ACTIONS``), watched whether
  they succeed or fail.
* **Protected resources** — :data:`WATCHED_CHANGES`, keyed by the protected inventory's (service, resource type)
  (:mod:`landing_zone.policies.protected`; ``tests/unit/test_detection.py`` checks every key is an inventory entry or a
  declared detection-only class in :data:`DETECTION_ONLY`, and every event name a non-read action of that service in
  the IAM action database).
* **Denied attempts** — one rule per SCP statement (statements with the same event pattern share one), matching
  CloudTrail's ``errorCode`` of a denial and an ``errorMessage`` that says an SCP denied it; the message names the
  statement(s), the principal and the resource.

CloudTrail delivers a management event to EventBridge in the Region where the call was made; the global services'
(IAM, Organizations, Route 53) arrive in us-east-1 (CloudTrail user guide, "CloudTrail concepts", global service
events: https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-concepts.html#cloudtrail-concepts-global-service-events).
EventBridge receives "AWS API Call via CloudTrail" events only while a trail logs management events in the account
(EventBridge user guide, "Events from AWS services":
https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-service-event.html); Control Tower's organization trail
does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from landing_zone.core.config import LandingZoneConfig
from landing_zone.policies import sids
from landing_zone.policies.guardrails import ACCOUNT_SETTING_ACTIONS, RETENTION_ACTIONS

__all__ = [
    "DENIED_ERROR_CODES",
    "DETECTION_ONLY",
    "GLOBAL_EVENT_SOURCES",
    "WATCHED_CHANGES",
    "EventRule",
    "event_rules",
    "event_source",
]

Placement = Literal["workload", "management"]
CLOUDTRAIL_DETAIL_TYPE = "AWS API Call via CloudTrail"

# CloudTrail's eventSource is <endpoint prefix>.amazonaws.com; where the IAM prefix differs, the CloudTrail user
# guide's service topics name it (CloudWatch: "monitoring.amazonaws.com",
# https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/logging_cw_api_calls.html).  Bedrock's runtime calls
# are logged with eventSource bedrock.amazonaws.com (Bedrock user guide, logging-using-cloudtrail.html).
_EVENT_SOURCE_EXCEPTIONS = {"cloudwatch": "monitoring.amazonaws.com"}
# Services whose management events CloudTrail records in us-east-1 only (global service events, page above).
GLOBAL_EVENT_SOURCES = frozenset({"iam.amazonaws.com", "organizations.amazonaws.com", "route53.amazonaws.com"})
# The error codes a denied call is recorded with: most services AccessDenied / AccessDeniedException, EC2
# Client.UnauthorizedOperation (CloudTrail user guide, "CloudTrail record contents", errorCode).
DENIED_ERROR_CODES = ("AccessDenied", "AccessDeniedException", "Client.UnauthorizedOperation")
# The denial's message names the policy type (IAM user guide, "Troubleshoot access denied error messages":
# "... with an explicit deny in a service control policy"), https://docs.aws.amazon.com/IAM/latest/UserGuide/
# troubleshoot_access-denied.html).  A wildcard match: EventBridge allows 30 such rules per bus (catalog limit
# eventbridge_wildcard_rules_per_bus), checked by the plan.
SCP_DENY_MESSAGE = "*explicit deny in a service control policy*"
# A statement of every action (the tag-key deny, keyed on aws:TagKeys): the tagging calls, by name (TagResource,
# UntagResource, CreateTags, DeleteTags, AddTagsToResource, PutBucketTagging ...); a tag given at creation is denied
# with the create call and is reported by the statements of that service, not by this rule.
TAGGING_EVENT_NAMES = ("*Tag*", "*tag*")  # case-sensitive: UntagResource has a lower-case 'tag'

# Changes to protected resources worth an alert whoever makes them, by the inventory's (service, resource type).
# Each name is a non-read action of that service (tests/unit/test_detection.py checks the action database).
WATCHED_CHANGES: Mapping[tuple[str, str], tuple[str, ...]] = {
    ("bedrock", "guardrail"): ("UpdateGuardrail", "DeleteGuardrail", "PutResourcePolicy", "DeleteResourcePolicy"),
    ("ec2", "vpc-endpoint"): ("ModifyVpcEndpoint", "DeleteVpcEndpoints", "ModifyVpcEndpointServicePermissions"),
    ("ec2", "security-group"): (
        "AuthorizeSecurityGroupIngress",
        "AuthorizeSecurityGroupEgress",
        "RevokeSecurityGroupIngress",
        "RevokeSecurityGroupEgress",
        "ModifySecurityGroupRules",
        "DeleteSecurityGroup",
    ),
    ("ec2", "route-table"): ("CreateRoute", "ReplaceRoute", "DeleteRoute", "ReplaceRouteTableAssociation"),
    ("ec2", "vpc"): ("ModifyVpcAttribute", "AssociateDhcpOptions"),
    ("kms", "key"): ("PutKeyPolicy", "ScheduleKeyDeletion", "DisableKey", "CreateGrant"),
    ("s3", "bucket"): ("PutBucketPolicy", "DeleteBucketPolicy", "PutBucketAcl", "PutBucketOwnershipControls"),
    ("organizations", "policy"): ("DetachPolicy", "UpdatePolicy", "DeletePolicy"),
    ("ec2", "network-acl"): (
        "CreateNetworkAclEntry",
        "ReplaceNetworkAclEntry",
        "DeleteNetworkAclEntry",
        "ReplaceNetworkAclAssociation",
        "DeleteNetworkAcl",
    ),
}
# Why a watched class matters where the generic line ("a change that can weaken the landing zone") says too little.
WATCH_REASONS: Mapping[tuple[str, str], str] = {
    ("ec2", "network-acl"): "the subnets' network ACLs (the VPC's default ACL has no landing-zone tag)",
}
# Classes watched although the inventory holds no entry for them, each with why (prevention is elsewhere or nowhere).
DETECTION_ONLY: Mapping[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("route53resolver", "association"): (
        (
            "AssociateFirewallRuleGroup",
            "DisassociateFirewallRuleGroup",
            "UpdateFirewallRuleGroupAssociation",
            "AssociateResolverRule",
            "DisassociateResolverRule",
            "AssociateResolverQueryLogConfig",
            "DisassociateResolverQueryLogConfig",
        ),
        "Resolver rules, DNS Firewall and query-log associations of the VPC",
    ),
    ("route53", "hostedzone"): (
        ("AssociateVPCWithHostedZone", "DisassociateVPCFromHostedZone"),
        "a private hosted zone associated with the VPC can answer for the Bedrock endpoints' names",
    ),
    ("organizations", "root"): (
        ("DisablePolicyType", "EnablePolicyType"),
        "policy types on the root: disabling SERVICE_CONTROL_POLICY detaches every SCP (the management account "
        "is not bound by SCPs)",
    ),
}


@dataclass(frozen=True)
class EventRule:
    """One EventBridge rule: ``pattern`` (the event pattern), ``what`` (one line for the alert and the report),
    ``statements`` (the SCP statements that deny the watched calls to non-exempt principals; empty: not prevented),
    ``placement`` (``workload``: the governed account; ``management``: the management account, where no SCP applies),
    ``denied`` (matches denied attempts only) and ``wildcard`` (the pattern holds a wildcard filter)."""

    id: str
    what: str
    pattern: Mapping[str, Any]
    statements: tuple[str, ...] = ()
    placement: Placement = "workload"
    denied: bool = False

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(self.pattern["detail"].get("eventSource", ()))

    @property
    def wildcard(self) -> bool:
        return self.denied

    @property
    def global_sources(self) -> tuple[str, ...]:
        """The event sources CloudTrail records in us-east-1 only (all of them for a rule with no source filter)."""
        if not self.sources:
            return tuple(sorted(GLOBAL_EVENT_SOURCES))
        return tuple(s for s in self.sources if s in GLOBAL_EVENT_SOURCES)

    @property
    def regional(self) -> bool:
        """Whether CloudTrail records some of its calls in the Region they were made in (a source outside
        :data:`GLOBAL_EVENT_SOURCES`, or no source filter): such a rule is needed in every Region they can be made in."""
        return not self.sources or any(s not in GLOBAL_EVENT_SOURCES for s in self.sources)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "what": self.what,
            "statements": list(self.statements),
            "placement": self.placement,
            "denied": self.denied,
            "pattern": dict(self.pattern),
        }


def event_source(service: str) -> str:
    """CloudTrail's ``eventSource`` of an IAM service prefix."""
    return _EVENT_SOURCE_EXCEPTIONS.get(service, f"{service}.amazonaws.com")


def _by_source(actions: Iterable[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for action in actions:
        service, name = action.split(":", 1)
        out.setdefault(event_source(service), []).append(name)
    return {s: sorted(set(n)) for s, n in sorted(out.items())}


def _calls(actions: Iterable[str], **detail: Any) -> dict[str, dict[str, Any]]:
    """Patterns matching CloudTrail records of these IAM actions, one per event source (by source)."""
    return {
        source: {
            "detail-type": [CLOUDTRAIL_DETAIL_TYPE],
            "detail": {"eventSource": [source], "eventName": names, **detail},
        }
        for source, names in _by_source(actions).items()
    }


def _source_suffix(source: str) -> str:
    return source.removesuffix(".amazonaws.com")


def _statement_index(statements: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(s["Sid"]): s for s in statements}


def _denying(statements: Mapping[str, Mapping[str, Any]], action: str) -> list[str]:
    """The Sids of the statements whose ``Action`` names ``action`` itself (not by a wildcard: a ``bedrock:*`` Region
    deny denies it only outside the compliant Regions)."""
    out = []
    for sid, stmt in statements.items():
        listed = stmt.get("Action", [])
        listed = [listed] if isinstance(listed, str) else listed
        if any(a.lower() == action.lower() for a in listed):
            out.append(sid)
    return out


def _setting_rules(statements: Mapping[str, Mapping[str, Any]]) -> list[EventRule]:
    actions = sorted({*ACCOUNT_SETTING_ACTIONS, *RETENTION_ACTIONS})
    return [
        EventRule(
            f"account-settings-{_source_suffix(source)}",
            f"an account setting the landing zone governs was changed or attempted ({', '.join(pattern['detail']['eventName'])})",
            pattern,
            tuple(
                sorted({sid for a in actions if a.startswith(_prefix_of(source)) for sid in _denying(statements, a)})
            ),
        )
        for source, pattern in _calls(actions).items()
    ]


def _prefix_of(source: str) -> str:
    """The IAM prefix (with its colon) of an event source."""
    inverse = {v: k for k, v in _EVENT_SOURCE_EXCEPTIONS.items()}
    return inverse.get(source, _source_suffix(source)) + ":"


def _api_key_rule(statements: Mapping[str, Mapping[str, Any]]) -> EventRule:
    return EventRule(
        "bedrock-api-keys",
        "a long-term Bedrock API key (IAM service-specific credential for Bedrock) was created or attempted",
        _calls(["iam:CreateServiceSpecificCredential"], requestParameters={"serviceName": [{"prefix": "bedrock"}]})[
            "iam.amazonaws.com"
        ],
        tuple(_denying(statements, "iam:CreateServiceSpecificCredential") or _sids_like(statements, "ApiKey")),
    )


def _sids_like(statements: Mapping[str, Mapping[str, Any]], fragment: str) -> list[str]:
    return [sid for sid in statements if fragment in sid]


def _resource_rules(config: LandingZoneConfig, statements: Mapping[str, Mapping[str, Any]]) -> list[EventRule]:
    """Changes to the protected resources (:data:`WATCHED_CHANGES`) and the detection-only classes."""
    tamper = tuple(s for s in (sids.NAMED, sids.TAGGED) if s in statements)
    rules = []
    watched = [*WATCHED_CHANGES.items(), *((k, names) for k, (names, _) in DETECTION_ONLY.items())]
    reasons = {**WATCH_REASONS, **{k: why for k, (_, why) in DETECTION_ONLY.items()}}
    for (service, resource_type), names in sorted(watched):
        placement: Placement = "management" if service == "organizations" else "workload"
        detail: dict[str, Any] = {}
        if (service, resource_type) == ("s3", "bucket"):  # the landing zone's buckets are recognised by name
            detail["requestParameters"] = {"bucketName": [{"prefix": f"{config.name}-"}]}
        naming = {sid for n in names for sid in _denying(statements, f"{service}:{n}")}
        why = reasons.get((service, resource_type), "a change that can weaken the landing zone")
        rules.append(
            EventRule(
                f"{service}-{resource_type}",
                f"{service} {resource_type}: {why} ({', '.join(names)})",
                _calls([f"{service}:{n}" for n in names], **detail)[event_source(service)],
                () if placement == "management" else tuple(sorted({*tamper, *naming})),
                placement,
            )
        )
    return rules


def _statement_sources(stmt: Mapping[str, Any], protected_services: Sequence[str]) -> tuple[str, ...]:
    """The event sources of a statement's calls: its ``Action`` services, or, for a ``NotAction`` statement (every
    action but reads on protected resources), the protected services; () for ``Action: *``."""
    if "NotAction" in stmt:
        return tuple(sorted({event_source(s) for s in protected_services}))
    listed = stmt.get("Action", [])
    listed = [listed] if isinstance(listed, str) else listed
    if "*" in listed:
        return ()
    return tuple(sorted({event_source(a.split(":", 1)[0]) for a in listed}))


def _statement_names(stmt: Mapping[str, Any]) -> tuple[str, ...]:
    """The event names of an ``Action`` statement that lists exact actions of one service, else ()."""
    listed = stmt.get("Action", [])
    listed = [listed] if isinstance(listed, str) else listed
    if not listed or any("*" in a for a in listed) or len({a.split(":", 1)[0] for a in listed}) != 1:
        return ()
    return tuple(sorted({a.split(":", 1)[1] for a in listed}))


def _every_action(stmt: Mapping[str, Any]) -> bool:
    listed = stmt.get("Action", [])
    return "*" in ([listed] if isinstance(listed, str) else listed)


def _denied_rules(statements: Sequence[Mapping[str, Any]], protected_services: Sequence[str]) -> list[EventRule]:
    """One rule per set of event sources of the SCP statements' denied calls, naming every statement it covers.

    Statements with the same sources share a rule whose ``eventName`` filter is the union of theirs (none if one of
    them has none): one rule per distinct pattern gave 31 rules for eu-sovereign, over EventBridge's 30 wildcard rules
    per bus.  The union can match a call of those sources that another statement of the group (or an SCP not ours)
    denied; the alert names the group's statements and carries the call, so the reader sees which one it was."""
    groups: dict[tuple[str, ...], tuple[list[Any] | None, list[str]]] = {}
    for stmt in statements:
        if stmt.get("Effect") != "Deny":
            continue
        sources = _statement_sources(stmt, protected_services)
        names: list[Any] | None = list(_statement_names(stmt)) or None
        if names is None and _every_action(stmt):  # Action "*" with a tag condition: its tagging calls
            names = [{"wildcard": w} for w in TAGGING_EVENT_NAMES]
        held, sids = groups.get(sources, ([], []))
        merged = None if held is None or names is None else [*held, *(n for n in names if n not in held)]
        groups[sources] = (merged, [*sids, str(stmt["Sid"])])
    rules = []
    for index, (sources, (names, sids)) in enumerate(groups.items(), start=1):
        detail: dict[str, Any] = {
            "errorCode": list(DENIED_ERROR_CODES),
            "errorMessage": [{"wildcard": SCP_DENY_MESSAGE}],
        }
        if sources:
            detail["eventSource"] = list(sources)
        if names:
            detail["eventName"] = sorted(names, key=repr)
        pattern = {"detail-type": [CLOUDTRAIL_DETAIL_TYPE], "detail": dict(sorted(detail.items()))}
        rules.append(
            EventRule(
                f"denied-{index}",
                f"a call denied by a landing-zone SCP statement ({', '.join(sids)})",
                pattern,
                tuple(sids),
                "workload",
                denied=True,
            )
        )
    return rules


def event_rules(
    config: LandingZoneConfig, scp_statements: Sequence[Mapping[str, Any]], protected_services: Sequence[str]
) -> tuple[EventRule, ...]:
    """Every detection rule of the configuration: account settings, API keys, the protected resources and the
    detection-only classes, and (with SCPs) one rule per set of event sources of the denied calls of ``scp_statements``."""
    statements = _statement_index(scp_statements)
    rules = [*_setting_rules(statements), _api_key_rule(statements), *_resource_rules(config, statements)]
    rules += _denied_rules(scp_statements, protected_services)
    return tuple(rules)
