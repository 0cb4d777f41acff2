"""Every review rule in one place: id, level, title, what it checks and why (the rationale).

``blocking`` findings fail the review (exit code 1, and the example gate in the tests); ``advisory`` findings
are listed for a human to weigh.  The checks themselves are in ``findings.py`` (policies and data stores),
``matrices.py`` (decision matrix), ``nag.py`` (cdk-nag) and ``scanners.py`` (cfn-lint, checkov).

``rationale`` is shown next to every finding of the rule: why it has its level and what to do about it.
``related`` names the cdk-nag rules and checkov checks (fnmatch patterns) that look at the same property, so that
an acknowledgment or a skip of one of them on the finding's resource is shown, with its reason, in the same row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["BLOCKING", "ADVISORY", "Rule", "RULES", "rule"]

# cdk-nag and checkov rules about wildcard IAM grants, and about S3 encryption with a customer-managed key
_IAM_WILDCARD = (
    "AwsSolutions-IAM5",
    "CKV_AWS_107",
    "CKV_AWS_108",
    "CKV_AWS_109",
    "CKV_AWS_110",
    "CKV_AWS_111",
    "CKV_AWS_355",
    "CKV_AWS_356",
)
_S3_KMS = ("*-S3DefaultEncryptionKMS", "CKV_AWS_145")

BLOCKING = "blocking"
ADVISORY = "advisory"


@dataclass(frozen=True)
class Rule:
    id: str
    level: str
    title: str
    description: str
    rationale: str
    related: tuple[str, ...] = ()  # cdk-nag rule / checkov check patterns that check the same thing

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level,
            "title": self.title,
            "description": self.description,
            "rationale": self.rationale,
            "related": list(self.related),
        }


_RULES = (
    # --- over-broad grants -------------------------------------------------------------------------------
    Rule(
        "LZ-WILDCARD-INVOKE",
        BLOCKING,
        "Inference allowed on any resource",
        "An Allow statement grants bedrock:InvokeModel*, bedrock:CreateModelInvocationJob or "
        'bedrock-mantle:CreateInference on Resource "*" (or a wildcard ARN / NotResource): any model, any Region.',
        "Inference on any model in any Region sidesteps the model allow-list and the Region guardrails at the "
        "identity layer. Name the foundation-model and inference-profile ARNs the routing decision admits.",
        related=_IAM_WILDCARD,
    ),
    Rule(
        "LZ-WILDCARD-PASSROLE",
        BLOCKING,
        "iam:PassRole on any role",
        'An Allow statement grants iam:PassRole on Resource "*": the principal may hand any role to a service.',
        "Passing any role lets the principal hand a more privileged role to a service (privilege escalation). "
        "Name the role ARNs and add an iam:PassedToService condition.",
        related=_IAM_WILDCARD,
    ),
    Rule(
        "LZ-WILDCARD-KMS",
        BLOCKING,
        "KMS decryption on any key",
        'An identity or endpoint policy allows kms:Decrypt / GenerateDataKey* / ReEncryptFrom on Resource "*" '
        '(key policies are exempt: their "*" is the key itself).',
        "Decrypting with any key reaches every key whose policy trusts the account. Name the key ARNs.",
        related=_IAM_WILDCARD,
    ),
    Rule(
        "LZ-WILDCARD-DATA",
        BLOCKING,
        "Data read/write on any resource",
        "An Allow statement grants object, secret, parameter, log or table data actions (s3:GetObject, "
        'secretsmanager:GetSecretValue, ...) on Resource "*".',
        "Reading or writing any object, secret, parameter, log or table is an exfiltration path. Name the "
        "resource ARNs.",
        related=_IAM_WILDCARD,
    ),
    Rule(
        "LZ-FULL-ACTION",
        BLOCKING,
        "All actions of a service (or of AWS) allowed",
        'An Allow statement has Action "*", "service:*" or NotAction; exempt: the root-account statement of a '
        "KMS key policy and the FullAWSAccess-style SCP.",
        "'service:*' also grants every action the service adds later, including destructive ones. List the "
        "actions the principal needs.",
        related=_IAM_WILDCARD,
    ),
    Rule(
        "LZ-WILDCARD-IN-BOUNDARY",
        ADVISORY,
        "Wildcard in a permissions boundary",
        "A policy used only as a permissions boundary has a wildcard grant. A boundary is a ceiling, not a grant: "
        "the effective access is the intersection with the identity policies, so this is listed, not blocking.",
        "Advisory: a permissions boundary grants nothing by itself. The role gets the intersection with its "
        "identity policies, and the wildcard rules check those policies. Check that the boundary's denies "
        "still hold; nothing to change here.",
        related=_IAM_WILDCARD,
    ),
    Rule(
        "LZ-ENDPOINT-PERIMETER",
        ADVISORY,
        "Broad endpoint policy bounded to the landing zone's accounts",
        "A VPC endpoint policy allows all actions of a service or any resource, bounded by aws:ResourceAccount / "
        "aws:ResourceOrgID to the configured accounts or organization. An endpoint policy filters what passes the "
        "endpoint (the identity policies still grant), and this is the data-perimeter pattern, so it is listed.",
        "Advisory: this is the data-perimeter pattern. The endpoint filters, the identity policies grant, and "
        "aws:ResourceAccount / aws:ResourceOrgID keep the traffic inside the landing zone's accounts. Check "
        "that the bounding accounts or organization are yours.",
        related=_IAM_WILDCARD,
    ),
    Rule(
        "LZ-WILDCARD-OTHER",
        ADVISORY,
        "Write actions on any resource",
        'An identity or endpoint policy allows non-read actions on Resource "*" (often required by APIs without '
        "resource-level permissions; check that the actions are the ones the API needs).",
        "Advisory: APIs without resource-level permissions need Resource '*' (the Service Authorization "
        "Reference lists them). Check that each listed action really has no resource type; otherwise scope "
        "it.",
        related=_IAM_WILDCARD,
    ),
    Rule(
        "LZ-REGION-WILDCARD",
        ADVISORY,
        "Inference allowed in any Region",
        "An Allow statement grants an inference action on an ARN whose Region segment is a wildcard.",
        "Advisory: the SCPs or the invoker boundary deny the non-compliant Regions, so residency still holds. "
        "Pin the Region segment to compliant_regions where the ARN allows it.",
        related=_IAM_WILDCARD,
    ),
    # --- principals --------------------------------------------------------------------------------------
    Rule(
        "LZ-CONFUSED-DEPUTY",
        BLOCKING,
        "Service principal without a confused-deputy condition on a data resource",
        "A KMS key, bucket or topic policy allows bedrock, logs, budgets, costalerts or cloudwatch without "
        "aws:SourceAccount / aws:SourceArn / aws:SourceOrgID or a kms:EncryptionContext condition.",
        "Without a source condition, the service can use this key, bucket or topic on behalf of another "
        "account's resources (confused deputy). Add aws:SourceAccount / aws:SourceArn, or "
        "kms:EncryptionContext for CloudWatch Logs.",
    ),
    Rule(
        "LZ-SERVICE-PRINCIPAL-UNSCOPED",
        ADVISORY,
        "Service principal without a source condition",
        "A resource or trust policy allows a service principal without aws:SourceAccount / aws:SourceArn / "
        "aws:SourceOrgID or a kms:EncryptionContext condition.",
        "Advisory: the policy is not on a data resource. For a trust policy, only a resource created in this "
        "account with this role (which needs iam:PassRole) can act as the service. Add aws:SourceAccount "
        "where the service sets it.",
    ),
    Rule(
        "LZ-CROSS-ACCOUNT",
        BLOCKING,
        "Principal of an account outside the configuration",
        "An Allow statement admits an account (Principal, or aws:PrincipalAccount / aws:SourceAccount / "
        "aws:PrincipalOrgID condition) that is not one of the configured accounts, the deployment account, the "
        "management account or the configured organization.",
        "The configuration does not know this account. If the access is intended, add the account to the "
        "configuration; otherwise remove the principal or condition value.",
    ),
    Rule(
        "LZ-PUBLIC-PRINCIPAL",
        BLOCKING,
        "Public principal",
        'An Allow statement has Principal "*" without an account or organization condition. In a VPC endpoint '
        'policy, where "*" means the callers inside the VPC, only when it also allows any resource without '
        "aws:ResourceAccount / aws:ResourceOrgID (an exfiltration path).",
        "Any AWS principal of any account could use the resource. Add aws:PrincipalOrgID or "
        "aws:PrincipalAccount, or name the principals.",
    ),
    # --- Regions -----------------------------------------------------------------------------------------
    Rule(
        "LZ-NONCOMPLIANT-REGION",
        BLOCKING,
        "Allow statement names a non-compliant Region",
        "An ARN (or a Regional service principal) in an Allow statement names a Region outside compliant_regions. "
        "Exempt: Deny statements, and the destinations of a compliant global profile when "
        "allow_global_inference is true.",
        "Data residency: the statement reaches a Region outside compliant_regions. Remove the Region, or add "
        "it to compliant_regions if it is compliant.",
    ),
    # --- data stores -------------------------------------------------------------------------------------
    Rule(
        "LZ-UNENCRYPTED-S3",
        BLOCKING,
        "S3 bucket without BucketEncryption",
        "An AWS::S3::Bucket has no BucketEncryption configuration.",
        "Data at rest without a customer-managed key has no key policy to keep it inside the landing zone. "
        "Set BucketEncryption with SSE-KMS.",
        related=_S3_KMS,
    ),
    Rule(
        "LZ-S3-SSE-S3",
        ADVISORY,
        "S3 bucket encrypted with S3-managed keys",
        "An AWS::S3::Bucket uses SSE-S3 (AES256) rather than a customer-managed KMS key.",
        "Advisory: SSE-S3 encrypts at rest, but only the bucket policy controls access (no key policy). S3 "
        "server-access-log destinations must use it (they cannot use SSE-KMS); elsewhere use a "
        "customer-managed key.",
        related=_S3_KMS,
    ),
    Rule(
        "LZ-UNENCRYPTED-LOGS",
        BLOCKING,
        "Log group without KmsKeyId",
        "An AWS::Logs::LogGroup is not encrypted with a customer-managed key.",
        "Log data at rest without a customer-managed key has no key policy to keep it inside the landing "
        "zone. Set KmsKeyId.",
        related=("*-CloudWatchLogGroupEncrypted", "CKV_AWS_158"),
    ),
    Rule(
        "LZ-UNENCRYPTED-SNS",
        BLOCKING,
        "SNS topic without KmsMasterKeyId",
        "An AWS::SNS::Topic is not encrypted with a KMS key.",
        "Messages at rest without a KMS key. Set KmsMasterKeyId (a customer-managed key whose policy admits "
        "the publishing services with a source condition).",
        related=("AwsSolutions-SNS2", "*-SNSEncryptedKMS", "CKV_AWS_26"),
    ),
    Rule(
        "LZ-UNENCRYPTED-EKS",
        BLOCKING,
        "EKS cluster without secrets encryption",
        "An AWS::EKS::Cluster has no EncryptionConfig.",
        "Kubernetes secrets are stored unencrypted in etcd. Set EncryptionConfig with a KMS key for secrets.",
        related=("AwsSolutions-EKS*", "CKV_AWS_58"),
    ),
    # --- semantics, tools --------------------------------------------------------------------------------
    Rule(
        "LZ-DECISION-MISMATCH",
        BLOCKING,
        "Guardrail decision differs from the expected one",
        "A standard request case evaluated against the synthesized SCPs (or the invoker permissions boundary) "
        "gets a decision other than the expected one.",
        "The guardrail does not decide a standard request the way the design says. Fix the guardrail, or the "
        "case in cases.py if the design changed on purpose.",
    ),
    Rule(
        "LZ-COVERAGE-UNDECIDED",
        BLOCKING,
        "An action on a protected resource is neither denied nor excepted",
        "An action of the IAM action databases (Write, Permissions management or Tagging) on a resource of the "
        "protected-resource inventory, or such an action with no resource type, is allowed to a member-account "
        "administrator by the synthesized SCPs and is not in landing_zone/policies/exceptions.yaml.",
        "The tamper guardrails are complete only for the actions they deny or a reviewer excepted: an undecided "
        "action is a way around them. Deny it (guardrails.py) or except it with a reason and a source.",
    ),
    Rule(
        "LZ-VOID-NO-ENDPOINT",
        BLOCKING,
        "Endpoint use is required, but there is no Bedrock endpoint",
        "access.require_vpc_endpoint is true and the assembly has no bedrock-runtime interface endpoint.",
        "The invoker policies admit calls only through the landing zone's endpoints: without one every call fails, "
        "and the usual fix under pressure is to drop the condition. Add bedrock-runtime to network.endpoints.",
    ),
    Rule(
        "LZ-VOID-MANAGEMENT-ACCOUNT",
        BLOCKING,
        "The management account is a workload account: SCPs do not apply there",
        "organization.management_account_id is one of the accounts (or the deployment account).",
        "SCPs never restrict the management account, so every guardrail is void in it. Run the workloads in a "
        "member account under organization.target_ids.",
    ),
    Rule(
        "LZ-VOID-NO-TARGETS",
        BLOCKING,
        "The SCPs are attached to no target",
        "Organization mode, and no service control policy of the assembly has TargetIds.",
        "An SCP binds only the roots, OUs and accounts it is attached to: with none, the guardrails bind nobody. "
        "List them in organization.target_ids.",
    ),
    Rule(
        "LZ-VOID-LOGGING-OFF",
        BLOCKING,
        "Model invocation logging is off",
        "invocation_logging.enabled is false.",
        "Without invocation logs nobody can tell who invoked which model with what: detection and forensics of "
        "the threat model are void. Turn invocation_logging on.",
    ),
    Rule(
        "LZ-VOID-KILL-SWITCH",
        BLOCKING,
        "The kill switch stops no invoker",
        "cost.kill_switch is true, but no budget action of the assembly attaches the deny to an invoker role.",
        "The budget's last line of defence does nothing: spend continues past the budget. Give the landing zone an "
        "application (an invoker role), or turn the kill switch off knowingly.",
    ),
    Rule(
        "LZ-PROOF-FAILS",
        BLOCKING,
        "A guardrail property does not hold: the prover found a counterexample",
        "The SMT prover (section Proofs) found a request that breaks one of the properties P1-P5 stated from the "
        "configuration (Region confinement, model allow-list, tamper protection, not over-blocking, invoker "
        "effective permissions); the counterexample is replayed through the evaluator.",
        "A property that fails on one request fails for an attacker: run the counterexample's simulate command, fix "
        "the policy, synthesize and review again. A counterexample cannot be acknowledged.",
    ),
    Rule(
        "LZ-PROOF-NOT-PROVEN",
        BLOCKING,
        "A guardrail property is not proven",
        "An obligation of P1-P5 timed out, its premise admits no request (vacuous), the prover and the evaluator "
        "disagree on its counterexample, or the policies hold an element the prover does not encode; and "
        "landing_zone/review/proof-acknowledgements.yaml does not acknowledge it.",
        "What is not proven is only sampled: raise --proof-timeout, or acknowledge the obligation with a reason in "
        "proof-acknowledgements.yaml (the verdict is then qualified). A disagreement is a bug in the prover or the "
        "evaluator: report it.",
    ),
    Rule(
        "LZ-GUARDRAILS-MISSING",
        BLOCKING,
        "No guardrail policy to evaluate",
        "The assembly has neither the guardrail SCPs (organization mode) nor the invoker permissions boundary "
        "'<name>-invoker-boundary' (single-account mode).",
        "Nothing to evaluate the requests against: the assembly lacks its guardrail stack, or was not "
        "synthesized from this configuration. Synthesize again and review the new assembly.",
    ),
    Rule(
        "LZ-UNPARSEABLE-POLICY",
        ADVISORY,
        "Policy text could not be read",
        "A policy given as text is not valid JSON; it is listed but could not be checked.",
        "Advisory: CloudFormation rejects invalid policy text at deploy time, so it cannot take effect as "
        "written. Fix the text; until then read it by hand, because the review could not check it.",
    ),
    Rule(
        "LZ-NAG-VIOLATION",
        BLOCKING,
        "Unacknowledged cdk-nag finding",
        "validation-report.json lists an error-severity violation (or one of a plugin whose conclusion is failure) "
        "without an acknowledgment.",
        "Fix the resource, or acknowledge the rule next to it with a reason "
        "(constructs_lib.compliance.acknowledge; allow-listed rules only).",
    ),
    Rule(
        "LZ-VALIDATION-WARNING",
        ADVISORY,
        "Synth-time validation warning",
        "A validation plugin of the synth (e.g. CDK's 'CloudFormation Validate') reports a warning-severity "
        "violation while its conclusion is success.",
        "Advisory: the plugin concluded success and lists this for a human. Fix it, or acknowledge it with a reason.",
    ),
    Rule(
        "LZ-NAG-NOT-RUN",
        ADVISORY,
        "No cdk-nag report in the assembly",
        "validation-report.json is missing, or lists no cdk-nag pack: the assembly was synthesized without the "
        "cdk-nag packs (`make synth` runs them; an app synthesized in-process without them writes an empty report).",
        "Advisory: the review's own checks ran, but cdk-nag's did not. Synthesize with `make synth` (cdk.json "
        "context nag: true) and review again.",
    ),
    Rule(
        "LZ-NAG-UNUSED-ACK",
        ADVISORY,
        "cdk-nag acknowledgment that suppresses nothing",
        "An acknowledgment in the stack metadata (aws:cdk:acknowledged-rules) matches no suppressed violation in "
        "validation-report.json, although the plugin it names ran.",
        "Advisory: an acknowledgment that suppresses nothing hides intent and may silence a future finding. Remove "
        "it, or move it to the construct and finding it was meant for.",
    ),
    Rule(
        "LZ-CFN-LINT-ERROR",
        BLOCKING,
        "cfn-lint error",
        "cfn-lint reports an error in a template (warnings and informational results are listed, not findings).",
        "CloudFormation is likely to reject or misread the template. Fix the property.",
    ),
    Rule(
        "LZ-CHECKOV-FAILED",
        BLOCKING,
        "checkov check failed and not skipped",
        "checkov reports a failed check that checkov-skips.yaml does not list with a reason.",
        "Fix the resource, or list the check in checkov-skips.yaml for this resource with a reason (at least "
        "20 characters, saying what makes it safe).",
    ),
    Rule(
        "LZ-SCANNER-ERROR",
        BLOCKING,
        "A scanner could not run",
        "cfn-lint or checkov is not installed, crashed, or produced no readable output.",
        "The review is incomplete without the scanner. Run `make scanners` (or set LZ_SCANNERS_PYTHON) and "
        "review again.",
    ),
)

RULES: dict[str, Rule] = {r.id: r for r in _RULES}


def rule(rule_id: str) -> Rule:
    return RULES[rule_id]
