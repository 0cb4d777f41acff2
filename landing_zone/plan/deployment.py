"""How a configuration is deployed for real: which stack goes to which account, in which order, with which bootstrap.

One set of credentials cannot deploy an organization configuration: the guardrail SCPs belong to the management
account, the workload stacks to the deployment account, the member-baseline StackSet to the StackSet
administrator.  :func:`deployment_steps` turns the plan into the ordered commands (``python -m landing_zone
deploy-plan``, ``make deploy``), each with the account it must run in:

1. ``cdk bootstrap`` every account that receives a stack — **before** the SCPs exist: afterwards
   ``DenyExemptRoleTakeover`` protects the CDK roles' names, and only the deployment principals may change them.
   The bootstrap is the landing zone's own: its qualifier (``policy_guardrails.cdk_bootstrap_qualifier``) in a stack
   of its own (``--toolkit-stack-name``, ``policy_guardrails.toolkit_stack_name``), never the account's shared
   ``CDKToolkit``, which a ``--qualifier`` without a stack name would re-parameterise for every other app.
   A workload account is bootstrapped with ``--trust`` for every other account named in
   ``policy_guardrails.deployer_principal_arns`` (a pipeline deploying from its own account).
2. the management account deploys ``<name>-guardrails`` (and, with ``member_baseline``, the StackSet
   administrator deploys ``<name>-rollout``);
3. the deployment account deploys the workload stacks.  Once the SCPs are attached, only the principals of
   ``policy_guardrails.deployer_principal_arns`` (or principals outside the targeted accounts, trusted at
   bootstrap) may assume the CDK roles there (``DenyDeploymentRoleAssumption``).

:func:`removal_steps` is the way out, in the reverse order (``deploy-plan --remove``; docs/DEPLOY.md, "Remove the
landing zone"; ``make e2e`` runs it):

1. the management account deploys ``<name>-guardrails`` again with ``-c detach_organization_policies=true``: the
   SCPs (and the BEDROCK_POLICY) stay, attached to nothing.  While attached they stop the teardown itself: only the
   deployer principals may assume the CDK roles of a targeted account, and only the exempt roles may delete the
   retained keys, log groups and buckets afterwards;
2. the workload: termination protection off where a stack has it, then ``cdk destroy`` of the workload stacks (or of
   ``<name>-rollout``: CloudFormation deletes the StackSet's instances in every member account with it);
3. the management account destroys ``<name>-guardrails`` last.

The stack names and accounts here are the ones ``stacks/landing_zone.py`` creates (a test compares them with a
synthesized app).
"""

from __future__ import annotations

import shlex
import textwrap
from dataclasses import dataclass

from landing_zone.core import naming
from landing_zone.core.applications import cost_allocation_tags_stack
from landing_zone.plan.detection import GLOBAL_EVENTS_REGION, workload_forwarders
from landing_zone.plan.model import Plan

__all__ = [
    "DETACH_CONTEXT",
    "DeploymentStep",
    "StackPlacement",
    "deployment_steps",
    "format_steps",
    "removal_steps",
    "stack_placements",
]

# `cdk deploy <name>-guardrails -c detach_organization_policies=true`: the guardrails stack's Organizations policies
# with no targets (app.py reads it; the first step of a removal).
DETACH_CONTEXT = "detach_organization_policies"


@dataclass(frozen=True)
class StackPlacement:
    name: str
    account: str
    region: str
    role: str  # "management", "stackset-administrator", "deployment" or "detection-management"
    termination_protection: bool = False  # CloudFormation refuses to delete the stack until it is turned off


@dataclass(frozen=True)
class DeploymentStep:
    account: str
    account_label: str
    command: str
    why: str


def stack_placements(plan: Plan) -> list[StackPlacement]:
    """Every stack the configuration synthesizes, with the account and Region it deploys to."""
    cfg = plan.config
    region = cfg.home_region
    out: list[StackPlacement] = []
    if cfg.organization is not None:
        out.append(
            StackPlacement(
                naming.stack_name(cfg.name, "guardrails"), cfg.organization.management_account_id, region, "management"
            )
        )
    if cfg.member_baseline.enabled:
        admin = cfg.stackset_administrator_account
        out.append(StackPlacement(naming.stack_name(cfg.name, "rollout"), admin, region, "stackset-administrator"))
        return out
    workload = ["keys", "network", "access", "cost"] + (["self-hosting"] if cfg.self_hosting.enabled else [])
    out += [
        StackPlacement(naming.stack_name(cfg.name, s), cfg.deployment_account, region, "deployment", s == "keys")
        for s in workload
    ]
    return out + _detection_placements(plan)


