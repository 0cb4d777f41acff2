"""One failing and one passing fixture for every rule of the policy review, the way cdk-nag tests its rules.

For each rule of ``landing_zone.review.rules.RULES`` the table ``FIXTURES`` holds at least one pair of inputs:

* the *failing* input makes the rule fire, with the level the registry gives it (blocking or advisory);
* the *passing* input is the same input with one thing changed, and the rule does not fire on it.

Every input goes through the review's own public entry points, without a synth and without running a scanner:

* ``Template``: a hand-written template, inventoried by ``build_inventory`` and checked by ``policy_findings`` and
  ``data_store_findings``;
* ``Guardrails``: the SCPs and the invoker permissions boundary of a configuration exactly as the stacks build them
  (``scp_documents``, ``permissions_boundary``), optionally with one statement removed, evaluated by
  ``decision_matrix`` and ``decision_findings``;
* ``NagReport``: a ``validation-report.json`` as cdk-nag and CDK write it, with the acknowledgments of the stack
  metadata, read by ``nag_section`` and ``nag_findings``;
* ``Scans``: the parsed results of cfn-lint and checkov (``ScannerRun`` objects shaped like their real JSON output),
  read by ``scanners_section`` and ``scanner_findings``;
* ``Deploy``: one stack's resources in its account (as the manifest's environment gives it) and the cross-account
  grants the plan declares, checked by ``deployability_findings``;
* ``Replace``: one stack's resources before and after a change, compared by ``replacement_findings``.

A new rule without a fixture pair fails ``test_every_rule_has_a_failing_and_a_passing_fixture``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from landing_zone.assembly import Acknowledgment, Assembly, Stack
from landing_zone.assembly.intrinsics import STACK_SUFFIX
from landing_zone.plan.grants import CrossAccountGrant
from landing_zone.policies.guardrails import permissions_boundary
from landing_zone.policies.scp_layout import scp_documents
from landing_zone.prove.proofs import ProofInputs, proofs_section
from landing_zone.prove.prover import Guard
from landing_zone.review.baseline import baseline_findings, changes_section
from landing_zone.review.claims import Layer, claim_findings, claims_section, layers
from landing_zone.review.coverage import coverage_section
from landing_zone.review.data_stores import data_store_findings
from landing_zone.review.deployability import deployability_findings, replacement_findings
from landing_zone.review.findings import Finding, ReviewContext, policy_findings
from landing_zone.review.inventory import build_inventory
from landing_zone.review.matrices import decision_findings, decision_matrix
from landing_zone.review.nag import nag_findings, nag_section
from landing_zone.review.report import coverage_findings, proof_findings, scp_levels_of
from landing_zone.review.rules import ADVISORY, BLOCKING, RULES
from landing_zone.review.scanners import CheckovSkip, ScannerRun, scanner_findings, scanners_section
from landing_zone.review.settings import settings_findings, settings_section
from landing_zone.review.void import void_findings
from tests.conftest import ROOT

ACCOUNT = "111111111111"
FOREIGN_ACCOUNT = "222222222222"
ORGANIZATION = "o-abc"
CTX = ReviewContext(
    compliant_regions=frozenset({"eu-central-1", "eu-west-1"}),
    known_accounts=frozenset({ACCOUNT}),
    organization_id=ORGANIZATION,
)
TEMPLATE_FILE = "app.template.json"
MODEL_ARN = "arn:aws:bedrock:eu-central-1::foundation-model/moonshotai.kimi-k2"
DATA_ARN = "arn:aws:s3:::app-data/*"
US_ORGANIZATION = ROOT / "examples" / "us-organization.yaml"
# Kimi K3.1 Pro with a hypothetical allowed-modes list ([provider_data_share]): LZ-RETENTION-BLOCKS-MODEL.
RETENTION_OVERLAY = str(ROOT / "tests" / "review" / "fixtures" / "retention-overlay.yaml")
SINGLE_ACCOUNT = ROOT / "examples" / "us-single-account.yaml"  # no organization: the boundary is the only guardrail
# us-organization without its BEDROCK_POLICY (the settings fixtures build only the guardrail policies)
NO_ORG_POLICY = {"content_guardrail": {"enabled": True, "organization_policy": False, "canary_target_ids": []}}


# ----------------------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Template:
    """The resources of one hand-written template (stack ``app`` in eu-central-1 of the configured account)."""

    resources: Mapping[str, Any]


@dataclass(frozen=True)
class Guardrails:
    """The guardrails of a configuration as the stacks synthesize them, optionally weakened or left out.

    ``config`` is an example file, or None for the cdk.json defaults. ``scps`` puts the SCPs in the assembly
    (organization mode only), ``boundary`` the invoker permissions boundary, and ``drop`` removes the statement with
    that Sid from every guardrail document.
    """

    config: Path | None
    scps: bool = True
    boundary: bool = True
    drop: str | None = None
    # (Sid, action): the action added to that statement's NotAction, i.e. no longer denied by it
    exempt: tuple[str, str] | None = None
    # (Sid, action): the action taken out of that statement's Action list
    narrow: tuple[str, str] | None = None
    # the properties the prover checks on these guardrails (none: the prover does not run) and its time per obligation
    proofs: tuple[str, ...] = ()
    proof_timeout_ms: int = 10_000


@dataclass(frozen=True)
class NagReport:
    """The content of ``validation-report.json`` (None: the file is missing), and the acknowledgments recorded in
    the stack metadata (``aws:cdk:acknowledged-rules``) of the template's constructs."""

    report: Mapping[str, Any] | None
    acknowledgments: tuple[Acknowledgment, ...] = ()


@dataclass(frozen=True)
class Scans:
    """What cfn-lint and checkov returned, and the entries of checkov-skips.yaml."""

    cfn_lint: ScannerRun
    checkov: ScannerRun
    skips: tuple[CheckovSkip, ...] = ()


@dataclass(frozen=True)
class Void:
    """A configuration (an example, with ``overrides`` merged in) and a small assembly built for it: a bedrock-runtime
    endpoint (``endpoint``), the SCPs attached to ``organization.target_ids`` (``targets``: or to nothing), and the
    kill switch's budget action with the invoker role (``invoker_roles``: or with none)."""

    config: Path | None
    overrides: Mapping[str, Any] = field(default_factory=dict)
    endpoint: bool = True
    targets: bool = True
    invoker_roles: bool = True


@dataclass(frozen=True)
class Settings:
    """A configuration (with ``overrides``) and an assembly holding its guardrails (the SCPs in organization mode, the
    invoker boundary always) as the plan builds them, ``drop`` removing the statement with that Sid: the input of the
    governed-settings section (``landing_zone.review.settings``)."""

    config: Path | None
    overrides: Mapping[str, Any] = field(default_factory=dict)
    drop: str | None = None


@dataclass(frozen=True)
class Deploy:
    """The resources of the stack ``app`` deployed to ``account`` (its manifest environment), and the grants."""

    resources: Mapping[str, Any]
    account: str = ACCOUNT
    grants: tuple[CrossAccountGrant, ...] = ()


@dataclass(frozen=True)
class Replace:
    """The resources of the stack ``app`` as deployed (``old``) and as synthesized now (``new``)."""

    old: Mapping[str, Any]
    new: Mapping[str, Any]


@dataclass(frozen=True)
class Claims:
    """A configuration's first-screen claims (``landing_zone.review.claims``): ``unclaim`` removes the statement with
    that Sid from the policies that carry the claims (SCPs, boundary, invoker and endpoint policies), ``unguard`` from
    the guardrails the simulator replays the breaking requests against (the SCPs as synthesized)."""

    config: Path | None
    unclaim: str | None = None
    unguard: str | None = None


@dataclass(frozen=True)
class Baseline:
    """The guardrail SCPs of the last approved assembly (``old``) and of this one (``new``), each a list of policy
    documents: the input of the ``--baseline`` comparison (``landing_zone.review.baseline``)."""

    old: tuple[Mapping[str, Any], ...]
    new: tuple[Mapping[str, Any], ...]


Input = Template | Guardrails | NagReport | Scans | Void | Settings | Deploy | Replace | Claims | Baseline


