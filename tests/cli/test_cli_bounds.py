"""A quiet, bounded command line: numbers beyond the configuration's own bounds are refused the same way in
`cost` and `breakeven` (exit 2: the flag, the value, the range, no traceback); nothing prints `inf`, `nan` or float
artefacts; warnings are one line each, in full with --verbose."""

from __future__ import annotations

import contextlib
import json
import re
import time

import pytest

from landing_zone.cli import main
from landing_zone.core.config import MAX_NODE_TOKENS_PER_SECOND, MAX_REQUESTS_PER_DAY, SelfHosting, Workload
from landing_zone.plan.warnings import headline, short_citation
from tests.cli.test_cli import lz

COST = ["cost", "--input-tokens", "6000", "--output-tokens", "1200", "--cached-fraction", "0.5"]


def _range(lower: str, upper: str) -> str:
    return f"allowed: a number {lower} and <= {upper}"


# case: (argv, flag, value echoed, allowed text)
BAD = {
    "requests 1e30": (
        ["cost", "--requests-per-day", "1e30"],
        "--requests-per-day",
        "'1e30'",
        _range(">= 0", "1,000,000,000"),
    ),
    "requests just above": (
        ["cost", "--requests-per-day", str(MAX_REQUESTS_PER_DAY + 1)],
        "--requests-per-day",
        repr(str(MAX_REQUESTS_PER_DAY + 1)),
        "cost.workload.requests_per_day",
    ),
    "requests nan": (
        ["cost", "--requests-per-day", "nan"],
        "--requests-per-day",
        "'nan'",
        _range(">= 0", "1,000,000,000"),
    ),
    "requests negative": (["cost", "--requests-per-day", "-1"], "--requests-per-day", "'-1'", ">= 0"),
    "input tokens 1e12": (["cost", "--input-tokens", "1e12"], "--input-tokens", "'1e12'", _range(">= 0", "1,048,576")),
    "output tokens inf": (["cost", "--output-tokens", "inf"], "--output-tokens", "'inf'", _range(">= 0", "1,048,576")),
    "cached fraction 1.5": (["cost", "--cached-fraction", "1.5"], "--cached-fraction", "'1.5'", _range(">= 0", "1")),
    "not a number": (["cost", "--requests-per-day", "lots"], "--requests-per-day", "'lots'", "allowed: a number"),
    "tokens/s 1e308": (
        ["breakeven", "--tokens-per-second", "1e308"],
        "--tokens-per-second",
        "'1e308'",
        _range("> 0", "1,000,000") + " (the bounds of self_hosting.expected_tokens_per_second)",
    ),
    "tokens/s 0": (["breakeven", "--tokens-per-second", "0"], "--tokens-per-second", "'0'", "> 0"),
    "hourly 1e9": (
        ["breakeven", "--tokens-per-second", "516", "--hourly-usd", "1e9"],
        "--hourly-usd",
        "'1e9'",
        _range("> 0", "10,000"),
    ),
    "ratio 1e9": (
        ["breakeven", "--tokens-per-second", "516", "--input-output-ratio", "1e9"],
        "--input-output-ratio",
        "'1e9'",
        _range(">= 0", "1,048,576"),
    ),
    "breakeven cached fraction": (
        ["breakeven", "--tokens-per-second", "516", "--cached-input-fraction", "-0.1"],
        "--cached-input-fraction",
        "'-0.1'",
        _range(">= 0", "1"),
    ),
    "tokens/s so small the result is not printable": (
        ["breakeven", "--tokens-per-second", "1e-300"],
        "--tokens-per-second",
        "1e-300",
        "allowed: inputs whose results stay below 2^53",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_out_of_bounds_number_exits_2_naming_flag_value_and_range(case):
    argv, flag, value, allowed = BAD[case]
    result = lz(*argv)
    # the refusal itself (in-process: the interpreter's start-up is not ours, and this machine may be loaded)
    start = time.perf_counter()
    with pytest.raises(SystemExit) if result.stderr.startswith("usage:") else contextlib.nullcontext():
        assert main([*argv]) == 2
    assert time.perf_counter() - start < 10
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert flag in result.stderr and value in result.stderr and allowed in result.stderr, result.stderr
    assert result.stdout == ""


def test_the_bounds_are_the_configuration_schemas():
    """One place writes the bounds: the flags take them from the pydantic fields."""
    from landing_zone.cli.cost import _bounds

    assert _bounds(Workload, "requests_per_day") == (0, MAX_REQUESTS_PER_DAY, False, False)
    assert _bounds(SelfHosting, "expected_tokens_per_second") == (0, MAX_NODE_TOKENS_PER_SECOND, True, False)


def _assert_clean(text: str) -> None:
    """No inf/nan, and no number at or beyond 2^53, where a float's printed digits stop meaning anything."""
    assert not re.search(r"\b(inf|nan|Infinity|NaN)\b", text), text
    for number in re.findall(r"\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?", text):
        assert float(number.replace(",", "")) < 2**53, number


def test_cost_at_the_upper_bounds_prints_plain_numbers():
    result = lz(
        "cost",
        "--requests-per-day",
        str(MAX_REQUESTS_PER_DAY),
        "--input-tokens",
        "1048576",
        "--output-tokens",
        "1048576",
        "--cached-fraction",
        "0.5",
        "--price-source",
        "bedrock",
    )
    assert result.returncode == 0, result.stderr
    _assert_clean(result.stdout)
    assert "1,000,000,000 requests/day" in result.stdout


@pytest.mark.parametrize("tps", ["1000000", "0.5", "516"])
def test_breakeven_at_the_bounds_prints_plain_numbers(tps):
    text = lz("breakeven", "--tokens-per-second", tps)
    data = lz("breakeven", "--tokens-per-second", tps, "--json")
    assert text.returncode == 0 and data.returncode == 0, text.stderr + data.stderr
    _assert_clean(text.stdout)
    _assert_clean(data.stdout)
    json.loads(data.stdout)  # strict JSON: no Infinity / NaN


# --------------------------------------------------------------------------------------------------
# Warnings: one line each, in full with --verbose
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [["validate"], ["routes"], ["deploy-plan"], ["cost"], ["breakeven", "--tokens-per-second", "516"]],
)
def test_warnings_are_one_short_line_each_and_verbose_gives_them_in_full(argv):
    short = lz(*argv)
    full = lz(*argv, "--verbose")
    assert short.returncode == 0 and full.returncode == 0, short.stderr + full.stderr
    warnings = [line for line in short.stderr.splitlines() if line.startswith("warning: ")]
    assert warnings, short.stderr
    assert all(len(line) <= 160 for line in warnings), warnings  # "warning: " + HEADLINE_CHARACTERS
    assert "--verbose prints them" in short.stderr
    assert max(len(line) for line in full.stderr.splitlines()) > 160  # the sources are there


def test_headline_drops_the_provenance_asides_and_keeps_words_like_models():
    text = "catalog model 'x' is unverified (source: 'a' (b, c); as of 2026-11-08): confirm it with discover"
    assert headline(text) == "catalog model 'x' is unverified: confirm it with discover"
    assert headline("2 model(s) left (see x)") == "2 model(s) left"
    long = "word " * 100
    assert len(headline(long, 60)) <= 60 and headline(long, 60).endswith(" …")


def test_short_citation_never_leaves_a_parenthesis_open():
    cut = short_citation("Title of a page (technical and financial analysis of something long) " * 5, limit=100)
    assert cut.count("(") == cut.count(")") and cut.endswith("...")
