"""cfn-lint and checkov over the assembly's templates, offline, as subprocesses of the scanners' own Python.

The scanners live in their own pinned virtualenv (``.venv-scanners``, from ``requirements-scanners.txt``, made by
``make scanners``), so their pins never constrain the runtime; :func:`scanner_python` finds it
(``LZ_SCANNERS_PYTHON`` overrides, and without that virtualenv this Python is used).

* cfn-lint (``python -c 'cfnlint.runner.main()'``, ``--format json``) with the stacks' Region(s): errors are
  blocking findings (``LZ-CFN-LINT-ERROR``), warnings and informational results are listed.
* checkov (``python -m checkov.main``) with ``--framework cloudformation --skip-download`` and
  ``BC_SKIP_MAPPING=TRUE``, no API keys in its environment and its working directory in the assembly: it
  downloads nothing, uploads nothing and reaches no network.  A failed check is blocking
  (``LZ-CHECKOV-FAILED``) unless ``checkov-skips.yaml`` lists it with a reason (optionally for one resource).

Both scanners run at the same time; each must finish within ``SCANNER_TIMEOUT_SECONDS``.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from landing_zone.assembly import Assembly
from landing_zone.errors import LandingZoneError
from landing_zone.review.findings import Finding, finding
from landing_zone.review.rules import BLOCKING, define

__all__ = [
    "CheckovSkip",
    "ScannerRun",
    "SkipsError",
    "DEFAULT_SKIPS_FILE",
    "load_skips",
    "run_scanners",
    "scanner_python",
    "scanner_findings",
    "scanners_section",
]

SCANNER_TIMEOUT_SECONDS = 600
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SKIPS_FILE = REPO_ROOT / "checkov-skips.yaml"
SCANNERS_VENV = REPO_ROOT / ".venv-scanners"
SCANNERS_PYTHON_ENV = "LZ_SCANNERS_PYTHON"
MIN_REASON_CHARACTERS = 20
# Variables that would make checkov talk to a platform (or an LLM), or read another config.
_SCRUBBED_ENV = (
    "BC_API_KEY",
    "CKV_API_KEY",
    "PRISMA_API_URL",
    "BC_API_URL",
    "CKV_OPENAI_API_KEY",
    "OPENAI_API_KEY",
    "CKV_VALIDATE_SECRETS",
    "BC_SOURCE",
    "BC_REPO_ID",
)
_CFN_LINT = "import sys; from cfnlint.runner import main; sys.exit(main())"


class SkipsError(LandingZoneError):
    """checkov-skips.yaml is malformed (exit code 2)."""


@dataclass(frozen=True)
class CheckovSkip:
    check: str
    reason: str
    resource: str | None = (
        None  # fnmatch pattern on checkov's resource ("AWS::Lambda::Function.Handler*") or logical id
    )

    def covers(self, check_id: str, resource: str) -> bool:
        if self.check != check_id:
            return False
        if self.resource is None:
            return True
        logical_id = resource.rsplit(".", 1)[-1]
        return fnmatch.fnmatchcase(resource, self.resource) or fnmatch.fnmatchcase(logical_id, self.resource)


def _skip_problems(i: int, entry: Mapping[str, Any]) -> list[str]:
    """What is wrong with entry `i` of the skips file (a mapping): unknown keys, check, reason, resource."""
    problems = []
    check, reason, resource = entry.get("check"), entry.get("reason"), entry.get("resource")
    unknown = set(entry) - {"check", "reason", "resource"}
    if unknown:
        problems.append(f"skips[{i}]: unknown key(s) {sorted(unknown)} (allowed: check, reason, resource)")
    if not isinstance(check, str) or not check.startswith("CKV"):
        problems.append(f"skips[{i}].check: got {check!r}; must be a checkov check ID like 'CKV_AWS_116'")
    if not isinstance(reason, str) or len(reason.strip()) < MIN_REASON_CHARACTERS:
        problems.append(
            f"skips[{i}].reason: got {reason!r}; must give the evidence in at least {MIN_REASON_CHARACTERS} characters"
        )
    if resource is not None and not isinstance(resource, str):
        problems.append(f"skips[{i}].resource: got {resource!r}; must be a resource ID or pattern")
    return problems


def load_skips(path: Path | None) -> tuple[CheckovSkip, ...]:
    """The skips file: ``skips: [{check, reason, resource?}]``; every entry needs a reason with evidence."""
    if path is None or not path.is_file():
        return ()
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise SkipsError(f"{path}: not valid YAML: {exc}") from None
    entries = data.get("skips") if isinstance(data, Mapping) else None
    if not isinstance(entries, list):
        raise SkipsError(f"{path}: expected a top-level 'skips:' list of {{check, reason, resource?}}")
    skips: list[CheckovSkip] = []
    problems: list[str] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            problems.append(f"skips[{i}]: got {entry!r}; must be a mapping with check and reason")
            continue
        problems.extend(_skip_problems(i, entry))
        check, reason, resource = entry.get("check"), entry.get("reason"), entry.get("resource")
        if isinstance(check, str) and isinstance(reason, str):
            skips.append(CheckovSkip(check, " ".join(reason.split()), resource if isinstance(resource, str) else None))
    if problems:
        raise SkipsError(f"{path}: {len(problems)} problem(s)\n" + "\n".join(f"  - {p}" for p in problems))
    return tuple(skips)


@dataclass
class ScannerRun:
    name: str
    command: list[str]
    seconds: float = 0.0
    returncode: int | None = None
    output: Any = None
    error: str | None = None
    version: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def scanner_python() -> str:
    """The Python that runs the scanners: $LZ_SCANNERS_PYTHON, else .venv-scanners, else this one."""
    configured = os.environ.get(SCANNERS_PYTHON_ENV)
    if configured:
        return configured
    candidate = SCANNERS_VENV / "bin" / "python"
    return str(candidate) if candidate.exists() else sys.executable


_VERSIONS = (
    "import json, importlib.metadata as m\n"
    "def v(n):\n"
    "    try:\n        return m.version(n)\n"
    "    except m.PackageNotFoundError:\n        return 'not installed'\n"
    "print(json.dumps({n: v(n) for n in ('cfn-lint', 'checkov')}))"
)


def scanner_versions(python: str) -> dict[str, str]:
    """{"cfn-lint": version, "checkov": version} in the scanners' Python ("not installed" when absent)."""
    try:
        done = subprocess.run([python, "-c", _VERSIONS], capture_output=True, text=True, timeout=60)
        found = json.loads(done.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {"cfn-lint": "not installed", "checkov": "not installed"}
    return {name: str(found.get(name, "not installed")) for name in ("cfn-lint", "checkov")}


def _checkov_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED_ENV}
    env.update(
        {
            "BC_SKIP_MAPPING": "TRUE",
            # checkov's banner asks PyPI for a newer version (checkov/common/util/banner.py, UpdateChecker, whose
            # answer is cached for a while: the connection shows only in some runs); the review stays offline
            "CKV_SKIP_PACKAGE_UPDATE_CHECK": "true",
            "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2": "false",
            "LOG_LEVEL": "WARNING",
            "PYTHONWARNINGS": "ignore",
        }
    )
    return env