@dataclass(frozen=True)
class RuleFixture:
    """A failing and a passing input for one rule; ``request`` says what the failing input is and what changes."""

    rule: str
    level: str
    case: str  # short name, part of the test id
    request: str
    failing: Input
    passing: Input

    @property
    def id(self) -> str:
        return f"{self.rule}:{self.case}"


# ----------------------------------------------------------------------------------------- template builders


def document(*statements: Mapping[str, Any]) -> dict[str, Any]:
    """A policy document with the given statements."""
    return {"Version": "2012-10-17", "Statement": list(statements)}


def allow(action: str | list[str], resource: str | list[str], **extra: Any) -> dict[str, Any]:
    """An Allow statement (``extra``: Principal, Condition, ...)."""
    return {"Effect": "Allow", "Action": action, "Resource": resource, **extra}


def identity_policy(*statements: Mapping[str, Any]) -> Template:
    """An ``AWS::IAM::Policy`` attached to the role ``app-role``."""
    return Template(
        {
            "Subject": {
                "Type": "AWS::IAM::Policy",
                "Properties": {
                    "PolicyName": "app-policy",
                    "Roles": ["app-role"],
                    "PolicyDocument": document(*statements),
                },
            }
        }
    )


def resource(resource_type: str, **properties: Any) -> Template:
    """A template with one resource of the given type."""
    return Template({"Subject": {"Type": resource_type, "Properties": properties}})


def role_trusting(statement: Mapping[str, Any]) -> Template:
    """An ``AWS::IAM::Role`` whose trust policy has the given statement."""
    return resource("AWS::IAM::Role", RoleName="app-role", AssumeRolePolicyDocument=document(statement))


def bounded_role(*boundary_statements: Mapping[str, Any]) -> Template:
    """A role whose permissions boundary (a managed policy attached to nothing else) has the given statements."""
    trust = {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}
    return Template(
        {
            "Role": {
                "Type": "AWS::IAM::Role",
                "Properties": {
                    "RoleName": "app-role",
                    "AssumeRolePolicyDocument": document(trust),
                    "PermissionsBoundary": {"Ref": "Subject"},
                },
            },
            "Subject": {
                "Type": "AWS::IAM::ManagedPolicy",
                "Properties": {"PolicyDocument": document(*boundary_statements)},
            },
        }
    )


def key_policy(statement: Mapping[str, Any]) -> Template:
    """An ``AWS::KMS::Key`` whose policy has the usual root statement and the given statement."""
    root = allow("kms:*", "*", Principal={"AWS": f"arn:aws:iam::{ACCOUNT}:root"})
    return resource("AWS::KMS::Key", KeyPolicy=document(root, statement))


def logs_resource_policy(text: str) -> Template:
    """An ``AWS::Logs::ResourcePolicy``, whose document is JSON text."""
    return resource("AWS::Logs::ResourcePolicy", PolicyName="app-delivery", PolicyDocument=text)


