"""Organization guardrails: SCPs compiled from the routing decision, attached to the configured targets; with
``content_guardrail.organization_policy`` also the content guardrail enforced by a BEDROCK_POLICY; with
``cost.activate_cost_allocation_tags`` the activation of the cost-allocation tags, which only the management account
of an organization can do (``landing_zone.core.applications.cost_allocation_tags_stack``).

Deploy to the management account (or a delegated administrator for Organizations policies).
"""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput
from constructs import Construct

from constructs_lib.cfn import render
from constructs_lib.cost_allocation import CostAllocationTags
from constructs_lib.guardrail_organization_policy import GuardrailOrganizationPolicy
from constructs_lib.keys import LandingZoneKey
from constructs_lib.network import RETENTION_DAYS
from constructs_lib.organizations import ScpSpec, ServiceControlPolicies
from landing_zone.core import naming
from landing_zone.core.applications import cost_allocation_tags_stack
from landing_zone.plan import Plan
from stacks.base import LandingZoneStack


class GuardrailsStack(LandingZoneStack):
    """``detached``: every Organizations policy with no target (``TargetIds: []``: CloudFormation detaches it from
    the targets it had), the first step of a removal (docs/DEPLOY.md)."""

    def __init__(
        self, scope: Construct, construct_id: str, *, plan: Plan, detached: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        cfg = plan.config
        assert cfg.organization is not None, "GuardrailsStack needs an organization block"
        self.scps = plan.policies.scp_set
        self.policies = ServiceControlPolicies(
            self,
            "BedrockGuardrails",
            scps=[
                ScpSpec(
                    name=scp.name,
                    content=scp.content,
                    description=f"{cfg.name}: {scp.description} (binds {scp.binds})",
                    target_ids=scp.targets,
                )
                for scp in self.scps.policies
            ],
            landing_zone_name=cfg.name,
            tags={"landing-zone": cfg.name},
            detached=detached,
        )
        for policy, scp in zip(self.policies.policies, self.scps.policies, strict=True):
            CfnOutput(
                self,
                f"{policy.node.id}Id",
                value=policy.attr_id,
                description=f"SCP {scp.name}: {scp.size} of {self.scps.max_characters} characters, attached to "
                f"{_summary(scp.targets)}",
            )
        self.guardrail_policy: GuardrailOrganizationPolicy | None = None
        documents = plan.policies.guardrail_organization
        if documents is not None:
            g = cfg.content_guardrail
            rest = [t for t in cfg.organization.target_ids if t not in g.canary_target_ids]
            targets = [*g.canary_target_ids, *(rest if g.organization_policy_rollout == "all" else [])]
            targets = [] if detached else targets
            self.guardrail_policy = GuardrailOrganizationPolicy(
                self,
                "GuardrailInference",
                guardrail_name=naming.content_guardrail_name(cfg.name),
                policy_name=naming.bedrock_policy_name(cfg.name),
                settings=g,
                inference_policy=documents.inference,
                resource_policy=documents.resource_policy,
                target_ids=targets,
                tags={"landing-zone": cfg.name},
            )
            CfnOutput(
                self,
                "GuardrailInferenceIdentifier",
                value=self.guardrail_policy.identifier,
                description="The BEDROCK_POLICY's guardrail identifier (<guardrail ARN>:<version>); verify compares "
                "the canary accounts' effective policy with it",
            )
        self.cost_allocation_tags: CostAllocationTags | None = None
        if cost_allocation_tags_stack(cfg, plan.applications) == "guardrails":
            self.cost_allocation_tags = _activate_cost_allocation_tags(self, plan)


def _summary(targets: tuple[str, ...]) -> str:
    """The targets for an output's description (at most 1,024 characters): the first five and how many more."""
    if not targets:
        return "nothing"
    more = f" and {len(targets) - 5} more" if len(targets) > 5 else ""
    return ", ".join(targets[:5]) + more


def _activate_cost_allocation_tags(scope: Construct, plan: Plan) -> CostAllocationTags:
    """Activate the tag keys once for the organization, in the management (payer) account; the activation's logs
    are encrypted with a key of their own here (the landing zone's keys live in the workload accounts)."""
    cfg = plan.config
    management_logs_key = plan.policies.management_logs_key
    assert cfg.organization is not None and management_logs_key is not None
    logs_key = LandingZoneKey(
        scope,
        "ManagementLogsKey",
        alias=naming.management_logs_key_alias(cfg.name),
        description=f"{cfg.name}: logs of the cost-allocation-tag activation in the management account",
        # its own account's root and CloudWatch Logs for the activation's log groups only (the plan's least privilege)
        policy=render(scope, management_logs_key),
    ).key
    automation = plan.policies.automation["cost-allocation-tags"]
    return CostAllocationTags(
        scope,
        "CostAllocationTags",
        landing_zone_name=cfg.name,
        tag_keys=naming.COST_ALLOCATION_TAG_KEYS,
        handler_policy=automation.handler,
        provider_policy=automation.provider,
        logs_key=logs_key,
        log_retention=RETENTION_DAYS[cfg.invocation_logging.log_retention_days],
    )
