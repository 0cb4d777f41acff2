"""The report's sections: one list (anchor, title, order) and one registry of their renderers, per format.

The Markdown and HTML reports show the same sections in the same order.  Each renderer registers itself with
``@renders(format, anchor)`` next to its code; ``renderers(format)`` returns them in ``SECTIONS`` order and refuses a
format that misses a section (or renders one that is not listed), so the two reports cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["SECTIONS", "FORMATS", "Renderer", "renders", "renderers"]

# (anchor, title) of every section, in order
SECTIONS = (
    # the auditor's first screen (issue 34): where data goes, what is enforced for whom, what changed
    ("residency", "Residency and data flow"),
    ("claims", "What is enforced, for whom"),
    ("changes", "Changes since the last approval"),
    ("summary", "Summary"),
    ("findings", "Findings"),
    ("signoff", "Sign-off"),
    ("change-control", "Who can change what, and how we would know"),
    ("residual-risks", "Residual risks"),
    ("control-mapping", "Control mapping"),
    ("inventory", "Policy inventory"),
    ("routing-matrix", "Routing matrix"),
    ("settings", "Governed Bedrock settings"),
    ("cross-account-grants", "Cross-account grants"),
    ("proofs", "Proofs"),
    ("access-analyzer", "IAM Access Analyzer"),
    ("threat-model", "Threat model"),
    ("detection", "Detection"),
    ("coverage", "Coverage of the action space"),
    ("decision-matrix", "Decision matrix"),
    ("cdk-nag", "cdk-nag"),
    ("scanners", "cfn-lint and checkov"),
    ("diff", "Policy diff"),
    ("rules", "Rules"),
    ("appendix-hygiene", "Appendix: hygiene advisories"),
)
FORMATS = ("md", "html")

Renderer = Callable[[Mapping[str, Any]], Any]
_REGISTRY: dict[str, dict[str, Renderer]] = {fmt: {} for fmt in FORMATS}


def renders(fmt: str, anchor: str) -> Callable[[Renderer], Renderer]:
    """Register the decorated function as the ``fmt`` renderer of section ``anchor``."""
    if fmt not in _REGISTRY:
        raise ValueError(f"unknown report format {fmt!r}; formats: {', '.join(FORMATS)}")
    if anchor not in dict(SECTIONS):
        raise ValueError(f"unknown report section {anchor!r}; sections: {', '.join(a for a, _ in SECTIONS)}")

    def register(fn: Renderer) -> Renderer:
        _REGISTRY[fmt][anchor] = fn
        return fn

    return register


def renderers(fmt: str) -> list[tuple[str, str, Renderer]]:
    """(anchor, title, renderer) of every section, in order, for one format."""
    have = _REGISTRY[fmt]
    missing = [a for a, _ in SECTIONS if a not in have]
    if missing:
        raise LookupError(f"the {fmt} report has no renderer for section(s) {', '.join(missing)}")
    return [(anchor, title, have[anchor]) for anchor, title in SECTIONS]
