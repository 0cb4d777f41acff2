"""``cost.md``: the FinOps report in Markdown, from a :class:`~landing_zone.finops.build.CostReport`."""

from __future__ import annotations

import math
from collections.abc import Sequence

from landing_zone.finops.build import CHART_NAME, BreakEvenRow, CheaperRanges, CostReport

__all__ = ["render_markdown"]

_MAX_LISTED_RANGES = 5

# --------------------------------------------------------------------------------------------------
# Formatting helpers
# --------------------------------------------------------------------------------------------------


def _usd(value: float) -> str:
    return f"{value:,.2f}"


def _tokens(value: float) -> str:
    return f"{value:,.0f}"


def _short_tokens(value: float) -> str:
    """1.54B / 365M / 12.2k (3 significant digits): for chart labels and prose next to exact figures."""
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:,.3g}{suffix}"
    return f"{value:,.0f}"


def _verified(flag: bool) -> str:
    return "yes" if flag else "**no**"


def _profile_label(profile: str) -> str:
    return profile.replace("_", " ")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], align: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    rule = {"l": "---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule[a] for a in align) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


# --------------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------------


def _describe_ranges(cheaper: CheaperRanges) -> str:
    """``1.04B–1.36B, 2.07B–2.71B and any volume from 4.15B`` (caller handles ``never``)."""
    parts = [f"{_short_tokens(lo)}–{_short_tokens(hi)}" for lo, hi in cheaper.ranges[:_MAX_LISTED_RANGES]]
    hidden = len(cheaper.ranges) - _MAX_LISTED_RANGES
    if hidden > 0:
        parts.append(f"{hidden} more range(s)")
    last = f"any volume from {_short_tokens(cheaper.permanent_from or 0.0)}"
    return f"{', '.join(parts)} and {last}" if parts else last


def _describe_cheaper(row: BreakEvenRow) -> str:
    if row.cheaper.never:
        return (
            f"never: one node produces {_short_tokens(row.result.output_tokens_per_month_capacity)}, "
            "less than its break-even volume"
        )
    return _describe_ranges(row.cheaper)


def render_markdown(report: CostReport, chart_name: str = CHART_NAME) -> str:
    """The text of ``cost.md`` (the chart is embedded by the relative path ``chart_name``)."""
    out = [
        *_workload_sections(report),
        *_price_sections(report),
        *_budget_section(report),
        *_breakeven_section(report),
        *_chart_section(report, chart_name),
        *_provenance_section(report),
    ]
    return "\n".join(out) + "\n"


def _workload_sections(report: CostReport) -> list[str]:
    """The heading, and the workload per model and for a self-hosted node."""
    out: list[str] = []
    w = report.workload
    hours = report.hours_per_month
    days = hours / 24.0
    input_day = w.requests_per_day * w.input_tokens_per_request
    output_day = w.requests_per_day * w.output_tokens_per_request
    ratio = input_day / output_day if output_day else float("nan")
    out += [
        f"# Cost report: {report.name}",
        "",
        "Computed offline by `python -m landing_zone cost-report` from the configuration and "
        "`landing_zone/core/catalog/prices.yaml`; no AWS call. Money is USD; a month is "
        f"{hours:g} hours ({days:g} days; {report.hours_per_month_source or 'prices.yaml'}). "
        "Figures are estimates from list prices: the bill is the authority.",
        "",
        "## Workload per model (`cost.workload`), each at its own prices",
        "",
    ]
    out += _table(
        (
            "part",
            "path",
            "requests/day",
            "input tokens/request",
            "cached",
            "output tokens/request",
            "priced at",
            "USD/month",
        ),
        "llrrrrlr",
        [
            (
                part.label,
                part.path,
                _tokens(part.workload.requests_per_day),
                _tokens(part.workload.input_tokens_per_request),
                f"{part.workload.cached_input_fraction:.0%}",
                _tokens(part.workload.output_tokens_per_request),
                f"`{part.prices.source_name}` ({_verified(part.prices.verified)})",
                _usd(estimate.monthly_usd),
            )
            for part, estimate in report.budget.parts
        ],
    )
    out += [
        "",
        "## Workload a self-hosted Kimi K3 node would serve",
        "",
        "The self-hosting comparison below covers only the Kimi K3 models' part of the workload (all of it when no "
        "part is on them), at their prices: other models are never priced at Kimi K3's figures.",
        "",
    ]
    out += _table(
        ("quantity", "value"),
        "lr",
        [
            ("requests per day", _tokens(w.requests_per_day)),
            ("input tokens per request (including the cached part)", _tokens(w.input_tokens_per_request)),
            ("share of input read from the prompt cache", f"{w.cached_input_fraction:.0%}"),
            ("share of input written to the prompt cache (at the cache-write price)", f"{w.cache_write_fraction:.0%}"),
            ("output tokens per request", _tokens(w.output_tokens_per_request)),
            ("input tokens per day", _tokens(input_day)),
            ("output tokens per day", _tokens(output_day)),
            ("output tokens per month", _tokens(report.workload_output_tokens_per_month)),
            ("input:output token ratio", f"{ratio:.2f}" if math.isfinite(ratio) else "n/a"),
        ],
    )
    return out


def _price_sections(report: CostReport) -> list[str]:
    """The Kimi K3 prices and the workload's cost at each."""
    out: list[str] = []
    out += ["", "## Kimi K3 prices (USD per 1M tokens)", ""]
    out += _table(
        ("price source", "input", "cache read", "cache write", "output", "source", "as of", "verified"),
        "lrrrrlll",
        [
            (
                f"`{p.source_name}`" + (" (configured)" if p.source_name == report.price_source else ""),
                _usd(p.input_usd_per_million),
                _usd(p.cache_read_usd_per_million),
                _usd(p.cache_write_usd_per_million),
                _usd(p.output_usd_per_million),
                p.source,
                p.as_of,
                _verified(p.verified),
            )
            for p in report.prices
        ],
    )
    discounts = [p for p in report.prices if p.global_profile_discount_fraction]
    if discounts:
        out += [
            "",
            "Global cross-Region profiles are cheaper by "
            + ", ".join(f"{p.global_profile_discount_fraction:.0%} (`{p.source_name}`)" for p in discounts)
            + "; the figures below use the undiscounted prices.",
        ]
    unverified = [p.source_name for p in report.prices if not p.verified]
    if unverified:
        out += [
            "",
            f"**Unverified prices:** {', '.join(f'`{n}`' for n in unverified)}. Check them against the "
            "provider's pricing page or your contract before relying on these numbers.",
        ]

    out += ["", "## Cost of the Kimi K3 workload at each Kimi K3 price", ""]
    out += _table(
        (
            "price source",
            "input USD/day",
            "cache read USD/day",
            "cache write USD/day",
            "output USD/day",
            "total USD/day",
            "total USD/month",
        ),
        "lrrrrrr",
        [
            (
                f"`{e.price_source}`" + (" (configured)" if e.price_source == report.price_source else ""),
                _usd(e.input_usd_per_day),
                _usd(e.cache_read_usd_per_day),
                _usd(e.cache_write_usd_per_day),
                _usd(e.output_usd_per_day),
                _usd(e.daily_usd),
                _usd(e.monthly_usd),
            )
            for e in report.estimates
        ],
    )
    return out


def _budget_section(report: CostReport) -> list[str]:
    """The budget and the configured workload's share of it."""
    out: list[str] = []
    b = report.budget
    out += ["", "## Budget", ""]
    out.append(
        f"**{_usd(b.usd)} USD/month** ({_usd(b.daily_usd)} USD/day, {_usd(b.hourly_usd)} USD/hour on average): "
        f"{b.basis}."
    )
    if b.explicit:
        share = b.estimate.monthly_usd / b.usd
        out.append(
            f"The configured workload is estimated at {_usd(b.estimate.monthly_usd)} USD/month, each model at its "
            f"own prices, {share:.0%} of the budget."
        )
    return out


def _breakeven_section(report: CostReport) -> list[str]:
    """Self-hosting break-even per throughput profile."""
    out: list[str] = []
    hours = report.hours_per_month
    node_month = report.node_monthly_usd
    inst = report.instance
    out += [
        "",
        f"## Self-hosting break-even: {inst.instance_type}",
        "",
        f"{inst.description or inst.instance_type}. {_usd(report.hourly_usd)} USD/hour = "
        f"**{_usd(node_month)} USD/month per node** running 24/7 ({hours:g} h). Source: {inst.source} "
        f"(as of {inst.as_of}, {'verified' if inst.verified else 'NOT verified'}).",
        "",
        f"The comparison is **blended**: a node's throughput already includes reading the prompts, while the API "
        f"bills the input tokens on top of every output token, so the API side is the cost of 1M output tokens "
        f"with their {report.input_output_ratio:g}M input tokens, {report.cached_input_fraction:.0%} of them read "
        f"from the prompt cache and {report.cache_write_fraction:.0%} written to it (the configured workload). "
        "The break-even volume is where the API bill equals one node's monthly cost; a node that cannot produce "
        "that volume never pays off, whatever the volume. "
        "The last two columns compare with the output price alone, which ignores the input tokens.",
        "",
    ]
    out += _table(
        (
            "throughput profile",
            "output tok/s per node",
            "self-hosted USD/1M output",
            "vs",
            "API USD/1M output (blended)",
            "ratio self/API (blended)",
            "break-even tok/s (blended)",
            "break-even output tokens/month",
            "break-even input tokens/month",
            "one node's output tokens/month",
            "nodes at break-even",
            "self-hosting cheaper at output tokens/month",
            "API output price alone",
            "ratio, output price alone",
        ),
        "lrrlrrrrrrrlrr",
        [
            (
                _profile_label(row.profile),
                f"{row.result.tokens_per_second:,.1f}",
                _usd(row.result.usd_per_million_output_tokens),
                f"`{row.result.price_source}`",
                _usd(row.result.api_usd_per_million_output_tokens_blended),
                f"{row.result.ratio_to_api_blended:,.2f}",
                f"{row.result.breakeven_tokens_per_second_blended:,.1f}",
                _tokens(row.result.breakeven_output_tokens_per_month),
                _tokens(row.result.breakeven_input_tokens_per_month),
                _tokens(row.result.output_tokens_per_month_capacity),
                str(row.result.breakeven_nodes),
                _describe_cheaper(row),
                _usd(row.result.api_usd_per_million_output_tokens),
                f"{row.result.ratio_to_api:,.2f}",
            )
            for row in report.breakevens
        ],
    )
    return out


def _chart_section(report: CostReport, chart_name: str) -> list[str]:
    """The chart and, per price source, where self-hosting is cheaper."""
    out: list[str] = []
    node_month = report.node_monthly_usd
    inst = report.instance
    out += [
        "",
        "## Monthly cost against volume",
        "",
        f"![Monthly cost against monthly output-token volume: API price sources and self-hosted "
        f"{inst.instance_type} nodes]({chart_name})",
        "",
        f"The step line is self-hosting at {report.chart_tokens_per_second:g} output tokens/s per node "
        f"(`{report.chart_profile}`, the realistic sustained figure): nodes = ceil(volume / "
        f"{_tokens(report.chart_capacity)}), each {_usd(node_month)} USD/month. The dotted vertical line is "
        f"the configured workload ({_tokens(report.workload_output_tokens_per_month)} output tokens/month).",
        "",
    ]
    for s in report.chart_series:
        be = s.breakeven
        name = f"`{s.prices.source_name}`"
        if s.crossings:
            first = s.crossings[0]
            out.append(
                f"- {name}: break-even at **{_tokens(first)} output tokens/month** "
                f"({_tokens(first * report.input_output_ratio)} input tokens/month). Self-hosting is cheaper at "
                f"{_describe_ranges(s.cheaper)} output tokens/month; in the gaps between those ranges the "
                "volume has just outgrown the last node and the next node is not yet paid for."
            )
        else:
            out.append(
                f"- {name}: the API stays cheaper at every volume. One node's cost buys "
                f"{_tokens(be.breakeven_output_tokens_per_month)} output tokens/month from the API, more than the "
                f"{_tokens(be.output_tokens_per_month_capacity)} one node produces at this throughput: "
                f"self-hosting costs {_usd(be.usd_per_million_output_tokens)} USD per 1M output tokens, the API "
                f"{_usd(be.api_blended_usd_per_million_output_tokens)} USD for 1M output tokens with their "
                f"{report.input_output_ratio:g}M input tokens ({be.ratio_to_api_blended:,.2f}x)."
            )
    return out


def _provenance_section(report: CostReport) -> list[str]:
    """Where each figure comes from."""
    out: list[str] = []
    inst = report.instance
    out += [
        "",
        "## Provenance",
        "",
        "- Prices, throughputs and hours per month: `landing_zone/core/catalog/prices.yaml`.",
    ]
    for p in report.prices:
        out.append(
            f"- `{p.source_name}`: {p.source} (as of {p.as_of}, {'verified' if p.verified else 'NOT verified'})."
        )
    out.append(
        f"- `{inst.instance_type}`: {inst.source} (as of {inst.as_of}, "
        f"{'verified' if inst.verified else 'NOT verified'})."
    )
    return out


# --------------------------------------------------------------------------------------------------
# Chart
# --------------------------------------------------------------------------------------------------
