"""The network path to the endpoints and the organization structure (issue 35, deliverables 1 and 3): the red-team
rows evaluated against the SCPs of an organization whose endpoints sit in an imported VPC (the configuration gives the
VPC's and subnets' IDs, so the VPC-scoped statements exist), and the statements' shape per configuration."""

from __future__ import annotations

from landing_zone.policies.evaluator import FULL_AWS_ACCESS, Request, evaluate_scp_levels
from landing_zone.policies.guardrails import guardrail_statements
from landing_zone.policies.org_structure import structure_statements
from landing_zone.policies.scp_layout import BINDS_OUTSIDE, scp_documents
from landing_zone.tables.attacks import evaluate_attacks
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
VPC = "vpc-0a1b2c3d4e5f60718"
SUBNETS = ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"]
IMPORTED = {
    "vpc_id": VPC,
    "vpc_cidr": "10.20.0.0/16",
    "subnet_ids": SUBNETS,
    "availability_zones": ["eu-central-1a", "eu-central-1b"],
}
ATTACKER = "arn:aws:iam::222222222222:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0a1b"


def _levels(plan):
    scps = scp_documents(plan.config, plan.routing, plan.catalog)
    # the SCPs on a governed account (the perimeter SCP binds the accounts outside the perimeter only)
    ours = [p for p in scps.policies if p.binds != BINDS_OUTSIDE]
    return [[("FullAWSAccess", FULL_AWS_ACCESS), *((p.name, p.document) for p in ours)]]


def _sids(plan) -> list[str]:
    return [s["Sid"] for s in guardrail_statements(plan.config, plan.routing, plan.catalog)]


def _decide(plan, action: str, resource: str, **context):
    ctx = {"aws:PrincipalARN": ATTACKER, "aws:RequestedRegion": plan.config.home_region, **context}
    return evaluate_scp_levels(_levels(plan), Request(action, resource, ctx)).decision


def test_every_network_path_attack_is_denied_and_its_neighbour_allowed_with_an_imported_vpc(plan_for):
    plan = plan_for(EU, network=IMPORTED)
    results, _ = evaluate_attacks(plan, _levels(plan))
    network = [r for r in results if "VPC" in r.case.path or "network ACL" in r.case.path or "RAM" in r.case.path]
    assert len(network) >= 9, [r.case.path for r in network]
    # the rows of this issue (the perimeter rows need the per-target attachment: tests/cdk/test_redteam.py)
    ours = [*network, *(r for r in results if "organization" in r.case.path or "OU" in r.case.path)]
    failures = [(r.case.path, r.attack_actual, r.attack_deciding, r.legit_actual) for r in ours if not r.ok]
    assert failures == []


def test_a_created_vpc_has_no_vpc_scoped_statement_and_the_dns_associations_stay_residual(plan_for):
    plan = plan_for(EU)
    sids = _sids(plan)
    assert not {"DenyPrivateZonesOnLandingZoneVpc", "DenyLatticeOnLandingZoneVpc"} & set(sids)
    results, _ = evaluate_attacks(plan, _levels(plan))
    residual = {r.case.path for r in results if r.case.residual}
    assert any("DNS Firewall" in p for p in residual) and any("forwarding rule" in p for p in residual)
    # the tagged network ACL rows apply to every configuration
    assert all(r.ok for r in results if "network ACL" in r.case.path)


def test_a_private_zone_on_the_imported_vpc_is_denied_among_several_vpcs_and_allowed_without_it(plan_for):
    plan = plan_for(EU, network=IMPORTED)
    zone = "arn:aws:route53:::hostedzone/Z0123"
    both = {"route53:VPCs": ["vpc-0fff", VPC]}
    assert _decide(plan, "route53:AssociateVPCWithHostedZone", zone, **both) == "explicit_deny"
    assert _decide(plan, "route53:AssociateVPCWithHostedZone", zone, **{"route53:VPCs": ["vpc-0fff"]}) == "allow"


