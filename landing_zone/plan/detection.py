"""What the configuration's detection can be: the checks that need the rules built (``validate`` reports them), and
where the deployment account's forwarders run (:func:`workload_forwarders`)."""

from __future__ import annotations

from dataclasses import dataclass

from landing_zone.core import naming
from landing_zone.core.catalog import Catalog
from landing_zone.core.catalog.action_space import PROTECTED_SERVICES
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.routing import RoutingDecision
from landing_zone.errors import Problem
from landing_zone.plan.policies import DetectionPolicies, detection_on
from landing_zone.policies.detection import EventRule, event_rules
from landing_zone.policies.guardrails import guardrail_statements

__all__ = [
    "GLOBAL_EVENTS_REGION",
    "MEMBER_BASELINE_RESIDUAL",
    "Forwarder",
    "detection_problems",
    "legacy_alarm_names",
    "member_detection_resources",
    "member_rules",
    "workload_forwarders",
]

GLOBAL_EVENTS_REGION = "us-east-1"  # where CloudTrail records the global services' events


# What the member baseline leaves unwatched (the review's Detection section and docs/DETECTION.md say it).
MEMBER_BASELINE_RESIDUAL = (
    "in that mode there is no deployment-account detection stack (no bus to forward to), so the management account's "
    "SCP and policy-type changes are not watched (no SCP prevents them there), and in a member account whose "
    "home_region is not us-east-1 neither are the calls CloudTrail records in us-east-1 only (IAM: Bedrock API keys; "
    "Route 53: private hosted zone associations); watching them is the organization's (e.g. rules on the "
    "organization trail's events)"
)


def member_rules(config: LandingZoneConfig, rules: tuple[EventRule, ...]) -> tuple[EventRule, ...]:
    """The rules the member baseline's StackSet template carries, alerting each member account's own alerts topic:
    the workload rules whose calls CloudTrail records in ``home_region`` (the StackSet's one Region): the regional
    ones, and every workload rule when ``home_region`` is us-east-1 (where the global services' calls arrive too)."""
    everything = config.home_region == GLOBAL_EVENTS_REGION
    return tuple(r for r in rules if r.placement == "workload" and (r.regional or everything))


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


def member_detection_resources(config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog) -> int:
    """The resources detection adds to the member baseline's StackSet template (0 without it): one EventBridge rule
    per :func:`member_rules` and one alarm per :func:`legacy_alarm_names` (counted before the policies are built, for
    the template limits)."""
    if not (config.member_baseline.enabled and detection_on(config)):
        return 0
    statements = guardrail_statements(config, routing, catalog) if config.organization is not None else []
    rules = event_rules(config, statements, PROTECTED_SERVICES)
    return len(member_rules(config, rules)) + len(legacy_alarm_names(config, routing))


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
    """``detection.config_rules`` with detection off or with the member baseline (its StackSet template does not carry
    the AWS Config rules), and more rules with a wildcard filter than EventBridge allows on one bus (the denied-call
    rules, one per set of event sources)."""
    problems = []
    if config.detection.config_rules and config.member_baseline.enabled:
        problems.append(
            Problem(
                "detection.config_rules",
                True,
                "the member baseline's StackSet template carries the detection rules but not the AWS Config rules "
                "(they would judge every resource of their types in each member account, on a recorder the landing "
                "zone does not own); allowed here: false or omitted",
            )
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
