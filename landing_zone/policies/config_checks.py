"""The custom AWS Config rule that checks the account settings AWS Config does not record (``detection.config_rules``;
docs/DETECTION.md, "Continuous checks"): Bedrock's model invocation logging destination, the data retention mode and
the enforced guardrail, the same states ``verify`` reads (``invocation-logging-*``, ``data-retention``,
``guardrail-enforcement``), as the landing zone sets them in ``home_region``.

A periodic custom Lambda rule (``Source.Owner: CUSTOM_LAMBDA``, ``ScheduledNotification``): its function
(``handlers/account_settings_check``) reads the three settings and reports one evaluation of the account
(``AWS::::Account``) with ``config:PutEvaluations``: ``COMPLIANT``, or ``NON_COMPLIANT`` with an annotation naming what
differs.  What it expects is the rule's input parameters, written here from the configuration and filled at deploy
time with the values the access stack gives the custom resources that set them (markers below: the invocation-log
bucket, log group and Bedrock's logging role; the content guardrail's ID and pinned version), so the rule and the
resources that set the settings cannot disagree.  A setting the configuration leaves alone has no parameter and is
not checked.

The same rule checks the landing zone's network and key policies (``verify``'s ``vpc-endpoint-policy``, ``key-policy``
and ``default-network-acl``): each endpoint's policy (the interface endpoints; with self-hosting in a new VPC, the S3
gateway endpoint) and each key's policy is the plan's document, and no subnet of the VPC the landing zone creates is
on its default network ACL. The documents are synth-time values (the endpoint policies name literal accounts; a key
policy's ``${lz:account}`` is the deployment account, as the keys stack resolves it), so the parameters carry a digest
of each (:func:`policy_digest`: SHA-256 of the IAM-canonical JSON, 32 hex digits) instead of the document, which would
not fit AWS Config's 1,024 characters of input parameters; the function computes the same digest of the live policy
(``handlers/account_settings_check``, ``policy_digest``: the same canonical form, kept equal by
tests/cdk/test_config_checks.py). A digest names that a document differs, not how: ``verify`` shows the
statement-by-statement difference.

Its function reads only (``bedrock:Get*``/``List*``, ``ec2:Describe*``: no resource type, Service Authorization
Reference; ``kms:DescribeKey``/``GetKeyPolicy`` on the landing zone's keys, by alias) and writes only evaluations
(``config:PutEvaluations``) and its own log group.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from landing_zone.core import arns, markers, naming
from landing_zone.core.catalog import Catalog
from landing_zone.core.config import LandingZoneConfig
from landing_zone.policies.access import handler_policy
from landing_zone.policies.common import canonical, document, statement
from landing_zone.policies.roles import with_own_log_group

__all__ = [
    "ACCOUNT_SETTINGS_ID",
    "ACCOUNT_SETTINGS_READ_ACTIONS",
    "AccountSettingsRule",
    "PolicyDocuments",
    "account_settings_parameters",
    "account_settings_rule",
    "policy_digest",
]

ACCOUNT_SETTINGS_ID = "account-settings"  # <name>-config-account-settings
HANDLER = "account-settings-check"  # handlers/account_settings_check
# The settings it reads (no resource type: Service Authorization Reference) and the one call it writes with.
ACCOUNT_SETTINGS_READ_ACTIONS = (
    "bedrock:GetModelInvocationLoggingConfiguration",
    "bedrock:GetAccountDataRetention",
    "bedrock:ListEnforcedGuardrailsConfiguration",
)
PUT_EVALUATIONS = "config:PutEvaluations"
NETWORK_READ_ACTIONS = {"endpointPolicies": "ec2:DescribeVpcEndpoints", "vpcId": "ec2:DescribeNetworkAcls"}
KEY_READ_ACTIONS = ("kms:DescribeKey", "kms:GetKeyPolicy")
DIGEST_LENGTH = 32  # hex digits of SHA-256 kept (128 bits)

# invocation_logging's data types: the configuration's fields, Bedrock's <type>DataDeliveryEnabled (as the
# invocation-logging custom resource sets them)
_DATA_TYPES = ("text", "image", "embedding", "video")


@dataclass(frozen=True)
class PolicyDocuments:
    """The plan's endpoint policies (by service) and key policies (by purpose) the rule expects."""

    endpoints: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    keys: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def policy_digest(policy: Mapping[str, Any] | str) -> str:
    """SHA-256 (first 32 hex digits) of a policy's canonical JSON: statement order, one-element lists, list order and
    the case of action names do not change it; any statement added, removed or changed does.  The handler computes the
    same digest of the live policy (its own copy of this function: Lambda code cannot import landing_zone)."""
    doc = json.loads(policy) if isinstance(policy, str) else dict(policy)
    listed = doc.get("Statement", [])
    statements = []
    for stmt in listed if isinstance(listed, list) else [listed]:
        out = dict(stmt)
        for key in ("Action", "NotAction"):
            if isinstance(out.get(key), str):
                out[key] = out[key].lower()
            elif isinstance(out.get(key), list):
                out[key] = [a.lower() for a in out[key]]
        statements.append(out)
    text = json.dumps(canonical({**doc, "Statement": statements}), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_LENGTH]


