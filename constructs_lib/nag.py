"""The only module that imports cdk_nag: registers the rule packs on an app.

Acknowledgments live next to their resources (``constructs_lib.compliance.acknowledge``).  Keep the packs
off the apps of ordinary tests: a registered plugin also runs inside ``Template.from_stack``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_cdk import App, Validations
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks, NIST80053R5Checks

PACK_NAMES = ("AwsSolutions", "NIST.800.53.R5", "HIPAA.Security")


def add_nag_checks(app: App, *, packs: tuple[str, ...] = PACK_NAMES) -> None:
    factories: dict[str, Callable[[App], Any]] = {  # each pack class, instantiated with the app
        "AwsSolutions": AwsSolutionsChecks,
        "NIST.800.53.R5": NIST80053R5Checks,
        "HIPAA.Security": HIPAASecurityChecks,
    }
    unknown = set(packs) - set(factories)
    if unknown:
        raise ValueError(f"unknown cdk-nag packs {sorted(unknown)} (allowed: {', '.join(PACK_NAMES)})")
    Validations.of(app).add_plugins(*(factories[p](app) for p in packs))
