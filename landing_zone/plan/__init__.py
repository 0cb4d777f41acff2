"""The plan: validated config + catalogs + the routing decision + budget and alarms, built once.

``build_plan`` / ``load_plan`` (:mod:`landing_zone.plan.build`) return a :class:`~landing_zone.plan.model.Plan`
that every later layer (constructs, stacks, review, verify, cost report) only reads.
"""

from landing_zone.plan.build import build_plan, load_plan
from landing_zone.plan.model import Plan

__all__ = ["Plan", "build_plan", "load_plan"]
