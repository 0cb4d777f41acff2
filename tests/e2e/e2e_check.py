"""The assertions of ``make e2e`` (tests/e2e/e2e.sh), one subcommand per step.  Not a pytest module.

Runs with the project's virtualenv, from the repository root (``python -m tests.e2e.e2e_check CMD RUN ...``, RUN the
variant's run folder); ``AWS_ENDPOINT_URL`` points boto3 at the emulator, and every call names its account (each
12-digit access key ID is an account of its own: tests/e2e/accounts.py).  Every subcommand prints what it saw and
exits 1 when that differs from the expectation, so the e2e asserts outcomes, not exit codes.

  config RUN VARIANT             write the e2e configuration and run.json (imported VPC: create it first)
  profiles RUN                   a profile per account label of plan.json/removal.json (aws/credentials, aws/config)
  plans RUN                      deploy-plan [--remove] [--json] for the run's configuration: plan.json, removal.json,
                                 plan.tsv, removal.tsv (index, verb, label of each command)
  step RUN PLAN INDEX LOG [F..]  run one printed command as printed (accounts.run_step), F: extra deploy flags
  assemblies RUN PLAN            synthesize the assemblies the plan's -c flags need (the removal's detach)
  inventory RUN OUT              what each account holds (after its bootstrap, before the first deployment)
  stacks RUN                     every deployed stack, in its account, is CREATE_COMPLETE / UPDATE_COMPLETE
  pretended RUN EXPECTED         what the emulator only pretended to create, or a stand-in answered for, is exactly
                                 EXPECTED (account label, stack, type, logical ID, pretended|stand-in)
  readback RUN                   the deployed resources' real properties, read back in their accounts and compared
  no-changes RUN LOG...          the deploys printed "(no changes)" for every stack of the assembly
  verify RUN NAME [member]       python -m landing_zone verify with each account's profile (member: the StackSet's
                                 instance, --stackset-member), into RUN/NAME.json
  verify-counts JSON KEY         verify's PASS/DRIFT/MISSING/ERROR counts are EXPECTED_VERIFY_COUNTS[KEY]
  inject RUN                     one fault per family through the emulator's APIs, each read back at once
  detected CLEAN FAULTED STATE   verify reports every fault as DRIFT/MISSING, and nothing else changed
  events RUN                     two detection events (tests/e2e/events.py) reach the alerts topic, each alert
                                 naming its statement, the principal and the resource (organization variants)
  snapshot RUN                   before the removal: the retained resources, by account (retained.json)
  detached RUN                   after the removal's first step: no Organizations policy has a target left
  retained RUN BEFORE            after the removal: each account holds what it held before plus the retained resources
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.e2e import accounts, events, faults, readback, teardown
from tests.e2e.accounts import ACCOUNTS, LIVE_STATUSES, NAME, REGION, REPO, Run, client

HERE = Path(__file__).resolve().parent
STANDIN_MARK = "standin"  # every stand-in's physical ID contains it (tests/e2e/standins)

# -------------------------------------------------------------------------------------------------------------
# verify's counts against the emulator, per variant: THE one place to change when verify changes (a failing run
# prints the line to put here).  Why not all PASS (docs/E2E.md): the emulator has no Bedrock, Budgets, Cost
# Explorer or Organizations API, so those checks are ERROR (could not ask).
# -------------------------------------------------------------------------------------------------------------
EXPECTED_VERIFY_COUNTS: dict[str, dict[str, int]] = {
    # Since issue 24 (network, tags, termination protection, kms-alias; invocation logging deployed): full and
    # single measured; organization = single + the guardrails stack (3 stack rows PASS, 6 SCP rows ERROR; 14 since
    # issue 33) and
    # new-vpc = full - the guardrails stack, derived from them and not yet run.  The fidelity patch gives the
    # lifecycle rules an ID (the emulator refuses a rule without one), so both buckets' s3-lifecycle rows PASS.
    # Issue 26: the cost-allocation-tags custom resource (stood in) adds 18 PASS rows (its roles, policies, log
    # groups, tags) and one ERROR (cost-allocation-tag: Cost Explorer is not emulated); full measured, the others
    # derived by the same difference.
    # With an organization the activation moved to the guardrails stack (the management account), with a logs key of
    # its own: +5 PASS (kms-key, -rotation, -policy, -alias and its tags row); full measured, organization derived.
    # Issue 33 (one SCP per concern): the guardrails are 7 SCPs, not 3, so 14 SCP rows ERROR where there were 6
    # (+8 in every organization variant; derived, not yet run).
    # Issue 35/37, measured on full and single: the network-path checks add 3 PASS (private hosted zones, Resolver
    # rule associations, the route tables' rows) and 3 ERROR (DNS Firewall associations, VPC Lattice and RAM: the
    # emulator answers InternalFailure); with an organization the detection stacks add 16 PASS (3 stacks x 3 rows,
    # the forwarder roles' rows, the legacy-model alarms).  organization and new-vpc derived by the same differences.
    # Issue 37, the event-rule family, measured on full: the detection stacks' 35 EventBridge rules x events-rule,
    # -pattern, -targets, every one PASS in the emulator (+105); organization derived (the same detection stacks),
    # single and new-vpc have no detection stack.
    # detection.config_rules is opt-in and the e2e configuration does not opt in: no Config rule, no compliance alert.
    "full": {"PASS": 280, "DRIFT": 0, "MISSING": 0, "ERROR": 27},
    "organization": {"PASS": 265, "DRIFT": 0, "MISSING": 0, "ERROR": 27},
    "single": {"PASS": 136, "DRIFT": 0, "MISSING": 0, "ERROR": 13},
    "new-vpc": {"PASS": 151, "DRIFT": 0, "MISSING": 0, "ERROR": 13},
    # Issue 32 (accounts of their own; the StackSet stood in for Organizations): measured.  The administrator account
    # (guardrails and rollout stacks): 6 SCP rows (14 since issue 33) and the cost-allocation tags are ERROR; the
    # StackSet and its instance pass.  The member account (--stackset-member): single's checks of the member
    # template, the activation excepted.
    "member-baseline": {"PASS": 60, "DRIFT": 0, "MISSING": 0, "ERROR": 15},
    # The member account since issue 35: single's 3 network-path ERROR rows, and the same 4 PASS more (measured).
    # Issue 37, measured: the member template carries the detection rules recorded in home_region (us-east-1 here:
    # all 31 workload rules x events-rule, -pattern, -targets) and the legacy-model alarms' rows: +95 PASS.
    "member-baseline/member": {"PASS": 219, "DRIFT": 0, "MISSING": 0, "ERROR": 12},
}

VARIANTS = {  # variant -> (organization, new VPC, member baseline)
    "full": (True, True, False),
    "organization": (True, False, False),
    "member-baseline": (True, True, True),
    "single": (False, False, False),
    "new-vpc": (False, True, False),
}
MEMBER_OU = "ou-e2e0-members01"


def _report(failures: list[str]) -> int:
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


# ---------------------------------------------------------------- config ------------------------------------------
def cmd_config(run_dir: str, variant: str) -> int:
    """The e2e configuration over the cdk.json defaults: what the emulator can hold, in the accounts of
    tests/e2e/accounts.py.  Invocation logging is on (its buckets, bucket policies, log groups and roles are
    deployed for real; only its Lambda-backed custom resource is a stand-in); model agreements (a custom resource and
    nothing else), the content guardrail and self-hosting are off.  With an organization the SCPs target the workload
    account (the member baseline: the members' OU), so that the removal has something to detach."""
    organization, new_vpc, member_baseline = VARIANTS[variant]
    workload = ACCOUNTS["member" if member_baseline else "workload"]
    if new_vpc:  # the CDK creates the VPC (2 AZs from Fn::GetAZs); its default-SG custom resource is a stand-in
        network = "network:\n  vpc_cidr: 10.40.0.0/16\n"
    else:  # an existing VPC of the workload account: created in the emulator, its IDs go into the configuration
        ec2 = client("ec2", workload)
        vpc = ec2.create_vpc(CidrBlock="10.40.0.0/16")["Vpc"]["VpcId"]
        ec2.get_waiter("vpc_available").wait(VpcIds=[vpc])
        subnets = [
            ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.40.{i}.0/24", AvailabilityZone=f"{REGION}{az}")["Subnet"][
                "SubnetId"
            ]
            for i, az in enumerate("ab")
        ]
        network = (
            f"network:\n  vpc_id: {vpc}\n  vpc_cidr: 10.40.0.0/16\n  subnet_ids: [{', '.join(subnets)}]\n"
            f"  availability_zones: [{REGION}a, {REGION}b]\n"
        )
    if member_baseline:
        account_list = f'accounts:\n  - {{id: "{workload}", name: member, ou_id: {MEMBER_OU}}}\n'
        targets = MEMBER_OU
    else:
        account_list = f'accounts:\n  - {{id: "{workload}", name: workload}}\n'
        targets = f'"{workload}"'
    org = (
        f'organization: {{management_account_id: "{ACCOUNTS["management"]}", organization_id: o-e2etest0001, '
        f"target_ids: [{targets}]}}\n"
        if organization
        else "organization: null\n"
    )
    run = Path(run_dir)
    (run / "config.yaml").write_text(
        f"# written by tests/e2e/e2e_check.py config {variant}: the landing zone in the local emulator\n"
        f"name: {NAME}\nhome_region: {REGION}\ncompliant_regions: [us-east-1, us-east-2, us-west-2]\n"
        f"{account_list}{org}{network}"
        + ("member_baseline: {enabled: true}\n" if member_baseline else "")
        + "model_access: {accept_agreements: false}\n"
        "content_guardrail: {enabled: false}\nself_hosting: {enabled: false}\n"
    )
    labels = {"management": ACCOUNTS["management"]} if organization else {}
    labels["member" if member_baseline else "workload"] = workload
    info = {"variant": variant, "accounts": labels, "members": [workload] if member_baseline else []}
    (run / "run.json").write_text(json.dumps(info, indent=1))
    print((run / "config.yaml").read_text(), end="")
    return 0