def _regions(assembly: Assembly) -> list[str]:
    return sorted({t.region for t in assembly.templates if t.region}) or ["us-east-1"]


def checkov_command(python: str, files: Sequence[str]) -> list[str]:
    """The checkov command the review runs (offline: --skip-download, JSON out), one --file per template."""
    return [
        python,
        "-W",
        "ignore",
        "-m",
        "checkov.main",
        "--framework",
        "cloudformation",
        "--skip-download",
        "--output",
        "json",
        "--quiet",
        "--compact",
        *(a for f in files for a in ("--file", f)),
    ]


# A directory where the results of identical scans are kept: same scanner version, same command, same template bytes
# give the same report, so a scan already made is read back instead of run again (the tests set it; the scanners take
# 15-25 s per assembly).  Unset: every scan runs.
SCANNER_CACHE_ENV = "LZ_SCANNER_CACHE"


def _cache_file(run: ScannerRun, root: Path, files: Sequence[str]) -> Path | None:
    directory = os.environ.get(SCANNER_CACHE_ENV)
    if not directory or run.version in ("", "not installed"):
        return None
    digest = hashlib.sha256(json.dumps([run.name, run.version, run.command[2:]]).encode())
    for name in files:
        digest.update(name.encode())
        digest.update((root / name).read_bytes())
    return Path(directory) / f"{run.name}-{digest.hexdigest()[:32]}.json"


