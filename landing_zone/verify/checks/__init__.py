"""The checks of ``verify`` and their one registry, :data:`CHECK_FAMILIES`: each family reads the synthesized intent
from the assembly by resource type and compares it with the live account, returning rows; a family whose resource
types are not in the assembly returns none (so a stack that is synthesized later is checked as soon as it exists).
``quota-value`` is the one family whose intent is configuration only (the quota values the quota alarms were
built from, in :class:`Context`), compared with Service Quotas.
One module per family (its docstring says what it compares and which APIs it calls); :mod:`.common` is the API they
share.  The ``account`` check runs first, then the families in registry order (``stack`` first).  This module runs
them (:func:`run_checks`); it checks no resource and calls no AWS API itself.  Call order per API is deterministic
(template order), which is what a botocore ``Stubber`` in tests needs.  docs/VERIFY.md's family list is generated
from the registry (:func:`families_markdown`), and a test keeps them equal.

After the families, every passing row of a resource whose stack is not deployed (rolled back, failed, in progress,
absent: see :mod:`~landing_zone.verify.checks.stacks`) becomes DRIFT.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from botocore.exceptions import ClientError

from landing_zone import aws
from landing_zone.errors import LandingZoneError
from landing_zone.verify.checks.account import check_account
from landing_zone.verify.checks.agreements import check_model_agreements
from landing_zone.verify.checks.bedrock_policy import check_bedrock_policies
from landing_zone.verify.checks.buckets import check_buckets
from landing_zone.verify.checks.common import DRIFT, ERROR, Context, error_rows, make_row
from landing_zone.verify.checks.cost import check_alarms, check_anomaly_detection, check_budgets, check_topics
from landing_zone.verify.checks.cost_tags import check_cost_allocation_tags
from landing_zone.verify.checks.eks import check_nodegroups
from landing_zone.verify.checks.endpoints import check_endpoints
from landing_zone.verify.checks.events import CHECKS as EVENT_RULE_CHECKS
from landing_zone.verify.checks.events import check_event_rules
from landing_zone.verify.checks.flowlogs import check_flow_logs
from landing_zone.verify.checks.guardrails import check_guardrails
from landing_zone.verify.checks.iam import check_iam
from landing_zone.verify.checks.keys import check_keys
from landing_zone.verify.checks.logging import check_invocation_logging, check_log_groups
from landing_zone.verify.checks.netpath import CHECKS as NETWORK_PATH_CHECKS
from landing_zone.verify.checks.netpath import check_network_path
from landing_zone.verify.checks.network import check_network
from landing_zone.verify.checks.organizations import SCP_TYPE, check_scps
from landing_zone.verify.checks.profiles import check_profiles
from landing_zone.verify.checks.quota_values import check_quota_values
from landing_zone.verify.checks.retention import check_data_retention
from landing_zone.verify.checks.stacks import check_stacks, not_deployed
from landing_zone.verify.checks.stacksets import check_stack_sets
from landing_zone.verify.checks.tags import check_tags
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult

__all__ = ["CHECK_FAMILIES", "SCP_TYPE", "Context", "Family", "families_markdown", "run_checks"]


@dataclass(frozen=True)
class Family:
    """One check family: its name (``families=`` of :func:`run_checks`), the function that checks it, the check
    names its rows carry, and one line on what it compares."""

    name: str
    check: Callable[[Context], list[CheckResult]]
    checks: tuple[str, ...]
    summary: str


CHECK_FAMILIES: tuple[Family, ...] = (
    Family(
        "stack",  # first: the other families' rows depend on the stack status
        check_stacks,
        ("stack-status", "stack-drift", "stack-termination-protection"),
        "each stack deployed, not DRIFTED by CloudFormation's own detection, termination protection as synthesized",
    ),
    Family("scp", check_scps, ("scp-content", "scp-attachment"), "SCPs as synthesized and attached to every target"),
    Family(
        "vpc-endpoint",
        check_endpoints,
        ("vpc-endpoint", "vpc-endpoint-private-dns", "vpc-endpoint-policy"),
        "VPC endpoints available, private DNS and policy as synthesized",
    ),
    Family(
        "network",
        check_network,
        (
            "security-group-ingress",
            "security-group-egress",
            "default-security-group",
            "route-table",
            "vpc-internet-gateway",
            "vpc-endpoint-unexpected",
        ),
        "security-group rules exactly as synthesized, the default group empty, only synthesized routes, no internet "
        "or NAT gateway, no VPC endpoint the assembly does not define",
    ),
    Family(
        "network-path",
        check_network_path,
        NETWORK_PATH_CHECKS,
        "nothing reroutes or cuts off the endpoints where no SCP key reaches: DNS Firewall and Resolver rule "
        "associations, shadowing private zones, VPC Lattice, RAM-shared subnets, subnets on the default network ACL",
    ),
    Family("flow-log", check_flow_logs, ("flow-log",), "the VPC flow log active, to the synthesized destination"),
    Family(
        "kms",
        check_keys,
        ("kms-key", "kms-rotation", "kms-policy", "kms-alias"),
        "keys (by the stack's physical ID) enabled, rotation and policy as synthesized, each alias on its key",
    ),
    Family(
        "iam",
        check_iam,
        (
            "iam-role",
            "iam-role-trust",
            "iam-role-boundary",
            "iam-role-managed-policies",
            "iam-role-inline-policies",
            "iam-policy",
        ),
        "roles (trust, boundary, managed and inline policies) and customer-managed policies as synthesized",
    ),
    Family(
        "s3",
        check_buckets,
        (
            "s3-bucket",
            "s3-encryption",
            "s3-versioning",
            "s3-public-access-block",
            "s3-ownership",
            "s3-bucket-policy",
            "s3-lifecycle",
            "s3-access-logging",
        ),
        "buckets and their encryption, versioning, public access block, ownership, policy, lifecycle, access logs",
    ),
    Family(
        "invocation-logging",
        check_invocation_logging,
        ("invocation-logging-s3", "invocation-logging-cloudwatch", "invocation-logging-delivery"),
        "Bedrock model invocation logging to the synthesized bucket and log group",
    ),
    Family("log-group", check_log_groups, ("log-group",), "log groups with their retention and KMS key"),
    Family(
        "tags",
        check_tags,
        ("tags",),
        "every taggable resource carries the synthesized tags (above all landing-zone, the SCPs' key)",
    ),
    Family(
        "inference-profile",
        check_profiles,
        ("inference-profile", "inference-profile-tags", "inference-profile-regions"),
        "application inference profiles active, tagged, in compliant Regions only",
    ),
    Family(
        "guardrail",
        check_guardrails,
        ("guardrail", "guardrail-version", "guardrail-enforcement"),
        "the content guardrail, its pinned version and its account-wide enforcement",
    ),
    Family(
        "guardrail-org-policy",
        check_bedrock_policies,
        ("guardrail-org-policy",),
        "the canary accounts' effective BEDROCK_POLICY names the guardrail version the guardrails stack recorded",
    ),
    Family("model-agreement", check_model_agreements, ("model-agreement",), "model agreements accepted"),
    Family(
        "data-retention",
        check_data_retention,
        ("data-retention",),
        "the account's Bedrock data retention mode in the stack's Region is the configured one",
    ),
    Family(
        "sns",
        check_topics,
        ("sns-topic", "sns-topic-policy", "sns-subscription"),
        "alert topics (KMS key, policy) and their subscriptions",
    ),
    Family(
        "budget",
        check_budgets,
        ("budget", "budget-notification", "budget-subscribers", "budget-action"),
        "budgets, notifications, subscribers and the kill-switch action",
    ),
    Family("alarm", check_alarms, ("alarm",), "CloudWatch alarms as synthesized"),
    Family(
        "event-rule",
        check_event_rules,
        EVENT_RULE_CHECKS,
        "the detection rules enabled, with the synthesized event pattern and targets (a disabled rule alerts nothing)",
    ),
    Family(
        "anomaly",
        check_anomaly_detection,
        ("anomaly-monitor", "anomaly-subscription"),
        "cost anomaly monitor and subscription",
    ),
    Family(
        "cost-allocation-tag",
        check_cost_allocation_tags,
        ("cost-allocation-tag",),
        "the landing zone's cost-allocation tag keys active in Billing",
    ),
    Family(
        "quota-value",
        check_quota_values,
        ("quota-value",),
        "each quota headroom alarm's quota value (config overrides or discover overlay) is the account's live one",
    ),
    Family("eks", check_nodegroups, ("eks-nodegroup", "eks-gpu-nodegroup"), "self-hosting EKS node groups"),
    Family("stackset", check_stack_sets, ("stackset", "stackset-instances"), "StackSet active, instances current"),
)


def families_markdown() -> str:
    """The family list of docs/VERIFY.md (between its ``families`` markers), generated from the registry."""
    lines = [
        "| family | checks | compares |",
        "|---|---|---|",
        "| (always first) | `account` | the credentials' account is the assembly's |",
    ]
    for family in CHECK_FAMILIES:
        checks = ", ".join(f"`{c}`" for c in family.checks)
        lines.append(f"| `{family.name}` | {checks} | {family.summary} |")
    return "\n".join(lines) + "\n"


def run_checks(ctx: Context, families: Iterable[str] | None = None) -> list[CheckResult]:
    rows = check_account(ctx)
    if rows and rows[0].status is DRIFT:
        return rows  # wrong account: every other answer would be about someone else's resources
    wanted = set(families) if families is not None else None
    for entry in CHECK_FAMILIES:
        family, check = entry.name, entry.check
        quiet = wanted is not None and family not in wanted
        if quiet and family != "stack":  # the stack status is always read: it decides whether resources can pass
            continue
        try:
            found = check(ctx)
        except ApiError as exc:  # a call outside the per-item handling
            found = error_rows([family], "(all)", "checked", exc, None)
        except ClientError as exc:  # an answer no check expected (throttling after retries, validation, ...)
            found = [make_row(family, "(all)", "checked", f"ERROR: {aws.error_code(exc)}", ERROR, str(exc))]
        except LandingZoneError:  # usage errors (e.g. an unknown --management-profile): exit 2
            raise
        except Exception as exc:  # noqa: BLE001 - one family's surprise must not hide the others, nor count as a pass
            found = [
                make_row(
                    family,
                    "(all)",
                    "checked",
                    f"ERROR: {type(exc).__name__}",
                    ERROR,
                    f"internal error while checking {family}: {type(exc).__name__}: {exc}",
                )
            ]
        if not quiet:
            rows += found
    return not_deployed(ctx, rows)
