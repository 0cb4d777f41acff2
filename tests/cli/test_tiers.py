"""`make synth` installs requirements.txt only: what it runs works on that alone, and a command that needs the CLI
tier (requirements-cli.txt) refuses, before it runs, with the `make` target that installs it.

Each subprocess here sees the runtime tier alone: every module outside the closure of requirements.txt is blocked
(tests/support/runtime_only.py derives the set from the installed distributions' metadata).  The commands come from
the parser: a command either declares its tier (landing_zone.cli.tiers.needs) or has a run in RUNTIME_RUNS.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.utils import canonicalize_name

from landing_zone.cli import build_parser
from landing_zone.cli.tiers import CLI
from tests.conftest import ROOT
from tests.support.runtime_only import (
    blocked_modules,
    pinned,
    runtime_closure,
    runtime_only_env,
    top_level_modules,
)

# A stamped layer (tests/support/layers.py): every test here starts a runtime-only interpreter or reads the installed
# distributions, which change only with the locks; `make test` reruns them when an input changed, CI every time.
pytestmark = pytest.mark.runtime

EU = str(ROOT / "examples" / "eu-sovereign.yaml")
US_ORG = str(ROOT / "examples" / "us-organization.yaml")
M = "moonshotai.kimi-k3.1-pro"
ALLOWED_LEG = [  # the eu-sovereign destination leg that tests/cli/test_exit_codes_doc.py shows allowed
    "--action",
    "bedrock:InvokeModel",
    "--resource",
    f"arn:aws:bedrock:eu-west-3::foundation-model/{M}",
    "--region",
    "eu-west-3",
    "--context",
    f"bedrock:InferenceProfileArn=arn:aws:bedrock:eu-central-1:222222222222:inference-profile/eu.{M}",
]

# Every command that declares no tier, run as a user would after `make synth` (exit 0 expected).
RUNTIME_RUNS: dict[tuple[str, ...], list[list[str]]] = {
    ("schema",): [["schema"]],
    ("validate",): [["validate"], ["validate", "--config", EU]],
    ("routes",): [["routes"]],
    ("deploy-plan",): [["deploy-plan"]],
    ("simulate",): [["simulate", "--config", EU, *ALLOWED_LEG]],
    ("threat-model",): [["threat-model", "--config", US_ORG]],
    ("cost",): [["cost"]],
    ("breakeven",): [["breakeven"]],
    ("actiondb", "show"): [["actiondb", "show"]],
    ("actiondb", "refresh"): [["actiondb", "refresh", "--check"]],  # reads node_modules (npm ci), writes nothing
}
# What a tier command needs on its command line to get past argparse (its tier is checked after parsing).
REQUIRED_FLAGS: dict[tuple[str, ...], list[str]] = {("discover",): ["--regions", "eu-central-1"]}


def commands() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command of the parser that runs something, sub-commands (``cost actual``) included, with its own parser.

    A group that only chooses a sub-command (``actiondb``: no function of its own, its sub-command required) is not
    one: its sub-commands are (``actiondb show``, ``actiondb refresh``)."""

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    if sub.get_default("func") is not None:
                        yield (*path, name), sub
                    else:  # a group: argparse refuses it without its sub-command (exit 2), nothing else runs
                        assert any(isinstance(a, argparse._SubParsersAction) and a.required for a in sub._actions)
                    yield from walk(sub, (*path, name))

    return dict(walk(build_parser(), ()))


TIER_COMMANDS = sorted(path for path, parser in commands().items() if parser.get_default("needs_tier") is not None)


@pytest.fixture(scope="module")
def runtime_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return runtime_only_env(tmp_path_factory.mktemp("runtime-only"))


