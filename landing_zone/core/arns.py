"""ARN shapes used by Bedrock policies (docs: inference-profiles-prereq.html, global-cross-region-inference.html)."""

from __future__ import annotations

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


def log_streams(region: str, account: str, name: str, partition: str = PARTITION) -> str:
    """Every stream of one log group: what logs:CreateLogStream / logs:PutLogEvents are authorised against."""
    return f"{log_group(region, account, name, partition)}:log-stream:*"


def region_of(arn: str) -> str:
    """The Region field of an ARN ('' for global ARNs)."""
    parts = arn.split(":", 5)
    return parts[3] if len(parts) == 6 else ""