def _digests(documents: Mapping[str, Mapping[str, Any]], values: Mapping[str, str]) -> str:
    """``name=digest,...`` (sorted by name), each document resolved with ``values`` first; a document naming another
    deploy-time value has no synth-time digest and is left out (the member baseline's, whose accounts are each
    member's: no Config rule deploys there)."""
    return ",".join(
        f"{n}={policy_digest(markers.resolve(documents[n], values))}"
        for n in sorted(documents)
        if markers.markers_in(documents[n]) <= set(values)
    )


def policy_parameters(config: LandingZoneConfig, documents: PolicyDocuments) -> dict[str, str]:
    """What the rule expects of the landing zone's policies: ``endpointPolicies`` (service=digest, the endpoints':
    ``documents.endpoints``), ``keyPolicies`` (purpose=digest, the keys behind ``alias/<name>/<purpose>``), ``landingZone`` (the
    name the endpoints are tagged with and the aliases begin with) and, where the landing zone creates the VPC,
    ``vpcId`` (marker: the network stack's VPC; its default network ACL has no subnet)."""
    digests = {
        "endpointPolicies": _digests(documents.endpoints, {}),
        "keyPolicies": _digests(documents.keys, {markers.ACCOUNT: config.deployment_account}),
    }
    parameters = {key: value for key, value in digests.items() if value}
    if parameters:
        parameters["landingZone"] = config.name
    if config.network.vpc_id is None:
        parameters["vpcId"] = markers.VPC_ID
    return parameters


def _policy_reads(config: LandingZoneConfig, parameters: Mapping[str, str]) -> list[dict[str, Any]]:
    """The reads the policy checks need: the EC2 descriptions (no resource type) and, for the key policies, the
    landing zone's keys only (by alias: ``kms:ResourceAliases``; their IDs are the keys stack's)."""
    network = [action for key, action in NETWORK_READ_ACTIONS.items() if key in parameters]
    found = [statement("ReadNetworkPolicies", actions=network)] if network else []
    if "keyPolicies" in parameters:
        aliases = [naming.key_alias(config.name, p) for p in sorted(_names(parameters["keyPolicies"]))]
        found.append(
            statement(
                "ReadKeyPolicies",
                actions=KEY_READ_ACTIONS,
                resources=[f"arn:{markers.PARTITION}:kms:{markers.REGION}:{markers.ACCOUNT}:key/*"],
                condition={"ForAnyValue:StringEquals": {"kms:ResourceAliases": aliases}},
            )
        )
    return found


def _names(digests: str) -> list[str]:
    return [pair.split("=", 1)[0] for pair in digests.split(",") if pair]


@dataclass(frozen=True)
class AccountSettingsRule:
    """The rule's data: ``id`` (the name's suffix), ``what`` (its description), ``parameters`` (the input parameters,
    strings, markers for the access stack's deploy-time values), ``frequency``, and the names and policy of its
    function: ``function_name``, ``role_name``, ``log_group_name`` (stack suffix marker), ``policy``."""

    id: str
    what: str
    parameters: dict[str, str]
    frequency: str
    function_name: str
    role_name: str
    log_group_name: str
    policy: dict[str, Any]


