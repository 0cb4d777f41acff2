"""What the configuration's detection can be: the checks that need the rules built (``validate`` reports them), and
where the deployment account's forwarders run (:func:`workload_forwarders`)."""

from __future__ import annotations

from dataclasses import dataclass

from landing_zone.core import naming
from landing_zone.core.catalog import Catalog
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.routing import RoutingDecision
from landing_zone.errors import Problem
from landing_zone.plan.policies import DetectionPolicies
from landing_zone.policies.detection import EventRule

__all__ = [
    "GLOBAL_EVENTS_REGION",
    "MEMBER_BASELINE_RESIDUAL",
    "Forwarder",
    "detection_problems",
    "legacy_alarm_names",
    "workload_forwarders",
]

GLOBAL_EVENTS_REGION = "us-east-1"  # where CloudTrail records the global services' events


# What stays unwatched with the member baseline (``detection.enabled: true`` is refused there; the review says it too).
MEMBER_BASELINE_RESIDUAL = (
    "the member baseline's StackSet template does not carry the detection rules, and in that mode no stack of the "
    "deployment account holds the bus the other accounts forward to (there is no <name>-detection), so "
    "<name>-detection-management is not deployed either. Unwatched between two runs of verify (verify "
    "--stackset-member, per member account): each member account's account settings (invocation logging, data "
    "retention, the enforced guardrail, API keys), its protected resources (endpoints, security group, routes, "
    "keys, buckets), the detection-only classes and every attempt an SCP denied there; and the management "
    "account's SCP and policy-type changes, which no SCP prevents. The SCPs still prevent in the member accounts; "
    "watching them is the organization's (e.g. EventBridge rules on the organization trail's events, Security Hub's "
    "controls)"
)


@dataclass(frozen=True)
class Forwarder:
    """One forwarding stack of the deployment account outside ``home_region``: its stack part, its Region, its role,
    and which workload rules it carries: ``global_events`` (the rules with a global service's calls: us-east-1) and
    ``regional`` (the rules whose calls CloudTrail records where they are made: a source Region)."""

    part: str
    region: str
    role_name: str
    global_events: bool
    regional: bool

    def carries(self, rule: EventRule) -> bool:
        if rule.placement != "workload":
            return False
        return (self.global_events and bool(rule.global_sources)) or (self.regional and rule.regional)


def workload_forwarders(config: LandingZoneConfig) -> tuple[Forwarder, ...]:
    """The deployment account's forwarders to its ``home_region`` bus, where every rule alerts: us-east-1 for the
    global services' events (``<name>-detection-global``, unless us-east-1 is home; it carries the regional rules too
    when us-east-1 is a source Region), and one ``<name>-detection-<region>`` per other source Region
    (``inference_source_regions``: where the per-Region settings, invocation logging, data retention and the enforced
    guardrail, govern requests).  The schema confines the source Regions to ``home_region`` today, so only the first
    exists; the others follow the source Regions if that ever changes."""
    home, name = config.home_region, config.name
    sources = set(config.source_regions) - {home}
    out = []
    if home != GLOBAL_EVENTS_REGION:
        role = naming.detection_forwarder_role_name(name)
        regional = GLOBAL_EVENTS_REGION in sources
        out.append(Forwarder("detection-global", GLOBAL_EVENTS_REGION, role, global_events=True, regional=regional))
    for region in sorted(sources - {GLOBAL_EVENTS_REGION}):
        role = naming.detection_forwarder_role_name(name, region)
        part = naming.detection_region_stack_part(region)
        out.append(Forwarder(part, region, role, global_events=False, regional=True))
    return tuple(out)


def detection_problems(
    config: LandingZoneConfig, detection: DetectionPolicies | None, catalog: Catalog
) -> list[Problem]:
    """``detection.enabled: true`` with the member baseline (its StackSet does not carry the rules), and more rules
    with a wildcard filter than EventBridge allows on one bus (the denied-call rules, one per set of event sources)."""
    problems = []
    if config.detection.enabled and config.member_baseline.enabled:
        problems.append(
            Problem("detection.enabled", True, MEMBER_BASELINE_RESIDUAL + "; allowed here: false or omitted")
        )
    if config.detection.config_rules and detection is None and not config.member_baseline.enabled:
        problems.append(
            Problem(
                "detection.config_rules",
                True,
                "the AWS Config rules are deployed in the detection stack, and detection is off (single-account mode "
                "with detection.enabled omitted); allowed here: false or omitted, or detection.enabled: true",
            )
        )
    if detection is not None:
        wildcard = sum(1 for r in detection.rules if r.wildcard)
        limit = catalog.limit("eventbridge_wildcard_rules_per_bus")
        if wildcard > limit:
            problems.append(
                Problem(
                    "detection.enabled",
                    True,
                    f"the SCP statements give {wildcard} denied-call rules (one per set of event sources), each with a "
                    "wildcard filter, "
                    f"and EventBridge allows {limit} such rules per event bus (catalog limit "
                    "eventbridge_wildcard_rules_per_bus, not adjustable); allowed here: false, or fewer statements",
                )
            )
    return problems


def legacy_alarm_names(config: LandingZoneConfig, routing: RoutingDecision) -> dict[str, str]:
    """``detection.legacy_model_alarm``: the alarm name of each ID an allowed model is called by (its foundation-model
    ID and each compliant profile's; the metric's ModelId is the ID the caller passed)."""
    if not config.detection.legacy_model_alarm:
        return {}
    ids = sorted({i for mr in routing.models for i in (mr.model.id, *(r.invoke_id for r in mr.compliant_routes))})
    return {model_id: naming.alarm_name(config.name, f"legacy-model-{model_id}") for model_id in ids}