def _detection_placements(plan: Plan) -> list[StackPlacement]:
    """``detection`` on: the home Region's rules, the deployment account's forwarders (us-east-1 for the global
    services' events unless it is home; each other source Region), and the management account's Organizations rules
    in us-east-1."""
    cfg = plan.config
    if plan.policies.detection is None:
        return []
    out = [
        StackPlacement(naming.stack_name(cfg.name, "detection"), cfg.deployment_account, cfg.home_region, "deployment")
    ]
    out += [
        StackPlacement(naming.stack_name(cfg.name, f.part), cfg.deployment_account, f.region, "deployment")
        for f in workload_forwarders(cfg)
    ]
    if cfg.organization is not None:
        out.append(
            StackPlacement(
                naming.stack_name(cfg.name, "detection-management"),
                cfg.organization.management_account_id,
                GLOBAL_EVENTS_REGION,
                "detection-management",
            )
        )
    return out


def _label(plan: Plan, account: str, role: str) -> str:
    names = {a.id: a.name for a in plan.config.accounts}
    org = plan.config.organization
    if org is not None and account == org.management_account_id:
        return "management"
    return names.get(account, role)


def deployment_steps(plan: Plan, *, config_path: str | None = None) -> list[DeploymentStep]:
    """The ordered commands of a first deployment (see the module docstring)."""
    cfg = plan.config
    placements = stack_placements(plan)
    config_flag = f" -c config={shlex.quote(config_path)}" if config_path else ""
    g = cfg.policy_guardrails
    # `cdk deploy` reads the bootstrap through the qualifier the stacks were synthesized with; the flag names the same
    # stack for the CLI's own look-ups (`cdk deploy --help`: "The name of the existing CDK toolkit stack").
    toolkit_flag = f" --toolkit-stack-name {shlex.quote(g.toolkit_stack_name)}"
    deployer_accounts = sorted(
        {arn.split(":")[4] for arn in cfg.policy_guardrails.deployer_principal_arns} - {cfg.deployment_account}
    )
    steps: list[DeploymentStep] = []
    environments: dict[tuple[str, str], str] = {}  # (account, Region) -> the role of its first stack
    for p in placements:
        environments.setdefault((p.account, p.region), p.role)
    for (account, region), role in sorted(environments.items(), key=lambda kv: kv[1] != "deployment"):
        label = _label(plan, account, role)
        trust = "".join(f" --trust {a}" for a in deployer_accounts) if role == "deployment" else ""
        steps.append(
            DeploymentStep(
                account,
                label,
                f"cdk bootstrap --qualifier {g.cdk_bootstrap_qualifier}{toolkit_flag} "
                f"aws://{account}/{region} --profile {label}{trust}",
                "the landing zone's own bootstrap stack (never CDKToolkit), before the SCPs: afterwards they "
                "protect it and the CDK roles' names"
                if cfg.organization is not None
                else "the landing zone's own bootstrap stack (never CDKToolkit), once per account and Region",
            )
        )
    by_role: dict[str, list[StackPlacement]] = {}
    for p in placements:
        by_role.setdefault(p.role, []).append(p)
    for role in ("management", "stackset-administrator", "deployment", "detection-management"):
        stacks = by_role.get(role, [])
        if not stacks:
            continue
        account = stacks[0].account
        label = _label(plan, account, role)
        names = " ".join(s.name for s in stacks)
        why = {
            "management": "the guardrail SCPs, in the management account; " + scp_attachments(plan),
            "stackset-administrator": "the member-baseline StackSet; CloudFormation rolls it out to the target OUs",
            "deployment": "the workload stacks, in the deployment account",
            "detection-management": "the detection rules of the management account (us-east-1: Organizations' "
            "policy changes, which no SCP prevents there), forwarding to the deployment account's detection stack",
        }[role]
        if role == "deployment" and cfg.organization is not None:
            deployers = ", ".join(cfg.policy_guardrails.deployer_principal_arns) or "none configured"
            why += (
                "; with the SCPs attached, only policy_guardrails.deployer_principal_arns may assume the CDK roles "
                f"here ({deployers}), or a principal of an account outside the targets trusted at bootstrap"
            )
        why += _central_bus_note(plan) if role in ("deployment", "detection-management") else ""
        steps.append(
            DeploymentStep(account, label, f"cdk deploy {names}{config_flag}{toolkit_flag} --profile {label}", why)
        )
    return steps


def _central_bus_note(plan: Plan) -> str:
    """``detection.central_event_bus_arn``: the central account must admit the rules on its bus (its policy, not the
    landing zone's), or each delivery there fails (the alerts topic still gets the alert)."""
    arn = plan.config.detection.central_event_bus_arn
    if arn is None or plan.policies.detection is None:
        return ""
    return (
        f"; the detection rules also deliver to {arn}: the central account must first admit them in that bus's "
        "policy (docs/DETECTION.md, 'Delivery to a central event bus')"
    )


_BINDS = {
    "perimeter": "bind the governed accounts",
    "organization": "bind every account below (an outside_perimeter opt-in)",
    "outside": "bind the accounts outside the perimeter",
}


