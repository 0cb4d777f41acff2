"""The checks of ``verify``: each reads the synthesized intent from the assembly by resource type and compares
it with the live account.  Each check family returns rows; a family whose resource types are not in the
assembly returns none (so a stack that is synthesized later is checked as soon as it exists).  One module per
family: ``account`` (run first), ``stacks`` (the CloudFormation stacks themselves, run next), ``organizations``
(SCPs and their attachments), ``endpoints`` (VPC endpoints), ``flowlogs`` (VPC flow logs), ``keys`` (KMS), ``iam``
(roles and customer-managed policies), ``buckets`` (S3), ``logging`` (invocation logging and log groups),
``profiles`` (application inference profiles), ``guardrails`` (Bedrock guardrail, its version and account
enforcement), ``agreements`` (model agreements), ``cost`` (topics and their policies, budgets, budget actions,
alarms, anomaly detection), ``eks`` (node groups) and ``stacksets``, with the :class:`Context` and shared helpers in
``_common``.  This module holds the family registry and :func:`run_checks`; it checks no resource and calls no AWS
API itself (the families' modules say which they call).  Call order per API is deterministic (template order),
which is what a botocore ``Stubber`` in tests needs.

After the families, every passing row of a resource whose stack is not deployed (rolled back, failed, in progress,
absent: see :mod:`~landing_zone.verify.checks.stacks`) becomes DRIFT.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from botocore.exceptions import ClientError

from landing_zone import aws
from landing_zone.errors import LandingZoneError
from landing_zone.verify.checks._common import DRIFT, ERROR, Context, _errors, _row
from landing_zone.verify.checks.account import check_account
from landing_zone.verify.checks.agreements import check_model_agreements
from landing_zone.verify.checks.buckets import check_buckets
from landing_zone.verify.checks.cost import check_alarms, check_anomaly_detection, check_budgets, check_topics
from landing_zone.verify.checks.eks import check_nodegroups
from landing_zone.verify.checks.endpoints import check_endpoints
from landing_zone.verify.checks.flowlogs import check_flow_logs
from landing_zone.verify.checks.guardrails import check_guardrails
from landing_zone.verify.checks.iam import check_iam
from landing_zone.verify.checks.keys import check_keys
from landing_zone.verify.checks.logging import check_invocation_logging, check_log_groups
from landing_zone.verify.checks.organizations import SCP_TYPE, check_scps
from landing_zone.verify.checks.profiles import check_profiles
from landing_zone.verify.checks.stacks import check_stacks, not_deployed
from landing_zone.verify.checks.stacksets import check_stack_sets
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult

__all__ = ["CHECK_FAMILIES", "SCP_TYPE", "Context", "run_checks"]


CHECK_FAMILIES: tuple[tuple[str, Callable[[Context], list[CheckResult]]], ...] = (
    ("stack", check_stacks),  # first: the other families' rows depend on the stack status
    ("scp", check_scps),
    ("vpc-endpoint", check_endpoints),
    ("flow-log", check_flow_logs),
    ("kms", check_keys),
    ("iam", check_iam),
    ("s3", check_buckets),
    ("invocation-logging", check_invocation_logging),
    ("log-group", check_log_groups),
    ("inference-profile", check_profiles),
    ("guardrail", check_guardrails),
    ("model-agreement", check_model_agreements),
    ("sns", check_topics),
    ("budget", check_budgets),
    ("alarm", check_alarms),
    ("anomaly", check_anomaly_detection),
    ("eks", check_nodegroups),
    ("stackset", check_stack_sets),
)


def run_checks(ctx: Context, families: Iterable[str] | None = None) -> list[CheckResult]:
    rows = check_account(ctx)
    if rows and rows[0].status is DRIFT:
        return rows  # wrong account: every other answer would be about someone else's resources
    wanted = set(families) if families is not None else None
    for family, check in CHECK_FAMILIES:
        quiet = wanted is not None and family not in wanted
        if quiet and family != "stack":  # the stack status is always read: it decides whether resources can pass
            continue
        try:
            found = check(ctx)
        except ApiError as exc:  # a call outside the per-item handling
            found = _errors([family], "(all)", "checked", exc, None)
        except ClientError as exc:  # an answer no check expected (throttling after retries, validation, ...)
            found = [_row(family, "(all)", "checked", f"ERROR: {aws.error_code(exc)}", ERROR, str(exc))]
        except LandingZoneError:  # usage errors (e.g. an unknown --management-profile): exit 2
            raise
        except Exception as exc:  # noqa: BLE001 - one family's surprise must not hide the others, nor count as a pass
            found = [
                _row(
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
