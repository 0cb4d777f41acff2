"""The FinOps report: files, PNG size and determinism, the numbers in cost.md and the break-even geometry.

Default configuration (cdk.json): 10,000 requests/day x (6,000 input, 50% cached, + 1,200 output) tokens.

    bedrock             30M x 3.00 + 30M x 0.75 + 12M x 12.00 = 256.50 USD/day -> x 730/24 = 7,801.88 USD/month
    kimi-api            30M x 2.00 + 30M x 0.20 + 12M x 10.00 = 186.00 USD/day -> 5,657.50 USD/month
    kimi-api-highspeed  30M x 4.00 + 30M x 0.20 + 12M x 20.00 = 366.00 USD/day -> 11,132.50 USD/month
    budget              7,801.875 x 1.2 = 9,362.25 USD/month

8xB300 at 56.79 USD/h = 41,456.70 USD/month.  The API side is blended at the workload's ratio (6,000 / 1,200 = 5
input tokens per output token) and cache share (50 %): effective input = 0.5 x in + 0.5 x cache read, blended =
5 x effective input + out, break-even output volume = 41,456.70 / (blended / 1e6):
bedrock             5 x (1.50 + 0.375) + 12 = 21.375 -> 1,939,494,737
kimi-api            5 x (1.00 + 0.10)  + 10 = 15.50  -> 2,674,625,806
kimi-api-highspeed  5 x (2.00 + 0.10)  + 20 = 30.50  -> 1,359,236,066
One node at 516 tok/s produces 516 x 3600 x 730 = 1,356,048,000 output tokens/month: below every break-even, so
at the measured throughput the API stays cheaper against every source (highspeed by 0.2 %); at 4,634 tok/s
(the aggregate figure) a node pays off against all of them.
"""

from __future__ import annotations

import math
import struct
import subprocess
import sys

import pytest

from landing_zone.cost.pricing import Workload, break_even, estimate_cost
from landing_zone.finops import write_cost_report
from landing_zone.finops.build import (
    CHART_DPI,
    CHART_NAME,
    CHART_SIZE_INCHES,
    REPORT_NAME,
    build_report,
    cheaper_ranges,
)
from tests.conftest import ROOT

NODE_MONTH = 56.79 * 730
CAPACITY_516 = 516 * 3600 * 730
BREAKEVEN = {
    "bedrock": NODE_MONTH / 21.375e-6,
    "kimi-api": NODE_MONTH / 15.5e-6,
    "kimi-api-highspeed": NODE_MONTH / 30.5e-6,
}


