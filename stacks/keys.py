"""Customer-managed keys for everything that stores data."""

from __future__ import annotations

from typing import Any

from aws_cdk import aws_kms as kms
from constructs import Construct

from constructs_lib.keys import LandingZoneKey
from landing_zone.core import markers, naming
from landing_zone.plan import Plan
from stacks.base import LandingZoneStack

DESCRIPTIONS = {
    "logs": "VPC flow logs and Bedrock model invocation logs (S3 + CloudWatch Logs)",
    "alerts": "Budget, anomaly and alarm notification topics",
    "secrets": "EKS secrets envelope encryption",
}


def add_keys(scope: Construct, *, plan: Plan, account: str) -> dict[str, kms.Key]:
    """``logs`` and ``alerts`` keys, and ``secrets`` when self-hosting is on (shared by stacks and StackSets)."""
    cfg = plan.config
    purposes = ["logs", "alerts"] + (["secrets"] if cfg.self_hosting.enabled else [])
    return {
        purpose: LandingZoneKey(
            scope,
            f"{purpose.capitalize()}Key",
            alias=naming.key_alias(cfg.name, purpose),
            description=f"{cfg.name}: {DESCRIPTIONS[purpose]}",
            policy=markers.resolve(plan.policies.keys[purpose], {markers.ACCOUNT: account}),
        ).key
        for purpose in purposes
    }


class KeysStack(LandingZoneStack):
    """``keys``: purpose -> key (see :func:`add_keys`)."""

    def __init__(self, scope: Construct, construct_id: str, *, plan: Plan, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        self.keys = add_keys(self, plan=plan, account=plan.config.deployment_account)
