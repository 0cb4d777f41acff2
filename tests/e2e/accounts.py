"""The accounts of an e2e run, their credentials, and the deploy plan run as printed (``make e2e``).

LocalStack gives every 12-digit access key ID an account of its own (multi-account emulation), so each account of
the configuration is a profile whose key ID is the account ID.  ``python -m landing_zone deploy-plan --json`` (and
``--remove --json``) are the source of truth: :func:`run_step` runs one of their commands as printed, with what an
unattended run against the emulator adds (``--app`` = the assembly synthesized from the same configuration and the
command's own ``-c`` flags, so the CLI does not synthesize again; ``--require-approval never``; ``--force`` for
``destroy``), and nothing else.  A printed ``aws ...`` command is run through botocore's model of that operation
(the AWS CLI is not a dependency): every flag must be a member of the operation's input, so a flag the CLI would
refuse fails here too.

A run folder holds ``run.json`` (variant and accounts, written by ``e2e_check config``), ``plan.json`` and
``removal.json`` (the plan's JSON), ``aws/credentials`` and ``aws/config`` (a profile per account label of the
plan) and ``cdk.out`` (the assembly).
"""

from __future__ import annotations

import configparser
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import boto3
import botocore.session
from botocore import xform_name

from landing_zone.assembly import Assembly, Resource, Stack
from landing_zone.verify.live import NAME_PROPERTY

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
REGION = "us-east-1"
NAME = "lz-e2e"  # the landing zone's name in every variant's configuration
# The emulated accounts: management (the guardrails, the StackSet administrator), workload (the per-account stacks),
# member (the StackSet's instance).  Not the examples' placeholders (12 identical digits are refused as such).
ACCOUNTS = {"management": "100000000001", "workload": "100000000002", "member": "100000000003"}
LIVE_STATUSES = ("CREATE_COMPLETE", "UPDATE_COMPLETE")
STEP_TIMEOUT = int(os.environ.get("STEP_TIMEOUT", "300"))


def client(service: str, account: str) -> Any:
    """A client of the emulator in ``account`` (its access key ID is the account ID)."""
    return boto3.client(service, region_name=REGION, aws_access_key_id=account, aws_secret_access_key="test")


@dataclass(frozen=True)
class Deployed:
    """A template as deployed: the account and the live stack name (a StackSet member: its instance stack)."""

    stack: Stack
    account: str
    name: str


class Run:
    def __init__(self, run_dir: str | Path) -> None:
        self.dir = Path(run_dir)
        self.info: dict[str, Any] = json.loads((self.dir / "run.json").read_text())

    @property
    def variant(self) -> str:
        return str(self.info["variant"])

    @property
    def accounts(self) -> dict[str, str]:
        """label -> account ID, every account the run deploys to."""
        return dict(self.info["accounts"])

    @property
    def members(self) -> list[str]:
        return list(self.info.get("members", []))

    def plan(self, which: str = "plan") -> list[dict[str, str]]:
        return list(json.loads((self.dir / f"{which}.json").read_text()))

    @cached_property
    def assembly(self) -> Assembly:
        return Assembly.load(self.dir / "cdk.out")

    def views(self) -> list[Assembly]:
        """The assembly, and for a member baseline also the member view (the StackSet's template)."""
        return [self.assembly, *([self.assembly.member_view()] if self.assembly.members else [])]

    def where(self, stack: Stack) -> Deployed:
        if not stack.stack_set:
            assert stack.account, f"{stack.name}: no account in the assembly"
            return Deployed(stack, stack.account, stack.name)
        (member,) = self.members  # one member account in the e2e
        return Deployed(stack, member, instance_stack(member, stack.stack_set))

    def deployments(self) -> list[Deployed]:
        return [self.where(s) for view in self.views() for s in view.stacks]

    def client(self, service: str, stack: Stack) -> Any:
        return client(service, self.where(stack).account)

    def physical_id(self, res: Resource) -> str:
        """The physical ID CloudFormation recorded, asked directly (not through verify's resolver)."""
        where = self.where(res.stack)
        detail = client("cloudformation", where.account).describe_stack_resource(
            StackName=where.name, LogicalResourceId=res.logical_id
        )
        return str(detail["StackResourceDetail"]["PhysicalResourceId"])

    def label(self, account: str) -> str:
        return next(label for label, acct in self.accounts.items() if acct == account)

    def profile_of(self, role: str) -> str:
        """The profile (account label) of a role of the plan: management, or the account of the deployment."""
        return self.label(ACCOUNTS[role])


def instance_stack(account: str, stack_set: str) -> str:
    """The live instance stack ``StackSet-<name>-<uuid>`` of a StackSet in ``account`` (the newest)."""
    prefix = f"StackSet-{stack_set}-"
    summaries = client("cloudformation", account).list_stacks()["StackSummaries"]
    found = sorted(
        (s for s in summaries if s["StackName"].startswith(prefix) and s["StackStatus"] != "DELETE_COMPLETE"),
        key=lambda s: str(s["CreationTime"]),
    )
    if not found:
        raise AssertionError(f"no stack {prefix}... in account {account}")
    return str(found[-1]["StackName"])


