"""VPC interface endpoint policies: only the landing zone's principals, only compliant models.

An endpoint policy is evaluated in addition to identity policies and SCPs; it is the perimeter's own say.
Principals are admitted by ``aws:PrincipalOrgID`` when the organization ID is configured, otherwise by
``aws:PrincipalAccount`` listing the configured accounts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from landing_zone.core import arns
from landing_zone.core.routing import RoutingDecision
from landing_zone.policies.common import document, statement, with_condition
from landing_zone.policies.invoke import mantle_invoke_statements, runtime_batch_statements, runtime_invoke_statements

ENDPOINT_SERVICES = ("bedrock-runtime", "bedrock-mantle", "bedrock")

# Read-only control-plane calls callers need to discover models and profiles.
CONTROL_PLANE_READ_ACTIONS = ("bedrock:Get*", "bedrock:List*")
MANTLE_READ_ACTIONS = ("bedrock-mantle:Get*", "bedrock-mantle:List*")


def _admit_principals(stmt: dict[str, Any], *, accounts: Sequence[str], organization_id: str | None) -> dict[str, Any]:
    stmt = dict(stmt, Principal="*")
    if organization_id:
        return with_condition(stmt, "StringEquals", "aws:PrincipalOrgID", organization_id)
    return with_condition(stmt, "StringEquals", "aws:PrincipalAccount", list(accounts))


def _order(stmt: dict[str, Any]) -> dict[str, Any]:
    keys = ["Sid", "Effect", "Principal", "Action", "NotAction", "Resource", "Condition"]
    return {k: stmt[k] for k in keys if k in stmt}


def endpoint_policy(
    service: str,
    routing: RoutingDecision,
    *,
    region: str,
    accounts: Sequence[str],
    organization_id: str | None = None,
    partition: str = arns.PARTITION,
) -> dict[str, Any]:
    """The policy document of the ``service`` endpoint in ``region``."""
    if service == "bedrock-runtime":
        stmts = runtime_invoke_statements(routing, accounts=accounts, source_region=region, partition=partition)
        stmts.append(
            statement(
                "ApplyOwnGuardrails",
                actions=["bedrock:ApplyGuardrail"],
                resources=[arns.guardrails(region, a, partition) for a in accounts],
            )
        )
    elif service == "bedrock-mantle":
        stmts = mantle_invoke_statements(routing, accounts=accounts, source_region=region, partition=partition)
        stmts.append(
            statement(
                "MantleReadProjects",
                actions=MANTLE_READ_ACTIONS,
                resources=[arns.mantle_projects(region, a, partition) for a in accounts],
            )
        )
    elif service == "bedrock":
        stmts = [statement("ReadModelCatalog", actions=CONTROL_PLANE_READ_ACTIONS, resources=["*"])]
        stmts += runtime_batch_statements(routing, accounts=accounts, source_region=region, partition=partition)
        stmts.append(
            statement(
                "ManageOwnBatchJobs",
                actions=["bedrock:StopModelInvocationJob"],
                resources=[arns.batch_jobs(region, a, partition) for a in accounts],
            )
        )
    else:
        raise ValueError(f"endpoint service {service!r} is not supported (allowed: {', '.join(ENDPOINT_SERVICES)})")
    admitted = [_order(_admit_principals(s, accounts=accounts, organization_id=organization_id)) for s in stmts]
    return document(admitted)


def custom_resource_response_bucket(region: str) -> str:
    """CloudFormation's custom-resource response bucket of ``region`` (e.g. ...-response-useast1), which the
    pre-signed ResponseURL points at (AWS CloudFormation user guide, "Using VPC endpoints": custom resources)."""
    return f"cloudformation-custom-resource-response-{region.replace('-', '')}"


def s3_gateway_policy(
    *, region: str, accounts: Sequence[str], partition: str = "aws", custom_resource_responses: bool = False
) -> dict[str, Any]:
    """S3 through the gateway endpoint: ECR image layers (AWS's starport bucket) and the landing zone's own
    accounts' buckets (weights); with the kubectl provider, CloudFormation's custom-resource response bucket."""
    statements = [
        statement(
            "EcrImageLayers",
            principal={"AWS": "*"},
            actions=["s3:GetObject"],
            resources=[f"arn:{partition}:s3:::prod-{region}-starport-layer-bucket/*"],
        ),
        statement(
            "LandingZoneAccountBuckets",
            principal={"AWS": "*"},
            actions=["s3:*"],
            resources=["*"],
            condition={"StringEquals": {"aws:ResourceAccount": sorted(accounts)}},
        ),
    ]
    if custom_resource_responses:
        statements.append(
            statement(
                "CloudFormationCustomResourceResponses",
                principal={"AWS": "*"},
                actions=["s3:PutObject"],
                # AWS's response bucket of this Region only (name: Region without dashes); a wildcard would let
                # anything in the VPC write into any bucket so named, in any account.
                resources=[f"arn:{partition}:s3:::{custom_resource_response_bucket(region)}/*"],
            )
        )
    return document(statements)
