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

Its function reads only (``bedrock:Get*``/``List*``, no resource type: Service Authorization Reference) and writes
only evaluations (``config:PutEvaluations``) and its own log group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from landing_zone.core import arns, markers
from landing_zone.core.catalog import Catalog
from landing_zone.core.config import LandingZoneConfig
from landing_zone.policies.access import handler_policy
from landing_zone.policies.roles import with_own_log_group

__all__ = [
    "ACCOUNT_SETTINGS_ID",
    "ACCOUNT_SETTINGS_READ_ACTIONS",
    "AccountSettingsRule",
    "account_settings_parameters",
    "account_settings_rule",
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

# invocation_logging's data types: the configuration's fields, Bedrock's <type>DataDeliveryEnabled (as the
# invocation-logging custom resource sets them)
_DATA_TYPES = ("text", "image", "embedding", "video")


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
    config: LandingZoneConfig, *, key_prefix: str, catalog: Catalog
) -> AccountSettingsRule | None:
    """The rule, or None when the configuration sets none of the three settings.  Its function's role may read the
    three settings and put evaluations (``Resource: *``: none of these actions has a resource type) and write its own
    log group's streams (stack markers).  How often AWS Config runs it is the catalog's (config_rules.yaml,
    ``account-settings.frequency``: hourly, 24 evaluations of the account a day)."""
    parameters = account_settings_parameters(config, key_prefix=key_prefix)
    if not parameters:
        return None
    name = config.name
    log_group_name = f"/{name}/config/{ACCOUNT_SETTINGS_ID}-{markers.STACK_SUFFIX}"
    read = handler_policy(ACCOUNT_SETTINGS_READ_ACTIONS, sid="ReadAccountSettings")
    report = handler_policy((PUT_EVALUATIONS,), sid="ReportEvaluations")
    policy = with_own_log_group(
        {**read, "Statement": [*read["Statement"], *report["Statement"]]},
        log_streams_arn=arns.log_streams(markers.REGION, markers.ACCOUNT, log_group_name, markers.PARTITION),
    )
    checked = [
        what
        for what, keys in (
            ("the invocation logging destination", "logBucket"),
            ("the data retention mode", "retentionMode"),
            ("the enforced guardrail", "guardrailId"),
        )
        if keys in parameters
    ]
    return AccountSettingsRule(
        id=ACCOUNT_SETTINGS_ID,
        what=f"the account's Bedrock settings in this Region are the landing zone's: {', '.join(checked)}",
        parameters=parameters,
        frequency=str(catalog.config_rule(ACCOUNT_SETTINGS_ID).frequency),
        function_name=f"{name}-{HANDLER}",
        role_name=f"{name}-{HANDLER}",
        log_group_name=log_group_name,
        policy=policy,
    )
