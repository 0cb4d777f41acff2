"""Bedrock access: invoker roles and application profiles per application, invocation logging, content
guardrail, model agreements.  Deployed to the deployment account next to the network stack."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aws_cdk import CfnOutput, Token
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from constructs_lib.access import ApplicationProfile, InvokerRole, PermissionsBoundary
from constructs_lib.compliance import acknowledge
from constructs_lib.content_guardrail import ContentGuardrail
from constructs_lib.invocation_logging import InvocationLoggingConfig
from constructs_lib.model_access import ModelAgreements
from constructs_lib.network import RETENTION_DAYS
from landing_zone.core import arns, naming
from landing_zone.plan import Plan
from landing_zone.policies.access import invoker_policy, invoker_trust_policy
from landing_zone.policies.guardrails import permissions_boundary
from stacks.base import LandingZoneStack


@dataclass
class AccessParts:
    boundary: iam.IManagedPolicy
    guardrail: ContentGuardrail | None = None
    profiles: dict[str, ApplicationProfile] = field(default_factory=dict)
    invokers: dict[str, InvokerRole] = field(default_factory=dict)
    logging: InvocationLoggingConfig | None = None
    model_agreements: ModelAgreements | None = None


def add_access(
    scope: Construct,
    *,
    plan: Plan,
    account: str,
    logs_key: kms.IKey,
    endpoints: dict[str, ec2.InterfaceVpcEndpoint],
    cost_center: str | None = None,
    caller_account: str | None = None,
) -> AccessParts:
    """Invoker roles + application profiles per application, the boundary, logging, guardrail, agreements.

    ``cost_center`` overrides every application's cost-center tag and ``caller_account`` every application's
    caller (StackSets: per-account parameters and the member account itself).
    """
    cfg = plan.config
    region = cfg.home_region
    # The same denies as the SCPs, on the roles themselves (the only guardrail in single-account mode).
    parts = AccessParts(
        boundary=PermissionsBoundary(
            scope,
            "InvokerBoundary",
            policy_name=naming.invoker_boundary_policy_name(cfg.name),
            document=permissions_boundary(cfg, plan.routing, plan.catalog),
        ).policy
    )
    if cfg.content_guardrail.enabled:
        parts.guardrail = ContentGuardrail(
            scope,
            "ContentGuardrail",
            name=naming.content_guardrail_name(cfg.name),
            settings=cfg.content_guardrail,
            tags={"landing-zone": cfg.name},
        )
    per_request_guardrail = (
        parts.guardrail.arn if parts.guardrail and cfg.content_guardrail.enforcement == "per-request" else None
    )
    require_vpce = cfg.access.require_vpc_endpoint
    runtime_ep = endpoints.get("bedrock-runtime")
    mantle_ep = endpoints.get("bedrock-mantle")
    control_ep = endpoints.get("bedrock")
    for app in plan.applications:
        name = app.app.name
        profile = None
        if app.route is not None:
            profile = ApplicationProfile(
                scope,
                f"Profile-{name}",
                profile_name=naming.application_profile_name(cfg.name, name),
                copy_from=app.copy_from_arn(region=region, account=account),
                description=f"{name}: {app.model.name} via {app.route.kind.value} {app.route.invoke_id}",
                tags={"application": name, "cost-center": cost_center or app.app.cost_center, "landing-zone": cfg.name},
            )
        permissions = invoker_policy(
            app,
            plan.routing,
            account=account,
            region=region,
            application_profile_arn=profile.arn if profile else None,
            runtime_endpoint_id=runtime_ep.vpc_endpoint_id if (require_vpce and runtime_ep) else None,
            mantle_endpoint_id=mantle_ep.vpc_endpoint_id if (require_vpce and mantle_ep) else None,
            control_endpoint_id=control_ep.vpc_endpoint_id if (require_vpce and control_ep) else None,
            require_endpoints=require_vpce,
            guardrail_arn=per_request_guardrail,
        )
        trust = invoker_trust_policy(
            caller_account=caller_account or app.caller_account_id,
            trusted_principal_arns=app.app.trusted_principal_arns,
            sso_permission_sets=app.app.sso_permission_sets,
        )
        invoker = InvokerRole(
            scope,
            f"Invoker-{name}",
            role_name=naming.invoker_role_name(cfg.name, name),
            policy_name=naming.invoker_policy_name(cfg.name, name),
            trust_policy=trust,
            permissions=permissions,
            boundary=parts.boundary,
            description=f"{cfg.name}: {name} calls {app.model.name} "
            + ("through its application inference profile" if profile else "on Mantle (no compliant runtime path)"),
        )
        shown = "<AWS::AccountId>" if Token.is_unresolved(account) else account  # as cdk-nag prints it
        if profile is not None:
            acknowledge(
                invoker.policy,
                "AwsSolutions-IAM5",
                finding=f"Resource::{arns.batch_jobs(region, shown)}",
                reason="batch job IDs are generated by Bedrock; scoped to this account and home_region",
            )
        if app.mantle_route is not None:
            acknowledge(
                invoker.policy,
                "AwsSolutions-IAM5",
                finding=f"Resource::{arns.mantle_projects(region, shown)}",
                reason="Mantle projects of this account/Region; the model is pinned by bedrock-mantle:Model",
            )
        if profile is not None:
            parts.profiles[name] = profile
            CfnOutput(
                scope,
                f"{_id(name)}ProfileArn",
                value=profile.arn,
                description=f"{name}: modelId for InvokeModel/Converse (application inference profile)",
            )
        parts.invokers[name] = invoker
        CfnOutput(
            scope,
            f"{_id(name)}InvokerRoleArn",
            value=invoker.role.role_arn,
            description=f"{name}: role to assume for Bedrock calls"
            + (" (Mantle only: no compliant runtime path)" if profile is None else ""),
        )
    if cfg.invocation_logging.enabled:
        parts.logging = InvocationLoggingConfig(
            scope, "InvocationLogging", landing_zone_name=cfg.name, settings=cfg.invocation_logging, logs_key=logs_key
        )
        CfnOutput(scope, "InvocationLogBucket", value=parts.logging.bucket.bucket_name)
        CfnOutput(scope, "InvocationLogGroup", value=parts.logging.log_group.log_group_name)
    if cfg.model_access.accept_agreements:
        parts.model_agreements = ModelAgreements(
            scope,
            "ModelAgreements",
            landing_zone_name=cfg.name,
            model_ids=[m.id for m in plan.models],
            logs_key=logs_key,
            log_retention=RETENTION_DAYS[cfg.invocation_logging.log_retention_days],
        )
    return parts


class AccessStack(LandingZoneStack):
    """Attributes: ``boundary``, ``guardrail``, ``profiles``, ``invokers``, ``logging``, ``model_agreements``."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        plan: Plan,
        logs_key: kms.IKey,
        endpoints: dict[str, ec2.InterfaceVpcEndpoint],
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        parts = add_access(
            self, plan=plan, account=plan.config.deployment_account, logs_key=logs_key, endpoints=endpoints
        )
        self.boundary = parts.boundary
        self.guardrail = parts.guardrail
        self.profiles = parts.profiles
        self.invokers = parts.invokers
        self.logging = parts.logging
        self.model_agreements = parts.model_agreements


def _id(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))
