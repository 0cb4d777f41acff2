"""Stacks compose constructs; they define no raw resources of their own.

The public API (typed: ``py.typed``): :func:`add_landing_zone` adds the landing zone to a ``cdk.App`` or
``cdk.Stage`` and returns a :class:`LandingZone` naming its stacks; the stack classes are there to type what it
returns.  docs/PACKAGE.md describes each.  The names load on first use (PEP 562), so ``import stacks`` costs nothing
and the optional stacks (self-hosting on EKS, the StackSet roll-out) import their CDK modules only when used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stacks.access import AccessStack
    from stacks.base import LandingZoneStack
    from stacks.cost import CostStack
    from stacks.detection import DetectionForwardingStack, DetectionStack
    from stacks.guardrails import GuardrailsStack
    from stacks.keys import KeysStack
    from stacks.landing_zone import LANDING_ZONE_TAG_KEY, LandingZone, add_landing_zone, build_landing_zone, plan_of
    from stacks.network import NetworkStack
    from stacks.rollout import RolloutStack
    from stacks.self_hosting import SelfHostingStack

__all__ = [
    "LANDING_ZONE_TAG_KEY",
    "AccessStack",
    "CostStack",
    "DetectionForwardingStack",
    "DetectionStack",
    "GuardrailsStack",
    "KeysStack",
    "LandingZone",
    "LandingZoneStack",
    "NetworkStack",
    "RolloutStack",
    "SelfHostingStack",
    "add_landing_zone",
    "build_landing_zone",
    "plan_of",
]

# Each public name and the module that defines it.
_MODULES = {
    "AccessStack": "stacks.access",
    "LandingZoneStack": "stacks.base",
    "CostStack": "stacks.cost",
    "DetectionForwardingStack": "stacks.detection",
    "DetectionStack": "stacks.detection",
    "GuardrailsStack": "stacks.guardrails",
    "KeysStack": "stacks.keys",
    "LANDING_ZONE_TAG_KEY": "stacks.landing_zone",
    "LandingZone": "stacks.landing_zone",
    "add_landing_zone": "stacks.landing_zone",
    "build_landing_zone": "stacks.landing_zone",
    "plan_of": "stacks.landing_zone",
    "NetworkStack": "stacks.network",
    "RolloutStack": "stacks.rollout",
    "SelfHostingStack": "stacks.self_hosting",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'stacks' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