def scp_attachments(plan: Plan) -> str:
    """Where the plan attaches each SCP, grouped: '<names> (<whom they bind>) -> <targets>; ...'."""
    scps = plan.policies.scps
    if scps is None:
        return ""
    groups: dict[tuple[tuple[str, ...], str], list[str]] = {}
    for p in scps.policies:
        groups.setdefault((p.targets, p.binds), []).append(p.name)
    parts = []
    for (targets, binds), names in groups.items():
        shown = ", ".join(targets[:5]) + (f" and {len(targets) - 5} more" if len(targets) > 5 else "")
        parts.append(f"{', '.join(names)} ({_BINDS[binds]}) -> {shown or 'nothing (organization.target_ids is empty)'}")
    return "; ".join(parts)


_REMOVAL_WHY = {
    "detach": "detach the guardrail SCPs{policy} from every target (they stay, attached to nothing). While "
    "attached they stop the teardown: in a targeted account only policy_guardrails.deployer_principal_arns may assume "
    "the CDK roles (DenyDeploymentRoleAssumption), and only the exempt roles may delete the retained keys, log groups "
    "and buckets (DenyLandingZoneTampering, DenyTaggedResourceTampering)",
    "unprotect": "{stack} has termination protection: CloudFormation refuses to delete it until it is off",
    "deployment": "the workload stacks (the CLI destroys them in reverse dependency order); their keys, log groups "
    "and buckets are retained",
    "stackset-administrator": "the member-baseline StackSet: CloudFormation deletes its stack instances in every "
    "member account first; their keys, log groups and buckets are retained in each member account",
    "detection-management": "the management account's detection rules (they forward to the deployment account)",
    "management": "last: the SCPs (detached{policy})",
    "activation": "; the cost-allocation-tag activation (its delete leaves the tags active), whose logs key and log "
    "groups are retained",
}


def removal_steps(plan: Plan, *, config_path: str | None = None) -> list[DeploymentStep]:
    """The ordered commands that remove the landing zone (see the module docstring): the reverse of
    :func:`deployment_steps`, after detaching the SCPs.  The CDK bootstraps stay (docs/DEPLOY.md)."""
    cfg = plan.config
    config_flag = f" -c config={shlex.quote(config_path)}" if config_path else ""
    by_role: dict[str, list[StackPlacement]] = {}
    for p in stack_placements(plan):
        by_role.setdefault(p.role, []).append(p)
    management = by_role.get("management", [])
    steps: list[DeploymentStep] = []
    for p in management:
        label = _label(plan, p.account, p.role)
        policy = " and the BEDROCK_POLICY" if cfg.content_guardrail.organization_policy else ""
        steps.append(
            DeploymentStep(
                p.account,
                label,
                f"cdk deploy {p.name}{config_flag} -c {DETACH_CONTEXT}=true --profile {label}",
                _REMOVAL_WHY["detach"].format(policy=policy),
            )
        )
    for role in ("deployment", "stackset-administrator", "detection-management"):
        stacks = by_role.get(role, [])
        if not stacks:
            continue
        label = _label(plan, stacks[0].account, role)
        for p in stacks:
            if p.termination_protection:
                steps.append(
                    DeploymentStep(
                        p.account,
                        label,
                        "aws cloudformation update-termination-protection --no-enable-termination-protection "
                        f"--stack-name {p.name} --region {p.region} --profile {label}",
                        _REMOVAL_WHY["unprotect"].format(stack=p.name),
                    )
                )
        names = " ".join(s.name for s in stacks)
        steps.append(
            DeploymentStep(
                stacks[0].account, label, f"cdk destroy {names}{config_flag} --profile {label}", _REMOVAL_WHY[role]
            )
        )
    for p in management:
        label = _label(plan, p.account, p.role)
        command = f"cdk destroy {p.name}{config_flag} --profile {label}"
        policy = ", and the BEDROCK_POLICY with its guardrail" if cfg.content_guardrail.organization_policy else ""
        why = _REMOVAL_WHY["management"].format(policy=policy)
        if cost_allocation_tags_stack(cfg, plan.applications) == "guardrails":
            why += _REMOVAL_WHY["activation"]
        steps.append(DeploymentStep(p.account, label, command, why))
    return steps


def format_steps(plan: Plan, steps: list[DeploymentStep], *, removal: bool = False) -> str:
    """The steps as a numbered shell script with comments (profiles are named after the accounts: yours may differ)."""
    mode = "organization" if plan.config.organization else "single account"
    what = "Removal" if removal else "First deployment"
    intro = (
        f"{what} of {plan.config.name} ({mode} mode). Run each command with credentials of the account "
        "named; the --profile names are the accounts' names from the configuration: use your own profiles."
    )
    if removal:
        intro += " The CDK bootstrap of each account stays (docs/DEPLOY.md)."
    lines = textwrap.wrap(intro, width=112, initial_indent="# ", subsequent_indent="# ")
    for i, step in enumerate(steps, start=1):
        comment = f"{i}. account {step.account} ({step.account_label}): {step.why}"
        wrapped = textwrap.wrap(
            comment, width=112, initial_indent="# ", subsequent_indent="#    ", break_on_hyphens=False
        )
        lines += ["", *wrapped, step.command]
    return "\n".join(lines) + "\n"
