"""An organization that already exists, in moto, for ``preflight``: what a platform team finds when it lands the
landing zone next to AWS Control Tower, its own SCPs and other teams' Bedrock use.

:func:`existing_organization` builds (inside an active ``mock_aws``) the organization of a configuration: the
management account's organization, the configured OU with the governed accounts in it, and on request
Control Tower-like SCPs (``aws-guardrails-*``: a Region deny that leaves out one destination Region of the configured
geographic profile, and a CloudTrail protection), customer SCPs per target, a foreign invocation logging
configuration, a ``CDKToolkit`` stack of another qualifier, an AWS Config recorder and a delegated administrator.

What moto lacks (Bedrock ``GetAccountDataRetention``, Cost Explorer ``GetAnomalyMonitors``) is answered by a botocore
``Stubber`` per client from :class:`OrgState` (:meth:`OrgState.factory`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from botocore.stub import Stubber

from landing_zone.aws import ProfileError
from landing_zone.core.routing import PathKind
from tests.moto.harness import Routed, moto_client, new_client

MANAGEMENT_PROFILE = "management"
CT_EXECUTION = "arn:aws:iam::*:role/AWSControlTowerExecution"
# The global services Control Tower's Region deny exempts (a subset of its NotAction list: AWS Control Tower controls
# reference, "Deny access to AWS based on the requested AWS Region",
# https://docs.aws.amazon.com/controltower/latest/userguide/primary-region-deny-policy.html).
CT_GLOBAL_SERVICES = [
    "a4b:*", "access-analyzer:*", "account:*", "acm:*", "aws-marketplace-management:*", "aws-marketplace:*",
    "budgets:*", "ce:*", "cloudfront:*", "cur:*", "health:*", "iam:*", "organizations:*", "route53:*", "sts:*",
    "support:*", "trustedadvisor:*",
]  # fmt: skip
CUSTOMER_SCPS = {
    "corp-deny-leave-organization": {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "DenyLeave", "Effect": "Deny", "Action": "organizations:LeaveOrganization", "Resource": "*"}
        ],
    },
    "corp-deny-root-user": {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "DenyRootUser",
                "Effect": "Deny",
                "Action": "*",
                "Resource": "*",
                "Condition": {"StringLike": {"aws:PrincipalArn": "arn:aws:iam::*:root"}},
            }
        ],
    },
}


def denied_destination(plan: Any) -> tuple[str, str]:
    """(profile ID, destination Region): the configured geographic profile callable from home and the destination
    the Control Tower-like Region deny leaves out (its last destination)."""
    route = next(
        r
        for r in plan.routing.compliant_routes()
        if r.kind is PathKind.GEOGRAPHIC_PROFILE and plan.config.home_region in r.source_regions
    )
    return route.invoke_id, sorted(route.destination_regions)[-1]


def region_deny(governed: list[str]) -> dict[str, Any]:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "GRREGIONDENY",
                "Effect": "Deny",
                "NotAction": CT_GLOBAL_SERVICES,
                "Resource": "*",
                "Condition": {
                    "StringNotEquals": {"aws:RequestedRegion": governed},
                    "ArnNotLike": {"aws:PrincipalARN": [CT_EXECUTION]},
                },
            }
        ],
    }


CT_CLOUDTRAIL = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Sid": "GRCLOUDTRAILENABLED",
            "Effect": "Deny",
            "Action": ["cloudtrail:DeleteTrail", "cloudtrail:StopLogging", "cloudtrail:UpdateTrail"],
            "Resource": "arn:aws:cloudtrail:*:*:trail/aws-controltower-*",
            "Condition": {"ArnNotLike": {"aws:PrincipalARN": CT_EXECUTION}},
        }
    ],
}


@dataclass
class OrgState:
    """Who is who (profile -> account) and what the stubbed APIs answer."""

    accounts: dict[str | None, str]
    retention: dict[tuple[str, str], str] = field(default_factory=dict)  # (account, Region) -> mode
    monitors: dict[str, list[dict]] = field(default_factory=dict)  # account -> anomaly monitors
    stubbers: list[Stubber] = field(default_factory=list)

    def moto(self, service: str, account: str, region: str = "us-east-1") -> Any:
        """A moto client acting as ``account`` (the worker's, tests/moto/harness.py: making clients is slow)."""
        return moto_client(service, region, account)

    def factory(self) -> Callable[..., Any]:
        """The client factory preflight gets (one Stubber per stubbed operation of each client it creates)."""

        def make(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
            if profile not in self.accounts:
                raise ProfileError(f"AWS profile {profile!r}: The config profile ({profile}) could not be found")
            account, region = self.accounts[profile], region or "us-east-1"
            moto = self.moto(service, account, region)
            stubbed = {}
            if service == "bedrock":
                mode = self.retention.get((account, region), "inherit")
                stubbed["get_account_data_retention"] = self._stub(
                    "bedrock", region, "get_account_data_retention", {"mode": mode}
                )
            if service == "ce":
                answer = {"AnomalyMonitors": self.monitors.get(account, [])}
                stubbed["get_anomaly_monitors"] = self._stub("ce", region, "get_anomaly_monitors", answer)
            return Routed(moto, stubbed) if stubbed else moto

        return make

    def _stub(self, service: str, region: str, operation: str, response: dict) -> Any:
        client = new_client(service, region)
        stubber = Stubber(client)
        stubber.add_response(operation, response, {})
        stubber.activate()
        self.stubbers.append(stubber)
        return client

    def assert_all_asked(self) -> None:
        """Every stubbed answer was asked for (preflight read the data retention and the monitors it needed)."""
        for stubber in self.stubbers:
            stubber.assert_no_pending_responses()


def existing_organization(
    plan: Any,
    *,
    control_tower: bool = True,
    customer_scps: bool = True,
    foreign_logging: bool = True,
    foreign_retention: str | None = "default",
    foreign_monitor: bool = True,
    cdk_toolkit: bool = True,
    config_recorder: bool = True,
    config_recording: bool = True,
    delegated_admin: bool = True,
) -> OrgState:
    """The organization of ``plan`` (see the module docstring); each flag adds one thing someone else owns."""
    cfg = plan.config
    org_cfg = cfg.organization
    management, deployment, home = org_cfg.management_account_id, cfg.deployment_account, cfg.home_region
    state = OrgState({None: deployment, MANAGEMENT_PROFILE: management})
    org = state.moto("organizations", management)
    org.create_organization(FeatureSet="ALL")
    root = org.list_roots()["Roots"][0]["Id"]
    org.enable_policy_type(RootId=root, PolicyType="SERVICE_CONTROL_POLICY")
    for target in org_cfg.target_ids:
        with mock.patch("moto.organizations.utils.make_random_ou_id", return_value=target):
            org.create_organizational_unit(ParentId=root, Name=f"workloads-{target[-4:]}")
    ou = next(t for t in org_cfg.target_ids if t.startswith("ou-"))
    for account in cfg.account_ids:
        with mock.patch("moto.organizations.utils.make_random_account_id", return_value=account):
            org.create_account(Email=f"{account}@example.com", AccountName=f"account-{account}")
        org.move_account(AccountId=account, SourceParentId=root, DestinationParentId=ou)
    if control_tower:
        _, excluded = denied_destination(plan)
        governed = sorted(set(cfg.compliant_regions) - {excluded})
        for name, document in (
            ("aws-guardrails-AbCdEf", region_deny(governed)),
            ("aws-guardrails-QrStUv", CT_CLOUDTRAIL),
        ):
            attach(org, name, document, org_cfg.target_ids)
    if customer_scps:
        for name, document in CUSTOMER_SCPS.items():
            attach(org, name, document, org_cfg.target_ids)
    if delegated_admin:
        admin = next(a for a in cfg.account_ids if a != deployment)
        org.register_delegated_administrator(AccountId=admin, ServicePrincipal="config-multiaccountsetup.amazonaws.com")
    if foreign_logging:
        state.moto("bedrock", deployment, home).put_model_invocation_logging_configuration(
            loggingConfig={
                "s3Config": {"bucketName": "corp-bedrock-invocation-logs", "keyPrefix": "all-teams/"},
                "textDataDeliveryEnabled": True,
            }
        )
    if foreign_retention:
        state.retention[(deployment, home)] = foreign_retention
    if foreign_monitor:
        state.monitors[deployment] = [
            {
                "MonitorArn": f"arn:aws:ce::{deployment}:anomalymonitor/0a1b2c3d-corp",
                "MonitorName": "corp-aws-services",
                "MonitorType": "DIMENSIONAL",
                "MonitorDimension": "SERVICE",
            }
        ]
    if cdk_toolkit:
        for account in (deployment, management):
            cdk_toolkit_stack(state.moto("cloudformation", account, home), "hnb659fds")
    if config_recorder:
        config = state.moto("config", deployment, home)
        config.put_configuration_recorder(
            ConfigurationRecorder={"name": "default", "roleARN": f"arn:aws:iam::{deployment}:role/aws-config"}
        )
        if config_recording:  # Control Tower's recorder records; starting one needs a delivery channel
            config.put_delivery_channel(DeliveryChannel={"name": "default", "s3BucketName": "aws-controltower-logs"})
            config.start_configuration_recorder(ConfigurationRecorderName="default")
    return state


def attach(org: Any, name: str, document: dict, targets: Any) -> str:
    policy = org.create_policy(
        Content=json.dumps(document), Description=name, Name=name, Type="SERVICE_CONTROL_POLICY"
    )["Policy"]["PolicySummary"]["Id"]
    for target in targets:
        org.attach_policy(PolicyId=policy, TargetId=target)
    return policy


def cdk_toolkit_stack(cloudformation: Any, qualifier: str, name: str = "CDKToolkit") -> None:
    """A bootstrap stack as `cdk bootstrap --qualifier Q` leaves it (its Qualifier parameter and version parameter)."""
    template = {
        "Parameters": {"Qualifier": {"Type": "String"}},
        "Resources": {
            "CdkBootstrapVersion": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {
                    "Type": "String",
                    "Name": {"Fn::Sub": "/cdk-bootstrap/${Qualifier}/version"},
                    "Value": "30",
                },
            }
        },
    }
    cloudformation.create_stack(
        StackName=name,
        TemplateBody=json.dumps(template),
        Parameters=[{"ParameterKey": "Qualifier", "ParameterValue": qualifier}],
    )
