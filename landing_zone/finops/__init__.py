"""The FinOps report: ``cost.md`` plus the chart ``cost-vs-volume.png``, computed offline from the plan.

* :mod:`.build` — the numbers (pure): workload at every price source, the plan's budget, break-even, chart series;
* :mod:`.markdown` — ``cost.md``;
* :mod:`.chart` — ``cost-vs-volume.png``.
"""

from __future__ import annotations

from pathlib import Path

from landing_zone.finops.build import (
    CHART_NAME,
    DEFAULT_CHART_THROUGHPUT,
    DEFAULT_INSTANCE_TYPE,
    REPORT_NAME,
    CheaperRanges,
    CostReport,
    ReportError,
    build_report,
    cheaper_ranges,
)
from landing_zone.finops.chart import render_chart
from landing_zone.finops.markdown import render_markdown
from landing_zone.plan import Plan

__all__ = [
    "CHART_NAME",
    "DEFAULT_CHART_THROUGHPUT",
    "DEFAULT_INSTANCE_TYPE",
    "REPORT_NAME",
    "CheaperRanges",
    "CostReport",
    "ReportError",
    "build_report",
    "cheaper_ranges",
    "render_chart",
    "render_markdown",
    "write_cost_report",
]

# --------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------


def write_cost_report(plan: Plan, out_dir: Path) -> dict[str, Path]:
    """Write ``out_dir/cost.md`` and ``out_dir/cost-vs-volume.png``; returns ``{"markdown": ..., "chart": ...}``."""
    folder = Path(out_dir)
    report = build_report(plan)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"--out {str(folder)!r}: cannot create the folder ({exc.strerror})") from None
    chart = folder / CHART_NAME
    markdown = folder / REPORT_NAME
    try:
        render_chart(report, chart)
        markdown.write_text(render_markdown(report, CHART_NAME), encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"--out {str(folder)!r}: cannot write the report ({exc.strerror or exc})") from None
    return {"markdown": markdown, "chart": chart}