LOG_DELIVERY_POLICY = json.dumps(
    document(
        allow(
            "logs:PutLogEvents",
            f"arn:aws:logs:eu-central-1:{ACCOUNT}:log-group:/app/*:*",
            Principal={"Service": "delivery.logs.amazonaws.com"},
            Condition={"StringEquals": {"aws:SourceAccount": ACCOUNT}},
        )
    )
)
SSE_KMS = {
    "ServerSideEncryptionConfiguration": [
        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": {"Fn::GetAtt": ["Key", "Arn"]}}}
    ]
}
SSE_S3 = {"ServerSideEncryptionConfiguration": [{"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]}
KEY_ARN = {"Fn::GetAtt": ["Key", "Arn"]}
EKS_PROPERTIES = {
    "Name": "app",
    "RoleArn": {"Fn::GetAtt": ["ClusterRole", "Arn"]},
    "ResourcesVpcConfig": {"SubnetIds": ["subnet-1", "subnet-2"]},
}
EKS_ENCRYPTION = [{"Provider": {"KeyArn": KEY_ARN}, "Resources": ["secrets"]}]
LOGS_KEY_CONDITION = {
    "ArnLike": {"kms:EncryptionContext:aws:logs:arn": f"arn:aws:logs:eu-central-1:{ACCOUNT}:log-group:*"}
}
TOPIC_ARN = f"arn:aws:sns:eu-central-1:{ACCOUNT}:app-alerts"
ENDPOINT_BOUND = {"StringEquals": {"aws:ResourceAccount": ACCOUNT}}


def topic_policy(statement: Mapping[str, Any]) -> Template:
    """An ``AWS::SNS::TopicPolicy`` with the given statement."""
    return resource("AWS::SNS::TopicPolicy", Topics=[{"Ref": "Topic"}], PolicyDocument=document(statement))


def endpoint_policy(statement: Mapping[str, Any]) -> Template:
    """An S3 gateway ``AWS::EC2::VPCEndpoint`` with the given policy statement."""
    return resource(
        "AWS::EC2::VPCEndpoint",
        ServiceName="com.amazonaws.eu-central-1.s3",
        VpcId="vpc-1",
        PolicyDocument=document(statement),
    )


# ----------------------------------------------------------------------------------------- nag report builders


def nag_violation(rule: str, severity: str, logical_id: str, description: str) -> dict[str, Any]:
    """One violation, shaped as in the validation report CDK writes."""
    return {
        "ruleName": rule,
        "description": description,
        "severity": severity,
        "violatingConstructs": [
            {
                "constructPath": f"app/{logical_id}/Resource",
                "cloudFormationResource": {"templatePath": TEMPLATE_FILE, "logicalId": logical_id},
            }
        ],
    }


def acknowledged(violation: Mapping[str, Any], plugin: str, reason: str) -> dict[str, Any]:
    """The same violation, acknowledged (``Validations.of(x).acknowledge``): a suppressed violation."""
    path = violation["violatingConstructs"][0]["constructPath"].rsplit("/", 1)[0]
    return {
        **violation,
        "acknowledgedId": f"{plugin}::{violation['ruleName']}",
        "acknowledgedAt": path,
        "reason": reason,
    }


def nag_report(*plugins: Mapping[str, Any]) -> NagReport:
    """A validation report with the given plugin reports."""
    return NagReport({"version": "55.0.0", "title": "Validation Report", "pluginReports": list(plugins)})


def plugin(name: str, conclusion: str, violations: tuple[dict, ...] = (), suppressed: tuple[dict, ...] = ()) -> dict:
    """One plugin's report."""
    return {
        "pluginName": name,
        "pluginVersion": "3.0.2",
        "conclusion": conclusion,
        "violations": list(violations),
        "suppressedViolations": list(suppressed),
    }


S10 = nag_violation("AwsSolutions-S10", "error", "Bucket", "The S3 Bucket does not require requests to use SSL.")
S10_REASON = "the bucket policy of the log bucket denies aws:SecureTransport false"
IAM5_WARNING = nag_violation("AwsSolutions-IAM5", "warning", "Role", "The IAM entity contains wildcard permissions.")
IAM5_REASON = "bedrock:ListFoundationModels has no resource-level permission (Resource must be *)"
# the access-log bucket of the nag fixtures, with its construct path as CDK records it
NAG_RESOURCES = {
    "AccessLogs": {
        "Type": "AWS::S3::Bucket",
        "Properties": {"BucketName": "app-access-logs", "BucketEncryption": SSE_S3},
        "Metadata": {"aws:cdk:path": "app/AccessLogs/Resource"},
    }
}
S1 = nag_violation("AwsSolutions-S1", "error", "AccessLogs", "The S3 Bucket has server access logs disabled.")
S1_REASON = "this is the server access log bucket of the data bucket; it cannot log to itself"
S1_ACK = Acknowledgment("AwsSolutions::AwsSolutions-S1", S1_REASON, "app/AccessLogs", "app")
W3010 = nag_violation("W3010", "warning", "Subnet", "AvailabilityZone: Avoid hardcoding availability zones")
W3010_REASON = "the endpoint subnets are pinned to the AZs of the compliant Region on purpose"


# ----------------------------------------------------------------------------------------- scanner builders


def cfn_lint_result(level: str, rule: str, logical_id: str, prop: str, message: str) -> dict[str, Any]:
    """One result of ``cfn-lint --format json``."""
    return {
        "Filename": TEMPLATE_FILE,
        "Level": level,
        "Location": {
            "Start": {"LineNumber": 7, "ColumnNumber": 9},
            "End": {"LineNumber": 7, "ColumnNumber": 30},
            "Path": ["Resources", logical_id, "Properties", prop],
        },
        "Message": message,
        "Rule": {"Id": rule, "ShortDescription": message.split(":", 1)[0], "Description": message, "Source": ""},
    }


def cfn_lint_run(*results: Mapping[str, Any], error: str | None = None) -> ScannerRun:
    """A finished cfn-lint run with the given results (or one that could not run: ``error``)."""
    return ScannerRun(
        "cfn-lint",
        ["cfn-lint"],
        returncode=None if error else (2 if results else 0),
        output=None if error else list(results),
        error=error,
        version="1.58.0",
    )


def checkov_failed(check: str, name: str, logical_id: str) -> dict[str, Any]:
    """One failed check of ``checkov --output json --compact``."""
    return {
        "check_id": check,
        "check_name": name,
        "check_result": {"result": "FAILED"},
        "file_path": f"/{TEMPLATE_FILE}",
        "file_line_range": [3, 9],
        "resource": f"AWS::S3::Bucket.{logical_id}",
    }


def checkov_run(*failed: Mapping[str, Any], error: str | None = None) -> ScannerRun:
    """A finished checkov run with the given failed checks (or one that could not run: ``error``)."""
    report = {
        "check_type": "cloudformation",
        "results": {"passed_checks": [], "failed_checks": list(failed), "skipped_checks": [], "parsing_errors": []},
        "summary": {"passed": 12, "failed": len(failed), "skipped": 0, "parsing_errors": 0, "resource_count": 1},
    }
    return ScannerRun(
        "checkov",
        ["checkov"],
        returncode=None if error else (1 if failed else 0),
        output=None if error else report,
        error=error,
        version="3.1.47",
    )


LINT_WARNING = cfn_lint_result(
    "Warning", "W3010", "Subnet", "AvailabilityZone", "Avoid hardcoding availability zones 'eu-central-1a'"
)
LINT_ERROR = cfn_lint_result(
    "Error",
    "E3002",
    "Bucket",
    "Bogus",
    "Resource properties are invalid: Additional properties are not allowed ('Bogus' was unexpected)",
)
CKV_LOGGING = checkov_failed("CKV_AWS_18", "Ensure the S3 bucket has access logging enabled", "AccessLogs")
CKV_LOGGING_SKIP = CheckovSkip("CKV_AWS_18", "the access-log bucket cannot log to itself (it would loop)", "AccessLogs")


# ----------------------------------------------------------------------------------------- deployability builders

ROOT_OF = "arn:aws:iam::{}:root"


def key(*statements: Mapping[str, Any]) -> dict[str, Any]:
    """An ``AWS::KMS::Key`` (the resource ``Subject``) with the given policy statements."""
    return {"Subject": {"Type": "AWS::KMS::Key", "Properties": {"KeyPolicy": document(*statements)}}}


def root_statement(account: str, **extra: Any) -> dict[str, Any]:
    return allow("kms:*", "*", Sid="EnableIamPolicies", Principal={"AWS": ROOT_OF.format(account)}, **extra)


def logs_statement(account: str) -> dict[str, Any]:
    """CloudWatch Logs may use the key for the log groups of ``account``."""
    condition = {
        "ArnLike": {"kms:EncryptionContext:aws:logs:arn": f"arn:aws:logs:eu-central-1:{account}:log-group:/app/*"}
    }
    return allow(
        ["kms:Encrypt*", "kms:Decrypt*", "kms:GenerateDataKey*"],
        "*",
        Sid="LogsForItsLogGroups",
        Principal={"Service": "logs.eu-central-1.amazonaws.com"},
        Condition=condition,
    )


def trusting(account: str) -> dict[str, Any]:
    """A role ``Subject`` whose trust policy admits the root of ``account``."""
    statement = {"Effect": "Allow", "Principal": {"AWS": ROOT_OF.format(account)}, "Action": "sts:AssumeRole"}
    return {
        "Subject": {
            "Type": "AWS::IAM::Role",
            "Properties": {"RoleName": "app-invoker", "AssumeRolePolicyDocument": document(statement)},
        }
    }


def grant(policy_kinds: tuple[str, ...], names: tuple[str, ...]) -> CrossAccountGrant:
    """The plan's grant of ``FOREIGN_ACCOUNT`` to the policies of the stack ``app``."""
    return CrossAccountGrant("fixture", "app", policy_kinds, names, (FOREIGN_ACCOUNT,), "the fixture's caller account")


def profile(name: str, model_arn: str) -> dict[str, Any]:
    """An application inference profile ``Subject`` named ``name`` copying ``model_arn``."""
    return {
        "Subject": {
            "Type": "AWS::Bedrock::ApplicationInferenceProfile",
            "Properties": {"InferenceProfileName": name, "ModelSource": {"CopyFrom": model_arn}},
        }
    }


def retained_log_group(name: Any, deletion_policy: str = "Retain") -> dict[str, Any]:
    return {
        "Subject": {
            "Type": "AWS::Logs::LogGroup",
            "DeletionPolicy": deletion_policy,
            "UpdateReplacePolicy": deletion_policy,
            "Properties": {"LogGroupName": name, "RetentionInDays": 365},
        }
    }


OTHER_MODEL_ARN = "arn:aws:bedrock:eu-central-1::foundation-model/moonshot.kimi-k2-thinking"


# ----------------------------------------------------------------------------------------- the table


TAMPER = document(
    {
        "Sid": "DenyLandingZoneTampering",
        "Effect": "Deny",
        "NotAction": ["iam:Get*"],
        "Resource": "arn:aws:iam::*:role/lz-*",
        "Condition": {"ArnNotLike": {"aws:PrincipalARN": [f"arn:aws:iam::{ACCOUNT}:role/lz-automation-*"]}},
    }
)
TAMPER_WIDENED = document(
    {
        **TAMPER["Statement"][0],
        "Condition": {
            "ArnNotLike": {
                "aws:PrincipalARN": [f"arn:aws:iam::{ACCOUNT}:role/lz-automation-*", "arn:aws:iam::*:role/Admin*"]
            }
        },
    }
)
REGION_DENY = document(
    {
        "Sid": "DenyBedrockOutsideCompliantRegions",
        "Effect": "Deny",
        "Action": "bedrock:*",
        "Resource": "*",
        "Condition": {"StringNotEquals": {"aws:RequestedRegion": ["us-east-1"]}},
    }
)

FIXTURES: tuple[RuleFixture, ...] = (
    # --- the first screen's claims and the change since the last approval (issue 34)
    RuleFixture(
        "LZ-CLAIM-UNENFORCED",
        BLOCKING,
        "region-claim-without-its-deny",
        "no policy carries DenyBedrockOutsideCompliantRegions, so the compliant-Regions claim has no enforcement "
        "(passing: the plan's policies as built)",
        Claims(
            US_ORGANIZATION, unclaim="DenyBedrockOutsideCompliantRegions", unguard="DenyBedrockOutsideCompliantRegions"
        ),
        Claims(US_ORGANIZATION),
    ),
    RuleFixture(
        "LZ-CLAIM-CONTRADICTED",
        BLOCKING,
        "model-claim-not-in-the-synthesized-scps",
        "the plan's SCPs carry DenyUnlistedModels (the claim binds every principal) but the SCPs replayed lack it: an "
        "administrator invokes a model outside the allow-list (passing: the same SCPs replayed)",
        Claims(US_ORGANIZATION, unguard="DenyUnlistedModels"),
        Claims(US_ORGANIZATION),
    ),
    RuleFixture(
        "LZ-BASELINE-WEAKENING",
        BLOCKING,
        "exemption-widened",
        "since the baseline, DenyLandingZoneTampering exempts arn:aws:iam::*:role/Admin* too (passing: the same "
        "statement moved, unchanged, to another SCP)",
        Baseline((TAMPER, REGION_DENY), (TAMPER_WIDENED, REGION_DENY)),
        Baseline((TAMPER, REGION_DENY), (REGION_DENY, TAMPER)),
    ),
    # --- over-broad grants
    RuleFixture(
        "LZ-WILDCARD-INVOKE",
        BLOCKING,
        "identity-policy",
        "identity policy allows bedrock:InvokeModel on Resource * (passing: on one foundation-model ARN)",
        identity_policy(allow("bedrock:InvokeModel", "*")),
        identity_policy(allow("bedrock:InvokeModel", MODEL_ARN)),
    ),
    RuleFixture(
        "LZ-WILDCARD-PASSROLE",
        BLOCKING,
        "identity-policy",
        "identity policy allows iam:PassRole on Resource * (passing: on one role ARN)",
        identity_policy(allow("iam:PassRole", "*")),
        identity_policy(allow("iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/app-batch")),
    ),
    RuleFixture(
        "LZ-WILDCARD-KMS",
        BLOCKING,
        "identity-policy",
        "identity policy allows kms:Decrypt on Resource * (passing: on one key ARN)",
        identity_policy(allow("kms:Decrypt", "*")),
        identity_policy(allow("kms:Decrypt", f"arn:aws:kms:eu-central-1:{ACCOUNT}:key/1234abcd")),
    ),
    RuleFixture(
        "LZ-WILDCARD-DATA",
        BLOCKING,
        "identity-policy",
        "identity policy allows s3:GetObject on Resource * (passing: on the objects of one bucket)",
        identity_policy(allow("s3:GetObject", "*")),
        identity_policy(allow("s3:GetObject", DATA_ARN)),
    ),
    RuleFixture(
        "LZ-FULL-ACTION",
        BLOCKING,
        "identity-policy",
        "identity policy allows s3:* on one bucket's objects (passing: s3:GetObject)",
        identity_policy(allow("s3:*", DATA_ARN)),
        identity_policy(allow("s3:GetObject", DATA_ARN)),
    ),
    RuleFixture(
        "LZ-WILDCARD-IN-BOUNDARY",
        ADVISORY,
        "boundary-only",
        "permissions boundary of a role (attached to nothing else) allows bedrock:InvokeModel on Resource * "
        "(passing: on one foundation-model ARN)",
        bounded_role(allow("bedrock:InvokeModel", "*")),
        bounded_role(allow("bedrock:InvokeModel", MODEL_ARN)),
    ),
    RuleFixture(
        "LZ-ENDPOINT-PERIMETER",
        ADVISORY,
        "s3-endpoint",
        "S3 endpoint policy allows s3:GetObject on Resource * to Principal *, bounded by aws:ResourceAccount "
        "to the configured account (passing: on one bucket's objects)",
        endpoint_policy(allow("s3:GetObject", "*", Principal="*", Condition=ENDPOINT_BOUND)),
        endpoint_policy(allow("s3:GetObject", DATA_ARN, Principal="*", Condition=ENDPOINT_BOUND)),
    ),
    RuleFixture(
        "LZ-WILDCARD-OTHER",
        ADVISORY,
        "identity-policy",
        "identity policy allows sqs:SendMessage on Resource * (passing: on one queue ARN)",
        identity_policy(allow("sqs:SendMessage", "*")),
        identity_policy(allow("sqs:SendMessage", f"arn:aws:sqs:eu-central-1:{ACCOUNT}:app-queue")),
    ),
    RuleFixture(
        "LZ-REGION-WILDCARD",
        ADVISORY,
        "identity-policy",
        "identity policy allows bedrock:InvokeModel on arn:aws:bedrock:*::foundation-model/<model> "
        "(passing: the same ARN in eu-central-1)",
        identity_policy(allow("bedrock:InvokeModel", MODEL_ARN.replace("eu-central-1", "*"))),
        identity_policy(allow("bedrock:InvokeModel", MODEL_ARN)),
    ),
    # --- principals
    RuleFixture(
        "LZ-CONFUSED-DEPUTY",
        BLOCKING,
        "key-policy",
        "KMS key policy lets logs.eu-central-1.amazonaws.com decrypt without a source or encryption-context "
        "condition (passing: with kms:EncryptionContext:aws:logs:arn of the configured account)",
        key_policy(allow("kms:Decrypt", "*", Principal={"Service": "logs.eu-central-1.amazonaws.com"})),
        key_policy(
            allow(
                "kms:Decrypt",
                "*",
                Principal={"Service": "logs.eu-central-1.amazonaws.com"},
                Condition=LOGS_KEY_CONDITION,
            )
        ),
    ),
    RuleFixture(
        "LZ-CONFUSED-DEPUTY",
        BLOCKING,
        "negated-source-condition",
        "SNS topic policy lets budgets.amazonaws.com publish on condition StringNotEquals aws:SourceAccount "
        "(every other account's budgets) (passing: StringEquals aws:SourceAccount of the configured account)",
        topic_policy(
            allow(
                "sns:Publish",
                TOPIC_ARN,
                Principal={"Service": "budgets.amazonaws.com"},
                Condition={"StringNotEquals": {"aws:SourceAccount": ACCOUNT}},
            )
        ),
        topic_policy(
            allow(
                "sns:Publish",
                TOPIC_ARN,
                Principal={"Service": "budgets.amazonaws.com"},
                Condition={"StringEquals": {"aws:SourceAccount": ACCOUNT}},
            )
        ),
    ),
    RuleFixture(
        "LZ-SERVICE-PRINCIPAL-UNSCOPED",
        ADVISORY,
        "trust-policy",
        "role trust policy lets bedrock.amazonaws.com assume the role without a source condition "
        "(passing: with aws:SourceAccount of the configured account)",
        role_trusting(
            {"Effect": "Allow", "Principal": {"Service": "bedrock.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ),
        role_trusting(
            {
                "Effect": "Allow",
                "Principal": {"Service": "bedrock.amazonaws.com"},
                "Action": "sts:AssumeRole",
                "Condition": {"StringEquals": {"aws:SourceAccount": ACCOUNT}},
            }
        ),
    ),
    RuleFixture(
        "LZ-CROSS-ACCOUNT",
        BLOCKING,
        "trust-policy",
        f"role trust policy admits a role of account {FOREIGN_ACCOUNT}, not in the configuration "
        f"(passing: the same role in the configured account {ACCOUNT})",
        role_trusting(
            {
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{FOREIGN_ACCOUNT}:role/ci"},
                "Action": "sts:AssumeRole",
            }
        ),
        role_trusting(
            {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:role/ci"}, "Action": "sts:AssumeRole"}
        ),
    ),
    RuleFixture(
        "LZ-PUBLIC-PRINCIPAL",
        BLOCKING,
        "bucket-policy",
        "bucket policy allows s3:GetObject to Principal * (passing: only within aws:PrincipalOrgID o-abc)",
        resource(
            "AWS::S3::BucketPolicy",
            Bucket="app-data",
            PolicyDocument=document(allow("s3:GetObject", DATA_ARN, Principal="*")),
        ),
        resource(
            "AWS::S3::BucketPolicy",
            Bucket="app-data",
            PolicyDocument=document(
                allow(
                    "s3:GetObject",
                    DATA_ARN,
                    Principal="*",
                    Condition={"StringEquals": {"aws:PrincipalOrgID": ORGANIZATION}},
                )
            ),
        ),
    ),
    # --- Regions
    RuleFixture(
        "LZ-NONCOMPLIANT-REGION",
        BLOCKING,
        "identity-policy",
        "identity policy allows bedrock:InvokeModel on a foundation model in us-west-2, outside "
        "compliant_regions (passing: the same model in eu-central-1)",
        identity_policy(allow("bedrock:InvokeModel", MODEL_ARN.replace("eu-central-1", "us-west-2"))),
        identity_policy(allow("bedrock:InvokeModel", MODEL_ARN)),
    ),
    # --- data stores
    RuleFixture(
        "LZ-UNENCRYPTED-S3",
        BLOCKING,
        "bucket",
        "AWS::S3::Bucket without BucketEncryption (passing: SSE-KMS with a customer-managed key)",
        resource("AWS::S3::Bucket", BucketName="app-data"),
        resource("AWS::S3::Bucket", BucketName="app-data", BucketEncryption=SSE_KMS),
    ),
    RuleFixture(
        "LZ-S3-SSE-S3",
        ADVISORY,
        "bucket",
        "AWS::S3::Bucket encrypted with SSEAlgorithm AES256 (passing: aws:kms with a customer-managed key)",
        resource("AWS::S3::Bucket", BucketName="app-data", BucketEncryption=SSE_S3),
        resource("AWS::S3::Bucket", BucketName="app-data", BucketEncryption=SSE_KMS),
    ),
    RuleFixture(
        "LZ-UNENCRYPTED-LOGS",
        BLOCKING,
        "log-group",
        "AWS::Logs::LogGroup without KmsKeyId (passing: with KmsKeyId)",
        resource("AWS::Logs::LogGroup", LogGroupName="/app/invocations", RetentionInDays=365),
        resource("AWS::Logs::LogGroup", LogGroupName="/app/invocations", RetentionInDays=365, KmsKeyId=KEY_ARN),
    ),
    RuleFixture(
        "LZ-UNENCRYPTED-SNS",
        BLOCKING,
        "topic",
        "AWS::SNS::Topic without KmsMasterKeyId (passing: with KmsMasterKeyId)",
        resource("AWS::SNS::Topic", TopicName="app-alerts"),
        resource("AWS::SNS::Topic", TopicName="app-alerts", KmsMasterKeyId=KEY_ARN),
    ),
    RuleFixture(
        "LZ-UNENCRYPTED-EKS",
        BLOCKING,
        "cluster",
        "AWS::EKS::Cluster without EncryptionConfig (passing: secrets encrypted with a KMS key)",
        resource("AWS::EKS::Cluster", **EKS_PROPERTIES),
        resource("AWS::EKS::Cluster", **EKS_PROPERTIES, EncryptionConfig=EKS_ENCRYPTION),
    ),
    # --- semantics
    RuleFixture(
        "LZ-DECISION-MISMATCH",
        BLOCKING,
        "organization-scps",
        "us-organization SCPs without DenyUnlistedModels: an unlisted model in a compliant Region is "
        "allowed where the cases expect explicit_deny (passing: the SCPs as the stacks build them)",
        Guardrails(US_ORGANIZATION, drop="DenyUnlistedModels"),
        Guardrails(US_ORGANIZATION),
    ),
    RuleFixture(
        "LZ-DECISION-MISMATCH",
        BLOCKING,
        "single-account-boundary",
        "us-single-account invoker boundary without DenyBedrockOutsideCompliantRegions: inference in "
        "a non-compliant Region is allowed (passing: the boundary as the stacks build it)",
        Guardrails(SINGLE_ACCOUNT, drop="DenyBedrockOutsideCompliantRegions"),
        Guardrails(SINGLE_ACCOUNT),
    ),
    RuleFixture(
        "LZ-COVERAGE-UNDECIDED",
        BLOCKING,
        "organization-scps-allowing-request-payment",
        "us-organization SCPs whose DenyLandingZoneTampering leaves out s3:PutBucketRequestPayment (requester "
        "pays on the log bucket, protected by name only; no red-team row asks, the enumeration does) (passing: the SCPs "
        "as the stacks build them)",
        Guardrails(US_ORGANIZATION, exempt=("DenyLandingZoneTampering", "s3:PutBucketRequestPayment")),
        Guardrails(US_ORGANIZATION),
    ),
    # --- protection the configuration asks for and the assembly leaves void
    RuleFixture(
        "LZ-VOID-NO-ENDPOINT",
        BLOCKING,
        "endpoint-required-none-deployed",
        "us-organization with access.require_vpc_endpoint and no bedrock-runtime endpoint in the assembly "
        "(network.endpoints: [] passes validate) (passing: the endpoint is there)",
        Void(US_ORGANIZATION, endpoint=False),
        Void(US_ORGANIZATION),
    ),
    RuleFixture(
        "LZ-VOID-MANAGEMENT-ACCOUNT",
        BLOCKING,
        "management-account-is-the-workload-account",
        "us-organization whose organization.management_account_id is its workload account 777777777777: SCPs never "
        "apply to the management account (passing: the management account 888888888888 runs no workload)",
        Void(US_ORGANIZATION, {"organization": {"management_account_id": "777777777777"}}),
        Void(US_ORGANIZATION),
    ),
    RuleFixture(
        "LZ-VOID-NO-TARGETS",
        BLOCKING,
        "scps-attached-to-nothing",
        "us-organization SCPs with no TargetIds (organization.target_ids: []) (passing: attached to the workload OU)",
        Void(US_ORGANIZATION, targets=False),
        Void(US_ORGANIZATION),
    ),
    RuleFixture(
        "LZ-VOID-LOGGING-OFF",
        BLOCKING,
        "invocation-logging-disabled",
        "us-organization with invocation_logging.enabled: false (passing: logging on)",
        Void(US_ORGANIZATION, {"invocation_logging": {"enabled": False}}),
        Void(US_ORGANIZATION),
    ),
    RuleFixture(
        "LZ-VOID-KILL-SWITCH",
        BLOCKING,
        "kill-switch-without-invoker",
        "us-organization whose kill-switch budget action attaches the deny to no role (passing: to the invoker role)",
        Void(US_ORGANIZATION, invoker_roles=False),
        Void(US_ORGANIZATION),
    ),
    RuleFixture(
        "LZ-RETENTION-BLOCKS-MODEL",
        ADVISORY,
        "zero-retention-blocks-a-provider-share-model",
        "us-single-account (Kimi K3.1 Pro and K2 Thinking) with data_retention.mode none and a catalog overlay giving "
        "Kimi K3.1 Pro the allowed modes [provider_data_share] (hypothetical): every request to it is blocked, K2 "
        "Thinking's modes are unknown (with every model blocked, synth refuses the mode: retention_problems) "
        "(passing: mode provider_data_share)",
        Void(SINGLE_ACCOUNT, {"catalog_overlays": [RETENTION_OVERLAY], "data_retention": {"mode": "none"}}),
        Void(
            SINGLE_ACCOUNT,
            {"catalog_overlays": [RETENTION_OVERLAY], "data_retention": {"mode": "provider_data_share"}},
        ),
    ),
    RuleFixture(
        "LZ-VOID-SETTING",
        BLOCKING,
        "organization-scps-without-the-tier-deny",
        "us-organization (without the organization guardrail policy) whose SCPs lack DenyUnlistedServiceTiers: a "
        "member admin may request the priority tier, and the configuration says only default (passing: the SCPs "
        "as the plan builds them)",
        Settings(US_ORGANIZATION, NO_ORG_POLICY, drop="DenyUnlistedServiceTiers"),
        Settings(US_ORGANIZATION, NO_ORG_POLICY),
    ),
    RuleFixture(
        "LZ-SETTING-SCP-ONLY",
        ADVISORY,
        "single-account-agentcore-controls",
        "us-single-account with agentcore_controls on (the default): only SCPs carry those denies, and a single "
        "account has none (passing: agentcore_controls off)",
        Settings(SINGLE_ACCOUNT),
        Settings(SINGLE_ACCOUNT, {"policy_guardrails": {"agentcore_controls": False}}),
    ),
    RuleFixture(
        "LZ-PROOF-FAILS",
        BLOCKING,
        "organization-scps-copying-any-model",
        "us-organization SCPs whose DenyUnlistedModels leaves out bedrock:CreateModelCopyJob: copying a custom model "
        "built on an unlisted model is allowed; no decision case or red-team row asks, the prover's P2 finds the "
        "request (passing: the SCPs as the stacks build them)",
        Guardrails(US_ORGANIZATION, narrow=("DenyUnlistedModels", "bedrock:CreateModelCopyJob"), proofs=("P2",)),
        Guardrails(US_ORGANIZATION, proofs=("P2",)),
    ),
    RuleFixture(
        "LZ-PROOF-NOT-PROVEN",
        BLOCKING,
        "organization-scps-without-solver-time",
        "us-organization SCPs proven with no solver time: every P1 obligation times out, and a timeout is never "
        "reported as holding (passing: 10 s per obligation)",
        Guardrails(US_ORGANIZATION, proofs=("P1",), proof_timeout_ms=0),
        Guardrails(US_ORGANIZATION, proofs=("P1",)),
    ),
    RuleFixture(
        "LZ-GUARDRAILS-MISSING",
        BLOCKING,
        "organization-without-scps",
        "us-organization assembly with the invoker boundary but no SCP (passing: with the SCPs)",
        Guardrails(US_ORGANIZATION, scps=False),
        Guardrails(US_ORGANIZATION),
    ),
    RuleFixture(
        "LZ-GUARDRAILS-MISSING",
        BLOCKING,
        "single-account-without-boundary",
        "us-single-account assembly without the <name>-invoker-boundary managed policy (passing: with it)",
        Guardrails(SINGLE_ACCOUNT, boundary=False),
        Guardrails(SINGLE_ACCOUNT),
    ),
    RuleFixture(
        "LZ-UNPARSEABLE-POLICY",
        ADVISORY,
        "logs-resource-policy",
        "AWS::Logs::ResourcePolicy whose PolicyDocument text is cut short, not valid JSON (passing: the complete text)",
        logs_resource_policy(LOG_DELIVERY_POLICY[:-2]),
        logs_resource_policy(LOG_DELIVERY_POLICY),
    ),
    # --- cdk-nag and synth-time validation
    RuleFixture(
        "LZ-NAG-VIOLATION",
        BLOCKING,
        "error",
        "AwsSolutions reports AwsSolutions-S10 (severity error) on Bucket without an acknowledgment "
        "(passing: the same violation acknowledged with a reason)",
        nag_report(plugin("AwsSolutions", "failure", violations=(S10,))),
        nag_report(plugin("AwsSolutions", "success", suppressed=(acknowledged(S10, "AwsSolutions", S10_REASON),))),
    ),
    RuleFixture(
        "LZ-NAG-VIOLATION",
        BLOCKING,
        "warning-of-a-failed-plugin",
        "AwsSolutions concludes failure with a warning-severity AwsSolutions-IAM5 on Role "
        "(passing: the warning acknowledged, conclusion success)",
        nag_report(plugin("AwsSolutions", "failure", violations=(IAM5_WARNING,))),
        nag_report(
            plugin("AwsSolutions", "success", suppressed=(acknowledged(IAM5_WARNING, "AwsSolutions", IAM5_REASON),))
        ),
    ),
    RuleFixture(
        "LZ-VALIDATION-WARNING",
        ADVISORY,
        "cloudformation-validate",
        "CloudFormation Validate concludes success with a W3010 warning on Subnet "
        "(passing: the warning acknowledged with a reason)",
        nag_report(plugin("CloudFormation Validate", "success", violations=(W3010,))),
        nag_report(
            plugin(
                "CloudFormation Validate",
                "success",
                suppressed=(acknowledged(W3010, "CloudFormation Validate", W3010_REASON),),
            )
        ),
    ),
    RuleFixture(
        "LZ-NAG-UNUSED-ACK",
        ADVISORY,
        "acknowledgment-without-violation",
        "the stack metadata acknowledges AwsSolutions-S1 on the bucket AccessLogs, AwsSolutions ran and suppressed "
        "nothing there (passing: AwsSolutions reports the S1 violation it suppressed with that acknowledgment)",
        NagReport(nag_report(plugin("AwsSolutions", "success")).report, acknowledgments=(S1_ACK,)),
        NagReport(
            nag_report(
                plugin("AwsSolutions", "success", suppressed=(acknowledged(S1, "AwsSolutions", S1_REASON),))
            ).report,
            acknowledgments=(S1_ACK,),
        ),
    ),
    RuleFixture(
        "LZ-NAG-NOT-RUN",
        ADVISORY,
        "no-report",
        "assembly without validation-report.json (passing: a report in which AwsSolutions found nothing)",
        NagReport(None),
        nag_report(plugin("AwsSolutions", "success")),
    ),
    # --- deployability: every stack in its own account, in place and again after cdk destroy
    RuleFixture(
        "LZ-KEY-LOCKOUT",
        BLOCKING,
        "root-only-under-a-condition",
        "the key policy gives its own account's root kms:* only when aws:PrincipalTag/admin is true: the creator may "
        "lack PutKeyPolicy, KMS refuses CreateKey (passing: the same statement without the condition)",
        Deploy(key(root_statement(ACCOUNT, Condition={"StringEquals": {"aws:PrincipalTag/admin": "true"}}))),
        Deploy(key(root_statement(ACCOUNT))),
    ),
    RuleFixture(
        "LZ-KEY-LOCKOUT",
        BLOCKING,
        "another-account-administers",
        f"the key of account {ACCOUNT} also gives account {FOREIGN_ACCOUNT}'s root kms:* (a declared grant lets the "
        "policy name that account: the administration is refused all the same; passing: kms:Decrypt only)",
        Deploy(
            key(root_statement(ACCOUNT), allow("kms:*", "*", Principal={"AWS": ROOT_OF.format(FOREIGN_ACCOUNT)})),
            grants=(grant(("key",), ("root",)),),
        ),
        Deploy(
            key(root_statement(ACCOUNT), allow("kms:Decrypt", "*", Principal={"AWS": ROOT_OF.format(FOREIGN_ACCOUNT)})),
            grants=(grant(("key",), ("root",)),),
        ),
    ),
    RuleFixture(
        "LZ-KEY-LOCKOUT",
        BLOCKING,
        "the-issue-32-management-key",
        f"the key of a stack deployed to account {FOREIGN_ACCOUNT} (the management account) makes account {ACCOUNT} "
        f"(a workload account) its administrator, as in issue 32, a grant letting it name {ACCOUNT} (passing: its "
        "own account's root)",
        Deploy(
            key(root_statement(ACCOUNT)),
            account=FOREIGN_ACCOUNT,
            grants=(CrossAccountGrant("fixture", "app", ("key",), ("root",), (ACCOUNT,), "the fixture's"),),
        ),
        Deploy(
            key(root_statement(FOREIGN_ACCOUNT)),
            account=FOREIGN_ACCOUNT,
            grants=(CrossAccountGrant("fixture", "app", ("key",), ("root",), (ACCOUNT,), "the fixture's"),),
        ),
    ),
    RuleFixture(
        "LZ-FOREIGN-ACCOUNT",
        BLOCKING,
        "logs-condition-of-another-account",
        f"a key of account {ACCOUNT} lets CloudWatch Logs use it for the log groups of account {FOREIGN_ACCOUNT} "
        "(kms:EncryptionContext:aws:logs:arn), not its own (passing: its own account's log groups)",
        Deploy(key(root_statement(ACCOUNT), logs_statement(FOREIGN_ACCOUNT))),
        Deploy(key(root_statement(ACCOUNT), logs_statement(ACCOUNT))),
    ),
    RuleFixture(
        "LZ-FOREIGN-ACCOUNT",
        BLOCKING,
        "undeclared-caller-account",
        f"a role of account {ACCOUNT} trusts account {FOREIGN_ACCOUNT}'s root and the plan declares no such grant "
        "(passing: the plan declares it, for trust policies of this stack, with its reason)",
        Deploy(trusting(FOREIGN_ACCOUNT)),
        Deploy(trusting(FOREIGN_ACCOUNT), grants=(grant(("trust",), ("root",)),)),
    ),
    RuleFixture(
        "LZ-FORCED-REPLACEMENT",
        BLOCKING,
        "profile-model-changes",
        "the application inference profile app-profile copies another model (ModelSource, create-only) and keeps its "
        "name: CloudFormation would have to replace it (passing: it gets a new name with the new model)",
        Replace(profile("app-profile", MODEL_ARN), profile("app-profile", OTHER_MODEL_ARN)),
        Replace(profile("app-profile", MODEL_ARN), profile("app-profile-2", OTHER_MODEL_ARN)),
    ),
    RuleFixture(
        "LZ-FORCED-REPLACEMENT",
        BLOCKING,
        "named-policy-description",
        "a managed policy with its own name changes its Description (create-only) (passing: the policy has no name "
        "of its own, CloudFormation names the replacement anew)",
        Replace(
            resource(
                "AWS::IAM::ManagedPolicy", ManagedPolicyName="app", Description="a", PolicyDocument=document()
            ).resources,
            resource(
                "AWS::IAM::ManagedPolicy", ManagedPolicyName="app", Description="b", PolicyDocument=document()
            ).resources,
        ),
        Replace(
            resource("AWS::IAM::ManagedPolicy", Description="a", PolicyDocument=document()).resources,
            resource("AWS::IAM::ManagedPolicy", Description="b", PolicyDocument=document()).resources,
        ),
    ),
    RuleFixture(
        "LZ-RETAINED-NAME-COLLISION",
        BLOCKING,
        "retained-log-group-of-fixed-name",
        "a log group kept on stack deletion is named /app/logs: after cdk destroy, the next create of that name "
        "fails (passing: the name ends with the stack's suffix from AWS::StackId)",
        Deploy(retained_log_group("/app/logs")),
        Deploy(retained_log_group({"Fn::Join": ["", ["/app/logs-", STACK_SUFFIX]]})),
    ),
    RuleFixture(
        "LZ-RETAINED-NAME-COLLISION",
        BLOCKING,
        "deleted-with-its-stack",
        "the log group /app/logs is retained (passing: the same name, deleted with its stack)",
        Deploy(retained_log_group("/app/logs")),
        Deploy(retained_log_group("/app/logs", deletion_policy="Delete")),
    ),
    # --- scanners
    RuleFixture(
        "LZ-CFN-LINT-ERROR",
        BLOCKING,
        "error",
        "cfn-lint reports E3002 (an unknown property of Bucket) next to a W3010 warning (passing: only the warning)",
        Scans(cfn_lint_run(LINT_WARNING, LINT_ERROR), checkov_run()),
        Scans(cfn_lint_run(LINT_WARNING), checkov_run()),
    ),
    RuleFixture(
        "LZ-CHECKOV-FAILED",
        BLOCKING,
        "unlisted-failure",
        "checkov fails CKV_AWS_18 on the bucket AccessLogs and checkov-skips.yaml does not list it "
        "(passing: listed for AccessLogs with a reason)",
        Scans(cfn_lint_run(), checkov_run(CKV_LOGGING)),
        Scans(cfn_lint_run(), checkov_run(CKV_LOGGING), skips=(CKV_LOGGING_SKIP,)),
    ),
    RuleFixture(
        "LZ-SCANNER-ERROR",
        BLOCKING,
        "cfn-lint-crashed",
        "cfn-lint exited without JSON output (passing: it ran and found nothing)",
        Scans(cfn_lint_run(error="cfn-lint exited 1 without JSON output: Traceback ... KeyError"), checkov_run()),
        Scans(cfn_lint_run(), checkov_run()),
    ),
    RuleFixture(
        "LZ-SCANNER-ERROR",
        BLOCKING,
        "checkov-not-installed",
        "checkov is not installed (passing: it ran and every check passed)",
        Scans(cfn_lint_run(), checkov_run(error="checkov is not installed in .venv (pip install it)")),
        Scans(cfn_lint_run(), checkov_run()),
    ),
)


# ----------------------------------------------------------------------------------------- running the review


def template_findings(template: Template) -> list[Finding]:
    """The policy and data-store findings of one hand-written template."""
    stack = Stack("app", TEMPLATE_FILE, ACCOUNT, "eu-central-1", {"Resources": dict(template.resources)})
    assembly = Assembly(Path("."), (stack,))
    return [*policy_findings(build_inventory(assembly), CTX), *data_store_findings(assembly)]


def _without(
    doc: Mapping[str, Any],
    sid: str | None,
    exempt: tuple[str, str] | None = None,
    narrow: tuple[str, str] | None = None,
) -> tuple[dict[str, Any], int]:
    """The document without the statement ``sid`` (with ``exempt``'s action added to its statement's NotAction, and
    ``narrow``'s action taken out of its statement's Action), and how many statements were changed."""
    kept = [s for s in doc["Statement"] if sid is None or s.get("Sid") != sid]
    changed = len(doc["Statement"]) - len(kept)
    for i, stmt in enumerate(kept):
        if exempt is not None and stmt.get("Sid") == exempt[0]:
            kept[i] = {**stmt, "NotAction": [*stmt["NotAction"], exempt[1]]}
            changed += 1
        if narrow is not None and stmt.get("Sid") == narrow[0] and narrow[1] in stmt.get("Action", []):
            kept[i] = {**stmt, "Action": [a for a in stmt["Action"] if a != narrow[1]]}
            changed += 1
    return {**doc, "Statement": kept}, changed


def guardrail_findings(guardrails: Guardrails, plan_for: Callable[..., Any]) -> list[Finding]:
    """The decision findings of an assembly holding the configuration's guardrails, as the stacks write them."""
    plan = plan_for(guardrails.config)
    cfg = plan.config
    resources: dict[str, Any] = {}
    removed = 0
    if guardrails.scps and cfg.organization is not None:
        # each SCP of the layout, attached where the plan says (the perimeter SCP to the shared targets only)
        for index, scp in enumerate(scp_documents(cfg, plan.routing, plan.catalog).policies, start=1):
            content, n = _without(scp.document, guardrails.drop, guardrails.exempt, guardrails.narrow)
            removed += n
            resources[f"BedrockGuardrailsPolicy{index}"] = {
                "Type": "AWS::Organizations::Policy",
                "Properties": {
                    "Name": scp.name,
                    "Type": "SERVICE_CONTROL_POLICY",
                    "Content": json.dumps(content, separators=(",", ":")),
                    "TargetIds": list(scp.targets),
                },
            }
    if guardrails.boundary:
        boundary, n = _without(permissions_boundary(cfg, plan.routing, plan.catalog), guardrails.drop)
        removed += n
        resources["InvokerBoundary"] = {
            "Type": "AWS::IAM::ManagedPolicy",
            "Properties": {"ManagedPolicyName": f"{cfg.name}-invoker-boundary", "PolicyDocument": boundary},
        }
    changes = (guardrails.drop, guardrails.exempt, guardrails.narrow)
    assert all(c is None for c in changes) or removed, "no guardrail statement to change"
    stack = Stack(
        f"{cfg.name}-guardrails",
        f"{cfg.name}-guardrails.template.json",
        cfg.deployment_account,
        cfg.home_region,
        {"Resources": resources},
    )
    matrix = decision_matrix(plan, build_inventory(Assembly(Path("."), (stack,))))
    levels = scp_levels_of(matrix)
    coverage = coverage_section(plan, levels) if levels else {}
    out = [*decision_findings(matrix), *coverage_findings(coverage, matrix)]
    if guardrails.proofs:
        scps = [
            (r["Properties"]["Name"], json.loads(r["Properties"]["Content"]))
            for r in resources.values()
            if r["Type"] == "AWS::Organizations::Policy"
        ]
        inputs = ProofInputs(plan, "the fixture's SCPs", None, Guard.scps("scps", scps), None, (), ())
        section = proofs_section(
            inputs, timeout_ms=guardrails.proof_timeout_ms, properties=guardrails.proofs, acknowledgements=()
        )
        out += proof_findings(section, matrix)
    return out


def void_review(given: Void, plan_for: Callable[..., Any]) -> list[Finding]:
    plan = plan_for(given.config, **dict(given.overrides))
    cfg = plan.config
    resources: dict[str, Any] = {}
    if given.endpoint:
        resources["RuntimeEndpoint"] = {
            "Type": "AWS::EC2::VPCEndpoint",
            "Properties": {"ServiceName": f"com.amazonaws.{cfg.home_region}.bedrock-runtime", "VpcId": "vpc-1"},
        }
    if cfg.organization is not None:
        resources["Guardrails1"] = {
            "Type": "AWS::Organizations::Policy",
            "Properties": {
                "Name": f"{cfg.name}-bedrock-guardrails-1",
                "Type": "SERVICE_CONTROL_POLICY",
                "Content": "{}",
                "TargetIds": list(cfg.organization.target_ids) if given.targets else [],
            },
        }
    resources["KillSwitch"] = {
        "Type": "AWS::Budgets::BudgetsAction",
        "Properties": {
            "Definition": {
                "IamActionDefinition": {
                    "PolicyArn": {"Ref": "Deny"},
                    "Roles": [{"Ref": "InvokerRole"}] if given.invoker_roles else [],
                }
            }
        },
    }
    stack = Stack(
        f"{cfg.name}-app",
        f"{cfg.name}-app.template.json",
        cfg.deployment_account,
        cfg.home_region,
        {"Resources": resources},
    )
    return void_findings(plan, Assembly(Path("."), (stack,)))


def settings_review(given: Settings, plan_for: Callable[..., Any]) -> list[Finding]:
    plan = plan_for(given.config, **dict(given.overrides))
    cfg = plan.config
    resources: dict[str, Any] = {}
    removed = 0
    if cfg.organization is not None:
        for index, scp in enumerate(scp_documents(cfg, plan.routing, plan.catalog).policies, start=1):
            content, n = _without(scp.document, given.drop)
            removed += n
            resources[f"Scp{index}"] = {
                "Type": "AWS::Organizations::Policy",
                "Properties": {
                    "Name": scp.name,
                    "Type": "SERVICE_CONTROL_POLICY",
                    "Content": json.dumps(content),
                    "TargetIds": list(scp.targets),
                },
            }
    boundary, n = _without(permissions_boundary(cfg, plan.routing, plan.catalog), given.drop)
    removed += n
    resources["InvokerBoundary"] = {
        "Type": "AWS::IAM::ManagedPolicy",
        "Properties": {"ManagedPolicyName": f"{cfg.name}-invoker-boundary", "PolicyDocument": boundary},
    }
    resources["Invoker"] = {
        "Type": "AWS::IAM::Role",
        "Properties": {
            "RoleName": f"{cfg.name}-invoker-app",
            "AssumeRolePolicyDocument": document(),
            "PermissionsBoundary": {"Ref": "InvokerBoundary"},
        },
    }
    assert given.drop is None or removed, "no guardrail statement to drop"
    stack = Stack(
        f"{cfg.name}-guardrails",
        f"{cfg.name}-guardrails.template.json",
        cfg.deployment_account,
        cfg.home_region,
        {"Resources": resources},
    )
    assembly = Assembly(Path("."), (stack,))
    return settings_findings(settings_section(plan, assembly, build_inventory(assembly)))


def deploy_findings(given: Deploy) -> list[Finding]:
    stack = Stack("app", TEMPLATE_FILE, given.account, "eu-central-1", {"Resources": dict(given.resources)})
    assembly = Assembly(Path("."), (stack,))
    return deployability_findings(build_inventory(assembly), assembly, given.grants)


def replace_findings(given: Replace) -> list[Finding]:
    old, new = (
        Assembly(Path("."), (Stack("app", TEMPLATE_FILE, ACCOUNT, "eu-central-1", {"Resources": dict(r)}),))
        for r in (given.old, given.new)
    )
    return replacement_findings(old, new)


def claims_review(given: Claims, plan_for: Callable[..., Any]) -> list[Finding]:
    from landing_zone.simulate import Guardrails as Rails
    from landing_zone.simulate import guardrails_from_plan

    plan = plan_for(given.config)
    carried = [Layer(x.kind, x.name, _without(dict(x.document), given.unclaim)[0], x.binds) for x in layers(plan)]
    rails = guardrails_from_plan(plan)
    rails = Rails(rails.mode, tuple((n, _without(d, given.unguard)[0]) for n, d in rails.policies), rails.source)
    return claim_findings(claims_section(plan, None, rails, carried))


def _scp_stack(documents: tuple[Mapping[str, Any], ...]) -> Assembly:
    resources = {
        f"Scp{i}": {
            "Type": "AWS::Organizations::Policy",
            "Properties": {
                "Name": f"lz-bedrock-guardrails-{i}",
                "Type": "SERVICE_CONTROL_POLICY",
                "Content": json.dumps(doc),
                "TargetIds": ["ou-abcd-11111111"],
            },
        }
        for i, doc in enumerate(documents, start=1)
    }
    return Assembly(
        Path("."),
        (Stack("lz-guardrails", "lz-guardrails.template.json", ACCOUNT, "us-east-1", {"Resources": resources}),),
    )


def baseline_review(given: Baseline) -> list[Finding]:
    old, new = (build_inventory(_scp_stack(docs)) for docs in (given.old, given.new))
    return baseline_findings(changes_section(old, new, {}, "fixture"))


def review(given: Input, plan_for: Callable[..., Any]) -> list[Finding]:
    """The findings the review draws from one input, through the entry point for its kind."""
    if isinstance(given, Claims):
        return claims_review(given, plan_for)
    if isinstance(given, Baseline):
        return baseline_review(given)
    if isinstance(given, Deploy):
        return deploy_findings(given)
    if isinstance(given, Replace):
        return replace_findings(given)
    if isinstance(given, Void):
        return void_review(given, plan_for)
    if isinstance(given, Settings):
        return settings_review(given, plan_for)
    if isinstance(given, Template):
        return template_findings(given)
    if isinstance(given, Guardrails):
        return guardrail_findings(given, plan_for)
    if isinstance(given, NagReport):
        stack = Stack("app", TEMPLATE_FILE, ACCOUNT, "eu-central-1", {"Resources": NAG_RESOURCES})
        assembly = Assembly(Path("."), (stack,), acknowledgments=given.acknowledgments, nag_report=given.report)
        return nag_findings(nag_section(assembly))
    runs = {"cfn-lint": given.cfn_lint, "checkov": given.checkov}
    return scanner_findings(scanners_section(runs, given.skips, "checkov-skips.yaml"))


_REVIEWED: dict[tuple[str, str], list[Finding]] = {}


def reviewed(fixture: RuleFixture, side: str, plan_for: Callable[..., Any]) -> list[Finding]:
    """The findings of the fixture's ``failing`` or ``passing`` input, computed once per session."""
    key = (fixture.id, side)
    if key not in _REVIEWED:
        _REVIEWED[key] = review(getattr(fixture, side), plan_for)
    return _REVIEWED[key]


def shown(findings: list[Finding]) -> str:
    """Findings in one line each, for assertion messages."""
    return "\n".join(f"  {f.rule} ({f.level}) {f.logical_id}: {f.message[:160]}" for f in findings) or "  (none)"


# ----------------------------------------------------------------------------------------- tests


def test_every_rule_has_a_failing_and_a_passing_fixture() -> None:
    covered = {fx.rule for fx in FIXTURES}
    assert covered == set(RULES), (
        f"rules without a fixture pair: {sorted(set(RULES) - covered)}; "
        f"fixtures of unknown rules: {sorted(covered - set(RULES))}"
    )
    ids = [fx.id for fx in FIXTURES]
    assert len(ids) == len(set(ids)), "fixture ids must be unique"


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fx: fx.id)
def test_the_fixture_states_the_rule_level(fixture: RuleFixture) -> None:
    assert fixture.level == RULES[fixture.rule].level


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fx: fx.id)
def test_the_rule_fires_on_the_failing_fixture(fixture: RuleFixture, plan_for: Callable[..., Any]) -> None:
    found = reviewed(fixture, "failing", plan_for)
    fired = [f for f in found if f.rule == fixture.rule]
    assert fired, f"{fixture.rule} did not fire on: {fixture.request}\nfindings:\n{shown(found)}"
    assert {f.level for f in fired} == {fixture.level}, shown(fired)
    if isinstance(fixture.failing, (Template, Deploy, Replace)):  # the evidence points at the offending resource
        assert {(f.template, f.logical_id) for f in fired} == {(TEMPLATE_FILE, "Subject")}, shown(fired)
    if fixture.rule == "LZ-NAG-UNUSED-ACK":  # located at the acknowledged construct's resource (aws:cdk:path)
        assert {(f.template, f.logical_id, f.element) for f in fired} == {
            (TEMPLATE_FILE, "AccessLogs", "AwsSolutions::AwsSolutions-S1")
        }, shown(fired)


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fx: fx.id)
def test_the_rule_does_not_fire_on_the_passing_fixture(fixture: RuleFixture, plan_for: Callable[..., Any]) -> None:
    found = reviewed(fixture, "passing", plan_for)
    fired = [f for f in found if f.rule == fixture.rule]
    assert not fired, f"{fixture.rule} fired on the passing input of: {fixture.request}\n{shown(fired)}"


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fx: fx.id)
def test_the_two_fixtures_differ_only_in_the_rule(fixture: RuleFixture, plan_for: Callable[..., Any]) -> None:
    """Near-identical inputs: apart from the rule under test, both draw the same findings (usually none)."""
    others = Counter((f.rule, f.level) for f in reviewed(fixture, "failing", plan_for) if f.rule != fixture.rule)
    passing = Counter((f.rule, f.level) for f in reviewed(fixture, "passing", plan_for))
    assert others == passing, f"failing input also draws {dict(others)}, passing input {dict(passing)}"
