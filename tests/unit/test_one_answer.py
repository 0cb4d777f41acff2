"""One answer everywhere: the break-even and the cache-write price are the same in the CLI, the plan, the report,
the alarms, the dashboard and docs/COST.md."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from landing_zone.cli import main
from landing_zone.cost.alarms import evaluate_expression
from landing_zone.cost.self_hosting import economics
from landing_zone.finops import headline
from landing_zone.finops.build import build_report
from landing_zone.finops.dashboard_png import synthetic_day
from landing_zone.finops.markdown import render_markdown

ROOT = Path(__file__).resolve().parents[2]
COST_MD = (ROOT / "docs" / "COST.md").read_text(encoding="utf-8")


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def plan(plan_for):
    return plan_for()


@pytest.fixture(scope="module")
def writing_plan(plan_for):
    """The default configuration with 10 % of the input written to the prompt cache."""
    return plan_for(cost={"workload": {"cache_write_fraction": 0.1}})


# --------------------------------------------------------------------------------------------------
# The break-even
# --------------------------------------------------------------------------------------------------


def test_breakeven_without_flags_is_the_configured_answer_everywhere(plan):
    code, out, err = _run("breakeven", "--json")
    assert code == 0, err
    cli = json.loads(out)
    plan_be = economics(plan.config, plan.prices, plan.model_prices, plan.workload_parts).break_even
    report = build_report(plan)
    row = next(
        r.result for r in report.breakevens if r.profile == "concurrency_8" and r.result.price_source == "bedrock"
    )
    for be in (plan_be, row):
        assert cli["ratio_to_api_blended"] == pytest.approx(be.ratio_to_api_blended, rel=1e-12)
        assert cli["breakeven_tokens_per_second_blended"] == pytest.approx(be.breakeven_tokens_per_second_blended)
    # the figures docs/COST.md states for the default workload
    assert f"{cli['ratio_to_api_blended']:.2f}× Bedrock" in COST_MD
    assert f"**{cli['breakeven_tokens_per_second_blended']:,.1f} tokens/s**" in COST_MD or (
        f"{cli['breakeven_tokens_per_second_blended']:,.1f} tokens/s" in COST_MD
    )
    assert (cli["cached_input_fraction"], cli["overridden_by"]) == (0.5, [])
    # and make cost's headline
    text = "\n".join(headline(plan))
    assert f"{cli['breakeven_tokens_per_second_blended']:,.1f} output tokens/s" in text
    assert f"{cli['ratio_to_api_blended']:,.2f}x the API" in text


def test_breakeven_reads_the_configured_cache_writes(tmp_path, writing_plan):
    config = tmp_path / "writes.yaml"
    config.write_text("cost:\n  workload:\n    cache_write_fraction: 0.1\n", encoding="utf-8")
    code, out, err = _run("breakeven", "--config", str(config), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["cache_write_fraction"] == 0.1 and "10% cache writes" in data["inputs"]
    # 5 x (0.4 x 3 + 0.5 x 0.75 + 0.1 x 3.75) + 12 = 21.75 USD for 1M output tokens with their input
    assert data["api_usd_per_million_output_tokens_blended"] == pytest.approx(21.75)
    plan_be = economics(
        writing_plan.config, writing_plan.prices, writing_plan.model_prices, writing_plan.workload_parts
    ).break_even
    assert data["breakeven_tokens_per_second_blended"] == pytest.approx(plan_be.breakeven_tokens_per_second_blended)


# --------------------------------------------------------------------------------------------------
# The cache-write factor
# --------------------------------------------------------------------------------------------------


def _docs_cache_write_price() -> float:
    """The cache-write column of Kimi K3.1 Pro's `bedrock` row in docs/COST.md's price table."""
    row = next(line for line in COST_MD.splitlines() if line.strip().startswith("| Kimi K3.1 Pro | `bedrock` |"))
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    return float(cells[5])  # model, entry, paths, input, cache read, cache write, output, ...


def test_the_cache_write_factor_is_one_figure_in_docs_alarms_and_report(plan):
    docs = _docs_cache_write_price()
    catalog = plan.model_prices.get("moonshotai.kimi-k3.1-pro", "geographic-profile").cache_write_usd_per_million
    (alarm,) = plan.cost_alarms.spend
    factors = {float(f) for f in re.findall(r"FILL\(m\d+_cw, 0\) \* ([0-9.]+)", alarm.expression)}
    report = render_markdown(build_report(plan))
    row = next(line for line in report.splitlines() if line.startswith("| `bedrock` (configured) |"))
    report_factor = float(row.strip("|").split("|")[3])  # entry, input, cache read, cache write
    assert docs == catalog == report_factor == 3.75
    assert factors == {3.75}  # every K3.1 Pro series of the alarm, Mantle has no cache metric
    # the worked alarm expression in docs/COST.md names the same factor
    assert "FILL(m0_cw,0)*3.75" in COST_MD.replace(" ", "")


def test_configured_cache_writes_are_billed_in_budget_alarm_dashboard_and_report(plan, writing_plan):
    e = writing_plan.budget.estimate
    # 10,000 x 6,000 x 0.1 = 6e6 cache-write tokens a day at 3.75; the plain input drops to 40 %
    assert e.cache_write_usd_per_day == pytest.approx(6e6 * 3.75 / 1e6)
    assert e.input_usd_per_day == pytest.approx(10_000 * 6_000 * 0.4 * 3 / 1e6)
    assert e.daily_usd == pytest.approx(256.5 - 6e6 * 3 / 1e6 + 6e6 * 3.75 / 1e6)
    # the synthetic day feeds cache writes to the dashboard's own expressions: the application line (90 % of the
    # workload; 10 % is on Mantle, which has no cache metrics) is 90 % of the cost model's hourly figure
    day = synthetic_day(writing_plan)
    spend = next(g for g in writing_plan.dashboard.graphs if g.title.startswith("Estimated spend by application"))
    line = next(x for x in spend.lines if x.label == "application workload")
    values = {m.id: day.value(m, None, spend.period) for m in line.metrics}
    assert evaluate_expression(line.expression or "", values) == pytest.approx(0.9 * e.hourly_usd, rel=1e-9)
    # the dashboard shows a cache-write token panel only when cache writes are configured
    titles = [g.title for g in writing_plan.dashboard.graphs]
    assert "Tokens per minute: cache write" in titles
    assert "Tokens per minute: cache write" not in [g.title for g in plan.dashboard.graphs]
    report = build_report(writing_plan)
    assert report.cache_write_fraction == pytest.approx(0.1)
    assert report.estimates[0].cache_write_usd_per_day == pytest.approx(22.5)


def test_cached_and_written_shares_above_one_are_refused(plan_for):
    from landing_zone.errors import ConfigError

    with pytest.raises(ConfigError, match=r"cached_input_fraction \+ cache_write_fraction = 1.1"):
        plan_for(cost={"workload": {"cached_input_fraction": 0.6, "cache_write_fraction": 0.5}})


def test_the_cumulative_panel_includes_mantle(plan):
    panel = next(g for g in plan.dashboard.graphs if g.cumulative)
    labels = [line.label for line in panel.lines]
    assert any(label.startswith("mantle ") for label in labels), labels
    ids = [m.id for line in panel.lines for m in line.metrics]
    assert len(ids) == len(set(ids))  # one widget never uses a metric ID twice
    # at the synthetic day's mean the cumulative lines add up to the whole workload, Mantle's 10 % included
    day = synthetic_day(plan)
    hourly = sum(
        evaluate_expression(line.expression or "", {m.id: day.value(m, None, 3600) for m in line.metrics})
        for line in panel.lines
    )
    mantle_free = plan.budget.estimate.hourly_usd
    assert hourly > 0.9 * mantle_free  # 9.62 (applications) + 1.35 (Mantle) = 10.97 USD/hour
    assert hourly == pytest.approx(10.97, abs=0.01)