def run(env: dict[str, str], *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def lz(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return run(env, sys.executable, "-m", "landing_zone", *args)


# Many commands in one runtime-only process, one after the other, each through `landing_zone.cli.main` with its own
# captured output: a module the runtime lacks is blocked for the whole process, so a command cannot borrow it from an
# earlier one, and one interpreter start-up serves every command (a second each on a loaded 2-core machine).
# ``unchecked``: the tier check switched off first (UNCHECKED below).  An exception escaping main() is printed as the
# interpreter would print it, so "Traceback" and "ModuleNotFoundError" read as in a process of their own.
BATCH = (
    "import contextlib, io, json, sys, traceback\n"
    "import landing_zone.cli.tiers as tiers\n"
    "if sys.argv[1] == 'unchecked':\n"
    "    tiers.missing = lambda tier: []\n"
    "from landing_zone.cli import main\n"
    "results = []\n"
    "for argv in json.loads(sys.argv[2]):\n"
    "    out, err = io.StringIO(), io.StringIO()\n"
    "    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
    "        try:\n"
    "            code = main(argv)\n"
    "        except SystemExit as exc:\n"
    "            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)\n"
    "        except Exception:\n"
    "            traceback.print_exc()\n"
    "            code = 1\n"
    "    results.append({'code': code, 'stdout': out.getvalue(), 'stderr': err.getvalue()})\n"
    "print(json.dumps(results))\n"
)


def batch(env: dict[str, str], runs: list[list[str]], *, unchecked: bool = False) -> list[subprocess.CompletedProcess]:
    """``python -m landing_zone ARGV`` for each ARGV of ``runs``, in one process of ``env`` (see BATCH)."""
    mode = "unchecked" if unchecked else "checked"
    result = run(env, sys.executable, "-c", BATCH, mode, json.dumps(runs))
    assert result.returncode == 0, result.stderr[-3000:]
    answers = json.loads(result.stdout.splitlines()[-1])
    return [
        subprocess.CompletedProcess(a, r["code"], r["stdout"], r["stderr"]) for a, r in zip(runs, answers, strict=True)
    ]


def cli_tier_modules() -> set[str]:
    """The top-level modules requirements-cli.txt adds to the runtime (its closure, the runtime's taken away)."""
    by_dist = top_level_modules()
    added = runtime_closure(ROOT / "requirements-cli.txt") - runtime_closure()
    return {m for d in added for m in by_dist.get(d, ())}


# --------------------------------------------------------------------------------------------------
# The stand-in is real: the runtime-only subprocess lacks the tiers above the runtime, and only those
# --------------------------------------------------------------------------------------------------


def test_the_runtime_closure_holds_every_runtime_pin_and_no_pin_of_the_tiers_above():
    closure = runtime_closure()
    assert {canonicalize_name(r.name) for r in pinned(ROOT / "requirements.txt")} <= closure
    for upper in ("requirements-cli.txt", "requirements-dev.txt"):
        above = {canonicalize_name(r.name) for r in pinned(ROOT / upper, follow=False)}
        assert above and not above & closure, f"{upper} pins a runtime distribution: {sorted(above & closure)}"


def test_the_runtime_only_subprocess_finds_the_runtime_and_nothing_above_it(runtime_env: dict[str, str]):
    runtime = sorted({m for d in runtime_closure() for m in top_level_modules().get(d, ())})
    above = sorted(cli_tier_modules() | {"pytest", "moto", "ruff", "mypy"})
    probe = (
        "import importlib, json, sys\n"
        "def ok(m):\n"
        "    try:\n"
        "        importlib.import_module(m)\n"
        "    except ImportError:\n"
        "        return False\n"
        "    return True\n"
        "print(json.dumps({m: ok(m) for m in sys.argv[1:]}))\n"
    )
    result = run(runtime_env, sys.executable, "-c", probe, *runtime, *above)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert {m for m in runtime if not found[m]} == set(), "a runtime module is blocked"
    assert {m for m in above if found[m]} == set(), "a module above the runtime is importable"
    assert {module for _, module in CLI.imports} <= set(above)


# --------------------------------------------------------------------------------------------------
# The tier declaration matches requirements-cli.txt and the Makefile
# --------------------------------------------------------------------------------------------------


def test_the_cli_tier_names_each_distribution_of_requirements_cli_and_the_module_it_installs():
    pins = {canonicalize_name(r.name) for r in pinned(ROOT / CLI.requirements, follow=False)}
    assert {canonicalize_name(dist) for dist, _ in CLI.imports} == pins
    installed = top_level_modules()
    for dist, module in CLI.imports:
        assert module in installed[canonicalize_name(dist)], f"{dist} installs {sorted(installed[dist])}"


def test_the_make_target_the_message_names_installs_the_tier(tmp_path: Path):
    venv = os.path.relpath(tmp_path / "venv", ROOT)  # --dry-run: nothing is made
    result = run(dict(os.environ), "make", "--no-print-directory", "--dry-run", CLI.make_target, f"VENV={venv}")
    assert result.returncode == 0, result.stderr
    assert re.search(rf"pip install .*-r {re.escape(CLI.requirements)}\b", result.stdout), result.stdout


# --------------------------------------------------------------------------------------------------
# What `make synth` runs, on the runtime alone
# --------------------------------------------------------------------------------------------------


# Commands whose run needs a synthesized assembly: run in their own test below.
ASSEMBLY_RUNS = {("replacements",)}


def test_every_command_declares_its_tier_or_runs_on_the_runtime_alone():
    assert set(RUNTIME_RUNS) | ASSEMBLY_RUNS == set(commands()) - set(TIER_COMMANDS), (
        "a command that declares no tier needs a run in RUNTIME_RUNS (or `needs(parser, CLI)` where it registers)"
    )


def test_replacements_runs_on_the_runtime_alone(synth, runtime_env: dict[str, str]):
    """`make synth` runs it last, with requirements.txt only."""
    assembly = str(synth().outdir)
    result = lz(runtime_env, "replacements", "--old", assembly, "--new", assembly)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "ModuleNotFoundError" not in result.stderr


RUNS = [["--help"], ["--version"]] + [argv for runs in RUNTIME_RUNS.values() for argv in runs]


@pytest.fixture(scope="module")
def runtime_runs(runtime_env: dict[str, str]) -> list[subprocess.CompletedProcess]:
    return batch(runtime_env, RUNS)


@pytest.mark.parametrize("argv", RUNS, ids=lambda a: " ".join(Path(x).name if "/" in x else x for x in a[:3]))
def test_the_command_runs_on_the_runtime_alone(argv: list[str], runtime_runs: list[subprocess.CompletedProcess]):
    result = runtime_runs[RUNS.index(argv)]
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "ModuleNotFoundError" not in result.stderr
    if argv == ["--help"]:
        for path in commands():
            assert path[0] in result.stdout


@pytest.mark.synth
def test_the_cdk_app_synthesizes_on_the_runtime_alone(runtime_env: dict[str, str], tmp_path: Path):
    """`make synth` runs the app through the CDK CLI (`python app.py`, cdk.json); the same, without the CLI."""
    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    env = {**runtime_env, "CDK_CONTEXT_JSON": json.dumps(context), "CDK_OUTDIR": str(tmp_path / "out")}
    result = run(env, sys.executable, "app.py")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert list((tmp_path / "out").glob("*.template.json"))


# --------------------------------------------------------------------------------------------------
# The commands that need the CLI tier: refused before they run, with the make target; and they do need it
# --------------------------------------------------------------------------------------------------


def test_the_commands_that_reach_beyond_synth_declare_the_cli_tier():
    assert {" ".join(path) for path in TIER_COMMANDS} >= {"prove", "review", "verify", "discover", "cost-report"}
    assert ("cost", "actual") in TIER_COMMANDS


def test_docs_cli_gives_each_command_of_the_cli_tier_its_exit_2():
    from tests.cli.test_exit_codes_doc import documented

    table = documented()
    assert [p for p in TIER_COMMANDS if "the CLI tier not installed" not in table[p[0]].get(2, "")] == []
    note = (ROOT / "docs" / "CLI.md").read_text().split("**The CLI tier.**", 1)[1].split("\n\n", 1)[0]
    assert [p for p in TIER_COMMANDS if f"`{' '.join(p)}`" not in note] == []


def _refusal_argv(path: tuple[str, ...], out: Path) -> list[str]:
    flags = REQUIRED_FLAGS.get(path, []) + (["--out", str(out)] if path in {("review",), ("cost-report",)} else [])
    return [*path, *flags]


@pytest.fixture(scope="module")
def refusals(runtime_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], Any]:
    """Each command of the CLI tier, run on the runtime alone: (its result, the --out folder it must not write)."""
    outs = {path: tmp_path_factory.mktemp("refusal") / "reports" for path in TIER_COMMANDS}
    results = batch(runtime_env, [_refusal_argv(path, outs[path]) for path in TIER_COMMANDS])
    return {path: (result, outs[path]) for path, result in zip(TIER_COMMANDS, results, strict=True)}


@pytest.mark.parametrize("path", TIER_COMMANDS, ids=" ".join)
def test_a_command_of_the_cli_tier_names_the_make_target_and_exits_2(
    path: tuple[str, ...], refusals: dict[tuple[str, ...], Any]
):
    result, out = refusals[path]
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"`python -m landing_zone {' '.join(path)}` needs {CLI.requirements}" in result.stderr
    assert f"run `make {CLI.make_target}`" in result.stderr
    for dist, _ in CLI.imports:
        assert dist in result.stderr
    assert not out.exists()


# The declaration is not over-cautious: with the check switched off (as BATCH does with `unchecked`), the command
# fails for a module of the tier.  One run in a process of its own keeps the batch honest: the same failure.
UNCHECKED = (
    "import sys\n"
    "import landing_zone.cli.tiers as tiers\n"
    "tiers.missing = lambda tier: []\n"
    "from landing_zone.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def _unchecked_argv(path: tuple[str, ...], folder: Path) -> list[str]:
    flags = list(REQUIRED_FLAGS.get(path, []))
    if path in {("prove",), ("review",)}:
        (folder / "manifest.json").write_text("{}")  # the flag check accepts it; the command then loads its tier
        flags += ["--assembly", str(folder)]
    if path in {("review",), ("cost-report",)}:
        flags += ["--out", str(folder / "reports")]
    return [*path, *flags]


@pytest.fixture(scope="module")
def unchecked_runs(
    runtime_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, ...], subprocess.CompletedProcess]:
    """Each command of the CLI tier on the runtime alone with the tier check switched off (UNCHECKED, batched)."""
    runs = [_unchecked_argv(path, tmp_path_factory.mktemp("unchecked")) for path in TIER_COMMANDS]
    return dict(zip(TIER_COMMANDS, batch(runtime_env, runs, unchecked=True), strict=True))


@pytest.mark.parametrize("path", TIER_COMMANDS, ids=" ".join)
def test_a_command_of_the_cli_tier_does_need_it(
    path: tuple[str, ...], unchecked_runs: dict[tuple[str, ...], subprocess.CompletedProcess]
):
    result = unchecked_runs[path]
    missing = re.findall(r"ModuleNotFoundError: No module named '([\w.]+)'", result.stderr)
    assert missing, result.stdout + result.stderr[-3000:]
    assert missing[-1].partition(".")[0] in cli_tier_modules()


def test_the_derived_block_list_covers_the_cli_tier():
    assert cli_tier_modules() <= blocked_modules()


def test_a_command_alone_fails_as_it_does_in_the_batch(
    runtime_env: dict[str, str], tmp_path: Path, unchecked_runs: dict[tuple[str, ...], subprocess.CompletedProcess]
):
    """The batch is no shortcut: the last command of the CLI tier, in a process of its own, stops at the same module
    as it does after the others in the batch."""
    path = TIER_COMMANDS[-1]
    alone = run(runtime_env, sys.executable, "-c", UNCHECKED, *_unchecked_argv(path, tmp_path))
    pattern = r"ModuleNotFoundError: No module named '([\w.]+)'"
    assert re.findall(pattern, alone.stderr)[-1:] == re.findall(pattern, unchecked_runs[path].stderr)[-1:] != []