# ---------------------------------------------------------------- credentials ---------------------------------------
def write_profiles(run: Run) -> int:
    """One profile per account label the plan prints (``--profile <label>``), its key ID the account: the printed
    commands and ``verify`` run with them; there is no default profile, so a command without one fails."""
    labels = {s["account_label"]: s["account"] for which in ("plan", "removal") for s in run.plan(which)}
    labels.update(run.accounts)
    credentials, config = configparser.ConfigParser(), configparser.ConfigParser()
    for label, account in sorted(labels.items()):
        credentials[label] = {"aws_access_key_id": account, "aws_secret_access_key": "test"}
        config[f"profile {label}"] = {"region": REGION}
    folder = run.dir / "aws"
    folder.mkdir(exist_ok=True)
    with (folder / "credentials").open("w") as f:
        credentials.write(f)
    with (folder / "config").open("w") as f:
        config.write(f)
    print("\n".join(f"profile {label}: account {account}" for label, account in sorted(labels.items())))
    unknown = sorted(a for a in labels.values() if a not in ACCOUNTS.values())
    return 1 if unknown else 0


# ---------------------------------------------------------------- the printed commands ------------------------------
def _contexts(argv: list[str]) -> tuple[list[str], dict[str, str]]:
    """The command without its ``-c``/``--context`` flags, and those flags."""
    rest, contexts = [], {}
    i = 0
    while i < len(argv):
        if argv[i] in ("-c", "--context"):
            key, _, value = argv[i + 1].partition("=")
            contexts[key] = value
            i += 2
            continue
        rest.append(argv[i])
        i += 1
    return rest, contexts


def assembly_for(run: Run, contexts: dict[str, str], log: Any) -> Path:
    """The assembly a printed ``cdk`` command would synthesize: the run's own for ``-c config=<the run's
    configuration>`` alone; with other ``-c`` flags, synthesized once with them (``cdk.out-<keys>``)."""
    config = contexts.pop("config", None)
    if config is not None and Path(config).resolve() != (run.dir / "config.yaml").resolve():
        raise AssertionError(f"-c config={config}: not this run's configuration")
    if not contexts:
        return run.dir / "cdk.out"
    out = run.dir / ("cdk.out-" + "-".join(sorted(contexts)))
    if not (out / "manifest.json").is_file():
        flags = [arg for k, v in sorted(contexts.items()) for arg in ("-c", f"{k}={v}")]
        cmd = [
            "cdk",
            "synth",
            "--quiet",
            "--no-notices",
            "-c",
            f"config={run.dir / 'config.yaml'}",
            *flags,
            "-o",
            str(out),
        ]
        print(f"synthesizing {out.name}: {shlex.join(cmd[1:])}", file=log, flush=True)
        subprocess.run(cmd, cwd=REPO, check=True, stdout=subprocess.DEVNULL, stderr=log, timeout=STEP_TIMEOUT)
    return out


def _cdk(run: Run, argv: list[str], log: Any, extra: list[str]) -> int:
    argv, contexts = _contexts(argv)
    sub = argv[1]
    added: list[str] = ["--no-notices"]
    if sub in ("deploy", "destroy"):
        added += ["--app", str(assembly_for(run, contexts, log))]
    if sub == "deploy":
        added += ["--require-approval", "never", "--concurrency", "4", *extra]
    if sub == "destroy":
        added += ["--force"]
    cmd = [*argv, *added]
    print(f"$ {shlex.join(cmd)}", file=log, flush=True)
    try:
        return subprocess.run(cmd, cwd=run.dir, stdout=log, stderr=subprocess.STDOUT, timeout=STEP_TIMEOUT).returncode
    except subprocess.TimeoutExpired:
        print(f"timed out after {STEP_TIMEOUT} s (STEP_TIMEOUT)", file=log)
        return 124


def _aws(argv: list[str], log: Any) -> int:
    """``aws <service> <operation> --flag value ...`` through botocore's model (module docstring)."""
    service, operation_cli, flags = argv[1], argv[2], argv[3:]
    model = botocore.session.get_session().get_service_model(service)
    operation = next(o for o in model.operation_names if xform_name(o, "-") == operation_cli)
    members = model.operation_model(operation).input_shape.members
    by_flag = {xform_name(name, "-"): (name, shape) for name, shape in members.items()}
    params: dict[str, Any] = {}
    session: dict[str, str] = {}
    i = 0
    while i < len(flags):
        flag = flags[i].removeprefix("--")
        if flag in ("profile", "region"):
            session["profile_name" if flag == "profile" else "region_name"] = flags[i + 1]
            i += 2
        elif flag.startswith("no-") and flag[3:] in by_flag and by_flag[flag[3:]][1].type_name == "boolean":
            params[by_flag[flag[3:]][0]] = False
            i += 1
        elif flag in by_flag and by_flag[flag][1].type_name == "boolean":
            params[by_flag[flag][0]] = True
            i += 1
        elif flag in by_flag:
            params[by_flag[flag][0]] = flags[i + 1]
            i += 2
        else:
            raise AssertionError(f"aws {service} {operation_cli}: no flag --{flag} (botocore's {operation} input)")
    print(f"$ {shlex.join(argv)}  ->  {operation}({params})", file=log, flush=True)
    getattr(boto3.Session(**session).client(service), xform_name(operation))(**params)
    return 0


