"""Every review rule in one place: id, level, title and what it checks.

``blocking`` findings fail the review (exit code 1, and the example gate in the tests); ``advisory`` findings
are listed for a human to weigh.  The checks themselves are in ``findings.py`` (policies and data stores),
``matrices.py`` (decision matrix), ``nag.py`` (cdk-nag) and ``scanners.py`` (cfn-lint, checkov).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BLOCKING", "ADVISORY", "Rule", "RULES", "rule"]

BLOCKING = "blocking"
ADVISORY = "advisory"


@dataclass(frozen=True)
class Rule:
    id: str
    level: str
    title: str
    description: str

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "level": self.level, "title": self.title, "description": self.description}


_RULES = (
    # --- over-broad grants -------------------------------------------------------------------------------
    Rule(
        "LZ-WILDCARD-INVOKE",
        BLOCKING,
        "Inference allowed on any resource",
        "An Allow statement grants bedrock:InvokeModel*, bedrock:CreateModelInvocationJob or "
        'bedrock-mantle:CreateInference on Resource "*" (or a wildcard ARN / NotResource): any model, any Region.',
    ),
    Rule(
        "LZ-WILDCARD-PASSROLE",
        BLOCKING,
        "iam:PassRole on any role",
        'An Allow statement grants iam:PassRole on Resource "*": the principal may hand any role to a service.',
    ),
    Rule(
        "LZ-WILDCARD-KMS",
        BLOCKING,
        "KMS decryption on any key",
        'An identity or endpoint policy allows kms:Decrypt / GenerateDataKey* / ReEncryptFrom on Resource "*" '
        '(key policies are exempt: their "*" is the key itself).',
    ),
    Rule(
        "LZ-WILDCARD-DATA",
        BLOCKING,
        "Data read/write on any resource",
        "An Allow statement grants object, secret, parameter, log or table data actions (s3:GetObject, "
        'secretsmanager:GetSecretValue, ...) on Resource "*".',
    ),
    Rule(
        "LZ-FULL-ACTION",
        BLOCKING,
        "All actions of a service (or of AWS) allowed",
        'An Allow statement has Action "*", "service:*" or NotAction; exempt: the root-account statement of a '
        "KMS key policy and the FullAWSAccess-style SCP.",
    ),
    Rule(
        "LZ-WILDCARD-IN-BOUNDARY",
        ADVISORY,
        "Wildcard in a permissions boundary",
        "A policy used only as a permissions boundary has a wildcard grant. A boundary is a ceiling, not a grant: "
        "the effective access is the intersection with the identity policies, so this is listed, not blocking.",
    ),
    Rule(
        "LZ-ENDPOINT-PERIMETER",
        ADVISORY,
        "Broad endpoint policy bounded to the landing zone's accounts",
        "A VPC endpoint policy allows all actions of a service or any resource, bounded by aws:ResourceAccount / "
        "aws:ResourceOrgID to the configured accounts or organization. An endpoint policy filters what passes the "
        "endpoint (the identity policies still grant), and this is the data-perimeter pattern, so it is listed.",
    ),
    Rule(
        "LZ-WILDCARD-OTHER",
        ADVISORY,
        "Write actions on any resource",
        'An identity or endpoint policy allows non-read actions on Resource "*" (often required by APIs without '
        "resource-level permissions; check that the actions are the ones the API needs).",
    ),
    Rule(
        "LZ-REGION-WILDCARD",
        ADVISORY,
        "Inference allowed in any Region",
        "An Allow statement grants an inference action on an ARN whose Region segment is a wildcard.",
    ),
    # --- principals --------------------------------------------------------------------------------------
    Rule(
        "LZ-CONFUSED-DEPUTY",
        BLOCKING,
        "Service principal without a confused-deputy condition on a data resource",
        "A KMS key, bucket or topic policy allows bedrock, logs, budgets, costalerts or cloudwatch without "
        "aws:SourceAccount / aws:SourceArn / aws:SourceOrgID or a kms:EncryptionContext condition.",
    ),
    Rule(
        "LZ-SERVICE-PRINCIPAL-UNSCOPED",
        ADVISORY,
        "Service principal without a source condition",
        "A resource or trust policy allows a service principal without aws:SourceAccount / aws:SourceArn / "
        "aws:SourceOrgID or a kms:EncryptionContext condition.",
    ),
    Rule(
        "LZ-CROSS-ACCOUNT",
        BLOCKING,
        "Principal of an account outside the configuration",
        "An Allow statement admits an account (Principal, or aws:PrincipalAccount / aws:SourceAccount / "
        "aws:PrincipalOrgID condition) that is not one of the configured accounts, the deployment account, the "
        "management account or the configured organization.",
    ),
    Rule(
        "LZ-PUBLIC-PRINCIPAL",
        BLOCKING,
        "Public principal",
        'An Allow statement has Principal "*" without an account or organization condition. In a VPC endpoint '
        'policy, where "*" means the callers inside the VPC, only when it also allows any resource without '
        "aws:ResourceAccount / aws:ResourceOrgID (an exfiltration path).",
    ),
    # --- Regions -----------------------------------------------------------------------------------------
    Rule(
        "LZ-NONCOMPLIANT-REGION",
        BLOCKING,
        "Allow statement names a non-compliant Region",
        "An ARN (or a Regional service principal) in an Allow statement names a Region outside compliant_regions. "
        "Exempt: Deny statements, and the destinations of a compliant global profile when "
        "allow_global_inference is true.",
    ),
    # --- data stores -------------------------------------------------------------------------------------
    Rule(
        "LZ-UNENCRYPTED-S3",
        BLOCKING,
        "S3 bucket without BucketEncryption",
        "An AWS::S3::Bucket has no BucketEncryption configuration.",
    ),
    Rule(
        "LZ-S3-SSE-S3",
        ADVISORY,
        "S3 bucket encrypted with S3-managed keys",
        "An AWS::S3::Bucket uses SSE-S3 (AES256) rather than a customer-managed KMS key.",
    ),
    Rule(
        "LZ-UNENCRYPTED-LOGS",
        BLOCKING,
        "Log group without KmsKeyId",
        "An AWS::Logs::LogGroup is not encrypted with a customer-managed key.",
    ),
    Rule(
        "LZ-UNENCRYPTED-SNS",
        BLOCKING,
        "SNS topic without KmsMasterKeyId",
        "An AWS::SNS::Topic is not encrypted with a KMS key.",
    ),
    Rule(
        "LZ-UNENCRYPTED-EKS",
        BLOCKING,
        "EKS cluster without secrets encryption",
        "An AWS::EKS::Cluster has no EncryptionConfig.",
    ),
    # --- semantics, tools --------------------------------------------------------------------------------
    Rule(
        "LZ-DECISION-MISMATCH",
        BLOCKING,
        "Guardrail decision differs from the expected one",
        "A standard request case evaluated against the synthesized SCPs (or the invoker permissions boundary) "
        "gets a decision other than the expected one.",
    ),
    Rule(
        "LZ-GUARDRAILS-MISSING",
        BLOCKING,
        "No guardrail policy to evaluate",
        "The assembly has neither the guardrail SCPs (organization mode) nor the invoker permissions boundary "
        "'<name>-invoker-boundary' (single-account mode).",
    ),
    Rule(
        "LZ-UNPARSEABLE-POLICY",
        ADVISORY,
        "Policy text could not be read",
        "A policy given as text is not valid JSON; it is listed but could not be checked.",
    ),
    Rule(
        "LZ-NAG-VIOLATION",
        BLOCKING,
        "Unacknowledged cdk-nag finding",
        "validation-report.json lists an error-severity violation (or one of a plugin whose conclusion is failure) "
        "without an acknowledgment.",
    ),
    Rule(
        "LZ-VALIDATION-WARNING",
        ADVISORY,
        "Synth-time validation warning",
        "A validation plugin of the synth (e.g. CDK's 'CloudFormation Validate') reports a warning-severity "
        "violation while its conclusion is success.",
    ),
    Rule(
        "LZ-NAG-NOT-RUN",
        ADVISORY,
        "No cdk-nag report in the assembly",
        "validation-report.json is missing: the assembly was synthesized without the cdk-nag packs "
        "(`make synth` runs them).",
    ),
    Rule(
        "LZ-CFN-LINT-ERROR",
        BLOCKING,
        "cfn-lint error",
        "cfn-lint reports an error in a template (warnings and informational results are listed, not findings).",
    ),
    Rule(
        "LZ-CHECKOV-FAILED",
        BLOCKING,
        "checkov check failed and not skipped",
        "checkov reports a failed check that checkov-skips.yaml does not list with a reason.",
    ),
    Rule(
        "LZ-SCANNER-ERROR",
        BLOCKING,
        "A scanner could not run",
        "cfn-lint or checkov is not installed, crashed, or produced no readable output.",
    ),
)

RULES: dict[str, Rule] = {r.id: r for r in _RULES}


def rule(rule_id: str) -> Rule:
    return RULES[rule_id]
