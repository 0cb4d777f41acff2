"""Bedrock access: invoker roles and application profiles per application, invocation logging, content
guardrail, model agreements, the data retention mode.  Deployed to the deployment account next to the network stack."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aws_cdk import CfnOutput, Token
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from constructs_lib.access import ApplicationProfile, InvokerRole, MantleProject, PermissionsBoundary
from constructs_lib.compliance import acknowledge
from constructs_lib.content_guardrail import ContentGuardrail
from constructs_lib.cost_allocation import CostAllocationTags
from constructs_lib.data_retention import DataRetentionMode
from constructs_lib.invocation_logging import InvocationLoggingConfig
from constructs_lib.model_access import ModelAgreements
from constructs_lib.network import RETENTION_DAYS
from landing_zone.core import arns, markers, naming
from landing_zone.core.applications import cost_allocation_tags_stack, has_mantle_project
from landing_zone.plan import Plan
from landing_zone.plan.policies import INVOCATION_LOG_KEY_PREFIX
from stacks.base import LandingZoneStack


@dataclass
class AccessParts:
    boundary: iam.IManagedPolicy
    guardrail: ContentGuardrail | None = None
    profiles: dict[str, ApplicationProfile] = field(default_factory=dict)
    invokers: dict[str, InvokerRole] = field(default_factory=dict)
    mantle_projects: dict[str, MantleProject] = field(default_factory=dict)
    logging: InvocationLoggingConfig | None = None
    model_agreements: ModelAgreements | None = None
    data_retention: DataRetentionMode | None = None


def add_access(
    scope: Construct,
    *,
    plan: Plan,
    account: str,
    logs_key: kms.IKey,
    endpoints: dict[str, ec2.InterfaceVpcEndpoint],
    cost_center: str | None = None,
) -> AccessParts:
    """Invoker roles + application profiles per application, the boundary, logging, guardrail, agreements.

    ``cost_center`` overrides every application's cost-center tag (StackSets: a per-account parameter).  The
    documents are the plan's (``plan.policies``); ``account`` replaces their account marker (StackSets: the member
    account itself, which is then also every application's caller).
    """
    cfg = plan.config
    region = cfg.home_region
    policies = plan.policies
    # The same denies as the SCPs, on the roles themselves (the only guardrail in single-account mode).
    parts = AccessParts(
        boundary=PermissionsBoundary(
            scope,
            "InvokerBoundary",
            policy_name=naming.invoker_boundary_policy_name(cfg.name),
            document=policies.boundary,
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
    # The deploy-time values the plan's invoker documents name by marker.
    values = {markers.ACCOUNT: account, **{markers.endpoint_id(s): ep.vpc_endpoint_id for s, ep in endpoints.items()}}
    if parts.guardrail is not None:
        values[markers.GUARDRAIL_ARN] = parts.guardrail.arn
    for app in plan.applications:
        name = app.app.name
        profile = None
        cost_tags = {
            naming.APPLICATION_TAG_KEY: name,
            naming.COST_CENTER_TAG_KEY: cost_center or app.app.cost_center,
            naming.LANDING_ZONE_TAG_KEY: cfg.name,
        }
        if app.route is not None:
            profile = ApplicationProfile(
                scope,
                f"Profile-{name}",
                profile_name=naming.application_profile_name(cfg.name, name),
                copy_from=app.copy_from_arn(region=region, account=account),
                description=f"{name}: {app.model.name} via {app.route.kind.value} {app.route.invoke_id}",
                tags=cost_tags,
            )
        project = None
        if has_mantle_project(app, cfg):  # its own Mantle Project: the invoker may call Mantle only in it
            project = MantleProject(
                scope, f"MantleProject-{name}", project_name=naming.mantle_project_name(cfg.name, name), tags=cost_tags
            )
            parts.mantle_projects[name] = project
        documents = policies.invokers[name]
        app_values = {
            **values,
            **({markers.profile_arn(name): profile.arn} if profile else {}),
            **({markers.mantle_project_arn(name): project.arn} if project else {}),
        }
        invoker = InvokerRole(
            scope,
            f"Invoker-{name}",
            role_name=naming.invoker_role_name(cfg.name, name),
            policy_name=naming.invoker_policy_name(cfg.name, name),
            trust_policy=markers.resolve(documents.trust, app_values),
            permissions=markers.resolve(documents.permissions, app_values),
            boundary=parts.boundary,
            tags=cost_tags,
            description=f"{cfg.name}: {name} calls {app.model.name} "
            + ("through its application inference profile" if profile else "on Mantle (no compliant runtime path)"),
        )
        _acknowledge_wildcards(invoker, region, account, batch=profile is not None, mantle=app.mantle_route is not None)
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
        assert policies.invocation_log_bucket and policies.invocation_logging_trust and policies.invocation_logging_role
        parts.logging = InvocationLoggingConfig(
            scope,
            "InvocationLogging",
            landing_zone_name=cfg.name,
            settings=cfg.invocation_logging,
            logs_key=logs_key,
            key_prefix=INVOCATION_LOG_KEY_PREFIX,
            bucket_policy=policies.invocation_log_bucket,
            role_policy=policies.invocation_logging_role,
            trust_policy=policies.invocation_logging_trust,
            handler_policy=policies.automation["invocation-logging"].handler,
            provider_policy=policies.automation["invocation-logging"].provider,
        )
        CfnOutput(scope, "InvocationLogBucket", value=parts.logging.bucket.bucket_name)
        CfnOutput(scope, "InvocationLogGroup", value=parts.logging.log_group.log_group_name)
    if cfg.model_access.accept_agreements:
        parts.model_agreements = ModelAgreements(
            scope,
            "ModelAgreements",
            landing_zone_name=cfg.name,
            model_ids=[m.id for m in plan.models],
            handler_policy=policies.automation["model-agreement"].handler,
            provider_policy=policies.automation["model-agreement"].provider,
            logs_key=logs_key,
            log_retention=RETENTION_DAYS[cfg.invocation_logging.log_retention_days],
        )
    if cfg.data_retention.mode is not None:
        # home_region only: the stacks deploy there (docs/STACKS.md, "Data retention")
        parts.data_retention = DataRetentionMode(
            scope,
            "DataRetention",
            landing_zone_name=cfg.name,
            mode=cfg.data_retention.mode,
            take_over_existing=cfg.data_retention.take_over_existing,
            handler_policy=policies.automation["data-retention"].handler,
            provider_policy=policies.automation["data-retention"].provider,
            logs_key=logs_key,
            log_retention=RETENTION_DAYS[cfg.invocation_logging.log_retention_days],
        )
    return parts


class AccessStack(LandingZoneStack):
    """Attributes: ``boundary``, ``guardrail``, ``profiles``, ``invokers``, ``mantle_projects``, ``logging``,
    ``model_agreements``, ``data_retention``, ``cost_allocation_tags`` (without an organization only: with one the
    guardrails stack activates the tags in the management account)."""

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
        self.mantle_projects = parts.mantle_projects
        self.logging = parts.logging
        self.model_agreements = parts.model_agreements
        self.data_retention = parts.data_retention
        self.cost_allocation_tags = None
        if cost_allocation_tags_stack(plan.config, plan.applications) == "access":  # single account only
            automation = plan.policies.automation["cost-allocation-tags"]
            self.cost_allocation_tags = CostAllocationTags(
                self,
                "CostAllocationTags",
                landing_zone_name=plan.config.name,
                tag_keys=naming.COST_ALLOCATION_TAG_KEYS,
                handler_policy=automation.handler,
                provider_policy=automation.provider,
                logs_key=logs_key,
                log_retention=RETENTION_DAYS[plan.config.invocation_logging.log_retention_days],
                tagged=[
                    *(inv.role for _, inv in sorted(parts.invokers.items())),
                    *(p.profile for _, p in sorted(parts.profiles.items())),
                    *(p.project for _, p in sorted(parts.mantle_projects.items())),
                ],
            )


def _acknowledge_wildcards(invoker: InvokerRole, region: str, account: str, *, batch: bool, mantle: bool) -> None:
    """The invoker policy's wildcards cdk-nag reports, each with its reason (batch jobs, Mantle projects)."""
    shown = "<AWS::AccountId>" if Token.is_unresolved(account) else account  # as cdk-nag prints it
    if batch:
        acknowledge(
            invoker.policy,
            "AwsSolutions-IAM5",
            finding=f"Resource::{arns.batch_jobs(region, shown)}",
            reason="batch job IDs are generated by Bedrock; scoped to this account and home_region",
        )
    if mantle:
        acknowledge(
            invoker.policy,
            "AwsSolutions-IAM5",
            finding=f"Resource::{arns.mantle_projects(region, shown)}",
            reason="Mantle projects of this account/Region; the model is pinned by bedrock-mantle:Model",
        )


def _id(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))
