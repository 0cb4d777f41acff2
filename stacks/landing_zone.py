"""Compose the landing zone's stacks from a plan."""

from __future__ import annotations

from dataclasses import dataclass

import aws_cdk as cdk
from constructs import Construct

from landing_zone.plan import Plan
from stacks.access import AccessStack
from stacks.cost import CostStack
from stacks.guardrails import GuardrailsStack
from stacks.keys import KeysStack
from stacks.network import NetworkStack


@dataclass(frozen=True)
class LandingZone:
    keys: KeysStack
    network: NetworkStack
    access: AccessStack
    cost: CostStack
    guardrails: GuardrailsStack | None = None

    @property
    def stacks(self) -> tuple[cdk.Stack, ...]:
        return tuple(s for s in (self.keys, self.network, self.access, self.cost, self.guardrails) if s is not None)


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
    access = AccessStack(
        scope,
        f"{cfg.name}-access",
        plan=plan,
        logs_key=keys.keys["logs"],
        endpoints=network.endpoints.endpoints,
        env=env,
        description=f"{cfg.name}: invoker roles, application inference profiles, invocation logging",
    )
    cost = CostStack(
        scope,
        f"{cfg.name}-cost",
        plan=plan,
        alerts_key=keys.keys["alerts"],
        access=access,
        env=env,
        description=f"{cfg.name}: budget, kill switch, spend alarms from token metrics, anomaly detection",
    )
    guardrails = None
    if cfg.organization is not None:
        guardrails = GuardrailsStack(
            scope,
            f"{cfg.name}-guardrails",
            plan=plan,
            env=cdk.Environment(account=cfg.organization.management_account_id, region=cfg.home_region),
            description=f"{cfg.name}: Organizations SCPs for Bedrock (management account)",
        )
        if not cfg.organization.target_ids:
            cdk.Annotations.of(guardrails).add_warning_v2(
                "landing-zone:scp-unattached",
                "organization.target_ids is empty: the guardrail SCPs are created but attached to nothing",
            )
    for warning in plan.warnings:
        cdk.Annotations.of(network).add_warning_v2("landing-zone:catalog", warning)
    tags = {"landing-zone": cfg.name, "managed-by": "kimi-bedrock-landing-zone", **dict(cfg.tags)}
    for key, value in sorted(tags.items()):
        cdk.Tags.of(scope).add(key, value)
    return LandingZone(keys=keys, network=network, access=access, cost=cost, guardrails=guardrails)