def _from_cache(run: ScannerRun, path: Path | None) -> bool:
    if path is None or not path.is_file():
        return False
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    run.returncode, run.output = stored["returncode"], stored["output"]
    run.extra["cached"] = True
    return True


def _to_cache(run: ScannerRun, path: Path | None) -> None:
    if path is None or run.error is not None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(f".{os.getpid()}.tmp")
    staging.write_text(json.dumps({"returncode": run.returncode, "output": run.output}), encoding="utf-8")
    staging.replace(path)


def run_scanners(assembly: Assembly, *, timeout: float = SCANNER_TIMEOUT_SECONDS) -> dict[str, ScannerRun]:
    """Run cfn-lint and checkov concurrently over the top-level templates of the assembly."""
    files = sorted({t.file for t in assembly.templates})
    root = assembly.path.resolve()
    python = scanner_python()
    versions = scanner_versions(python)
    runs = {
        "cfn-lint": ScannerRun(
            "cfn-lint",
            [python, "-c", _CFN_LINT, "--format", "json", "--regions", *_regions(assembly), "--", *files],
            version=versions["cfn-lint"],
        ),
        "checkov": ScannerRun(
            "checkov",
            checkov_command(python, files),
            version=versions["checkov"],
        ),
    }
    envs = {"cfn-lint": dict(os.environ), "checkov": _checkov_env()}
    started: dict[str, tuple[subprocess.Popen[str], float]] = {}
    caches = {name: _cache_file(run, root, files) for name, run in runs.items()}
    for name, run in runs.items():
        if _from_cache(run, caches[name]):
            continue
        if run.version == "not installed":
            run.error = (
                f"{name} is not installed for {python}: run `make scanners` (requirements-scanners.txt "
                f"into {SCANNERS_VENV.name}/), or point {SCANNERS_PYTHON_ENV} at a Python that has it"
            )
            continue
        try:
            proc = subprocess.Popen(
                run.command,
                cwd=root,
                env=envs[name],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
                text=True,
            )
        except OSError as exc:
            run.error = f"could not start {name}: {exc}"
            continue
        started[name] = (proc, time.monotonic())
    for name, (proc, t0) in started.items():
        run = runs[name]
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            run.error = f"{name} did not finish within {timeout:.0f} s"
            continue
        finally:
            run.seconds = round(time.monotonic() - t0, 2)
        run.returncode = proc.returncode
        try:
            run.output = json.loads(stdout) if stdout.strip() else None
        except ValueError:
            run.output = None
        if run.output is None:
            tail = (stderr or stdout).strip().splitlines()[-5:]
            run.error = (
                f"{name} exited {proc.returncode} without JSON output: {' | '.join(tail) or '(nothing printed)'}"
            )
        _to_cache(run, caches[name])
    return runs


# ----------------------------------------------------------------------------------------- parsing


def _cfn_lint_results(run: ScannerRun) -> list[dict[str, Any]]:
    results = []
    for item in run.output or []:
        if not isinstance(item, Mapping):
            continue
        rule_info = item.get("Rule") or {}
        location = item.get("Location") or {}
        path = location.get("Path") or []
        logical_id = str(path[1]) if len(path) > 1 and path[0] == "Resources" else ""
        results.append(
            {
                "level": str(item.get("Level", "")),
                "rule": str(rule_info.get("Id", "")),
                "description": str(rule_info.get("ShortDescription", "")),
                "message": str(item.get("Message", "")),
                "template": str(item.get("Filename", "")),
                "logical_id": logical_id,
                "path": "/".join(str(p) for p in path),
                "line": (location.get("Start") or {}).get("LineNumber"),
            }
        )
    return sorted(
        results, key=lambda r: (r["level"], r["template"], r["logical_id"], r["rule"], r["path"], r["message"])
    )


def _checkov_reports(run: ScannerRun) -> list[Mapping[str, Any]]:
    out = run.output
    if isinstance(out, Mapping):
        return [out]
    return [r for r in out or [] if isinstance(r, Mapping)]


