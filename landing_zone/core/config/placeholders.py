"""Placeholder values left in a configuration (example account IDs, example organizations and e-mails)."""

from __future__ import annotations

import re

from landing_zone.core.config.schema import LandingZoneConfig
from landing_zone.core.datafile import iter_strings
from landing_zone.errors import Problem

_ACCOUNT_RUN = re.compile(r"(?<!\d)\d{12}(?!\d)")
_EXAMPLE_EMAIL = re.compile(r"@(?:[^@\s]+\.)?example\.(?:com|net|org)$", re.IGNORECASE)

__all__ = ["is_placeholder_account_id", "placeholders"]


def is_placeholder_account_id(account_id: str) -> bool:
    return len(set(account_id)) == 1 or account_id == "123456789012"


PLACEHOLDER_ACCOUNT = "a placeholder account ID"
PLACEHOLDER_ORGANIZATION = "an example organization ID"
PLACEHOLDER_EMAIL = "an e-mail address at a reserved example domain (alerts sent there reach nobody)"


def placeholders(config: LandingZoneConfig) -> tuple[Problem, ...]:
    """Every placeholder value in ``config`` as Problem(path, value, kind), account IDs first (rule above)."""
    found: list[Problem] = []
    for path, text in iter_strings(config.model_dump(mode="python", exclude_defaults=True)):
        if any(is_placeholder_account_id(m) for m in _ACCOUNT_RUN.findall(text)):
            found.append(Problem(path, text, PLACEHOLDER_ACCOUNT))
        elif text.startswith("o-example") and path.endswith("organization_id"):
            found.append(Problem(path, text, PLACEHOLDER_ORGANIZATION))
        elif _EXAMPLE_EMAIL.search(text):
            found.append(Problem(path, text, PLACEHOLDER_EMAIL))
    order = (PLACEHOLDER_ACCOUNT, PLACEHOLDER_ORGANIZATION, PLACEHOLDER_EMAIL)
    return tuple(sorted(found, key=lambda p: order.index(p.allowed)))
