"""Base stack: answers Availability Zones without a lookup, so synth needs no AWS account."""

from __future__ import annotations

from typing import Any

from aws_cdk import DefaultStackSynthesizer, Fn, Stack
from constructs import Construct

from landing_zone.plan import Plan


class LandingZoneStack(Stack):
    """Every landing-zone stack: keeps the ``plan``; ``availability_zones`` are the configured AZ names, or
    ``network.az_count`` deploy-time ``Fn::GetAZs`` picks.

    Two things are the stack's own, never its scope's, so that the landing zone can sit in a user's app or ``Stage``
    next to stacks of theirs (docs/PACKAGE.md):

    * its CloudFormation name is its construct ID (``<lz>-<part>``, the name the plan decided and the tamper denies
      protect), not the ``<stage>-<id>`` a ``Stage`` would give it;
    * it deploys with the landing zone's own CDK bootstrap (``policy_guardrails.cdk_bootstrap_qualifier``), whose
      roles the denies exempt: its synthesizer names the qualifier, instead of a context value that would lend those
      roles to every other stack of the app."""

    def __init__(self, scope: Construct, construct_id: str, *, plan: Plan, **kwargs: Any) -> None:
        self.plan = plan
        self._configured_azs = list(plan.config.network.availability_zones)
        self._az_count = plan.config.network.az_count
        kwargs.setdefault("stack_name", construct_id)
        kwargs.setdefault(
            "synthesizer", DefaultStackSynthesizer(qualifier=plan.config.policy_guardrails.cdk_bootstrap_qualifier)
        )
        super().__init__(scope, construct_id, **kwargs)

    @property
    def availability_zones(self) -> list[str]:
        # Stack.availability_zones would otherwise record an 'availability-zones' context lookup, which needs
        # credentials at synth.  Fn::GetAZs resolves in the target account at deploy time instead.
        if self._configured_azs:
            return self._configured_azs
        return [Fn.select(i, Fn.get_azs()) for i in range(self._az_count)]