def _checkov_results(
    run: ScannerRun, skips: Sequence[CheckovSkip]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    failed, skipped, passed = [], [], 0
    for report in _checkov_reports(run):
        summary = report.get("summary") or {}
        passed += int(summary.get("passed", 0) or 0)
        for check in (report.get("results") or {}).get("failed_checks") or []:
            resource = str(check.get("resource", ""))
            item = {
                "check": str(check.get("check_id", "")),
                "name": str(check.get("check_name", "")),
                "resource": resource,
                "logical_id": resource.rsplit(".", 1)[-1],
                "template": str(check.get("file_path", "")).lstrip("/"),
                "lines": check.get("file_line_range"),
            }
            skip = next((s for s in skips if s.covers(item["check"], resource)), None)
            if skip is None:
                failed.append(item)
            else:
                skipped.append({**item, "reason": skip.reason, "skip_resource": skip.resource})
    key = lambda r: (r["check"], r["template"], r["resource"])  # noqa: E731
    return sorted(failed, key=key), sorted(skipped, key=key), passed


def scanners_section(
    runs: Mapping[str, ScannerRun] | None, skips: Sequence[CheckovSkip], skips_file: str
) -> dict[str, Any]:
    if runs is None:
        return {"ran": False, "note": "scanners not run (--no-scanners)"}
    lint, ckv = runs["cfn-lint"], runs["checkov"]
    lint_results = _cfn_lint_results(lint) if lint.error is None else []
    failed, skipped, passed = _checkov_results(ckv, skips) if ckv.error is None else ([], [], 0)
    used = {(s["check"], s["skip_resource"]) for s in skipped}
    return {
        "ran": True,
        "cfn_lint": {
            "version": lint.version,
            "error": lint.error,
            "errors": [r for r in lint_results if r["level"] == "Error"],
            "warnings": [r for r in lint_results if r["level"] == "Warning"],
            "informational": [r for r in lint_results if r["level"] not in ("Error", "Warning")],
        },
        "checkov": {
            "version": ckv.version,
            "error": ckv.error,
            "offline": "--skip-download, BC_SKIP_MAPPING=TRUE, no API key in the environment",
            "passed": passed,
            "failed": failed,
            "skipped": skipped,
            "skips_file": skips_file,
            "unused_skips": sorted(
                [
                    {"check": s.check, "resource": s.resource, "reason": s.reason}
                    for s in skips
                    if (s.check, s.resource) not in used
                ],
                key=lambda s: (s["check"], s["resource"] or ""),
            ),
        },
    }


CFN_LINT_ERROR = define(
    "LZ-CFN-LINT-ERROR",
    BLOCKING,
    "cfn-lint error",
    "cfn-lint reports an error in a template (warnings and informational results are listed, not findings).",
    "CloudFormation is likely to reject or misread the template. Fix the property.",
)


CHECKOV_FAILED = define(
    "LZ-CHECKOV-FAILED",
    BLOCKING,
    "checkov check failed and not skipped",
    "checkov reports a failed check that checkov-skips.yaml does not list with a reason.",
    "Fix the resource, or list the check in checkov-skips.yaml for this resource with a reason (at least "
    "20 characters, saying what makes it safe).",
)


SCANNER_ERROR = define(
    "LZ-SCANNER-ERROR",
    BLOCKING,
    "A scanner could not run",
    "cfn-lint or checkov is not installed, crashed, or produced no readable output.",
    "The review is incomplete without the scanner. Run `make scanners` (or set LZ_SCANNERS_PYTHON) and review again.",
)


def scanner_findings(section: Mapping[str, Any]) -> list[Finding]:
    if not section.get("ran"):
        return []
    out: list[Finding] = []
    for tool in ("cfn_lint", "checkov"):
        if section[tool]["error"]:
            out.append(finding(SCANNER_ERROR, section[tool]["error"], element=tool.replace("_", "-")))
    for e in section["cfn_lint"]["errors"]:
        out.append(
            finding(
                CFN_LINT_ERROR,
                f"{e['rule']} {e['message']}",
                template=e["template"],
                logical_id=e["logical_id"],
                element=e["path"],
            )
        )
    for f in section["checkov"]["failed"]:
        out.append(
            finding(
                CHECKOV_FAILED,
                f"{f['check']} {f['name']} ({f['resource']}); fix it or list it with a "
                f"reason in {Path(section['checkov']['skips_file']).name}",
                template=f["template"],
                logical_id=f["logical_id"],
                element=f["check"],
            )
        )
    return out
