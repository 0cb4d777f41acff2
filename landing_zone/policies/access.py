"""IAM documents for application access and invocation logging (pure dicts; CDK tokens pass through as strings).

* ``invoker_policy`` — one application's managed policy: its application profile (the only way to name a
  model, so every token is cost-allocated), the legs of the path that profile copies, Mantle for its model,
  read access to its profile; optionally only through the landing zone's VPC endpoints and only with the
  account's guardrail; inference on a service tier outside ``policy_guardrails.allowed_service_tiers`` is denied
  (the same statements as the SCP and the boundary, so single-account mode, which has no SCP, refuses it too).
* ``invoker_trust_policy`` — who may assume the invoker role.
* ``invocation_log_bucket_policy`` / ``bedrock_logging_trust_policy`` — Bedrock writing invocation logs, with
  ``aws:SourceAccount`` and ``aws:SourceArn`` (confused deputy).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from landing_zone.core import arns
from landing_zone.core.applications import ApplicationPlan
from landing_zone.core.routing import Route, RoutingDecision
from landing_zone.policies.common import document, from_source, statement
from landing_zone.policies.invoke import (
    MANTLE_INVOKE_ACTIONS,
    RUNTIME_INVOKE_ACTIONS,
    InvokeResources,
    batch_resources,
    batch_statement,
    mantle_invoke_statements,
    service_tier_statements,
)

GUARDRAIL_KEY = "bedrock:GuardrailIdentifier"


def _mantle_statements(
    mantle_route: Route,
    routing: RoutingDecision,
    *,
    account: str,
    region: str,
    mantle_endpoint_id: str | None,
    mantle_project_arn: str | None,
    partition: str,
) -> list[dict[str, Any]]:
    """The application's Mantle grant (through its endpoint, if one) and the deny outside its own project."""
    mantle_condition = {"StringEquals": {"aws:SourceVpce": mantle_endpoint_id}} if mantle_endpoint_id else None
    stmts = mantle_invoke_statements(
        routing,
        accounts=[account],
        source_region=region,
        model_names=[mantle_route.invoke_id],
        condition=mantle_condition,
        partition=partition,
    )
    if mantle_project_arn is not None:
        stmts.append(
            statement(
                "DenyMantleOutsideOwnProject",
                effect="Deny",
                actions=MANTLE_INVOKE_ACTIONS,
                not_resources=[mantle_project_arn],
            )
        )
    return stmts


def invoker_policy(
    app: ApplicationPlan,
    routing: RoutingDecision,
    *,
    account: str,
    region: str,
    application_profile_arn: str | None,
    allowed_service_tiers: Iterable[str],
    runtime_endpoint_id: str | None = None,
    mantle_endpoint_id: str | None = None,
    control_endpoint_id: str | None = None,
    require_endpoints: bool = False,
    guardrail_arn: str | None = None,
    mantle_project_arn: str | None = None,
    partition: str = arns.PARTITION,
) -> dict[str, Any]:
    """``application_profile_arn`` is None for a Mantle-only application (no compliant runtime path).

    ``mantle_project_arn``: the application's own Mantle Project; ``bedrock-mantle:CreateInference`` on any other
    project resource (another application's, the account's ``default`` project) is denied (``NotResource``).  The
    action is authorised against the project resource and carries no ``bedrock-mantle:ProjectArn`` key (Service
    Authorization Reference), so the project is scoped by its resource ARN.

    ``require_endpoints``: every grant is conditioned on the landing zone's endpoint of its service (runtime, Mantle,
    the ``bedrock`` control plane for batch); a path whose endpoint is not deployed is not granted.  With
    ``guardrail_arn`` (per-request enforcement) only calls that can carry ``bedrock:GuardrailIdentifier`` are granted:
    batch jobs and Mantle requests cannot (Service Authorization Reference: CreateModelInvocationJob and
    bedrock-mantle:CreateInference list no such key), so they are left out.

    ``allowed_service_tiers``: ``DenyUnlistedServiceTiers`` / ``DenyUnlistedMantleServiceTiers``
    (:func:`~landing_zone.policies.invoke.service_tier_statements`) refuse a request that names another tier
    (``bedrock:ServiceTier`` / ``bedrock-mantle:ServiceTier``,
    https://docs.aws.amazon.com/bedrock/latest/userguide/service-tiers-inference.html); none when every tier is
    allowed."""
    stmts: list[dict[str, Any]] = []
    if app.route is not None and application_profile_arn is not None:
        resources = InvokeResources()
        # The system profile / FM ARN the application profile copies is evaluated too when the profile is invoked.
        resources.add_route(app.route, sources=[region], accounts=[account], partition=partition)
        resources.add_application_profiles([application_profile_arn], route_kinds=[app.route.kind])
        direct_condition: dict[str, dict[str, object]] = {}
        if runtime_endpoint_id:
            direct_condition["StringEquals"] = {"aws:SourceVpce": runtime_endpoint_id}
        invoke_condition = dict(direct_condition)
        if guardrail_arn:
            # Per-request enforcement: every call must name the landing zone's guardrail (any version of it).
            invoke_condition["StringLike"] = {GUARDRAIL_KEY: [guardrail_arn, f"{guardrail_arn}:*"]}
        stmts += resources.statements(
            actions=RUNTIME_INVOKE_ACTIONS, sid_prefix="Invoke", direct_condition=invoke_condition or None
        )
        batch_allowed = not guardrail_arn and (control_endpoint_id or not require_endpoints)
        if batch_allowed:
            batch = batch_resources(app.route, sources=[region], accounts=[account], partition=partition)
            batch_stmt = batch_statement(
                batch, regions=[region], accounts=[account], sid="BatchCompliantModels", partition=partition
            )
            if control_endpoint_id:
                batch_stmt["Condition"] = {"StringEquals": {"aws:SourceVpce": control_endpoint_id}}
            stmts.append(batch_stmt)
        if batch_allowed and app.app.batch_role_arns:
            stmts.append(
                statement(
                    "PassBatchServiceRole",
                    actions=["iam:PassRole"],
                    resources=app.app.batch_role_arns,
                    condition={"StringEquals": {"iam:PassedToService": "bedrock.amazonaws.com"}},
                )
            )
        stmts.append(
            statement(
                "ReadOwnProfile",
                actions=["bedrock:GetInferenceProfile"],
                resources=sorted(
                    {application_profile_arn, *[r for r in resources.direct if ":inference-profile/" in r]}
                ),
            )
        )
    if app.mantle_route is not None and not guardrail_arn and (mantle_endpoint_id or not require_endpoints):
        stmts += _mantle_statements(
            app.mantle_route,
            routing,
            account=account,
            region=region,
            mantle_endpoint_id=mantle_endpoint_id,
            mantle_project_arn=mantle_project_arn,
            partition=partition,
        )
    if stmts:
        stmts += service_tier_statements(allowed_service_tiers)
    return document(stmts)


