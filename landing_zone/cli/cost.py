"""Cost commands of ``python -m landing_zone``: ``cost``, ``breakeven`` and ``cost-report``.

Every command returns an exit code; invalid input raises a :class:`~landing_zone.errors.LandingZoneError`
(exit code 2, printed without traceback by ``__main__.main``) or fails argparse validation (exit code 2,
message naming the flag, the value and what is allowed).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import annotated_types
from pydantic import BaseModel

from landing_zone.cli import cost_actual
from landing_zone.cli.common import Subparsers, add_config_args, add_verbose_arg, plan_from_args, print_warnings
from landing_zone.cli.flags import check_all, out_dir_problem
from landing_zone.cli.tiers import CLI, needs
from landing_zone.core.catalog.prices import PriceCatalog, TokenPrices, load_price_catalog
from landing_zone.core.config import SelfHosting
from landing_zone.core.config import Workload as WorkloadConfig
from landing_zone.cost.model_prices import PricedPart
from landing_zone.cost.pricing import CostEstimate, Workload, break_even, estimate_cost
from landing_zone.cost.self_hosting import comparable_api, workload_shape
from landing_zone.cost.tables import format_breakeven_table, format_cost_table
from landing_zone.errors import LandingZoneError, PricingError, shown
from landing_zone.finops import DEFAULT_INSTANCE_TYPE, headline, write_cost_report

__all__ = ["register", "DEFAULT_INSTANCE_TYPE", "DEFAULT_REPORT_DIR"]

DEFAULT_REPORT_DIR = "reports"


# --------------------------------------------------------------------------------------------------
# argparse value types: a bad value exits 2 with "argument --flag: got '...'; allowed: ..."
# --------------------------------------------------------------------------------------------------


def _grouped(value: float) -> str:
    """A bound as people write it: ``1,000,000,000``, ``0.5``."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,g}"


def _bounds(model: type[BaseModel], field_name: str) -> tuple[float | None, float | None, bool, bool]:
    """(lower, upper, lower exclusive, upper exclusive) of a config field, read from its pydantic constraints."""
    lower = upper = None
    lower_open = upper_open = False
    for item in model.model_fields[field_name].metadata:
        if isinstance(item, annotated_types.Ge):
            lower = float(item.ge)  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Gt):
            lower, lower_open = float(item.gt), True  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Le):
            upper = float(item.le)  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Lt):
            upper, upper_open = float(item.lt), True  # type: ignore[arg-type]
    return lower, upper, lower_open, upper_open


def bounded(model: type[BaseModel], field_name: str, *, config_key: str | None = None) -> Callable[[str], float]:
    """An argparse type taking the bounds of a configuration field (the config schema is the one place they are
    written): a value outside them, or not a finite number, exits 2 naming the flag, the value and the range."""
    lower, upper, lower_open, upper_open = _bounds(model, field_name)
    parts = []
    if lower is not None:
        parts.append(f"{'>' if lower_open else '>='} {_grouped(lower)}")
    if upper is not None:
        parts.append(f"{'<' if upper_open else '<='} {_grouped(upper)}")
    allowed = f"a number {' and '.join(parts)}" + (f" (the bounds of {config_key})" if config_key else "")

    def ok(value: float) -> bool:
        if lower is not None and (value <= lower if lower_open else value < lower):
            return False
        return upper is None or (value < upper if upper_open else value <= upper)

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"got {shown(text, 60)}; allowed: {allowed}") from None
        if not math.isfinite(value) or not ok(value):
            raise argparse.ArgumentTypeError(f"got {shown(text, 60)}; allowed: {allowed}")
        return value

    return parse


# Each flag takes the bounds of the configuration key it stands for.
requests_per_day = bounded(WorkloadConfig, "requests_per_day", config_key="cost.workload.requests_per_day")
input_tokens = bounded(WorkloadConfig, "input_tokens_per_request", config_key="cost.workload.input_tokens_per_request")
output_tokens = bounded(
    WorkloadConfig, "output_tokens_per_request", config_key="cost.workload.output_tokens_per_request"
)
cached_fraction = bounded(WorkloadConfig, "cached_input_fraction", config_key="cost.workload.cached_input_fraction")
cache_write_fraction = bounded(WorkloadConfig, "cache_write_fraction", config_key="cost.workload.cache_write_fraction")
tokens_per_second = bounded(
    SelfHosting, "expected_tokens_per_second", config_key="self_hosting.expected_tokens_per_second"
)
hourly_usd = bounded(SelfHosting, "hourly_usd", config_key="self_hosting.hourly_usd")
# Input tokens per output token: no key of its own; one output token comes with at most a request's input tokens.
input_output_ratio = bounded(
    WorkloadConfig, "input_tokens_per_request", config_key="cost.workload.input_tokens_per_request, per output token"
)


def _name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError(f"got {text!r}; allowed: a non-empty name")
    return text.strip()


# --------------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------------


def _prices(catalog: PriceCatalog, name: str, *, from_flag: bool) -> TokenPrices:
    """The prices of ``name``; an unknown name given on the command line is reported as ``--price-source``."""
    try:
        return catalog.prices(name)
    except PricingError as exc:
        if not from_flag:
            raise
        raise PricingError("--price-source", name, exc.allowed) from None


def _price_warning(prices: TokenPrices) -> list[str]:
    if prices.verified:
        return []
    return [
        f"price source {prices.source_name!r} is unverified: check it against the provider's pricing page or your "
        f"contract (source: {prices.source}, as of {prices.as_of})"
    ]


# Integers up to 2**53 are exact in a float: beyond it a grouped number prints digits that mean nothing.
EXACT_LIMIT = 2.0**53


def _check_printable(data: Any, flags: dict[str, float | None], path: str = "") -> None:
    """Refuse (exit 2) a result that would print ``inf``, ``nan`` or float artefacts, naming the inputs."""
    if isinstance(data, dict):
        for key, value in data.items():
            _check_printable(value, flags, f"{path}.{key}" if path else str(key))
    elif isinstance(data, (list, tuple)):
        for i, value in enumerate(data):
            _check_printable(value, flags, f"{path}[{i}]")
    elif isinstance(data, float) and (not math.isfinite(data) or abs(data) >= EXACT_LIMIT):
        given = ", ".join(f"{flag} {value:g}" for flag, value in flags.items() if value is not None)
        raise LandingZoneError(
            f"{given}: gives {path} = {data:.3g}; allowed: inputs whose results stay below 2^53 "
            f"({EXACT_LIMIT:,.0f}), the largest number printed exactly"
        )


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2))


# --------------------------------------------------------------------------------------------------
# cost
# --------------------------------------------------------------------------------------------------

# flag dest -> pricing.Workload field / config cost.workload field
_WORKLOAD_FLAGS = {
    "requests_per_day": ("--requests-per-day", "requests_per_day"),
    "input_tokens": ("--input-tokens", "input_tokens_per_request"),
    "output_tokens": ("--output-tokens", "output_tokens_per_request"),
    "cached_fraction": ("--cached-fraction", "cached_input_fraction"),
    "cache_write_fraction": ("--cache-write-fraction", "cache_write_fraction"),
}
_OPTIONAL_FLAG = "cache_write_fraction"


def _cmd_cost(args: argparse.Namespace) -> int:
    given = {dest: getattr(args, dest) for dest in _WORKLOAD_FLAGS}
    missing = [dest for dest, value in given.items() if value is None]
    # every other workload flag and --price-source given: no configuration is read, and no cache writes unless given
    needs_config = bool(args.config) or bool(set(missing) - {_OPTIONAL_FLAG}) or args.price_source is None
    if needs_config:
        plan = plan_from_args(args)
        catalog = plan.prices
        configured = plan.config.cost.workload
        if len(missing) == len(_WORKLOAD_FLAGS) and args.price_source is None and len(plan.budget.parts) > 1:
            return _print_parts(plan.budget.parts, plan.budget.estimate, json_output=args.json)
        for dest in missing:
            given[dest] = getattr(configured, _WORKLOAD_FLAGS[dest][1])
        # no --price-source: the first workload part's model at its own prices (models[0] by default)
        prices = plan.token_prices if args.price_source is None else _prices(catalog, args.price_source, from_flag=True)
    else:
        catalog = load_price_catalog()
        prices = _prices(catalog, args.price_source, from_flag=True)
        if given[_OPTIONAL_FLAG] is None:
            given[_OPTIONAL_FLAG], missing = 0.0, []
    workload = _workload(given, missing)
    estimate = estimate_cost(workload, prices, hours_per_month=catalog.hours_per_month)
    warnings = _price_warning(prices)
    from_config = [_WORKLOAD_FLAGS[dest][1] for dest in missing]
    _check_printable(estimate.as_dict(), {_WORKLOAD_FLAGS[d][0]: v for d, v in given.items() if d not in missing})
    return _print_estimate(workload, estimate, warnings, from_config, json_output=args.json, verbose=args.verbose)


def _workload(given: dict[str, Any], missing: list[str]) -> Workload:
    """The workload from the values given (a refused value named by its flag, or by its config key when it came
    from the configuration)."""
    # each value as the user typed it: its flag, or its config key when it came from the configuration
    typed = {
        field: flag if dest not in missing else f"cost.workload.{field}"
        for dest, (flag, field) in _WORKLOAD_FLAGS.items()
    }
    try:
        workload = Workload(**{_WORKLOAD_FLAGS[dest][1]: value for dest, value in given.items()})
    except PricingError as exc:
        named = re.sub(r"[a-z_]+", lambda m: typed.get(m.group(), m.group()), exc.field)
        raise PricingError(named, exc.value, exc.allowed, exc.hint) from None
    return workload


def _print_estimate(
    workload: Workload,
    estimate: CostEstimate,
    warnings: list[str],
    from_config: list[str],
    *,
    json_output: bool,
    verbose: bool,
) -> int:
    if json_output:
        data = estimate.as_dict()
        data["workload"] = {
            "requests_per_day": workload.requests_per_day,
            "input_tokens_per_request": workload.input_tokens_per_request,
            "output_tokens_per_request": workload.output_tokens_per_request,
            "cached_input_fraction": workload.cached_input_fraction,
            "cache_write_fraction": workload.cache_write_fraction,
            "from_config": from_config,
        }
        data["warnings"] = warnings
        _print_json(data)
        return 0
    origin = "all from the command line" if not from_config else f"from config: {', '.join(from_config)}"
    print(
        f"workload: {workload.requests_per_day:,.0f} requests/day x ({workload.input_tokens_per_request:,.0f} input "
        f"tokens, {workload.cached_input_fraction:.0%} of them cached, {workload.cache_write_fraction:.0%} written "
        f"to the cache, + {workload.output_tokens_per_request:,.0f} output tokens) per request ({origin})"
    )
    print()
    print(format_cost_table(estimate))
    print_warnings(warnings, verbose=verbose)
    return 0


def _print_parts(parts: Sequence[tuple[PricedPart, CostEstimate]], total: CostEstimate, *, json_output: bool) -> int:
    """``cost`` of a configuration whose workload is split by model: each part at its own model's prices."""
    warnings = [w for part, _ in parts for w in _price_warning(part.prices)]
    warnings = list(dict.fromkeys(warnings))
    if json_output:
        data = total.as_dict()
        data["parts"] = [{**part.as_dict(), "estimate": estimate.as_dict()} for part, estimate in parts]
        data["warnings"] = warnings
        _print_json(data)
        return 0
    for part, estimate in parts:
        w = part.workload
        print(
            f"{part.label} on {part.path}: {w.requests_per_day:,.0f} requests/day x ({w.input_tokens_per_request:,.0f} "
            f"input tokens, {w.cached_input_fraction:.0%} cached, + {w.output_tokens_per_request:,.0f} output tokens)"
        )
        print(format_cost_table(estimate))
        print()
    print(f"total: {total.daily_usd:,.2f} USD/day, {total.monthly_usd:,.2f} USD/month (each model at its own prices)")
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------------------------------
# breakeven
# --------------------------------------------------------------------------------------------------


def _hourly_usd(catalog: PriceCatalog, instance_type: str, override: float | None, flag: str) -> tuple[float, str]:
    """(USD per instance-hour, where it came from): ``--hourly-usd`` / ``self_hosting.hourly_usd`` if given (any
    instance type is then just a label), else the catalog's price."""
    if override is not None:
        return override, flag
    try:
        option = catalog.self_hosting_option(instance_type)
    except PricingError as exc:
        raise PricingError("--instance-type", instance_type, exc.allowed, exc.hint) from None
    return option.require_hourly_usd(), f"price catalog ({instance_type})"


def _cmd_breakeven(args: argparse.Namespace) -> int:
    """Break-even of one node, on the configured workload (its Kimi K3 part, cache shares, input:output ratio,
    price entry, node) unless flags override each; one line says which inputs came from where."""
    plan = plan_from_args(args)
    catalog = plan.prices
    sh = plan.config.self_hosting
    configured_api, own = comparable_api(catalog, plan.model_prices, plan.workload_parts)
    ratio, cached, written = workload_shape(plan.config, own)
    flags: list[str] = []
    prices = configured_api
    if args.price_source is not None:
        prices = _prices(catalog, args.price_source, from_flag=True)
        flags.append("--price-source")
    chosen = {
        "tokens_per_second": (args.tokens_per_second, sh.expected_tokens_per_second, "--tokens-per-second"),
        "input_output_ratio": (args.input_output_ratio, ratio, "--input-output-ratio"),
        "cached_input_fraction": (args.cached_input_fraction, cached, "--cached-input-fraction"),
        "cache_write_fraction": (args.cache_write_fraction, written, "--cache-write-fraction"),
        "instance_type": (args.instance_type, sh.instance_type, "--instance-type"),
    }
    value: dict[str, Any] = {}
    for key, (given, configured, flag) in chosen.items():
        value[key] = configured if given is None else given
        if given is not None:
            flags.append(flag)
    hourly_override, hourly_flag = args.hourly_usd, "--hourly-usd"
    if hourly_override is None and args.instance_type is None and sh.hourly_usd is not None:
        hourly_override, hourly_flag = sh.hourly_usd, "self_hosting.hourly_usd (config)"
    hourly, hourly_source = _hourly_usd(catalog, value["instance_type"], hourly_override, hourly_flag)
    if value["cached_input_fraction"] + value["cache_write_fraction"] > 1 + 1e-9:
        raise PricingError(
            "--cached-input-fraction + --cache-write-fraction",
            value["cached_input_fraction"] + value["cache_write_fraction"],
            "a sum <= 1 (both are shares of the same input tokens)",
        )

    def node_against(api_prices: Any) -> Any:
        """The configured node against one set of API prices (the standard tier, or another allowed tier)."""
        return break_even(
            tokens_per_second=value["tokens_per_second"],
            hourly_usd=hourly,
            api_prices=api_prices,
            hours_per_month=catalog.hours_per_month,
            input_output_ratio=value["input_output_ratio"],
            instance_type=value["instance_type"],
            cached_input_fraction=value["cached_input_fraction"],
            cache_write_fraction=value["cache_write_fraction"],
        )

    result = node_against(prices)
    workload_of = f"the {own[0].model_id} part of cost.workload" if own else "cost.workload"
    tier = prices.service_tier or "outside Bedrock"
    # The same node against each other allowed per-token tier of the same model and path (not with --price-source).
    tier_results = {
        t: node_against(p)
        for t, p in (
            plan.model_prices.tiers_of(own[0].model_id, own[0].path) if own and args.price_source is None else {}
        ).items()
        if t != "default"
    }
    used = (
        f"inputs: {workload_of} of {args.config or 'the cdk.json defaults'} (input:output "
        f"{value['input_output_ratio']:g}, {value['cached_input_fraction']:.0%} cache reads, "
        f"{value['cache_write_fraction']:.0%} cache writes), price entry {prices.source_name!r} (tier {tier}), "
        f"{value['tokens_per_second']:g} output tok/s on {value['instance_type']}"
        + (f"; overridden by {', '.join(flags)}" if flags else "; no flag overrides")
    )
    warnings = _price_warning(prices)
    _check_printable(
        result.as_dict(),
        {
            "--tokens-per-second": args.tokens_per_second,
            "--hourly-usd": args.hourly_usd,
            "--input-output-ratio": args.input_output_ratio,
        },
    )
    if args.json:
        data = result.as_dict()
        data["hourly_usd_source"] = hourly_source
        data["prices_source"] = prices.source
        data["prices_as_of"] = prices.as_of
        data["prices_verified"] = prices.verified
        data["inputs"] = used
        data["overridden_by"] = flags
        data["warnings"] = warnings
        data["service_tiers"] = {
            t: {
                "price_entry": r.price_source,
                "breakeven_tokens_per_second_blended": r.breakeven_tokens_per_second_blended,
                "ratio_to_api_blended": r.ratio_to_api_blended,
            }
            for t, r in tier_results.items()
        }
        _print_json(data)
        return 0
    print(used)
    print(format_breakeven_table(result))
    for t, r in tier_results.items():
        print(
            f"{t} tier ({r.price_source!r}, policy_guardrails.allowed_service_tiers): break-even "
            f"{r.breakeven_tokens_per_second_blended:,.1f} output tok/s per node (blended), self-hosted / API "
            f"{r.ratio_to_api_blended:,.2f}x"
        )
    print(f"instance price from {hourly_source}; API prices: {prices.source} (as of {prices.as_of})")
    print_warnings(warnings, verbose=args.verbose)
    return 0


