"""The network path to the Bedrock endpoints: SCP statements against rerouting or cutting off the invokers without
touching a landing-zone resource.  Pure: :func:`network_statements` returns statements; ``guardrails.tamper_statements``
adds them (exempt: the principals of ``guardrails.exemptions``, who deploy the landing zone).

What an administrator of a governed account can do to the path, and what answers it (docs/THREAT_MODEL.md, "The
network path to the endpoints"):

* a private hosted zone associated with the VPC that shadows the endpoint names (``bedrock-runtime.<region>.
  amazonaws.com``): ``DenyPrivateZonesOnLandingZoneVpc`` — ``route53:AssociateVPCWithHostedZone`` and
  ``route53:CreateHostedZone`` whose ``route53:VPCs`` names the VPC (Route 53 developer guide, "VPC permissions",
  hosted-zone-private-vpc-permissions.html; Service Authorization Reference, list_amazonroute53.html), and
  ``route53profiles:AssociateProfile`` whose ``route53profiles:ResourceIds`` names it (a Route 53 Profile carries
  zones, resolver rules and DNS Firewall rule groups to the VPCs it is associated with; list_amazonroute53profiles.html);
* associating the VPC with a VPC Lattice service network or placing a resource gateway in it:
  ``DenyLatticeOnLandingZoneVpc`` — ``vpc-lattice:CreateServiceNetworkVpcAssociation`` and
  ``vpc-lattice:CreateResourceGateway`` whose ``vpc-lattice:VpcId`` is the VPC (list_amazonvpclattice.html);
* sharing the endpoint subnets through AWS RAM (other accounts' workloads in them, under their own rules):
  ``DenyRamSharingOfEndpointSubnets`` — ``ram:CreateResourceShare`` and ``ram:AssociateResourceShare`` whose
  ``ram:ResourceArn`` is an endpoint subnet (list_awsresourceaccessmanagerram.html);
* Route 53 Resolver DNS Firewall rule-group associations and forwarding-rule associations on the VPC: **no key** —
  ``route53resolver:AssociateFirewallRuleGroup`` and ``AssociateResolverRule`` are authorized on the new association
  and on the rule (group), never on the VPC, and no condition key carries the VPC ID (list_amazonroute53resolver.html).
  ``verify`` detects them (``landing_zone/verify/checks/netpath.py``);
* the VPC's default network ACL and default security group, which EC2 creates untagged: the endpoint subnets of a
  VPC the landing zone creates have an explicit, tagged network ACL (``DenyTaggedResourceTampering`` protects it and
  the subnets' association), and the default security group is emptied at deploy (CDK's
  ``restrictDefaultSecurityGroup``) and checked by ``verify``; no tag reaches it.

The VPC- and subnet-scoped statements need the IDs at synth: they are emitted for an imported VPC
(``network.vpc_id`` and ``network.subnet_ids``).  A VPC the landing zone creates has its ID only after the deploy,
and an SCP cannot reference another account's stack: for it, ``verify`` is the control (docs/THREAT_MODEL.md).
"""

from __future__ import annotations

from typing import Any

from landing_zone.core.config import LandingZoneConfig
from landing_zone.policies import sids
from landing_zone.policies.common import statement

__all__ = ["PRIVATE_ZONE_ACTIONS", "LATTICE_ACTIONS", "RAM_SHARE_ACTIONS", "network_statements"]

PARTITION = "aws"
PRIVATE_ZONE_ACTIONS = ("route53:AssociateVPCWithHostedZone", "route53:CreateHostedZone")
PROFILE_ACTIONS = ("route53profiles:AssociateProfile",)
LATTICE_ACTIONS = ("vpc-lattice:CreateServiceNetworkVpcAssociation", "vpc-lattice:CreateResourceGateway")
RAM_SHARE_ACTIONS = ("ram:CreateResourceShare", "ram:AssociateResourceShare")


def network_statements(config: LandingZoneConfig, not_exempt: dict[str, Any]) -> list[dict[str, Any]]:
    """The statements of the module docstring for the VPC whose ID the configuration gives (none otherwise).

    ``not_exempt``: the condition block that exempts the deploying principals (``ArnNotLike aws:PrincipalARN``)."""
    net = config.network
    if not net.vpc_id:
        return []
    vpc = [net.vpc_id]
    stmts = [
        statement(
            sids.PRIVATE_ZONES,
            effect="Deny",
            actions=PRIVATE_ZONE_ACTIONS,
            resources=["*"],
            condition={**not_exempt, "ForAnyValue:StringEquals": {"route53:VPCs": vpc}},
        ),
        statement(
            sids.ROUTE53_PROFILES,
            effect="Deny",
            actions=PROFILE_ACTIONS,
            resources=["*"],
            condition={**not_exempt, "ForAnyValue:StringEquals": {"route53profiles:ResourceIds": vpc}},
        ),
        statement(
            sids.LATTICE,
            effect="Deny",
            actions=LATTICE_ACTIONS,
            resources=["*"],
            condition={**not_exempt, "StringEquals": {"vpc-lattice:VpcId": vpc}},
        ),
    ]
    if net.subnet_ids:
        stmts.append(
            statement(
                sids.RAM_SUBNETS,
                effect="Deny",
                actions=RAM_SHARE_ACTIONS,
                resources=["*"],
                condition={
                    **not_exempt,
                    "ForAnyValue:ArnLike": {
                        "ram:ResourceArn": [f"arn:{PARTITION}:ec2:*:*:subnet/{s}" for s in net.subnet_ids]
                    },
                },
            )
        )
    return stmts
