"""What the deploy of a plan will do where ``preflight`` looks: the one place preflight reads the plan.

Every question preflight asks of the plan is a function here, so that the parts of the plan still changing (where
each SCP attaches, the governed perimeter, the toolkit stack's name, the take-over options of the account-level
singletons) are read in one place and nowhere else:

* :func:`landing_zone_scps` / :func:`attachment_targets` — the SCPs the deploy attaches to one target, and every
  target that carries some;
* :func:`governed_accounts` / :func:`workload_accounts` / :func:`invoker_accounts` — which accounts it governs,
  deploys the workload (logging, retention, anomaly monitor) to, and runs the invoker roles in;
* :func:`bootstraps` — the CDK bootstraps ``deploy-plan`` prints (account, qualifier, toolkit stack name);
* :func:`takes_over_invocation_logging` / :func:`reused_anomaly_monitor` — the configuration's answers to "someone
  else's configuration is already there".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from landing_zone.core import naming
from landing_zone.plan import Plan
from landing_zone.plan.deployment import stack_placements

__all__ = [
    "DEFAULT_TOOLKIT_STACK",
    "Bootstrap",
    "bootstraps",
    "deploy_principals",
    "governed_accounts",
    "invoker_accounts",
    "invoker_principals",
    "attachment_targets",
    "is_landing_zone_policy",
    "landing_zone_scps",
    "reused_anomaly_monitor",
    "scp_quota",
    "takes_over_invocation_logging",
    "toolkit_stack_name",
    "workload_accounts",
]

# `cdk bootstrap` without --toolkit-stack-name deploys (or updates) this stack (AWS CDK CLI reference, "cdk
# bootstrap": --toolkit-stack-name defaults to CDKToolkit, https://docs.aws.amazon.com/cdk/v2/guide/ref-cli-cmd-bootstrap.html).
DEFAULT_TOOLKIT_STACK = "CDKToolkit"


def landing_zone_scps(plan: Plan, target: str) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """The landing zone's SCPs (name, document) the deploy attaches directly to ``target``: the plan's layout
    (``plan.policies.scp_set``, :mod:`landing_zone.policies.scp_layout`) decides per SCP where it attaches — the
    governed targets and accounts, or (the perimeter SCP and the opt-ins) the shared targets."""
    if plan.config.organization is None:
        return ()
    return tuple((scp.name, scp.document) for scp in plan.policies.scp_set.attached_to(target))


def attachment_targets(plan: Plan) -> tuple[str, ...]:
    """Every root, OU and account that carries SCPs after the deploy: ``organization.target_ids`` and the governed
    accounts the layout attaches to directly."""
    org = plan.config.organization
    if org is None:
        return ()
    return tuple(dict.fromkeys((*org.target_ids, *plan.policies.scp_set.targets)))


def scp_quota(plan: Plan) -> int:
    """SCPs one root, OU or account may carry, FullAWSAccess included (catalog ``scp_max_per_target``, overridable by
    ``policy_guardrails.scp_max_per_target``)."""
    return plan.policies.scp_set.max_per_target


def is_landing_zone_policy(plan: Plan, name: str) -> bool:
    """An SCP of this landing zone (an earlier deploy): the deploy replaces it, so it takes no slot of its own."""
    return name.startswith(f"{plan.config.name}-")


def governed_accounts(plan: Plan) -> tuple[str, ...]:
    """The accounts the landing zone governs by name: the deployment account and ``accounts`` (the perimeter of
    :mod:`landing_zone.core.perimeter`; with the member baseline every account under its OUs is governed too)."""
    cfg = plan.config
    return tuple(dict.fromkeys((cfg.deployment_account, *cfg.account_ids)))


def workload_accounts(plan: Plan) -> tuple[str, ...]:
    """Where the workload (invocation logging, data retention, the anomaly monitor) is deployed: every account of
    ``accounts`` with the member baseline (one StackSet instance each), else the deployment account."""
    cfg = plan.config
    return cfg.account_ids if cfg.member_baseline.enabled else (cfg.deployment_account,)


def invoker_accounts(plan: Plan) -> tuple[str, ...]:
    """Where the invoker roles run inference: the workload accounts (an application's principals in another account
    assume its invoker role there)."""
    return workload_accounts(plan)


def invoker_principals(plan: Plan, account: str) -> tuple[str, ...]:
    """The invoker role ARNs in ``account``: every application's (the access stack, or the member baseline's
    template, creates one per application)."""
    lz = plan.config.name
    names = dict.fromkeys(a.app.name for a in plan.applications)
    return tuple(f"arn:aws:iam::{account}:role/{naming.invoker_role_name(lz, n)}" for n in names)


def deploy_principals(plan: Plan, account: str) -> tuple[str, str]:
    """(who calls CloudFormation, who makes the resources' IAM calls) when the deploy reaches ``account``: the CDK
    bootstrap's deploy and execution roles, or with the member baseline the StackSets execution role for both."""
    cfg = plan.config
    if cfg.member_baseline.enabled:
        # service-managed StackSets create 'stacksets-exec-<hash>' in each member (the hash is AWS's)
        role = f"arn:aws:iam::{account}:role/stacksets-exec-0123456789abcdef0123456789abcdef"
        return role, role
    q, region = cfg.policy_guardrails.cdk_bootstrap_qualifier, cfg.home_region
    return (
        f"arn:aws:iam::{account}:role/cdk-{q}-deploy-role-{account}-{region}",
        f"arn:aws:iam::{account}:role/cdk-{q}-cfn-exec-role-{account}-{region}",
    )


def toolkit_stack_name(plan: Plan) -> str:
    """The CloudFormation stack ``cdk bootstrap`` deploys for the landing zone: ``policy_guardrails.toolkit_stack_name``
    where the configuration has it, else ``CDKToolkit`` (``deploy-plan`` prints no ``--toolkit-stack-name``)."""
    # TODO(bootkill): wt-bootkill adds policy_guardrails.cdk_toolkit_stack_name and its property toolkit_stack_name
    # (default cdk-<qualifier>-toolkit); drop the CDKToolkit fallback when it lands on main.
    name = getattr(plan.config.policy_guardrails, "toolkit_stack_name", None)
    return str(name or DEFAULT_TOOLKIT_STACK)


@dataclass(frozen=True)
class Bootstrap:
    account: str
    region: str
    qualifier: str
    toolkit_stack: str
    role: str  # the account's role in the deployment: management, stackset-administrator, deployment


def bootstraps(plan: Plan) -> tuple[Bootstrap, ...]:
    """One per account that receives a stack (what ``deploy-plan`` bootstraps), in ``home_region``."""
    cfg = plan.config
    roles: dict[str, str] = {}
    for placement in stack_placements(plan):
        roles.setdefault(placement.account, placement.role)
    return tuple(
        Bootstrap(
            account, cfg.home_region, cfg.policy_guardrails.cdk_bootstrap_qualifier, toolkit_stack_name(plan), role
        )
        for account, role in roles.items()
    )


def takes_over_invocation_logging(plan: Plan) -> bool:
    """``invocation_logging.take_over_existing``: replace another invocation-logging configuration (saved and
    restored on delete) instead of refusing it."""
    # TODO(singletons): wt-singletons adds invocation_logging.take_over_existing (default false).
    return bool(getattr(plan.config.invocation_logging, "take_over_existing", False))


def reused_anomaly_monitor(plan: Plan) -> str | None:
    """``cost.anomaly_monitor_arn``: an existing SERVICE monitor the landing zone subscribes to instead of creating
    its own."""
    # TODO(singletons): wt-singletons adds cost.anomaly_monitor_arn (default: none, the landing zone creates one).
    value = getattr(plan.config.cost, "anomaly_monitor_arn", None)
    return str(value) if value else None
