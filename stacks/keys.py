"""Customer-managed keys for everything that stores data."""

from __future__ import annotations

from typing import Any

from constructs import Construct

from constructs_lib.keys import LandingZoneKey
from landing_zone.plan import Plan
from stacks.base import LandingZoneStack
from landing_zone.policies.kms import key_policy


class KeysStack(LandingZoneStack):
    """``logs`` (flow logs, invocation logs), ``alerts`` (SNS), and ``secrets`` (EKS) when self-hosting is on."""

    def __init__(self, scope: Construct, construct_id: str, *, plan: Plan, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        cfg = plan.config
        purposes = ["logs", "alerts"] + (["secrets"] if cfg.self_hosting.enabled else [])
        descriptions = {
            "logs": "VPC flow logs and Bedrock model invocation logs (S3 + CloudWatch Logs)",
            "alerts": "Budget, anomaly and alarm notification topics",
            "secrets": "EKS secrets envelope encryption",
        }
        self.keys = {
            purpose: LandingZoneKey(
                self,
                f"{purpose.capitalize()}Key",
                alias=f"alias/{cfg.name}/{purpose}",
                description=f"{cfg.name}: {descriptions[purpose]}",
                policy=key_policy(purpose, account=cfg.deployment_account, region=cfg.home_region, name=cfg.name),
            ).key
            for purpose in purposes
        }
