"""Compose the landing zone's stacks from a plan.

* Per-account mode (default): keys, network, access and cost stacks in the deployment account.
* ``member_baseline.enabled``: the same baseline as one StackSet template rolled out from the management (or
  delegated administrator) account to every account of the target OUs.
* With an ``organization`` block: the guardrail SCPs in the management account.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aws_cdk as cdk
from constructs import Construct

from landing_zone.core import naming
from landing_zone.core.config import deep_merge, packaged_defaults, raw_config
from landing_zone.plan import Plan, build_plan
from landing_zone.plan.detection import GLOBAL_EVENTS_REGION, workload_forwarders
from stacks.access import AccessStack
from stacks.cost import CostStack
from stacks.detection import DetectionForwardingStack, DetectionStack
from stacks.guardrails import GuardrailsStack
from stacks.keys import KeysStack
from stacks.network import NetworkStack

# Imported when used (like the rollout stack): the EKS constructs and aws_eks_v2 cost ~0.1 s CPU per synth otherwise.
if TYPE_CHECKING:
    from stacks.self_hosting import SelfHostingStack


__all__ = ["LANDING_ZONE_TAG_KEY", "LandingZone", "add_landing_zone", "build_landing_zone", "plan_of"]

# The tag every resource of the landing zone's stacks carries (its value: the configuration's name).
LANDING_ZONE_TAG_KEY = naming.LANDING_ZONE_TAG_KEY


@dataclass(frozen=True)
class LandingZone:
    """The stacks :func:`add_landing_zone` added (None: not part of this configuration) and the plan they render."""

    plan: Plan | None = None
    keys: KeysStack | None = None
    network: NetworkStack | None = None
    access: AccessStack | None = None
    cost: CostStack | None = None
    guardrails: GuardrailsStack | None = None
    self_hosting: SelfHostingStack | None = None
    rollout: cdk.Stack | None = None  # stacks.rollout.RolloutStack (imports cdk_stacksets only when used)
    detection: DetectionStack | None = None
    detection_global: DetectionForwardingStack | None = None
    detection_management: DetectionForwardingStack | None = None
    # the deployment account's forwarders in its other source Regions ('<name>-detection-<region>'), by Region
    detection_regions: Mapping[str, DetectionForwardingStack] = field(default_factory=dict)

    @property
    def stacks(self) -> tuple[cdk.Stack, ...]:
        members = (
            self.keys,
            self.network,
            self.access,
            self.cost,
            self.self_hosting,
            self.guardrails,
            self.rollout,
            self.detection,
            self.detection_global,
            self.detection_management,
            *self.detection_regions.values(),
        )
        return tuple(s for s in members if s is not None)


def _per_account_stacks(scope: Construct, plan: Plan) -> dict[str, Any]:
    cfg = plan.config
    env = cdk.Environment(account=cfg.deployment_account, region=cfg.home_region)
    keys = KeysStack(
        scope,
        naming.stack_name(cfg.name, "keys"),
        plan=plan,
        env=env,
        termination_protection=True,
        description=f"{cfg.name}: customer-managed KMS keys (retained on delete)",
    )
    network = NetworkStack(
        scope,
        naming.stack_name(cfg.name, "network"),
        plan=plan,
        logs_key=keys.keys["logs"],
        env=env,
        description=f"{cfg.name}: isolated VPC, flow logs and Bedrock interface endpoints",
    )
    access = AccessStack(
        scope,
        naming.stack_name(cfg.name, "access"),
        plan=plan,
        logs_key=keys.keys["logs"],
        endpoints=network.endpoints.endpoints,
        env=env,
        description=f"{cfg.name}: invoker roles, application inference profiles, invocation logging",
    )
    cost = CostStack(
        scope,
        naming.stack_name(cfg.name, "cost"),
        plan=plan,
        alerts_key=keys.keys["alerts"],
        access=access,
        env=env,
        description=f"{cfg.name}: budget, kill switch, spend alarms from token metrics, anomaly detection",
    )
    self_hosting = None
    if cfg.self_hosting.enabled:
        from stacks.self_hosting import SelfHostingStack

        self_hosting = SelfHostingStack(
            scope,
            naming.stack_name(cfg.name, "self-hosting"),
            plan=plan,
            vpc=network.network.vpc,
            secrets_key=keys.keys["secrets"],
            env=env,
            description=f"{cfg.name}: self-hosted Kimi K3.1 Pro on EKS (private cluster, GPU node group, vLLM)",
        )
    return {
        "keys": keys,
        "network": network,
        "access": access,
        "cost": cost,
        "self_hosting": self_hosting,
        **_detection_stacks(scope, plan, cost, access=access, network=network, logs_key=keys.keys["logs"]),
    }


def _detection_stacks(
    scope: Construct, plan: Plan, cost: CostStack, *, access: AccessStack, network: NetworkStack, logs_key: Any
) -> dict[str, Any]:
    """``detection`` on: the home Region's rules, the deployment account's forwarders (us-east-1: global services'
    events; each other source Region: the regional rules), the management account's Organizations events.  Off:
    none."""
    cfg = plan.config
    if plan.policies.detection is None:
        return {}
    parts: dict[str, Any] = {
        "detection": DetectionStack(
            scope,
            naming.stack_name(cfg.name, "detection"),
            plan=plan,
            topic=cost.alerts.topic,
            access=access,
            network=network,
            logs_key=logs_key,
            env=cdk.Environment(account=cfg.deployment_account, region=cfg.home_region),
            description=f"{cfg.name}: detection rules on CloudTrail management events, alerting the alerts topic",
        )
    }
    regional: dict[str, DetectionForwardingStack] = {}
    for forwarder in workload_forwarders(cfg):
        what = " and ".join(
            kind
            for kind, on in (("the global services'", forwarder.global_events), ("the regional", forwarder.regional))
            if on
        )
        stack = DetectionForwardingStack(
            scope,
            naming.stack_name(cfg.name, forwarder.part),
            plan=plan,
            forwarder=forwarder,
            env=cdk.Environment(account=cfg.deployment_account, region=forwarder.region),
            description=f"{cfg.name}: forwards {what} detection events from {forwarder.region} to {cfg.home_region}",
        )
        if forwarder.global_events:
            parts["detection_global"] = stack
        else:
            regional[forwarder.region] = stack
    if regional:
        parts["detection_regions"] = regional
    if cfg.organization is not None:
        parts["detection_management"] = DetectionForwardingStack(
            scope,
            naming.stack_name(cfg.name, "detection-management"),
            plan=plan,
            forwarder=None,
            env=cdk.Environment(account=cfg.organization.management_account_id, region=GLOBAL_EVENTS_REGION),
            description=f"{cfg.name}: forwards Organizations policy changes from the management account to the "
            "deployment account's detection rules",
        )
    return parts


# Resources CDK's framework code creates as raw CfnResource (not taggable by Tags.of): their tag property, so that
# the tag-keyed guardrails recognise them (landing_zone/policies/protected.py; tests/cdk/test_inventory.py).
_FRAMEWORK_TAG_PROPERTIES = {"AWS::IAM::Role": "list", "AWS::Lambda::Function": "list", "AWS::SSM::Parameter": "map"}


def _tag_framework_resources(scope: Construct, tags: dict[str, str]) -> None:
    for node in scope.node.find_all():
        if type(node) is not cdk.CfnResource:  # raw CfnResource only: the L1 classes are taggable
            continue
        shape = _FRAMEWORK_TAG_PROPERTIES.get(node.cfn_resource_type)
        if shape == "list":
            node.add_property_override("Tags", [{"Key": k, "Value": v} for k, v in sorted(tags.items())])
        elif shape == "map":
            node.add_property_override("Tags", dict(sorted(tags.items())))


def build_landing_zone(scope: Construct, plan: Plan, *, detach_organization_policies: bool = False) -> LandingZone:
    """Every stack of the plan.  ``detach_organization_policies``: the guardrails stack's Organizations policies with
    no targets (the first step of a removal, ``deploy-plan --remove``; docs/DEPLOY.md).

    Whatever else ``scope`` holds is left alone: each stack names its own CloudFormation name and CDK bootstrap
    (:class:`stacks.base.LandingZoneStack`), and the tags go on the landing zone's stacks, not on ``scope``."""
    cfg = plan.config
    parts: dict[str, Any] = {}
    if cfg.member_baseline.enabled:
        from stacks.rollout import RolloutStack

        parts["rollout"] = RolloutStack(
            scope,
            naming.stack_name(cfg.name, "rollout"),
            plan=plan,
            env=cdk.Environment(account=cfg.stackset_administrator_account, region=cfg.home_region),
            description=f"{cfg.name}: member baseline StackSet (service-managed, auto-deployed to the target OUs)",
        )
    else:
        parts.update(_per_account_stacks(scope, plan))
    if cfg.organization is not None:
        guardrails = GuardrailsStack(
            scope,
            naming.stack_name(cfg.name, "guardrails"),
            plan=plan,
            env=cdk.Environment(account=cfg.organization.management_account_id, region=cfg.home_region),
            description=f"{cfg.name}: Organizations SCPs for Bedrock (management account)",
            detached=detach_organization_policies,
        )
        if not cfg.organization.target_ids and not detach_organization_policies:
            cdk.Annotations.of(guardrails).add_warning_v2(
                "landing-zone:scp-unattached",
                "organization.target_ids is empty: the guardrail SCPs are created but attached to nothing",
            )
        parts["guardrails"] = guardrails
    landing_zone = LandingZone(plan=plan, **parts)
    tags = {LANDING_ZONE_TAG_KEY: cfg.name, "managed-by": "kimi-bedrock-landing-zone", **dict(cfg.tags)}
    for stack in landing_zone.stacks:
        for key, value in sorted(tags.items()):
            cdk.Tags.of(stack).add(key, value)
        _tag_framework_resources(stack, tags)
    return landing_zone