# ---------------------------------------------------------------- stacks and pretended ---------------------------
def cmd_stacks(run_dir: str) -> int:
    run = Run(run_dir)
    failures = []
    for where in run.deployments():
        stack = client("cloudformation", where.account).describe_stacks(StackName=where.name)["Stacks"][0]
        protection = stack.get("EnableTerminationProtection")
        print(
            f"{run.label(where.account)} {where.account}\t{where.name}\t{stack['StackStatus']}"
            f"\ttermination protection {protection}"
        )
        if stack["StackStatus"] not in LIVE_STATUSES:
            failures.append(f"{where.name}: {stack['StackStatus']} {stack.get('StackStatusReason', '')}")
    return _report(failures)


def pretended(run: Run) -> list[str]:
    """Resources CloudFormation recorded as created without creating anything: the emulator has no provider for
    the type (physical ID "unknown", every Ref/GetAtt of it is "unknown") or a stand-in answered for it.  A
    StackSet's instance stack is named ``StackSet-<name>`` here (its UUID differs from run to run)."""
    rows = []
    for where in run.deployments():
        shown = where.stack.name if where.stack.stack_set else where.name
        resources = client("cloudformation", where.account).describe_stack_resources(StackName=where.name)
        for res in resources["StackResources"]:
            physical = res.get("PhysicalResourceId") or ""
            kind = "pretended" if physical == "unknown" else "stand-in" if STANDIN_MARK in physical else None
            if kind:
                rows.append(
                    f"{run.label(where.account)}\t{shown}\t{res['ResourceType']}\t{res['LogicalResourceId']}\t{kind}"
                )
    return sorted(rows)


