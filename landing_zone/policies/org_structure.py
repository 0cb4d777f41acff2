"""Organization structure: what a member account (a delegated administrator for Organizations among them) may not do
to the guardrails' own attachment points.  Pure: each function returns SCP statements; ``guardrails.tamper_statements``
adds them to the tamper statements (nobody is exempt: the landing zone never needs these calls from a member account).

* ``DenyDisablingLandingZonePolicyTypes`` — ``organizations:DisablePolicyType`` for the policy types the landing zone
  attaches (:func:`policy_types_used`: ``SERVICE_CONTROL_POLICY``, and ``BEDROCK_POLICY`` with
  ``content_guardrail.organization_policy``), by ``organizations:PolicyType``.  Disabling a type detaches every policy
  of that type from every entity in the root ("Disabling a policy type", disable-policy-type.html).  A delegated
  administrator may still retire the types it manages itself (tag, backup, AI opt-out policies ...).
* ``DenyMovingTargetsAccounts`` — ``organizations:MoveAccount`` naming a target (an OU or root as source or
  destination parent, or a directly targeted account), and ``DenyRemovingTargetedAccounts`` —
  ``organizations:RemoveAccountFromOrganization`` of a directly targeted account (the action names the account only):
  either takes an account out from under the SCPs.  MoveAccount is authorized against the
  account and both parents (Service Authorization Reference, AWS Organizations: ``account``, ``organizationalunit``
  and ``root`` all required), and no condition key tells the source parent from the destination, so moving an
  account *into* a target OU is denied to member accounts too: the management account does that.  Accounts under a
  target OU are not enumerated (thousands of IDs would not fit an SCP): removing one of them from the organization
  is left to the API's own rule that only the management account may call RemoveAccountFromOrganization (AWS
  Organizations API reference), where no SCP applies (docs/THREAT_MODEL.md, "Delegated administrators").
"""

from __future__ import annotations

from typing import Any

from landing_zone.core.config import LandingZoneConfig
from landing_zone.policies import condition_keys, sids
from landing_zone.policies.common import statement

__all__ = ["policy_types_used", "structure_statements", "target_arns"]

PARTITION = "aws"
SCP_TYPE = "SERVICE_CONTROL_POLICY"
BEDROCK_POLICY_TYPE = "BEDROCK_POLICY"


def policy_types_used(config: LandingZoneConfig) -> tuple[str, ...]:
    """The Organizations policy types the landing zone attaches (the ones preflight requires enabled)."""
    types = [SCP_TYPE]
    if config.content_guardrail.enabled and config.content_guardrail.organization_policy:
        types.append(BEDROCK_POLICY_TYPE)
    return tuple(types)


def target_arns(config: LandingZoneConfig) -> tuple[str, ...]:
    """ARN patterns of ``organization.target_ids``: a root, an OU or an account (any organization, any management
    account: the IDs are unique)."""
    out = []
    for target in config.organization.target_ids if config.organization else ():
        if target.startswith("r-"):
            out.append(f"arn:{PARTITION}:organizations::*:root/o-*/{target}")
        elif target.startswith("ou-"):
            out.append(f"arn:{PARTITION}:organizations::*:ou/o-*/{target}")
        else:
            out.append(f"arn:{PARTITION}:organizations::*:account/o-*/{target}")
    return tuple(out)


def structure_statements(config: LandingZoneConfig) -> list[dict[str, Any]]:
    """The statements of the module docstring (the second with targets, the third with targeted accounts)."""
    stmts = [
        statement(
            sids.POLICY_TYPES,
            effect="Deny",
            actions=["organizations:DisablePolicyType"],
            resources=["*"],
            condition={"StringEquals": {condition_keys.POLICY_TYPE_KEY: list(policy_types_used(config))}},
        )
    ]
    targets = target_arns(config)
    if targets:
        stmts.append(
            statement(sids.MOVE_ACCOUNTS, effect="Deny", actions=["organizations:MoveAccount"], resources=targets)
        )
    accounts = [t for t in targets if ":account/" in t]
    if accounts:
        # RemoveAccountFromOrganization names the account only: it can be scoped to directly targeted accounts
        stmts.append(
            statement(
                "DenyRemovingTargetedAccounts",
                effect="Deny",
                actions=["organizations:RemoveAccountFromOrganization"],
                resources=accounts,
            )
        )
    return stmts
