"""Organization guardrails: SCPs compiled from the routing decision, attached to the configured targets.

Deploy to the management account (or a delegated administrator for Organizations policies).
"""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput
from constructs import Construct

from constructs_lib.organizations import ServiceControlPolicies
from landing_zone.plan import Plan
from stacks.base import LandingZoneStack


class GuardrailsStack(LandingZoneStack):
    def __init__(self, scope: Construct, construct_id: str, *, plan: Plan, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        cfg = plan.config
        assert cfg.organization is not None, "GuardrailsStack needs an organization block"
        self.scps = plan.policies.scp_set
        self.policies = ServiceControlPolicies(
            self,
            "BedrockGuardrails",
            contents=plan.policies.scp_contents,
            landing_zone_name=cfg.name,
            description=f"{cfg.name}: Bedrock inference only in compliant Regions and allowed models; no tampering",
            target_ids=cfg.organization.target_ids,
            tags={"landing-zone": cfg.name},
        )
        for index, (policy, size) in enumerate(zip(self.policies.policies, self.scps.sizes, strict=True), start=1):
            CfnOutput(
                self,
                f"Scp{index}Id",
                value=policy.attr_id,
                description=f"SCP part {index}: {size} of {self.scps.max_characters} characters",
            )
