"""The FinOps report: ``cost.md`` plus the chart ``cost-vs-volume.png``, computed offline from the plan.

* :mod:`.build` — the numbers (pure): workload at every price source, the plan's budget, break-even, chart series;
* :mod:`.markdown` — ``cost.md``;
* :mod:`.chart` — ``cost-vs-volume.png``.
"""

from __future__ import annotations

from pathlib import Path

from landing_zone.cost.alarms import evaluate_expression
from landing_zone.cost.dashboard import GraphPanel
from landing_zone.cost.self_hosting import economics
from landing_zone.errors import PricingError
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
from landing_zone.finops.dashboard_png import SyntheticDay, render_dashboard
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
    "dashboard_section",
    "headline",
    "render_chart",
    "render_markdown",
    "write_cost_report",
]

# --------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------


DASHBOARD_PNG = "dashboard.png"


def dashboard_section(plan: Plan, day: SyntheticDay) -> str:
    """cost.md's section on the operations dashboard: the panels and the worked example at the day's mean."""
    lines = [
        "",
        "## Operations dashboard",
        "",
        f"The stack `{plan.config.name}-cost` creates the CloudWatch dashboard `{plan.dashboard.name}` (stack output "
        "`OperationsDashboardUrl`) from the same metric sources, prices and formula as the spend alarms. "
        f"`{DASHBOARD_PNG}` shows it for a synthetic day: {day.description}",
        "",
        "| panel | unit | lines |",
        "|---|---|---|",
    ]
    for panel in plan.dashboard.panels:
        if isinstance(panel, GraphPanel):
            lines.append(f"| {panel.title} | {panel.unit} | {len(panel.lines)} |")
        else:
            lines.append(f"| {panel.title} | | |")
    spend_panels = [
        g for g in plan.dashboard.graphs if g.unit == "USD/hour" and not g.cumulative and "spend" in g.title.lower()
    ]
    if spend_panels:
        lines += ["", "Worked example, the synthetic day's mean rate, each line's expression evaluated offline:", ""]
        total = 0.0
        for panel in spend_panels:
            for line in panel.lines:
                values = {m.id: day.value(m, None, panel.period) for m in line.metrics}
                if line.expression is None or any(v is None for v in values.values()):
                    continue
                usd = evaluate_expression(line.expression, values)
                total += usd
                lines.append(f"- {line.label}: {usd:,.2f} USD/hour")
        lines.append(
            f"- total {total:,.2f} USD/hour against the spend alarm at {plan.cost_alarms.threshold_usd_per_hour:,.2f} "
            f"USD/hour and the budget rate {plan.budget.usd / plan.prices.hours_per_month:,.2f} USD/hour"
        )
    return "\n".join(lines) + "\n"


def write_cost_report(plan: Plan, out_dir: Path) -> dict[str, Path]:
    """Write ``cost.md``, ``cost-vs-volume.png`` and ``dashboard.png`` into ``out_dir``; returns their paths
    (``markdown``, ``chart``, ``dashboard``)."""
    folder = Path(out_dir)
    report = build_report(plan)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"--out {str(folder)!r}: cannot create the folder ({exc.strerror})") from None
    chart = folder / CHART_NAME
    markdown = folder / REPORT_NAME
    dashboard = folder / DASHBOARD_PNG
    try:
        render_chart(report, chart)
        day = render_dashboard(plan, dashboard)
        text = render_markdown(report, CHART_NAME) + dashboard_section(plan, day)
        markdown.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"--out {str(folder)!r}: cannot write the report ({exc.strerror or exc})") from None
    return {"markdown": markdown, "chart": chart, "dashboard": dashboard}


def headline(plan: Plan, paths: dict[str, Path] | None = None) -> list[str]:
    """What ``make cost`` prints: the daily and monthly estimate, the budget, the alarm threshold, the break-even of
    one node on the configured workload (the figure ``breakeven`` prints without flags) and where the files are."""
    b = plan.budget
    e = b.estimate
    lines = [
        f"{plan.config.name}: estimated {e.daily_usd:,.2f} USD/day, {e.monthly_usd:,.2f} USD/month for cost.workload "
        f"({len(b.parts) or 1} part(s), each model at its own prices; cache writes {e.cache_write_usd_per_day:,.2f} "
        "USD/day)",
        f"budget {b.usd:,.2f} USD/month ({b.basis}); spend alarm above {plan.cost_alarms.threshold_usd_per_hour:,.2f} "
        f"USD/hour ({plan.cost_alarms.threshold_basis})",
    ]
    try:
        econ = economics(plan.config, plan.prices, plan.model_prices, plan.workload_parts)
    except PricingError as exc:
        lines.append(f"break-even: not computed ({exc})")
    else:
        be = econ.break_even
        lines.append(
            f"break-even: {be.breakeven_tokens_per_second_blended:,.1f} output tokens/s per {econ.instance_type} "
            f"against {be.price_source!r}; at the configured {econ.expected_tokens_per_second:g} tokens/s a node "
            f"costs {be.ratio_to_api_blended:,.2f}x the API (blended, {be.cached_input_fraction:.0%} cache reads, "
            f"{be.cache_write_fraction:.0%} cache writes)"
        )
    if paths:
        lines.append("wrote: " + ", ".join(str(p) for p in paths.values()))
    return lines
