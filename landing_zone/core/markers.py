"""Markers: plain-data placeholders for deploy-time values in the plan's documents.

The plan builds every policy document once, before any CDK construct exists.  Values only known at deploy time
(an application profile's ARN, an endpoint's ID, the account of a StackSet instance, ...) are written as markers
``${lz:<kind>}`` / ``${lz:<kind>:<name>}``; the construct that renders the document replaces each marker by the
CDK token of the value (:func:`resolve`).  A marker left unresolved is an error, never a template string.

Markers start with ``$`` like CDK's own token strings, so a builder that sorts values (``one_or_many``) puts them
where it would have put the tokens; :func:`resolve` re-sorts every sorted list it changed, so a document is
rendered exactly as if the builder had been called with the tokens.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "ACCOUNT",
    "APPLICATION_KILL_SWITCH_POLICY_ARN",
    "BUCKET_ARN",
    "DEFAULT_SECURITY_GROUP_ID",
    "GUARDRAIL_ARN",
    "GUARDRAIL_ID",
    "GUARDRAIL_VERSION",
    "KILL_SWITCH_POLICY_ARN",
    "LOGGING_ROLE_ARN",
    "LOG_BUCKET_NAME",
    "LOG_GROUP_NAME",
    "PARTITION",
    "REGION",
    "SECRETS_KEY_ARN",
    "STACK_SUFFIX",
    "TOPIC_ARN",
    "UnresolvedMarkerError",
    "budget_action_id",
    "endpoint_id",
    "invoker_role_arn",
    "mantle_project_arn",
    "marker",
    "markers_in",
    "profile_arn",
    "resolve",
]

MARKER = re.compile(r"\$\{lz:[a-z-]+(?::[A-Za-z0-9_.-]+)?\}")


def marker(kind: str, name: str | None = None) -> str:
    return f"${{lz:{kind}}}" if name is None else f"${{lz:{kind}:{name}}}"


# The stack's own environment (Stack.of(construct).account/.region/.partition at render time).
ACCOUNT = marker("account")
REGION = marker("region")
PARTITION = marker("partition")
# 8 hexadecimal characters of the stack's own ID (the first group of the UUID in AWS::StackId): new for every stack
# created, unchanged by updates.  The physical names of what a stack retains on delete end with it, so a stack
# deployed again after `cdk destroy` does not collide with what the first one left behind ("already exists").
STACK_SUFFIX = marker("stack-suffix")
# Attributes of resources the landing zone creates.
GUARDRAIL_ARN = marker("guardrail-arn")  # the content guardrail (per-request enforcement, organization policy)
GUARDRAIL_VERSION = marker("guardrail-version")  # its numbered version (organization policy, account-settings rule)
GUARDRAIL_ID = marker("guardrail-id")  # its ID (the account-settings Config rule)
TOPIC_ARN = marker("topic-arn")  # the cost alerts topic
KILL_SWITCH_POLICY_ARN = marker("kill-switch-policy-arn")
# cost.per_application_budgets: the deny the applications' own budget actions attach
APPLICATION_KILL_SWITCH_POLICY_ARN = marker("application-kill-switch-policy-arn")
BUCKET_ARN = marker("bucket-arn")  # the invocation-log bucket
LOGGING_ROLE_ARN = marker("logging-role-arn")  # the role Bedrock assumes to write invocation logs
# the invocation-log bucket's and log group's names (the account-settings Config rule: the access stack's values)
LOG_BUCKET_NAME = marker("invocation-log-bucket-name")
LOG_GROUP_NAME = marker("invocation-log-group-name")
# the default security group of the VPC the landing zone creates (the default-sg-closed Config rule's scope)
DEFAULT_SECURITY_GROUP_ID = marker("default-security-group-id")
VPC_ID = marker("vpc-id")  # the VPC the network stack creates (the account-settings Config rule's default ACL)
SECRETS_KEY_ARN = marker("secrets-key-arn")  # the EKS secrets key


def profile_arn(application: str) -> str:
    """The ARN of an application's application inference profile."""
    return marker("profile-arn", application)


def mantle_project_arn(application: str) -> str:
    """The ARN of an application's Bedrock Mantle Project (``AWS::BedrockMantle::Project``)."""
    return marker("mantle-project-arn", application)


def invoker_role_arn(application: str) -> str:
    return marker("invoker-role-arn", application)


def budget_action_id(application: str | None = None) -> str:
    """The ID of the kill switch's budget action: the landing-zone budget's, or an application's own
    (``cost.per_application_budgets``)."""
    return marker("budget-action-id", application)


def endpoint_id(service: str) -> str:
    """The ID of the landing zone's interface endpoint of ``service`` (bedrock-runtime, bedrock-mantle, bedrock)."""
    return marker("endpoint-id", service)


class UnresolvedMarkerError(ValueError):
    """A document still names a marker its renderer was given no value for."""


def markers_in(value: Any) -> set[str]:
    """Every marker in a document (strings, lists, dicts, nested)."""
    if isinstance(value, str):
        return set(MARKER.findall(value))
    if isinstance(value, Mapping):
        return set().union(*(markers_in(k) | markers_in(v) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return set().union(*(markers_in(v) for v in value))
    return set()


def resolve(value: Any, values: Mapping[str, str]) -> Any:
    """A copy of ``value`` with every marker replaced by ``values[marker]`` (a CDK token string or a plain value).

    Raises :class:`UnresolvedMarkerError` naming the markers ``values`` lacks.  A list of strings that was sorted
    and unique (``one_or_many``) and held a marker is sorted again after the replacement.
    """
    missing = markers_in(value) - set(values)
    if missing:
        raise UnresolvedMarkerError(
            f"unresolved marker(s) {', '.join(sorted(missing))} (given: {', '.join(sorted(values)) or 'none'})"
        )
    return _resolve(value, values)


def _resolve(value: Any, values: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return MARKER.sub(lambda m: values[m.group(0)], value) if "${lz:" in value else value
    if isinstance(value, Mapping):
        return {_resolve(k, values): _resolve(v, values) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        out = [_resolve(v, values) for v in value]
        strings = all(isinstance(v, str) for v in value)
        if strings and out != list(value) and list(value) == sorted(set(value)):
            return sorted(set(out))
        return out
    return value