def cmd_pretended(run_dir: str, expected_file: str) -> int:
    got = pretended(Run(run_dir))
    print("\n".join(got))
    lines = Path(expected_file).read_text().splitlines()
    want = sorted(line for line in lines if line.strip() and not line.startswith("#"))
    failures = [f"not expected to be pretended: {g}" for g in got if g not in want]
    failures += [
        f"expected to be pretended, but really created (update {expected_file}): {w}" for w in want if w not in got
    ]
    return _report(failures)


# ---------------------------------------------------------------- redeploy, verify ------------------------------
def cmd_no_changes(run_dir: str, *logs: str) -> int:
    text = "".join(Path(log).read_text() for log in logs)
    stacks = [s.name for s in Run(run_dir).assembly.stacks]
    failures = [f"{s}: the deploy did not report (no changes)" for s in stacks if f"{s} (no changes)" not in text]
    print(f"(no changes): {len(stacks) - len(failures)} of {len(stacks)} stacks")
    return _report(failures)


def cmd_verify(run_dir: str, name: str, member: str = "") -> int:
    """``python -m landing_zone verify`` as an operator runs it: the deployment account's profile, the management
    profile for the management account's stacks (``--management-profile``); ``member``: in the member account, with
    ``--stackset-member``.  Exit 1 (not everything PASS) is expected against the emulator: the counts are asserted
    next."""
    run = Run(run_dir)
    argv = [sys.executable, "-m", "landing_zone", "verify", "--assembly", str(run.dir / "cdk.out"), "--json"]
    if member:
        argv += ["--stackset-member", "--profile", "member"]
    elif run.assembly.members:  # the administrator account holds every stack of the assembly
        argv += ["--profile", "management"]
    else:
        argv += ["--profile", "workload"]
        argv += ["--management-profile", "management"] if "management" in run.accounts else []
    print(" ".join(argv[1:]))
    out = run.dir / f"{name}.json"
    with out.open("w") as stdout, (run.dir / f"{name}.err").open("w") as stderr:
        rc = subprocess.run(argv, cwd=REPO, stdout=stdout, stderr=stderr, timeout=accounts.STEP_TIMEOUT).returncode
    print(f"verify exited {rc}")
    if rc > 1:
        print((run.dir / f"{name}.err").read_text())
    return 0 if rc <= 1 else 1


