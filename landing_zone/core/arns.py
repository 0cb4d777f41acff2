"""ARN shapes used by Bedrock policies (docs: inference-profiles-prereq.html, global-cross-region-inference.html)."""

from __future__ import annotations

import re

PARTITION = "aws"


def foundation_model(region: str, model_id: str, partition: str = PARTITION) -> str:
    return f"arn:{partition}:bedrock:{region}::foundation-model/{model_id}"


def global_foundation_model(model_id: str, partition: str = PARTITION) -> str:
    """The Region-less FM ARN evaluated for global profiles (with aws:RequestedRegion = 'unspecified')."""
    return f"arn:{partition}:bedrock:::foundation-model/{model_id}"


def inference_profile(region: str, account: str, profile_id: str, partition: str = PARTITION) -> str:
    return f"arn:{partition}:bedrock:{region}:{account}:inference-profile/{profile_id}"


def application_inference_profiles(region: str, account: str, partition: str = PARTITION) -> str:
    """Every application inference profile of one account in one Region (IDs are random)."""
    return f"arn:{partition}:bedrock:{region}:{account}:application-inference-profile/*"


def mantle_projects(region: str, account: str, partition: str = PARTITION) -> str:
    return f"arn:{partition}:bedrock-mantle:{region}:{account}:project/*"


def guardrails(region: str, account: str, partition: str = PARTITION) -> str:
    return f"arn:{partition}:bedrock:{region}:{account}:guardrail/*"


def batch_jobs(region: str, account: str, partition: str = PARTITION) -> str:
    return f"arn:{partition}:bedrock:{region}:{account}:model-invocation-job/*"


def log_group(region: str, account: str, name: str, partition: str = PARTITION) -> str:
    """A log group's ARN as IAM names it (no trailing ':*', unlike CloudFormation's GetAtt Arn)."""
    return f"arn:{partition}:logs:{region}:{account}:log-group:{name}"


def ssm_parameter(region: str, account: str, name: str, partition: str = PARTITION) -> str:
    """An SSM parameter's ARN (a name without a leading '/' follows ``parameter/`` directly)."""
    return f"arn:{partition}:ssm:{region}:{account}:parameter/{name.lstrip('/')}"


def log_streams(region: str, account: str, name: str, partition: str = PARTITION) -> str:
    """Every stream of one log group: what logs:CreateLogStream / logs:PutLogEvents are authorised against."""
    return f"{log_group(region, account, name, partition)}:log-stream:*"


def region_of(arn: str) -> str:
    """The Region field of an ARN ('' for global ARNs)."""
    parts = arn.split(":", 5)
    return parts[3] if len(parts) == 6 else ""


# A guardrail ARN as AWS::Bedrock::ResourcePolicy accepts it (no version; CloudFormation resource reference,
# aws-resource-bedrock-resourcepolicy.html), then ':' and a numbered version: the BEDROCK_POLICY identifier
# ("Guardrail ARN, followed by :version ... that version cannot be DRAFT", orgs_manage_policies_bedrock_syntax.html).
GUARDRAIL_IDENTIFIER = re.compile(
    r"^arn:aws(-[a-z]+)*:bedrock:(?P<region>[a-z0-9-]+):(?P<account>[0-9]{12}):guardrail/[a-z0-9]+:(?P<version>[1-9][0-9]*)$"
)


def guardrail_identifier_problem(identifier: object, *, region: str, account: str | None = None) -> str | None:
    """Why ``identifier`` cannot be a BEDROCK_POLICY guardrail identifier in ``region`` (owned by ``account``), or
    None.  AWS: "An incorrect or malformed identifier will cause all Amazon Bedrock API calls across the target
    organization to fail" (orgs_manage_policies_bedrock_best_practices.html)."""
    found = GUARDRAIL_IDENTIFIER.match(identifier) if isinstance(identifier, str) else None
    if found is None:
        return (
            f"{identifier!r} is not 'arn:<partition>:bedrock:<region>:<account>:guardrail/<id>:<version>' with a "
            "numbered version (not DRAFT)"
        )
    if found["region"] != region:
        return f"{identifier!r} names Region {found['region']}, not {region}: the guardrail must be in that Region"
    if account is not None and found["account"] != account:
        return f"{identifier!r} is owned by {found['account']}, not the management account {account}"
    return None