# --------------------------------------------------------------------------------------------------
# cost-report
# --------------------------------------------------------------------------------------------------


def _cmd_cost_report(args: argparse.Namespace) -> int:
    check_all([("--out", args.out, lambda: out_dir_problem(args.out))])
    plan = plan_from_args(args)
    paths = write_cost_report(plan, Path(args.out))
    for line in headline(plan, paths):
        print(line)
    return 0


# --------------------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------------------


def register(subparsers: Subparsers) -> None:
    """Add ``cost``, ``breakeven`` and ``cost-report`` to ``subparsers`` (from ``add_subparsers``)."""
    p = subparsers.add_parser(
        "cost",
        help="daily and monthly token cost of a workload (default: the configured cost.workload)",
        description="Token cost of a steady workload at one price source. Workload flags that are not given "
        "come from the configuration's cost.workload.",
    )
    p.add_argument(
        "--requests-per-day", type=requests_per_day, metavar="N", help="requests per day (cost.workload's bounds)"
    )
    p.add_argument(
        "--input-tokens", type=input_tokens, metavar="N", help="input tokens per request, cached part included"
    )
    p.add_argument("--output-tokens", type=output_tokens, metavar="N", help="output tokens per request")
    p.add_argument(
        "--cached-fraction", type=cached_fraction, metavar="F", help="share of input read from the prompt cache (0..1)"
    )
    p.add_argument(
        "--cache-write-fraction",
        type=cache_write_fraction,
        metavar="W",
        help="share of input written to the prompt cache, at the cache-write price (0..1)",
    )
    p.add_argument(
        "--price-source",
        type=_name,
        metavar="S",
        help="a prices.yaml entry or offer (default: each model at its configured prices)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_verbose_arg(p)
    add_config_args(p)
    p.set_defaults(func=_cmd_cost)
    cost_actual.register_under(p)  # `cost actual`: the estimate against the bill

    p = subparsers.add_parser(
        "breakeven",
        help="self-hosting break-even of one node against a token-priced API (the configured workload by default)",
        description="One self-hosted node at a measured output throughput against a token-priced API. The comparison "
        "is blended: the API cost of 1M output tokens together with the R million input tokens that come with them "
        "(--input-output-ratio, --cached-input-fraction, --cache-write-fraction); the output-price-only figures "
        "follow, labelled. Every input not given comes from the configuration (the Kimi K3 part of cost.workload, "
        "its price entry, self_hosting), and the first line says which.",
    )
    p.add_argument(
        "--tokens-per-second",
        type=tokens_per_second,
        metavar="T",
        help="output tokens/s of one node (self_hosting.expected_tokens_per_second's bounds; default: its value)",
    )
    p.add_argument(
        "--hourly-usd",
        type=hourly_usd,
        metavar="H",
        help="USD per instance-hour (self_hosting.hourly_usd's bounds; default: self_hosting.hourly_usd, else the "
        "price catalog's)",
    )
    p.add_argument(
        "--price-source",
        type=_name,
        metavar="S",
        help="API price entry or offer (default: the configured prices of the Kimi K3 model)",
    )
    p.add_argument(
        "--input-output-ratio",
        type=input_output_ratio,
        metavar="R",
        help="input tokens per output token (>= 0; default: the configured workload's)",
    )
    p.add_argument(
        "--cached-input-fraction",
        type=cached_fraction,
        metavar="C",
        help="share of the input tokens read from the prompt cache, 0-1 (default: the configured workload's)",
    )
    p.add_argument(
        "--cache-write-fraction",
        type=cache_write_fraction,
        metavar="W",
        help="share of the input tokens written to the prompt cache, 0-1 (default: the configured workload's)",
    )
    p.add_argument(
        "--instance-type",
        type=_name,
        metavar="TYPE",
        help="catalogued instance type (default: self_hosting.instance_type)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_verbose_arg(p)
    add_config_args(p)
    p.set_defaults(func=_cmd_breakeven)

    p = subparsers.add_parser(
        "cost-report",
        help="write the FinOps report (cost.md + cost-vs-volume.png) for the configuration",
    )
    p.add_argument(
        "--out", default=DEFAULT_REPORT_DIR, metavar="DIR", help=f"output folder (default: {DEFAULT_REPORT_DIR}/)"
    )
    add_config_args(p)
    p.set_defaults(func=_cmd_cost_report)
    needs(p, CLI)  # matplotlib, loaded by the chart and the dashboard picture when they are drawn