def add_landing_zone(
    scope: Construct,
    config: Plan | str | Path | Mapping[str, Any] | None = None,
    *,
    defaults: Mapping[str, Any] | None = None,
    detach_organization_policies: bool = False,
) -> LandingZone:
    """Add the landing zone's stacks to ``scope`` (a ``cdk.App`` or a ``cdk.Stage``, next to stacks of your own).

    ``config``: a validated :class:`~landing_zone.plan.Plan`; or the path of a YAML/JSON configuration file, or a
    mapping of configuration keys, laid over ``defaults`` (omitted: the defaults the package ships, the repository's
    cdk.json context; :func:`~landing_zone.core.config.packaged_defaults`); None: ``defaults`` alone.  An invalid
    configuration raises :class:`~landing_zone.errors.ConfigError` listing every problem, before any stack is added.

    The stacks keep the names the plan gives them (``<name>-<part>``) inside a Stage too, so the tamper denies that
    protect ``<name>-*`` cover them; tags and the landing zone's CDK bootstrap go on its stacks only."""
    plan = config if isinstance(config, Plan) else plan_of(config, defaults=defaults)
    return build_landing_zone(scope, plan, detach_organization_policies=detach_organization_policies)


def plan_of(config: str | Path | Mapping[str, Any] | None, *, defaults: Mapping[str, Any] | None = None) -> Plan:
    """The validated plan of a configuration file or mapping laid over ``defaults`` (the package's when omitted)."""
    base = packaged_defaults() if defaults is None else defaults
    if config is None or isinstance(config, (str, Path)):
        raw, origin = raw_config(base, config)
    else:
        raw, origin = raw_config(base, None)
        raw, origin = deep_merge(raw, config), "configuration (defaults + the mapping given to add_landing_zone)"
    return build_plan(raw, origin=origin)