@pytest.fixture(scope="module")
def written(plan_for, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    return out, write_cost_report(plan_for(), out)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (length, kind) == (13, b"IHDR")
    return struct.unpack(">II", data[16:24])


def test_report_files_are_written_and_returned(written):
    out, paths = written
    assert paths == {"markdown": out / REPORT_NAME, "chart": out / CHART_NAME, "dashboard": out / "dashboard.png"}
    assert REPORT_NAME == "cost.md" and CHART_NAME == "cost-vs-volume.png"
    assert all(p.is_file() and p.stat().st_size > 0 for p in paths.values())


def test_chart_is_a_png_of_the_expected_pixel_size(written):
    _, paths = written
    data = paths["chart"].read_bytes()
    width, height = png_size(data)
    assert (width, height) == (CHART_SIZE_INCHES[0] * CHART_DPI, CHART_SIZE_INCHES[1] * CHART_DPI) == (1200, 700)
    assert data.endswith(b"IEND\xaeB`\x82")
    assert b"Software" not in data and b"matplotlib" not in data  # no version-dependent metadata


def test_output_is_deterministic(plan_for, written, tmp_path):
    _, first = written
    second = write_cost_report(plan_for(), tmp_path)
    assert second["chart"].read_bytes() == first["chart"].read_bytes()
    assert second["markdown"].read_text() == first["markdown"].read_text()


def test_markdown_has_the_workload_costs_and_budget(written):
    _, paths = written
    md = paths["markdown"].read_text()
    assert md.startswith("# Cost report: kimi-lz\n")
    assert f"{256.5 * 730 / 24:,.2f}" == "7,801.88"
    assert "| `bedrock` (configured) | 90.00 | 22.50 | 0.00 | 144.00 | 256.50 | 7,801.88 |" in md
    assert "| `kimi-api` | 60.00 | 6.00 | 0.00 | 120.00 | 186.00 | 5,657.50 |" in md
    assert "| `kimi-api-highspeed` | 120.00 | 6.00 | 0.00 | 240.00 | 366.00 | 11,132.50 |" in md
    assert "**9,362.25 USD/month**" in md and "budget_headroom 1.2" in md
    assert "| requests per day | 10,000 |" in md and "| output tokens per month | 365,000,000 |" in md


def test_markdown_has_prices_with_provenance(written):
    _, paths = written
    md = paths["markdown"].read_text()
    assert "| `bedrock` (configured) | 3.00 | 0.75 | 3.75 | 12.00 |" in md
    assert (
        "| `kimi-api` | 2.00 | 0.20 | 2.00 | 10.00 | Moonshot's own API prices of kimi-k3.1-pro (2.00 input, 0.20 cache read,"
        in md
    )
    assert "| `bedrock-kimi-k3-us` | 3.30 | 0.33 | 4.12 | 16.50 | Amazon Bedrock user guide, 'Kimi K3' model card" in md
    assert "**Unverified prices:**" in md
    assert "## Provenance" in md and "(as of 2026-11-08, NOT verified)" in md


def test_markdown_has_the_breakeven_table_and_embeds_the_chart(written):
    _, paths = written
    md = paths["markdown"].read_text()
    assert "**41,456.70 USD/month per node**" in md
    for source, volume in BREAKEVEN.items():
        assert f"{volume:,.0f}" in md, source
    assert "1,939,494,737" in md and "1,359,236,066" in md
    assert "| 21.38 | 1.43 | 738.0 |" in md  # bedrock at 516 tok/s: blended USD/1M, ratio, break-even tok/s
    assert "**blended**" in md and "50% of them read from the prompt cache" in md
    # 4 measured throughputs x 3 price sources
    for tps in ("92.0", "105.8", "516.0", "4,634.0"):
        assert md.count(f"| {tps} |") == 5, tps  # one row per price source
    assert "](cost-vs-volume.png)" in md and "![" in md
    assert "516 output tokens/s per node (`concurrency_8`" in md
    assert "- `kimi-api-highspeed`: the API stays cheaper at every volume" in md
    assert "- `bedrock`: the API stays cheaper at every volume" in md and "(1.43x)" in md


def test_explicit_budget_is_reported(plan_for, tmp_path):
    paths = write_cost_report(plan_for(cost={"monthly_budget_usd": 5000}), tmp_path)
    md = paths["markdown"].read_text()
    assert "**5,000.00 USD/month**" in md and "set in config (cost.monthly_budget_usd)" in md
    assert f"{256.5 * 730 / 24 / 5000:.0%} of the budget" in md


def test_report_numbers_are_the_pricing_module_s(plan_for):
    plan = plan_for()
    report = build_report(plan)
    workload = Workload(10_000, 6_000, 1_200, 0.5)
    assert report.workload == workload
    for prices, estimate in zip(report.prices, report.estimates, strict=True):
        assert estimate == estimate_cost(workload, prices, hours_per_month=730)
    assert [p.source_name for p in report.prices] == [
        "bedrock",
        "kimi-api",
        "kimi-api-highspeed",
        "bedrock-kimi-k3-us",
        "bedrock-kimi-k3-global",
    ]
    assert report.hourly_usd == 56.79 and report.instance.instance_type == "p6-b300.48xlarge"
    assert len(report.breakevens) == 20
    for row in report.breakevens:
        expected = break_even(
            tokens_per_second=row.result.tokens_per_second,
            hourly_usd=56.79,
            api_prices=plan.prices.prices(row.result.price_source),
            hours_per_month=730,
            input_output_ratio=5,
            instance_type="p6-b300.48xlarge",
            cached_input_fraction=0.5,  # the configured workload's
        )
        assert row.result == expected
    assert sorted({row.result.tokens_per_second for row in report.breakevens}) == [92.0, 105.8, 516.0, 4634.0]


def test_chart_data_uses_516_tokens_per_second_and_marks_the_crossings(plan_for):
    report = build_report(plan_for())
    assert report.chart_profile == "concurrency_8" and report.chart_tokens_per_second == 516.0
    assert report.chart_capacity == pytest.approx(CAPACITY_516)
    assert report.chart_max_volume == pytest.approx(3 * CAPACITY_516)  # whole node segments
    series = {s.prices.source_name: s for s in report.chart_series}
    assert all(s.crossings == () for s in series.values())  # at 516 tok/s no source is beaten
    assert series["kimi-api-highspeed"].breakeven.breakeven_output_tokens_per_month == pytest.approx(
        BREAKEVEN["kimi-api-highspeed"]
    )
    # without prompt caching (--cached-input-fraction 0) highspeed is beaten from its break-even volume on
    uncached = {s.prices.source_name: s for s in build_report(plan_for(), cached_input_fraction=0.0).chart_series}
    b = NODE_MONTH / 40e-6
    assert uncached["kimi-api-highspeed"].crossings == pytest.approx((b, 2 * b, 3 * b))
    step = [(p.output_tokens_per_month, p.nodes) for p in series["bedrock"].curve]
    assert step[0] == (0.0, 0)
    assert [n for v, n in step if v > 0] == [1, 2, 3]  # node boundaries, drawn with steps-pre


@pytest.mark.parametrize(
    ("b", "c"),
    [(1_036_417_500, 1_356_048_000), (1.0, 3.0), (2.0, 3.0), (9.0, 10.0), (1_535_433_333, 1_356_048_000), (5.0, 5.0)],
)
def test_cheaper_ranges_match_a_brute_force_comparison(b, c):
    ranges = cheaper_ranges(b, c)
    node_cost, api_per_token = 1.0, 1.0 / b  # API cost of the break-even volume = one node's cost

    def self_hosting_cheaper(volume: float) -> bool:
        return api_per_token * volume > math.ceil(volume / c) * node_cost

    def predicted(volume: float) -> bool:
        if ranges.never:
            return False
        if volume > ranges.permanent_from:
            return True
        return any(lo < volume <= hi for lo, hi in ranges.ranges)

    top = 30 * c
    for i in range(1, 6001):
        volume = top * i / 6000 + 1e-7 * c  # avoid exact boundaries
        assert predicted(volume) == self_hosting_cheaper(volume), volume


def test_cheaper_ranges_for_the_b300_against_the_highspeed_api():
    b, c = NODE_MONTH / 40e-6, CAPACITY_516  # highspeed without prompt caching: 5 x 4.00 + 20.00 = 40 USD/1M output
    ranges = cheaper_ranges(b, c)
    assert [x for r in ranges.ranges for x in r] == pytest.approx([b, c, 2 * b, 2 * c, 3 * b, 3 * c])
    assert ranges.permanent_from == pytest.approx(4 * b)  # ceil(C / (C - B)) = 5
    assert cheaper_ranges(BREAKEVEN["bedrock"], c).never
    assert cheaper_ranges(BREAKEVEN["kimi-api-highspeed"], c).never  # with the workload's cache share


def test_importing_the_cost_modules_does_not_load_matplotlib():
    code = (
        "import sys, landing_zone.cost.alarms, landing_zone.finops, landing_zone.cli.cost; "
        "print('matplotlib' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
