"""Compose the landing zone's stacks from a plan."""

from __future__ import annotations

from dataclasses import dataclass

import aws_cdk as cdk
from constructs import Construct

from landing_zone.plan import Plan
from stacks.keys import KeysStack
from stacks.network import NetworkStack


@dataclass(frozen=True)
class LandingZone:
    keys: KeysStack
    network: NetworkStack

    @property
    def stacks(self) -> tuple[cdk.Stack, ...]:
        return (self.keys, self.network)


def build_landing_zone(scope: Construct, plan: Plan) -> LandingZone:
    cfg = plan.config
    env = cdk.Environment(account=cfg.deployment_account, region=cfg.home_region)
    synthesizer = cdk.DefaultStackSynthesizer(generate_bootstrap_version_rule=True)
    keys = KeysStack(
        scope,
        f"{cfg.name}-keys",
        plan=plan,
        env=env,
        synthesizer=synthesizer,
        termination_protection=True,
        description=f"{cfg.name}: customer-managed KMS keys (retained on delete)",
    )
    network = NetworkStack(
        scope,
        f"{cfg.name}-network",
        plan=plan,
        logs_key=keys.keys["logs"],
        env=env,
        description=f"{cfg.name}: isolated VPC, flow logs and Bedrock interface endpoints",
    )
    for warning in plan.warnings:
        cdk.Annotations.of(network).add_warning_v2("landing-zone:catalog", warning)
    tags = {"landing-zone": cfg.name, "managed-by": "kimi-bedrock-landing-zone", **dict(cfg.tags)}
    for key, value in sorted(tags.items()):
        cdk.Tags.of(scope).add(key, value)
    return LandingZone(keys=keys, network=network)
