"""What the configuration's detection can be: the checks that need the rules built (``validate`` reports them)."""

from __future__ import annotations

from landing_zone.core import naming
from landing_zone.core.catalog import Catalog
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.routing import RoutingDecision
from landing_zone.errors import Problem
from landing_zone.plan.policies import DetectionPolicies

__all__ = ["detection_problems", "legacy_alarm_names"]


def detection_problems(
    config: LandingZoneConfig, detection: DetectionPolicies | None, catalog: Catalog
) -> list[Problem]:
    """``detection.enabled: true`` with the member baseline (its StackSet does not carry the rules), and more rules
    with a wildcard filter than EventBridge allows on one bus (the denied-call rules, one per set of event sources)."""
    problems = []
    if config.detection.enabled and config.member_baseline.enabled:
        problems.append(
            Problem(
                "detection.enabled",
                True,
                "the member baseline's StackSet does not carry the detection rules yet; allowed here: false or "
                "omitted (detection of the member accounts is then the organization's, e.g. an organization trail "
                "and your own rules)",
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