def account_settings_parameters(config: LandingZoneConfig, *, key_prefix: str) -> dict[str, str]:
    """What the rule expects, from what the configuration has the landing zone set (empty: nothing to check).

    * ``invocation_logging.enabled``: ``logBucket`` / ``logKeyPrefix`` (``key_prefix``: the plan's), ``logGroup``,
      ``logRoleArn`` (Bedrock's logging role) and ``logDataTypes`` (the delivered types, comma-separated, sorted);
    * ``data_retention.mode``: ``retentionMode``;
    * ``content_guardrail`` enabled with ``enforcement: account``: ``guardrailId`` and ``guardrailVersion`` (the
      version the landing zone pinned)."""
    parameters: dict[str, str] = {}
    logging = config.invocation_logging
    if logging.enabled:
        parameters |= {
            "logBucket": markers.LOG_BUCKET_NAME,
            "logKeyPrefix": key_prefix,
            "logGroup": markers.LOG_GROUP_NAME,
            "logRoleArn": markers.LOGGING_ROLE_ARN,
            "logDataTypes": ",".join(sorted(t for t in _DATA_TYPES if getattr(logging, t))),
        }
    if config.data_retention.mode is not None:
        parameters["retentionMode"] = config.data_retention.mode
    guardrail = config.content_guardrail
    if guardrail.enabled and guardrail.enforcement == "account":
        parameters |= {"guardrailId": markers.GUARDRAIL_ID, "guardrailVersion": markers.GUARDRAIL_VERSION}
    return parameters


def account_settings_rule(
    config: LandingZoneConfig, *, key_prefix: str, catalog: Catalog, documents: PolicyDocuments | None = None
) -> AccountSettingsRule | None:
    """The rule, or None when there is nothing to check (none of the three settings, no endpoint or key policy, an
    imported VPC).  Its function's role may read the settings, the endpoints and the default network ACL and put
    evaluations (``Resource: *``: none of these actions has a resource type), read the landing zone's keys' policies
    (:func:`_policy_reads`) and write its own log group's streams (stack markers).  How often AWS Config runs it is the
    catalog's (config_rules.yaml, ``account-settings.frequency``: hourly, 24 evaluations of the account a day)."""
    settings = account_settings_parameters(config, key_prefix=key_prefix)
    parameters = settings | policy_parameters(config, documents or PolicyDocuments())
    if not parameters:
        return None
    name = config.name
    log_group_name = f"/{name}/config/{ACCOUNT_SETTINGS_ID}-{markers.STACK_SUFFIX}"
    read = handler_policy(ACCOUNT_SETTINGS_READ_ACTIONS, sid="ReadAccountSettings")["Statement"] if settings else []
    report = handler_policy((PUT_EVALUATIONS,), sid="ReportEvaluations")["Statement"]
    policy = with_own_log_group(
        document([*read, *_policy_reads(config, parameters), *report]),
        log_streams_arn=arns.log_streams(markers.REGION, markers.ACCOUNT, log_group_name, markers.PARTITION),
    )
    checked = [
        what
        for what, keys in (
            ("invocation logging", "logBucket"),
            ("data retention", "retentionMode"),
            ("enforced guardrail", "guardrailId"),
            ("endpoint policies", "endpointPolicies"),
            ("key policies", "keyPolicies"),
            ("default network ACL", "vpcId"),
        )
        if keys in parameters
    ]
    return AccountSettingsRule(
        id=ACCOUNT_SETTINGS_ID,
        what=f"the account's settings and policies in this Region are the landing zone's: {', '.join(checked)}",
        parameters=parameters,
        frequency=str(catalog.config_rule(ACCOUNT_SETTINGS_ID).frequency),
        function_name=f"{name}-{HANDLER}",
        role_name=f"{name}-{HANDLER}",
        log_group_name=log_group_name,
        policy=policy,
    )