def run_step(run: Run, which: str, index: int, log_path: Path, extra: list[str]) -> int:
    """Run command ``index`` of ``plan.json``/``removal.json`` as printed (module docstring)."""
    step = run.plan(which)[index]
    argv = shlex.split(step["command"])
    with log_path.open("a") as log:
        print(f"# {step['account']} ({step['account_label']}): {step['why']}", file=log, flush=True)
        if argv[0] == "cdk":
            rc = _cdk(run, argv, log, extra)
        elif argv[0] == "aws":
            rc = _aws(argv, log)
        else:
            raise AssertionError(f"not a cdk or aws command: {step['command']}")
    if rc != 0:
        print(log_path.read_text()[-4000:], file=sys.stderr)
        if argv[1] == "deploy":
            collisions(run, step, argv)
    return rc


def collisions(run: Run, step: dict[str, str], argv: list[str]) -> list[str]:
    """After a failed deploy: every resource CloudFormation could not create because its name is taken (a
    retained resource of an earlier deployment), printed so that the run says why."""
    cfn = client("cloudformation", step["account"])
    found = []
    for name in [a for a in _contexts(argv)[0][2:] if not a.startswith("-") and a.startswith(NAME)]:
        try:
            events = cfn.describe_stack_events(StackName=name)["StackEvents"]
        except Exception:  # noqa: BLE001 - a stack that never started has no events
            continue
        stack = run.assembly.stack(name)
        for e in events:
            reason = str(e.get("ResourceStatusReason") or "")
            if e.get("ResourceStatus", "").endswith("FAILED") and "exist" in reason.lower():
                res = stack.resource(e["LogicalResourceId"]) if stack else None
                named = res.prop(NAME_PROPERTY[res.type]) if res is not None and res.type in NAME_PROPERTY else None
                physical = f" named {named!r}" if isinstance(named, str) else ""
                found.append(f"{name} {e['LogicalResourceId']} ({e['ResourceType']}{physical}): {reason[:300]}")
    for line in dict.fromkeys(found):
        print(f"REDEPLOY COLLISION: {line}", file=sys.stderr)
    if found:
        print(
            "a fixed physical name of a retained resource collides with the first deployment's (issue 32, review "
            "rule (d): names unique per stack instance)",
            file=sys.stderr,
        )
    return found


def presynthesize(run: Run, which: str) -> int:
    """The assemblies the ``cdk`` commands of the plan need beyond the run's own (the removal's detach), made ahead
    of time (``make e2e`` runs this in the background while the CLI waits for CloudFormation)."""
    for step in run.plan(which):
        argv = shlex.split(step["command"])
        if argv[0] == "cdk" and argv[1] in ("deploy", "destroy"):
            print(assembly_for(run, _contexts(argv)[1], sys.stdout))
    return 0


def write_plans(run_dir: str) -> int:
    """``python -m landing_zone deploy-plan [--remove] [--json] --config <run>/config.yaml``, the CLI's own entry point
    run in this one process (four interpreters would cost seconds of CPU each on a shared machine): the printed plans
    go to the log, the JSON to plan.json and removal.json, and ``<plan>.tsv`` lists each command as ``index<TAB>verb
    <TAB>label`` for the script's loops."""
    import contextlib
    import io

    from landing_zone.cli import main

    folder = Path(run_dir)
    config = str(folder / "config.yaml")
    for which, flags in (("plan", []), ("removal", ["--remove"])):
        for json_flag in ([], ["--json"]):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(["deploy-plan", "--config", config, *flags, *json_flag])
            if rc != 0:
                print(err.getvalue(), file=sys.stderr)
                return rc
            if json_flag:
                (folder / f"{which}.json").write_text(out.getvalue())
            else:
                print(out.getvalue(), file=sys.stderr)
        lines = []
        for i, step in enumerate(json.loads((folder / f"{which}.json").read_text())):
            argv = shlex.split(step["command"])
            lines.append(f"{i}\t{argv[1] if argv[0] == 'cdk' else argv[2]}\t{step['account_label']}\n")
        (folder / f"{which}.tsv").write_text("".join(lines))
    return 0