def sso_role_pattern(account: str, permission_set: str, partition: str = arns.PARTITION) -> str:
    """Roles IAM Identity Center creates for a permission set in an account."""
    return f"arn:{partition}:iam::{account}:role/aws-reserved/sso.amazonaws.com/*AWSReservedSSO_{permission_set}_*"


def invoker_trust_policy(
    *,
    caller_account: str,
    trusted_principal_arns: Sequence[str] = (),
    sso_permission_sets: Sequence[str] = (),
    partition: str = arns.PARTITION,
) -> dict[str, Any]:
    """Principals of ``caller_account`` may assume the role; narrowed to given principals/permission sets."""
    patterns = [*trusted_principal_arns, *(sso_role_pattern(caller_account, s, partition) for s in sso_permission_sets)]
    condition = {"ArnLike": {"aws:PrincipalArn": patterns}} if patterns else None
    return document(
        [
            statement(
                "AssumeFromCallerAccount",
                principal={"AWS": f"arn:{partition}:iam::{caller_account}:root"},
                actions=["sts:AssumeRole", "sts:TagSession"],
                condition=condition,
                trust=True,
            )
        ]
    )


def invocation_log_bucket_policy(
    *, bucket_arn: str, key_prefix: str, account: str, region: str, partition: str = arns.PARTITION
) -> dict[str, Any]:
    """Bedrock may write invocation logs under the prefix; nothing may use plain HTTP."""
    return document(
        [
            statement(
                "DenyInsecureTransport",
                effect="Deny",
                principal={"AWS": "*"},
                actions=["s3:*"],
                resources=[bucket_arn, f"{bucket_arn}/*"],
                condition={"Bool": {"aws:SecureTransport": "false"}},
            ),
            statement(
                "BedrockWritesInvocationLogs",
                principal={"Service": "bedrock.amazonaws.com"},
                actions=["s3:PutObject"],
                resources=[f"{bucket_arn}/{key_prefix}*"],
                condition=from_source(account, f"arn:{partition}:bedrock:{region}:{account}:*"),
            ),
        ]
    )


def bedrock_logging_trust_policy(*, account: str, region: str, partition: str = arns.PARTITION) -> dict[str, Any]:
    return document(
        [
            statement(
                "BedrockAssumesForLogging",
                principal={"Service": "bedrock.amazonaws.com"},
                actions=["sts:AssumeRole"],
                trust=True,
                condition=from_source(account, f"arn:{partition}:bedrock:{region}:{account}:*"),
            )
        ]
    )


def bedrock_logging_role_policy(*, log_streams_arn: str) -> dict[str, Any]:
    """``log_streams_arn``: ``arns.log_streams(...)`` of the invocation-log group (…:log-group:NAME:log-stream:*)."""
    return document(
        [
            statement(
                "WriteInvocationLogs",
                actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                resources=[log_streams_arn],
            )
        ]
    )


def handler_policy(
    actions: Sequence[str], *, resources: Sequence[str] = ("*",), sid: str = "Handler"
) -> dict[str, Any]:
    return document([statement(sid, actions=actions, resources=resources)])
