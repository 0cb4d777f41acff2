"""One registry of report sections for both formats (issue 23): the same sections, in the same order."""

from __future__ import annotations

import pytest

from landing_zone.review import render_html, render_md, sections  # noqa: F401  (importing registers the renderers)


@pytest.mark.parametrize("fmt", sections.FORMATS)
def test_every_format_renders_every_section_in_order(fmt: str) -> None:
    got = [(anchor, title) for anchor, title, _ in sections.renderers(fmt)]
    assert got == list(sections.SECTIONS)
    assert len({id(fn) for _, _, fn in sections.renderers(fmt)}) == len(sections.SECTIONS)


def test_a_missing_renderer_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = dict(sections._REGISTRY["md"])
    del registry["proofs"]
    monkeypatch.setitem(sections._REGISTRY, "md", registry)
    with pytest.raises(LookupError, match="proofs"):
        sections.renderers("md")


def test_unknown_section_or_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown report section 'nope'"):
        sections.renders("md", "nope")
    with pytest.raises(ValueError, match="unknown report format 'pdf'"):
        sections.renders("pdf", "summary")
