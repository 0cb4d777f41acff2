"""Run the command line in this test process, as ``python -m landing_zone`` would in a new one.

Starting a Python process that imports the CLI costs about a second on a 2-core machine, and the CLI tests run a few
hundred commands (hostile inputs, exit codes, bounds): in-process, the imports are paid once per worker.  The result
is a :class:`subprocess.CompletedProcess` with what the process would have given:

* ``returncode``: ``main()``'s return value, or the code of a ``SystemExit`` (argparse's usage errors, ``--help``);
  an exception escaping ``main()`` gives 1 and its traceback on stderr, as the interpreter prints it — so a test
  asserting "no traceback" still fails when the CLI lets one escape;
* ``stdout`` / ``stderr``: everything printed to ``sys.stdout`` / ``sys.stderr`` (the CLI writes nowhere else: no
  logging handlers, no file descriptors).

What only a real process shows — the entry point, start-up imports (z3 is not loaded by ``validate``), the runtime
tier without the CLI's dependencies, the environment a shell gives — is tested with subprocesses (``lz_process``,
tests/cli/test_tiers.py, tests/cli/test_fresh_machine.py).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from tests.support.digest import ROOT

__all__ = ["app", "lz", "lz_process"]


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None, cwd: Path | None) -> Iterator[None]:
    """``os.environ`` updated with ``env`` and the working directory ``cwd``, both restored afterwards."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    try:
        os.environ.update(env or {})
        os.chdir(cwd or ROOT)
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def lz(*args: str, env: Mapping[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m landing_zone *args`` in this process (see the module's docstring)."""
    from landing_zone.cli import main

    return _run(lambda: main(list(args)), ["landing_zone", *args], env, cwd)


def app(context: Mapping[str, object], outdir: Path) -> subprocess.CompletedProcess:
    """``python app.py`` (the CDK app, as ``cdk synth`` runs it with ``context`` and ``outdir``) in this process: the
    jsii runtime this worker already started is reused instead of a new Node.js process.  The CDK CLI hands both over
    in ``CDK_CONTEXT_JSON`` and ``CDK_OUTDIR``, which the jsii runtime reads from its own environment when it starts;
    here they reach ``cdk.App`` as its ``context`` and ``outdir`` arguments instead (the same values, parsed)."""
    import functools
    import importlib.util
    import types

    import aws_cdk

    spec = importlib.util.spec_from_file_location("_lz_app_under_test", ROOT / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.cdk = types.SimpleNamespace(App=functools.partial(aws_cdk.App, context=dict(context), outdir=str(outdir)))
    return _run(module.main, ["app.py"], None, None)


def _run(
    main: Callable[[], int], argv: list[str], env: Mapping[str, str] | None, cwd: Path | None
) -> subprocess.CompletedProcess:
    out, err = io.StringIO(), io.StringIO()
    with _environment(env, cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main()
        except SystemExit as exc:  # argparse (usage errors exit 2, --help and --version exit 0)
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if exc.code is not None and not isinstance(exc.code, int):
                print(exc.code, file=sys.stderr)
        except Exception:  # noqa: BLE001 - any escaping exception: what the interpreter prints before exiting 1
            traceback.print_exc(file=sys.stderr)
            code = 1
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def lz_process(
    *args: str, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """``python -m landing_zone *args`` in a new process (the real entry point)."""
    return subprocess.run(
        [sys.executable, "-m", "landing_zone", *args],
        cwd=cwd or ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )
