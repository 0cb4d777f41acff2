"""Continuous checks as data: the AWS Config rules (``detection.config_rules``; docs/DETECTION.md) that evaluate,
between two runs of ``verify``, the states of verify's checks that AWS Config records as configuration items.

Each rule is an AWS managed rule (``Source.Owner: AWS``), so no Lambda function is deployed:

* ``default-sg-closed`` — ``VPC_DEFAULT_SECURITY_GROUP_CLOSED``: a VPC's default security group has no inbound or
  outbound rule (AWS Config developer guide, "vpc-default-security-group-closed").  Where the landing zone creates
  the VPC (``network.vpc_cidr``), scoped to that VPC's default security group alone (``Scope.ComplianceResourceId``:
  the marker :data:`~landing_zone.core.markers.DEFAULT_SECURITY_GROUP_ID`, the network stack's value); with an
  imported VPC (``network.vpc_id``) by type, every VPC's (the landing zone does not own the imported VPC's group).
* ``tags`` — ``REQUIRED_TAGS``: the resources of :data:`TAGGED_RESOURCE_TYPES` carry the tag ``landing-zone`` with the
  landing zone's name (AWS Config developer guide, "required-tags": parameters ``tag1Key``/``tag1Value``).

A rule evaluates only what a configuration recorder records: the landing zone creates no recorder and no delivery
channel (one recorder per account and Region; Control Tower's is the usual one), and ``preflight`` warns when none is
recording in ``home_region``.  Rule names start with the landing zone's name (``<name>-config-<id>``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from landing_zone.core import markers
from landing_zone.core.catalog import Catalog
from landing_zone.core.naming import LANDING_ZONE_TAG_KEY

__all__ = [
    "COMPLIANCE_ALERT_ID",
    "TAGGED_RESOURCE_TYPES",
    "ConfigRule",
    "compliance_pattern",
    "config_rule_name",
    "config_rules",
]

# The EventBridge rule that alerts a rule's non-compliance: named <name>-detect-<id> like the detection rules, so the
# alerts topic's policy (rules named <name>-detect-*) admits it and the tamper deny covers it.
COMPLIANCE_ALERT_ID = "config-compliance"

# The protected resources' types that the landing zone tags and REQUIRED_TAGS evaluates (its resource types include
# these: AWS Config developer guide, "required-tags"). Scope by type: every resource of the type in the account and
# Region is evaluated, so an account shared with others' untagged resources reports them as non-compliant too.
TAGGED_RESOURCE_TYPES: tuple[str, ...] = (
    "AWS::CloudFormation::Stack",
    "AWS::EC2::SecurityGroup",
    "AWS::EC2::Subnet",
    "AWS::EC2::VPC",
    "AWS::S3::Bucket",
)


@dataclass(frozen=True)
class ConfigRule:
    """One AWS Config managed rule: ``id`` (the name's suffix), ``what`` (the description), ``identifier`` (the
    managed rule's source identifier), ``resource_types`` (its scope), ``input_parameters`` (JSON object) and
    ``resource_id`` (None: every resource of the types; else the one resource it evaluates, a deploy-time marker)."""

    id: str
    what: str
    identifier: str
    resource_types: tuple[str, ...]
    input_parameters: str | None = None
    resource_id: str | None = None


def config_rule_name(landing_zone_name: str, rule_id: str) -> str:
    """``<name>-config-<id>``: the landing zone's name first, like every resource it owns."""
    return f"{landing_zone_name}-config-{rule_id}"


def config_rules(landing_zone_name: str, *, own_vpc: bool, catalog: Catalog) -> tuple[ConfigRule, ...]:
    """The rules, in a stable order.  ``own_vpc``: the landing zone creates the VPC (new-VPC mode), so the default
    security group rule evaluates that VPC's default group only.  The managed rules' identifiers are the catalog's
    (config_rules.yaml, with its source and date; a catalog overlay may replace them)."""
    return (
        ConfigRule(
            id="default-sg-closed",
            what="the default security group of the landing zone's VPC has no inbound and no outbound rule"
            if own_vpc
            else "the default security group of every VPC has no inbound and no outbound rule",
            identifier=str(catalog.config_rule("default-sg-closed").identifier),
            resource_types=("AWS::EC2::SecurityGroup",),
            resource_id=markers.DEFAULT_SECURITY_GROUP_ID if own_vpc else None,
        ),
        ConfigRule(
            id="tags",
            what=f"the protected resources carry the tag {LANDING_ZONE_TAG_KEY}={landing_zone_name}",
            identifier=str(catalog.config_rule("tags").identifier),
            resource_types=TAGGED_RESOURCE_TYPES,
            input_parameters=json.dumps(
                {"tag1Key": LANDING_ZONE_TAG_KEY, "tag1Value": landing_zone_name}, sort_keys=True, separators=(",", ":")
            ),
        ),
    )


def compliance_pattern(rule_names: tuple[str, ...]) -> dict[str, object]:
    """The event pattern of a resource becoming non-compliant with one of ``rule_names`` (AWS Config sends "Config
    Rules Compliance Change" to EventBridge: AWS Config developer guide, "Monitoring AWS Config with Amazon
    EventBridge")."""
    return {
        "source": ["aws.config"],
        "detail-type": ["Config Rules Compliance Change"],
        "detail": {
            "configRuleName": sorted(rule_names),
            "newEvaluationResult": {"complianceType": ["NON_COMPLIANT"]},
        },
    }
