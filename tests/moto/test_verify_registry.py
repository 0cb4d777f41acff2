"""The check families are registered in one place (issue 23): docs/VERIFY.md's family list is generated from
``CHECK_FAMILIES``, and every check name the registry declares is documented in the per-check table."""

from __future__ import annotations

import re

from landing_zone.verify.checks import CHECK_FAMILIES, families_markdown
from tests.conftest import ROOT

DOCS = ROOT / "docs" / "VERIFY.md"


def _generated_block() -> str:
    text = DOCS.read_text(encoding="utf-8")
    found = re.search(r"<!-- families:begin[^>]*-->\n(.*?)<!-- families:end -->", text, re.S)
    assert found, "docs/VERIFY.md has no families:begin/end block"
    return found.group(1)


def test_the_docs_family_list_is_the_registry() -> None:
    assert _generated_block() == families_markdown(), (
        "docs/VERIFY.md's family list differs from CHECK_FAMILIES: paste "
        "`python -c 'from landing_zone.verify.checks import families_markdown; print(families_markdown())'` "
        "between its families markers"
    )


def test_family_and_check_names_are_unique_and_each_check_is_documented() -> None:
    names = [f.name for f in CHECK_FAMILIES]
    checks = [c for f in CHECK_FAMILIES for c in f.checks]
    assert len(set(names)) == len(names) and len(set(checks)) == len(checks)
    table = DOCS.read_text(encoding="utf-8").split("### How the intent is read", 1)[1]
    undocumented = [c for c in checks if f"`{c}`" not in table]
    assert not undocumented, f"checks missing from the per-check table of docs/VERIFY.md: {undocumented}"


def test_no_other_module_lists_the_families_in_prose() -> None:
    for path in ("landing_zone/verify/__init__.py", "landing_zone/cli/verify.py"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert "invocation logging, log groups" not in text and "EKS node groups" not in text, path
