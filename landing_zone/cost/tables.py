"""Fixed-width text tables of the cost arithmetic (the only place where numbers are rounded)."""

from __future__ import annotations

from landing_zone.cost.pricing import BreakEven, CostEstimate

__all__ = ["format_breakeven_table", "format_cost_table"]

_HOURS_PER_DAY = 24.0


def _usd(value: float) -> str:
    return f"{value:,.2f}"


def _tokens(value: float) -> str:
    return f"{value:,.0f}"


def _table(title: str, header: tuple[str, ...], rows: list[tuple[str, ...]], notes: list[str]) -> str:
    body = [row for row in rows if row != ("---",)]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        first = row[0].ljust(widths[0])
        rest = [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    out = [title, line(header), rule]
    for row in rows:
        out.append(rule if row == ("---",) else line(row))
    out.extend(notes)
    return "\n".join(out)


def format_cost_table(estimate: CostEstimate) -> str:
    """Fixed-width table of a :class:`CostEstimate`: tokens/day, USD per 1M, USD/day and USD/month."""
    per_month = estimate.hours_per_month / _HOURS_PER_DAY  # days per month
    parts = [
        ("input (uncached)", "input", estimate.input_usd_per_day),
        ("cache read", "cache_read", estimate.cache_read_usd_per_day),
        ("cache write", "cache_write", estimate.cache_write_usd_per_day),
        ("output", "output", estimate.output_usd_per_day),
    ]
    rows: list[tuple[str, ...]] = []
    for label, key, usd_day in parts:
        rate = estimate.usd_per_million.get(key)
        rows.append(
            (
                label,
                _tokens(estimate.tokens_per_day.get(key, 0.0)),
                "" if rate is None else _usd(rate),
                _usd(usd_day),
                _usd(usd_day * per_month),
            )
        )
    rows.append(("---",))
    rows.append(
        (
            "total",
            _tokens(sum(estimate.tokens_per_day.values())),
            "",
            _usd(estimate.daily_usd),
            _usd(estimate.monthly_usd),
        )
    )
    notes = [
        f"hourly: {_usd(estimate.hourly_usd)} USD/h; month = {estimate.hours_per_month:g} h ({per_month:g} days)",
    ]
    if estimate.prices_source:
        verified = "verified" if estimate.prices_verified else "NOT verified"
        notes.append(f"prices: {estimate.prices_source} (as of {estimate.prices_as_of}, {verified})")
    return _table(
        f"Token cost at price source {estimate.price_source!r}",
        ("component", "tokens/day", "USD/1M tokens", "USD/day", "USD/month"),
        rows,
        notes,
    )


def format_breakeven_table(be: BreakEven) -> str:
    """Fixed-width table of a :class:`BreakEven` with units: the blended comparison first, the output-price-only
    figures after it, labelled."""
    api = be.price_source or "API"
    cache = (
        f", {be.cached_input_fraction:.0%} of input cached" if be.cached_input_fraction else ", no prompt caching"
    ) + (f", {be.cache_write_fraction:.0%} cache-written" if be.cache_write_fraction else "")
    rows: list[tuple[str, ...]] = [
        ("throughput", f"{be.tokens_per_second:,.1f}", "output tokens/s per node"),
        ("instance price", _usd(be.hourly_usd), "USD/h"),
        ("monthly node cost (24/7)", _usd(be.monthly_usd), f"USD/month ({be.hours_per_month:g} h)"),
        ("self-hosted cost", _usd(be.usd_per_million_output_tokens), "USD/1M output tokens (prompts included)"),
        ("input per output token (R)", f"{be.input_output_ratio:g}", f"input tokens/output token{cache}"),
        (f"{api}: 1M output + R*1M input", _usd(be.api_usd_per_million_output_tokens_blended), "USD (blended)"),
        ("ratio self-hosted / API (blended)", f"{be.ratio_to_api_blended:,.2f}", "x"),
        (
            "break-even throughput (blended)",
            f"{be.breakeven_tokens_per_second_blended:,.1f}",
            "output tokens/s per node",
        ),
        ("break-even output volume", _tokens(be.breakeven_output_tokens_per_month), "output tokens/month"),
        ("break-even input volume", _tokens(be.breakeven_input_tokens_per_month), "input tokens/month"),
        ("one node's capacity", _tokens(be.output_tokens_per_month_capacity), "output tokens/month"),
        ("nodes for break-even volume", f"{be.breakeven_nodes:d}", "nodes"),
        (f"{api} output price alone", _usd(be.api_usd_per_million_output_tokens), "USD/1M output tokens (no input)"),
        ("ratio, output price alone", f"{be.ratio_to_api:,.2f}", "x (ignores the input tokens)"),
        ("break-even, output price alone", f"{be.breakeven_tokens_per_second:,.1f}", "output tokens/s (ignores input)"),
    ]
    if be.breakeven_reachable:
        verdict = (
            f"one node can serve its break-even volume: above {be.breakeven_tokens_per_second_blended:,.1f} "
            "output tokens/s sustained, self-hosting is cheaper than the API (blended)"
        )
    else:
        verdict = (
            f"one node cannot serve its break-even volume: at {be.tokens_per_second:,.1f} output tokens/s "
            f"self-hosting costs {be.ratio_to_api_blended:,.2f}x the API (blended); it needs "
            f"{be.breakeven_tokens_per_second_blended:,.1f} output tokens/s sustained to break even"
        )
    title = "Self-hosting break-even"
    if be.instance_type:
        title += f": {be.instance_type}"
    title += f" vs {api}"
    return _table(title, ("quantity", "value", "unit"), rows, [verdict])