def cmd_verify_counts(report: str, key: str) -> int:
    data = json.loads(Path(report).read_text())
    rows = data["checks"]
    got = {status: sum(1 for r in rows if r["status"] == status) for status in ("PASS", "DRIFT", "MISSING", "ERROR")}
    want = EXPECTED_VERIFY_COUNTS.get(key, {})
    print("verify: " + ", ".join(f"{k}={v}" for k, v in got.items()) + f" ({len(rows)} checks)")
    for r in rows:
        if r["status"] != "PASS":
            print(f"  {r['status']:7} {r['check']} {r['resource']}: {r['actual']}")
    if got != want:
        where = Path(__file__).relative_to(HERE.parents[1])
        print(f"expected {want}; if verify changed on purpose, put this line into EXPECTED_VERIFY_COUNTS ({where}):")
        print(f'    "{key}": {json.dumps(got)},')
    if os.environ.get("E2E_RECORD_COUNTS") == "1":
        print("E2E_RECORD_COUNTS=1: counts printed, not asserted")
        return 0
    if not want:
        return _report([f"no EXPECTED_VERIFY_COUNTS[{key!r}]"])
    return _report([f"verify {k}: {got[k]}, expected {want[k]}" for k in want if got[k] != want[k]])


COMMANDS: dict[str, Callable[..., int]] = {
    "config": cmd_config,
    "profiles": lambda run: accounts.write_profiles(Run(run)),
    "plans": accounts.write_plans,
    "step": lambda run, which, index, log, *extra: accounts.run_step(
        Run(run), which, int(index), Path(log), list(extra)
    ),
    "assemblies": lambda run, which: accounts.presynthesize(Run(run), which),
    "inventory": teardown.cmd_inventory,
    "stacks": cmd_stacks,
    "pretended": cmd_pretended,
    "readback": readback.cmd_readback,
    "no-changes": cmd_no_changes,
    "verify": cmd_verify,
    "verify-counts": cmd_verify_counts,
    "inject": faults.cmd_inject,
    "detected": faults.cmd_detected,
    "events": events.cmd_events,
    "snapshot": teardown.cmd_snapshot,
    "detached": teardown.cmd_detached,
    "retained": teardown.cmd_retained,
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        return 2
    if not os.environ.get("AWS_ENDPOINT_URL", "").startswith("http://127.0.0.1:"):
        print("refusing to run: AWS_ENDPOINT_URL does not point at a local emulator (run through make e2e)")
        return 2
    return COMMANDS[argv[0]](*argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
