"""docs/DEVELOPMENT.md's recipes stay true: every file they name exists, and every symbol they tell a developer to
edit is defined where they say (issue 23: "each a short list of the files it touches, kept true by a test")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "docs" / "DEVELOPMENT.md").read_text(encoding="utf-8")
RECIPES = (
    "Add a model (with prices)",
    "Add a Region-confined action family",
    "Add a verify check",
    "Add a review rule",
)


def _recipe(title: str) -> str:
    start = TEXT.index(f"## {title}")
    end = TEXT.find("\n## ", start + 5)
    return TEXT[start : end if end > 0 else None]


@pytest.mark.parametrize("title", RECIPES)
def test_every_file_a_recipe_names_exists(title: str) -> None:
    paths = re.findall(r"`((?:landing_zone|tests|docs|stacks|constructs_lib)/[\w/.-]+)`", _recipe(title))
    assert paths, f"recipe {title!r} names no file"
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"recipe {title!r} names files that do not exist: {missing}"


@pytest.mark.parametrize(
    ("title", "path", "symbol"),
    [
        ("Add a Region-confined action family", "landing_zone/policies/guardrails.py", "BEDROCK_SERVICES = "),
        ("Add a verify check", "landing_zone/verify/checks/__init__.py", "CHECK_FAMILIES: "),
        ("Add a verify check", "landing_zone/verify/checks/__init__.py", "def families_markdown("),
        ("Add a review rule", "landing_zone/review/rules.py", "def define("),
        ("Add a review rule", "landing_zone/review/rules.py", "RULE_MODULES = "),
    ],
)
def test_the_symbols_a_recipe_names_are_defined_there(title: str, path: str, symbol: str) -> None:
    name = re.sub(r"^def |[ :=(]+$", "", symbol)
    assert re.search(rf"\b{name}\b", _recipe(title)), f"recipe {title!r} no longer names {name}"
    assert symbol in (ROOT / path).read_text(encoding="utf-8"), f"{path} no longer defines {name}"
