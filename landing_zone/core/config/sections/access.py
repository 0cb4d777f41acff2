"""The access section: applications, model access, invocation logging and the content guardrail."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import (
    Field,
    model_validator,
)

from landing_zone.core.config import rules
from landing_zone.core.config.sections.common import (
    MAX_MONTHLY_USD,
    BatchRoleArn,
    Name,
    PrincipalArn,
    RetentionDays,
    TargetId,
    _raise_all,
    _Strict,
)

PathPreference = Literal["auto", "in-region", "geographic-profile", "global-profile"]


class Application(_Strict):
    """An application that calls Bedrock through its own invoker role and application inference profile."""

    OWN_IDENTIFIER_RULE: ClassVar[frozenset[str]] = frozenset({"model"})  # LandingZoneConfig checks it exactly

    name: Name = Field(description="Short name: role '<lz>-invoker-<name>', profile '<lz>-<name>'.")
    cost_center: str = Field(min_length=1, max_length=128, description="Value of the 'cost-center' tag.")
    model: str | None = Field(default=None, description="Catalog alias or model ID; omitted: models[0].")
    path: PathPreference = Field(
        default="auto",
        description="Which compliant path the application profile copies; auto: in-Region in home_region, "
        "else a geographic profile, else (if allowed) the global profile.",
    )
    account: str | None = Field(
        default=None,
        description="Name or ID of the account (from `accounts`) whose principals call it; "
        "omitted: the deployment account.",
    )
    trusted_principal_arns: Annotated[
        tuple[PrincipalArn, ...], rules.WhenOmitted("any principal of `account` that its own IAM lets assume the role")
    ] = Field(
        default=(),
        description="Roles/users allowed to assume the invoker role (ArnLike patterns); omitted: "
        "any principal of `account` that its own IAM lets assume the role.",
    )
    sso_permission_sets: tuple[str, ...] = Field(
        default=(),
        description="IAM Identity Center permission set names whose roles may assume the invoker role.",
    )
    monthly_budget_usd: float | None = Field(
        default=None,
        gt=0,
        le=MAX_MONTHLY_USD,
        description="cost.per_application_budgets: this application's monthly budget; omitted: the landing "
        "zone's monthly budget.",
    )
    batch_role_arns: tuple[BatchRoleArn, ...] = Field(
        default=(),
        description="Service roles the invoker may pass to Bedrock for batch jobs (CreateModelInvocationJob needs "
        "one that reads the input and writes the output in S3). Omitted: batch jobs can be authorised but not "
        "started, because no role can be passed.",
    )


class InvocationLogging(_Strict):
    """Model invocation logging to S3 (KMS, TLS-only, versioned, ACL-less) and CloudWatch Logs (KMS)."""

    enabled: bool = True
    log_retention_days: RetentionDays = Field(default=365, description="CloudWatch Logs retention (an allowed period).")
    s3_expiration_days: int = Field(default=400, ge=1, le=36500, description="Delete log objects after N days.")
    s3_infrequent_access_after_days: int = Field(default=30, ge=30, le=36500)
    text: bool = True
    image: bool = True
    embedding: bool = True
    video: bool = False
    take_over_existing: bool = Field(
        default=False,
        description="The account's logging configuration (one per account and Region) is read first; one that is "
        "not the landing zone's (its destinations are not the landing zone's bucket and log group) fails the deploy, "
        "naming it. true: take it over; it is saved (SSM parameter <name>-automation-invocation-logging-saved) and "
        "put back when the access stack is deleted.",
    )

    @model_validator(mode="after")
    def _lifecycle(self) -> InvocationLogging:
        if self.take_over_existing and not self.enabled:
            _raise_all([(("take_over_existing",), True, "applies only with enabled: true; allowed here: false")])
        if self.s3_expiration_days <= self.s3_infrequent_access_after_days:
            _raise_all(
                [
                    (
                        ("s3_expiration_days",),
                        self.s3_expiration_days,
                        f"must be later than s3_infrequent_access_after_days ({self.s3_infrequent_access_after_days}): "
                        "raise it, or lower s3_infrequent_access_after_days",
                    )
                ]
            )
        return self


FilterStrength = Literal["NONE", "LOW", "MEDIUM", "HIGH"]


class ContentGuardrail(_Strict):
    """An optional Bedrock guardrail (content filters), enforced account-wide or required per request."""

    enabled: bool = False
    enforcement: Literal["account", "per-request"] = Field(
        default="account",
        description="account: AWS::Bedrock::EnforcedGuardrailConfiguration applies it to every call in the "
        "account; per-request: invoker policies require bedrock:GuardrailIdentifier to name it.",
    )
    filter_strength: FilterStrength = "HIGH"
    prompt_attack_strength: FilterStrength = "HIGH"
    blocked_message: str = Field(
        default="This request was blocked by the organization's AI usage policy.", max_length=500
    )
    organization_policy: bool = Field(
        default=False,
        description="Organization mode only, with enabled: true. A BEDROCK_POLICY (AWS Organizations) that enforces "
        "a copy of this guardrail, owned by the management account, on every Bedrock call of the targeted accounts, "
        "plus the guardrail's resource-based policy letting the organization's principals call ApplyGuardrail.",
    )
    organization_policy_rollout: Literal["canary", "all"] = Field(
        default="canary",
        description="canary: the BEDROCK_POLICY is attached to canary_target_ids only; all: also to the rest of "
        "organization.target_ids (a malformed policy breaks every Bedrock call of its targets: start with canary).",
    )
    canary_target_ids: tuple[TargetId, ...] = Field(
        default=(),
        description="Required with organization_policy: the roots, OUs or accounts (from organization.target_ids) "
        "the BEDROCK_POLICY is attached to first.",
    )
    input_tags: Literal["honor", "ignore"] = Field(
        default="ignore",
        description="The BEDROCK_POLICY's input_tags: honor the guardrail input tags callers put in a request, or "
        "ignore them.",
    )
    TEXT_FIELDS: ClassVar[frozenset[str]] = frozenset({"blocked_message"})


class ModelAccess(_Strict):
    """Model access: Bedrock enables serverless models automatically on first use; Marketplace-backed models
    (like Moonshot's) need their agreement accepted once per account."""

    accept_agreements: bool = Field(
        default=False,
        description="Accept the model agreement offers with a custom resource (the only role with "
        "aws-marketplace:Subscribe). Off: someone accepts them once in the console.",
    )


class Access(_Strict):
    require_vpc_endpoint: bool = Field(
        default=True,
        description="Invoker roles may call the source-Region legs only through the landing zone's VPC "
        "endpoints (aws:SourceVpce). Destination legs of cross-Region calls carry no aws:SourceVpce and are "
        "not conditioned.",
    )
    mantle_projects: bool | Literal["auto"] = Field(
        default="auto",
        description="A Bedrock Mantle Project (AWS::BedrockMantle::Project, cost tags) per application with a Mantle "
        "path, its invoker denied CreateInference in any other project (the default one included), where "
        "CloudFormation has the type. With an organization the project is protected by its landing-zone tag: "
        "inference in it is a use action, updating, archiving or re-tagging it is denied to all but the exempt "
        "principals. The cost stack then alarms and charts each application's spend on its Project's "
        "AWS/BedrockMantle series. auto (default): on for each application where it can act (home_region has the "
        "type, the application has a Mantle path, the bedrock-mantle endpoint is deployed when "
        "require_vpc_endpoint, no per-request guardrail), off elsewhere; true: refused where it cannot act.",
    )
