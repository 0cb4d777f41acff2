"""The organization section: accounts, the organization and its perimeter, and the member-account baseline."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
)

from landing_zone.core.config import rules
from landing_zone.core.config.sections.common import (
    MAX_MONTHLY_USD,
    AccountId,
    Email,
    Name,
    OrgId,
    OuId,
    TargetId,
    _Strict,
)


class Account(_Strict):
    """A member account allowed to call Bedrock through the landing zone."""

    id: AccountId
    name: Name = Field(description="Short name used in resource names and tags, e.g. 'workload-prod'.")
    ou_id: OuId | None = Field(
        default=None, description="OU of the account (member_baseline: its StackSet instance targets this OU)."
    )
    monthly_budget_usd: float | None = Field(
        default=None,
        gt=0,
        le=MAX_MONTHLY_USD,
        description="member_baseline: this account's budget; omitted: the computed one.",
    )
    alert_emails: tuple[Email, ...] = Field(default=(), description="member_baseline: this account's alert e-mails.")
    cost_center: str | None = Field(default=None, max_length=128, description="member_baseline: cost-center tag value.")


class OutsidePerimeter(_Strict):
    """What the SCPs restrict in the accounts under ``organization.target_ids`` that the landing zone does not govern
    (neither in ``accounts`` nor, with the member baseline, under its OUs).  Omitted: only that the landing zone's
    models cannot be invoked there (runtime, profiles, Mantle, batch); their other models, account settings, CDK
    bootstraps, logging and services stay their owners'."""

    restrict_other_models: bool = Field(
        default=False,
        description="Opt-in: the model allow-list SCP binds every account under the targets too (every model that is "
        "not allowed is denied there as well).",
    )
    confine_to_compliant_regions: bool = Field(
        default=False,
        description="Opt-in: the Region-confinement SCP binds every account under the targets too (all Bedrock, "
        "Mantle and AgentCore calls, and with confine_model_calling_services the model-calling services, only in "
        "compliant_regions, organization-wide).",
    )


class Organization(_Strict):
    """AWS Organizations settings.  Omit the whole block for single-account mode."""

    management_account_id: AccountId
    organization_id: OrgId | None = Field(
        default=None, description="o-... ID; when set, endpoint policies admit the whole organization."
    )
    target_ids: tuple[TargetId, ...] = Field(
        default=(),
        description="Roots (r-...), OUs (ou-...) or account IDs the landing zone's SCPs reach. A target that is a "
        "governed account (accounts) or a member-baseline OU receives every guardrail SCP; any other target receives "
        "only the perimeter SCP (the landing zone's models are invoked in the governed accounts only) and the "
        "outside_perimeter opt-ins, and the guardrail SCPs attach to the governed accounts themselves.",
    )
    outside_perimeter: OutsidePerimeter = Field(default_factory=OutsidePerimeter)


MEMBER_ALERT_EMAILS_MAX = 3  # e-mail parameters of the member-baseline template (CloudFormation cannot loop)


class MemberBaseline(_Strict):
    """Multi-account roll-out: the member baseline (keys, network, access, logging, cost controls) as one
    CloudFormation StackSet with service-managed permissions and automatic deployment to the target OUs.
    Deployed from the management account or a delegated administrator; the guardrails stay in management."""

    enabled: bool = False
    target_ou_ids: Annotated[tuple[OuId, ...], rules.WhenOmitted("the OUs in organization.target_ids")] = Field(
        default=(),
        description="OUs that receive the baseline (new accounts too); omitted: the OUs in organization.target_ids.",
    )
    administrator_account_id: AccountId | None = Field(
        default=None, description="Delegated administrator for StackSets; omitted: the management account."
    )
    max_concurrent_percentage: int = Field(default=25, ge=1, le=100)
    failure_tolerance_percentage: int = Field(default=10, ge=0, le=100)
    retain_stacks_on_account_removal: bool = True
