"""The cost commands (`cost`, `breakeven`, `cost-report`) run as a user runs them (the command line in-process,
tests/support/cli.py)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from landing_zone.core.catalog.prices import load_price_catalog
from landing_zone.cost.pricing import Workload, break_even, estimate_cost
from tests.conftest import ROOT
from tests.support.cli import lz

Run = Callable[..., subprocess.CompletedProcess]


@pytest.fixture
def cli() -> Run:
    """The cost commands in this process (tests/support/cli.py), from the working directory ``cwd``."""

    def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
        return lz(*args, cwd=cwd)

    return run


@pytest.fixture(scope="module")
def catalog():
    return load_price_catalog()


def ok_json(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return json.loads(result.stdout)


# --------------------------------------------------------------------------------------------------
# cost
# --------------------------------------------------------------------------------------------------

COST_KEYS = ("daily_usd", "monthly_usd", "input_usd_per_day", "cache_read_usd_per_day", "output_usd_per_day")


def test_cost_json_with_every_flag_matches_estimate_cost(cli, catalog):
    data = ok_json(
        cli(
            "cost",
            "--json",
            "--requests-per-day",
            "2500",
            "--input-tokens",
            "8000",
            "--output-tokens",
            "900",
            "--cached-fraction",
            "0.25",
            "--price-source",
            "kimi-api",
        )
    )
    expected = estimate_cost(Workload(2500, 8000, 900, 0.25), catalog.prices("kimi-api"), hours_per_month=730).as_dict()
    for key in COST_KEYS:
        assert data[key] == pytest.approx(expected[key], rel=1e-12), key
    assert data["price_source"] == "kimi-api"
    assert data["workload"]["from_config"] == []
    # 2,500 x 8,000 = 20M input: 15M x 2.00 + 5M x 0.20 = 31.00; 2.25M output x 10.00 = 22.50 -> 53.50 USD/day
    assert data["daily_usd"] == pytest.approx(53.5)
    assert data["monthly_usd"] == pytest.approx(53.5 * 730 / 24)


def test_cost_without_flags_uses_the_configured_workload(cli, catalog):
    data = ok_json(cli("cost", "--json"))
    expected = estimate_cost(Workload(10_000, 6_000, 1_200, 0.5), catalog.prices("bedrock"), hours_per_month=730)
    for key in COST_KEYS:
        assert data[key] == pytest.approx(getattr(expected, key), rel=1e-12), key
    assert data["daily_usd"] == pytest.approx(256.5)
    assert data["monthly_usd"] == pytest.approx(7801.875)
    assert data["price_source"] == "bedrock"
    assert set(data["workload"]["from_config"]) == {
        "requests_per_day",
        "input_tokens_per_request",
        "output_tokens_per_request",
        "cached_input_fraction",
        "cache_write_fraction",
    }
    assert data["warnings"] and "unverified" in data["warnings"][0]


def test_cost_fills_missing_flags_from_the_config(cli):
    data = ok_json(cli("cost", "--json", "--requests-per-day", "20000"))
    assert data["workload"]["requests_per_day"] == 20000
    assert data["workload"]["input_tokens_per_request"] == 6000
    assert data["workload"]["cached_input_fraction"] == 0.5
    assert data["monthly_usd"] == pytest.approx(2 * 7801.875)
    data = ok_json(cli("cost", "--json", "--price-source", "kimi-api-highspeed"))
    assert data["price_source"] == "kimi-api-highspeed" and data["daily_usd"] == pytest.approx(366.0)


def test_cost_reads_config_and_cdk_json_flags(cli, tmp_path):
    config = tmp_path / "cost.yaml"
    config.write_text("cost:\n  price_source: kimi-api\n  workload:\n    requests_per_day: 5000\n")
    data = ok_json(cli("cost", "--json", "--config", str(config)))
    assert data["price_source"] == "kimi-api"
    assert data["monthly_usd"] == pytest.approx(5657.5 / 2)
    data = ok_json(cli("cost", "--json", "--cdk-json", str(ROOT / "cdk.json"), cwd=tmp_path))
    assert data["monthly_usd"] == pytest.approx(7801.875)


def test_cost_table(cli):
    result = cli("cost")
    assert result.returncode == 0, result.stderr
    assert "Token cost at price source 'bedrock'" in result.stdout
    assert "7,801.88" in result.stdout and "256.50" in result.stdout
    assert "from config:" in result.stdout
    assert "warning: price source 'bedrock' is unverified" in result.stderr


# --------------------------------------------------------------------------------------------------
# breakeven
# --------------------------------------------------------------------------------------------------

BREAKEVEN_KEYS = (
    "usd_per_million_output_tokens",
    "api_usd_per_million_output_tokens",
    "ratio_to_api",
    "breakeven_tokens_per_second",
    "monthly_usd",
    "breakeven_output_tokens_per_month",
    "breakeven_input_tokens_per_month",
)


def test_breakeven_defaults_are_the_configured_workload(cli, catalog, tmp_path):
    """No flag: the configured workload (input:output 5, 50 % cached, no cache writes), price entry and node —
    the figures docs/COST.md and the synth warning give (1.43x, 738.0 tokens/s)."""
    data = ok_json(cli("breakeven", "--json", cwd=tmp_path))  # no cdk.json there: the repository's defaults
    expected = break_even(
        tokens_per_second=516,
        hourly_usd=56.79,
        api_prices=catalog.prices("bedrock"),
        hours_per_month=730,
        input_output_ratio=5,
        instance_type="p6-b300.48xlarge",
        cached_input_fraction=0.5,
    ).as_dict()
    for key in BREAKEVEN_KEYS:
        assert data[key] == pytest.approx(expected[key], rel=1e-12), key
    # blended API: 5 x (0.5 x 3 + 0.5 x 0.75) + 12 = 21.375 USD per 1M output tokens
    assert data["usd_per_million_output_tokens"] == pytest.approx(56.79 / (516 * 3600 / 1e6))
    assert data["breakeven_output_tokens_per_month"] == pytest.approx(41456.7 / 21.375e-6)
    assert round(data["ratio_to_api_blended"], 2) == 1.43
    assert round(data["breakeven_tokens_per_second_blended"], 1) == 738.0
    assert data["hourly_usd_source"] == "price catalog (p6-b300.48xlarge)"
    assert data["overridden_by"] == []
    assert "50% cache reads" in data["inputs"] and "'bedrock'" in data["inputs"]


def test_breakeven_json_with_every_flag(cli, catalog):
    data = ok_json(
        cli(
            "breakeven",
            "--tokens-per-second",
            "4634",
            "--hourly-usd",
            "40",
            "--price-source",
            "kimi-api",
            "--input-output-ratio",
            "3",
            "--instance-type",
            "my-node",
            "--cached-input-fraction",
            "0",
            "--json",
        )
    )
    expected = break_even(
        tokens_per_second=4634,
        hourly_usd=40,
        api_prices=catalog.prices("kimi-api"),
        hours_per_month=730,
        input_output_ratio=3,
        instance_type="my-node",
    ).as_dict()
    for key in BREAKEVEN_KEYS:
        assert data[key] == pytest.approx(expected[key], rel=1e-12), key
    assert data["breakeven_output_tokens_per_month"] == pytest.approx(40 * 730 / ((3 * 2 + 10) / 1e6))
    assert data["instance_type"] == "my-node" and data["hourly_usd_source"] == "--hourly-usd"
    assert set(data["overridden_by"]) == {
        "--tokens-per-second",
        "--price-source",
        "--input-output-ratio",
        "--instance-type",
        "--cached-input-fraction",
    }


def test_breakeven_table(cli):
    result = cli("breakeven", "--tokens-per-second", "516")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert (
        first.startswith("inputs: the moonshotai.kimi-k3.1-pro part of cost.workload")
        and "--tokens-per-second" in first
    )
    assert "Self-hosting break-even: p6-b300.48xlarge vs bedrock" in result.stdout
    assert "1,939,494,737" in result.stdout and "41,456.70" in result.stdout and "738.0" in result.stdout


def test_breakeven_prices_each_allowed_tier(cli, catalog, tmp_path):
    """global-inference allows flex: `breakeven` adds the same node against the flex prices (here half the standard
    prices, a config rule) and still says which workload it used."""
    config = tmp_path / "flex.yaml"
    config.write_text(
        (ROOT / "examples" / "global-inference.yaml").read_text()
        + "  tier_price_overrides:\n    kimi-k3.1-pro:\n      flex: {multiplier: 0.5, source: test half price}\n"
    )
    data = ok_json(cli("breakeven", "--json", "--config", str(config)))
    assert data["inputs"].startswith("inputs: the moonshotai.kimi-k3.1-pro part of cost.workload")
    (tier,) = data["service_tiers"]
    assert tier == "flex" and data["service_tiers"]["flex"]["price_entry"].endswith("+flex")
    # the API costs half as much per token: self-hosting needs twice the throughput to break even
    flex = data["service_tiers"]["flex"]
    assert flex["breakeven_tokens_per_second_blended"] == pytest.approx(2 * data["breakeven_tokens_per_second_blended"])
    assert flex["ratio_to_api_blended"] == pytest.approx(2 * data["ratio_to_api_blended"])
    table = cli("breakeven", "--config", str(config))
    assert table.returncode == 0, table.stderr
    assert "flex tier (" in table.stdout and "output tok/s per node" in table.stdout
    # the default tier only: no tier line
    assert ok_json(cli("breakeven", "--json"))["service_tiers"] == {}


# --------------------------------------------------------------------------------------------------
# cost-report
# --------------------------------------------------------------------------------------------------


def test_cost_report_prints_the_headline_figures_and_the_paths(cli, tmp_path):
    """What `make cost` shows: the daily and monthly estimate, the budget, the alarm threshold, the break-even (the
    figure `breakeven` prints without flags) and where the files are."""
    out = tmp_path / "reports"
    result = cli("cost-report", "--out", str(out))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "estimated 256.50 USD/day, 7,801.88 USD/month" in lines[0]
    assert "budget 9,362.25 USD/month" in lines[1] and "spend alarm above 25.65 USD/hour" in lines[1]
    assert "break-even: 738.0 output tokens/s" in lines[2] and "1.43x the API" in lines[2]
    paths = [str(out / "cost.md"), str(out / "cost-vs-volume.png"), str(out / "dashboard.png")]
    assert lines[3] == "wrote: " + ", ".join(paths)
    assert (out / "cost.md").read_text().count("7,801.88") >= 1
    assert (out / "cost-vs-volume.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------------------------------
# Invalid input: exit 2, message naming the flag, the value and what is allowed, no traceback
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "flag", "value", "allowed"),
    [
        (("cost", "--requests-per-day", "-5"), "--requests-per-day", "'-5'", "a number >= 0"),
        (("cost", "--input-tokens", "abc"), "--input-tokens", "'abc'", "a number >= 0"),
        (("cost", "--output-tokens", "nan"), "--output-tokens", "'nan'", "a number >= 0"),
        (("cost", "--cached-fraction", "1.5"), "--cached-fraction", "'1.5'", ">= 0 and <= 1"),
        (("breakeven", "--tokens-per-second", "0"), "--tokens-per-second", "'0'", "a number > 0"),
        (("breakeven", "--tokens-per-second", "-1"), "--tokens-per-second", "'-1'", "a number > 0"),
        (("breakeven", "--tokens-per-second", "5", "--hourly-usd", "-3"), "--hourly-usd", "'-3'", "a number > 0"),
        (("breakeven", "--tokens-per-second", "5", "--input-output-ratio", "x"), "--input-output-ratio", "'x'", ">= 0"),
        (("breakeven", "--tokens-per-second", "inf"), "--tokens-per-second", "'inf'", "a number > 0"),
    ],
)
def test_bad_numbers_exit_2_naming_flag_value_and_allowed(cli, args, flag, value, allowed):
    result = cli(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"argument {flag}: got {value}; allowed: " in result.stderr
    assert allowed in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ("cost", "--price-source", "nope"),
            "error: --price-source: got 'nope'; allowed: one of: bedrock, bedrock-kimi-k2-thinking",
        ),
        (("breakeven", "--tokens-per-second", "5", "--price-source", "nope"), "error: --price-source: got 'nope'"),
        (
            ("breakeven", "--tokens-per-second", "5", "--instance-type", "x1.large"),
            "error: --instance-type: got 'x1.large'",
        ),
        (("breakeven", "--tokens-per-second", "5", "--instance-type", "p6-b200.48xlarge"), "pass --hourly-usd"),
        (("breakeven", "--tokens-per-second", "0"), "argument --tokens-per-second: got '0'; allowed: a number > 0"),
    ],
)
def test_bad_names_exit_2_without_traceback(cli, args, expected):
    result = cli(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert expected in result.stderr
    assert result.stdout == ""


def test_bad_config_exits_2_without_traceback(cli):
    result = cli("cost", "--config", str(ROOT / "tests" / "fixtures" / "bad-config.yaml"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "problem(s)" in result.stderr
