"""The review rules' registry: each rule is defined next to the check that emits it, with ``define``.

A rule is its id, level, title, what it checks and why (the rationale).  ``blocking`` findings fail the review
(exit code 1, and the example gate in the tests); ``advisory`` findings are listed for a human to weigh.  As cdk-nag
keeps one rule per file, the metadata of each rule sits in the module whose code decides it:

* ``findings.py`` — policies (over-broad grants, principals, Regions); ``data_stores.py`` — data stores (encryption);
* ``void.py`` — protection the configuration asks for and the assembly leaves void;
* ``matrices.py`` — the decision matrix; ``report.py`` — action coverage and the proofs;
* ``deployability.py`` — every stack deployable in its own account, in place and again after ``cdk destroy``;
* ``nag.py`` — cdk-nag; ``scanners.py`` — cfn-lint and checkov;
* ``claims.py`` — the first screen's claims; ``baseline.py`` — weakenings since the ``--baseline``.

``rationale`` is shown next to every finding of the rule: why it has its level and what to do about it.
``related`` names the cdk-nag rules and checkov checks (fnmatch patterns) that look at the same property, so that
an acknowledgment or a skip of one of them on the finding's resource is shown, with its reason, in the same row.

``RULES`` is every defined rule; reading it imports the modules above (``RULE_MODULES``; a test checks that every
module calling ``define`` is listed).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["BLOCKING", "ADVISORY", "Rule", "RULES", "RULE_MODULES", "define", "rule"]

BLOCKING = "blocking"
ADVISORY = "advisory"

RULE_MODULES = (
    "findings",
    "data_stores",
    "void",
    "settings",
    "deployability",
    "matrices",
    "report",
    "nag",
    "scanners",
    "claims",
    "baseline",
)


@dataclass(frozen=True)
class Rule:
    id: str
    level: str
    title: str
    description: str
    rationale: str
    related: tuple[str, ...] = ()  # cdk-nag rule / checkov check patterns that check the same thing

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level,
            "title": self.title,
            "description": self.description,
            "rationale": self.rationale,
            "related": list(self.related),
        }


_REGISTRY: dict[str, Rule] = {}


def define(
    rule_id: str, level: str, title: str, description: str, rationale: str, related: tuple[str, ...] = ()
) -> str:
    """Register a rule and return its id (the module keeps it as a constant and emits findings with it)."""
    if level not in (BLOCKING, ADVISORY):
        raise ValueError(f"rule {rule_id}: level {level!r} is not {BLOCKING!r} or {ADVISORY!r}")
    new = Rule(rule_id, level, title, description, rationale, tuple(related))
    old = _REGISTRY.setdefault(rule_id, new)
    if old != new:
        raise ValueError(f"rule {rule_id} is defined twice with different metadata")
    return rule_id


class _Rules(Mapping[str, Rule]):
    """Every defined rule, by id; the first read imports the modules that define them."""

    def _all(self) -> dict[str, Rule]:
        for name in RULE_MODULES:
            importlib.import_module(f"landing_zone.review.{name}")
        return _REGISTRY

    def __getitem__(self, rule_id: str) -> Rule:
        return self._all()[rule_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


RULES: Mapping[str, Rule] = _Rules()


def rule(rule_id: str) -> Rule:
    return RULES[rule_id]