def test_sharing_the_second_endpoint_subnet_is_denied_too(plan_for):
    plan = plan_for(EU, network=IMPORTED)
    arn = f"arn:aws:ec2:eu-central-1:222222222222:subnet/{SUBNETS[1]}"
    assert _decide(plan, "ram:AssociateResourceShare", "*", **{"ram:ResourceArn": [arn]}) == "explicit_deny"


def test_policy_types_the_landing_zone_uses_cannot_be_disabled_others_can(plan_for):
    plan = plan_for(
        EU,
        content_guardrail={"enabled": True, "organization_policy": True, "canary_target_ids": ["ou-abcd-11111111"]},
    )
    root = "arn:aws:organizations::111111111111:root/o-a1b2c3d4e5/r-ab12"
    for used in ("SERVICE_CONTROL_POLICY", "BEDROCK_POLICY"):
        assert _decide(plan, "organizations:DisablePolicyType", root, **{"organizations:PolicyType": used}) == (
            "explicit_deny"
        ), used
    for other in ("TAG_POLICY", "BACKUP_POLICY", "AISERVICES_OPT_OUT_POLICY"):
        assert _decide(plan, "organizations:DisablePolicyType", root, **{"organizations:PolicyType": other}) == "allow"


def test_bedrock_policy_type_is_free_when_the_landing_zone_attaches_none(plan_for):
    plan = plan_for(EU, content_guardrail={"organization_policy": False})
    root = "arn:aws:organizations::111111111111:root/o-a1b2c3d4e5/r-ab12"
    ctx = {"organizations:PolicyType": "BEDROCK_POLICY"}
    assert _decide(plan, "organizations:DisablePolicyType", root, **ctx) == "allow"


def test_a_directly_targeted_account_cannot_be_moved_or_removed_an_other_one_can(plan_for):
    plan = plan_for(EU, organization={"management_account_id": "111111111111", "target_ids": ["222222222222"]})
    sids = [s["Sid"] for s in structure_statements(plan.config)]
    assert sids == ["DenyDisablingLandingZonePolicyTypes", "DenyMovingTargetsAccounts", "DenyRemovingTargetedAccounts"]
    target = "arn:aws:organizations::111111111111:account/o-a1b2c3d4e5/222222222222"
    other = "arn:aws:organizations::111111111111:account/o-a1b2c3d4e5/333333333333"
    for action in ("organizations:MoveAccount", "organizations:RemoveAccountFromOrganization"):
        assert _decide(plan, action, target) == "explicit_deny", action
        assert _decide(plan, action, other) == "allow", action


def test_the_network_statements_agree_with_the_iam_action_database(plan_for):
    from landing_zone.actiondb.lookup import check_document

    plan = plan_for(EU, network=IMPORTED)
    scps = scp_documents(plan.config, plan.routing, plan.catalog)
    assert {"DenyPrivateZonesOnLandingZoneVpc", "DenyRamSharingOfEndpointSubnets"} <= set(_sids(plan))
    issues = [str(i) for d in scps.documents for i in check_document(d, policy="scp")]
    assert issues == []


def _endpoint_conditions(plan) -> list[dict]:
    return [s["Condition"]["StringEquals"] for doc in plan.policies.endpoints.values() for s in doc["Statement"]]


def test_endpoints_admit_the_whole_organization_only_when_asked(plan_for):
    asked = plan_for(EU, network={"endpoint_principals": "organization"})
    assert all(c == {**c, "aws:PrincipalOrgID": "o-exampleorg1"} for c in _endpoint_conditions(asked))
    default = plan_for(EU)
    assert all("aws:PrincipalOrgID" not in c for c in _endpoint_conditions(default))
    assert all(c["aws:PrincipalAccount"] == list(default.config.account_ids) for c in _endpoint_conditions(default))


def test_endpoint_principals_organization_without_an_organization_id_is_refused(plan_for):
    import pytest

    from landing_zone.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        plan_for(EU, organization={"organization_id": None}, network={"endpoint_principals": "organization"})
    assert "network.endpoint_principals" in str(err.value) and "organization.organization_id" in str(err.value)
