"""Each review rule is defined once, next to the check that emits it (issue 23: rule metadata next to its logic).

The registry (``landing_zone.review.rules``) imports the modules in ``RULE_MODULES`` to list the rules; these tests
keep that list and the modules true: every module that calls ``define`` is listed, every rule id is defined exactly
once, and every ``finding(...)`` in the review package names a rule through a constant that ``define`` returned in
the same module (no string id that could drift from the registry).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from landing_zone.review import rules
from landing_zone.review.findings import finding

REVIEW = Path(rules.__file__).parent


def _modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text()) for p in sorted(REVIEW.glob("*.py"))}


def _defines(tree: ast.Module) -> dict[str, str]:
    """constant name -> rule id, for ``NAME = define("LZ-...", ...)`` at module level"""
    out = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", None) == "define"
        ):
            first = node.value.args[0]
            assert isinstance(first, ast.Constant)
            out[node.targets[0].id] = first.value  # type: ignore[attr-defined]
    return out


def test_every_defining_module_is_listed_and_every_id_defined_once() -> None:
    seen: dict[str, str] = {}
    defining = set()
    for name, tree in _modules().items():
        for rule_id in _defines(tree).values():
            assert rule_id not in seen, f"{rule_id} defined in {seen[rule_id]} and {name}"
            seen[rule_id] = name
            defining.add(name)
    assert defining == set(rules.RULE_MODULES)
    assert set(seen) == set(rules.RULES)
    assert len(rules.RULES) >= 37


def test_findings_name_rules_through_their_constants() -> None:
    for name, tree in _modules().items():
        constants = set(_defines(tree))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "finding" and node.args:
                first = node.args[0]
                assert not (isinstance(first, ast.Constant) and isinstance(first.value, str)), (
                    f"{name}.py line {node.lineno}: finding() with a string rule id; use the define() constant"
                )
                if isinstance(first, ast.Name) and first.id.isupper():
                    assert first.id in constants, f"{name}.py line {node.lineno}: {first.id} is not defined here"


def test_an_undefined_rule_is_refused() -> None:
    with pytest.raises(KeyError):
        finding("LZ-NO-SUCH-RULE", "x")


def test_a_rule_defined_twice_differently_is_refused() -> None:
    existing = next(iter(rules.RULES.values()))
    assert (
        rules.define(
            existing.id, existing.level, existing.title, existing.description, existing.rationale, existing.related
        )
        == existing.id
    )
    with pytest.raises(ValueError, match="defined twice"):
        rules.define(existing.id, existing.level, "another title", existing.description, existing.rationale)
    with pytest.raises(ValueError, match="level"):
        rules.define("LZ-TEST-LEVEL", "fatal", "t", "d", "r")
