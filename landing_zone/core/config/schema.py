"""The configuration schema: one typed, frozen model and the rules that collect every problem.

The sections' models live in :mod:`landing_zone.core.config.sections` (one module per section, on a common
strict base); this module assembles them into :class:`LandingZoneConfig`, holds the rules that span several
sections, and re-exports every public name, so ``from landing_zone.core.config.schema import X`` keeps working.

Defaults live in ``cdk.json`` under the ``landing_zone`` context key; an optional YAML/JSON file given as
``-c config=PATH`` (or ``--config PATH`` on the CLI) is deep-merged over them (mappings merge, lists and
scalars replace).  Every invalid value is collected and reported in one :class:`ConfigError`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, ClassVar

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
)

from landing_zone.core import naming
from landing_zone.core.config import rules
from landing_zone.core.config.sections.access import (
    Access,
    Application,
    ContentGuardrail,
    FilterStrength,
    InvocationLogging,
    ModelAccess,
    PathPreference,
)
from landing_zone.core.config.sections.common import (
    ACCOUNT_ID,
    CONFIG_FILE_CONTEXT_KEY,
    CONTEXT_KEY,
    DEFAULT_ENDPOINTS,
    EMAIL,
    LANDING_ZONE_TAGS_MAX,
    LOG_RETENTION_DAYS,
    MAX_MONTHLY_USD,
    MAX_NODE_HOURLY_USD,
    MAX_NODE_TOKENS_PER_SECOND,
    MAX_PROBLEMS_PER_KEY,
    MAX_REQUESTS_PER_DAY,
    MAX_TOKENS_PER_REQUEST,
    NAME,
    ORG_ID,
    OU_ID,
    PRINCIPAL_ARN,
    PRINCIPAL_ARN_PATTERN,
    RESERVATION_ID,
    RESERVED_TAG_KEYS,
    SUBNET_ID,
    TAG_KEY_MAX_CHARACTERS,
    TAG_VALUE_MAX_CHARACTERS,
    TAGS_MAX_PER_RESOURCE,
    TARGET_ID,
    VPC_ID,
    AccountId,
    BatchRoleArn,
    CrossFieldProblems,
    Email,
    EndpointService,
    Name,
    OrgId,
    OuId,
    PrincipalArn,
    PrincipalArnPattern,
    ReservationId,
    RetentionDays,
    SubnetId,
    TargetId,
    VpcId,
    _model_rule,
    _raise_all,
    _region_rule,
    _suggestion,
    _tag_limits,
    tag_rule,
    whitespace_rule,
)
from landing_zone.core.config.sections.common import (
    _kind_of as _kind_of,
)
from landing_zone.core.config.sections.common import (
    _path as _path,
)
from landing_zone.core.config.sections.common import (
    _Strict as _Strict,
)
from landing_zone.core.config.sections.cost import (
    ALERT_PROTOCOLS as ALERT_PROTOCOLS,
)
from landing_zone.core.config.sections.cost import (
    MAX_USD_PER_MILLION_TOKENS,
    Cost,
    PriceOverride,
    PriceSourceName,
    TierPriceOverride,
)
from landing_zone.core.config.sections.guardrails import (
    CDK_QUALIFIER,
    DEFAULT_CDK_QUALIFIER,
    DEFAULT_CDK_TOOLKIT_STACK,
    EXEMPT_ROLE_ARN,
    ApiKeyPolicy,
    DataRetention,
    DataRetentionMode,
    Detection,
    ExemptRoleArn,
    PolicyGuardrails,
    ServiceTier,
)
from landing_zone.core.config.sections.network import (
    Network,
)
from landing_zone.core.config.sections.organization import (
    MEMBER_ALERT_EMAILS_MAX,
    Account,
    MemberBaseline,
    Organization,
)
from landing_zone.core.config.sections.workload import (
    GpuInstanceType,
    SelfHosting,
    Workload,
)
from landing_zone.errors import Described

__all__ = [
    "ACCOUNT_ID",
    "ApiKeyPolicy",
    "Access",
    "Account",
    "AccountId",
    "Application",
    "BatchRoleArn",
    "CDK_QUALIFIER",
    "CONFIG_FILE_CONTEXT_KEY",
    "CONTEXT_KEY",
    "ContentGuardrail",
    "Cost",
    "CrossFieldProblems",
    "DataRetention",
    "Detection",
    "DataRetentionMode",
    "DEFAULT_CDK_QUALIFIER",
    "DEFAULT_ENDPOINTS",
    "EMAIL",
    "EXEMPT_ROLE_ARN",
    "Email",
    "EndpointService",
    "ExemptRoleArn",
    "FilterStrength",
    "GpuInstanceType",
    "InvocationLogging",
    "LANDING_ZONE_TAGS_MAX",
    "LOG_RETENTION_DAYS",
    "LandingZoneConfig",
    "MAX_MONTHLY_USD",
    "MAX_NODE_HOURLY_USD",
    "MAX_NODE_TOKENS_PER_SECOND",
    "MAX_PROBLEMS_PER_KEY",
    "MAX_REQUESTS_PER_DAY",
    "MAX_TOKENS_PER_REQUEST",
    "MAX_USD_PER_MILLION_TOKENS",
    "MEMBER_ALERT_EMAILS_MAX",
    "MemberBaseline",
    "ModelAccess",
    "NAME",
    "Name",
    "Network",
    "ORG_ID",
    "OU_ID",
    "OrgId",
    "Organization",
    "OuId",
    "PRINCIPAL_ARN",
    "PRINCIPAL_ARN_PATTERN",
    "PathPreference",
    "PolicyGuardrails",
    "PriceOverride",
    "TierPriceOverride",
    "PriceSourceName",
    "PrincipalArn",
    "PrincipalArnPattern",
    "RESERVATION_ID",
    "RESERVED_TAG_KEYS",
    "ReservationId",
    "RetentionDays",
    "SUBNET_ID",
    "SelfHosting",
    "ServiceTier",
    "SubnetId",
    "TAGS_MAX_PER_RESOURCE",
    "TAG_KEY_MAX_CHARACTERS",
    "TAG_VALUE_MAX_CHARACTERS",
    "TARGET_ID",
    "TargetId",
    "VPC_ID",
    "VpcId",
    "Workload",
    "json_schema",
    "tag_rule",
]


class LandingZoneConfig(_Strict):
    """The whole landing zone.  See docs/CONFIG.md for every key."""

    name: Name = Field(default="kimi-lz", description="Prefix of stack and resource names.")
    home_region: str = Field(description="Region of the stacks, the VPC endpoints and the keys.")
    compliant_regions: tuple[str, ...] = Field(
        min_length=1, description="Regions where inference may be processed (data may go nowhere else)."
    )
    allow_global_inference: bool = Field(
        default=False, description="True admits global cross-Region profiles (any commercial Region)."
    )
    inference_source_regions: tuple[str, ...] | None = Field(
        default=None,
        description="Regions where inference may be *started* (the Region of the call, the profile or the batch "
        "job); a profile's legs may still run in its compliant destinations. Omitted: [home_region]. The landing "
        "zone logs invocations and alarms on spend only in home_region, so every other Region is refused; the SCPs "
        "and the invoker boundary deny starting inference anywhere else.",
    )
    models: tuple[str, ...] = Field(default=("kimi-k3.1-pro",), min_length=1)
    accounts: tuple[Account, ...] = Field(min_length=1)
    deployment_account_id: AccountId | None = Field(
        default=None, description="Account that receives the stacks; omitted: accounts[0].id."
    )
    organization: Organization | None = None
    network: Network = Network()
    cost: Cost = Cost()
    self_hosting: SelfHosting = SelfHosting()
    policy_guardrails: PolicyGuardrails = PolicyGuardrails()
    data_retention: DataRetention = DataRetention()
    detection: Detection = Detection()
    applications: Annotated[
        tuple[Application, ...], rules.WhenOmitted("one application per account, named after the account")
    ] = Field(default=(), description="Omitted: one application per account, named after the account.")
    access: Access = Access()
    invocation_logging: InvocationLogging = InvocationLogging()
    content_guardrail: ContentGuardrail = ContentGuardrail()
    model_access: ModelAccess = ModelAccess()
    member_baseline: MemberBaseline = MemberBaseline()
    catalog_overlays: tuple[str, ...] = Field(
        default=(), description="Catalog overlay files (from `discover`), relative to the working directory."
    )
    tags: Mapping[str, str] = Field(default_factory=dict, description="Extra tags on every resource.")
    # Checked against the catalog by their own validators, which suggest the catalog's spelling.
    OWN_IDENTIFIER_RULE: ClassVar[frozenset[str]] = frozenset(
        {"models", "home_region", "compliant_regions", "inference_source_regions"}
    )

    @field_validator("home_region")
    @classmethod
    def _home_region(cls, v: str, info: ValidationInfo) -> str:
        _raise_all([((), v, rule) for rule in [_region_rule(v, info)] if rule])
        return v

    @field_validator("compliant_regions")
    @classmethod
    def _compliant_regions(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        _raise_all(((j,), region, rule) for j, region in enumerate(v) if (rule := _region_rule(region, info)))
        return tuple(v)

    @field_validator("models")
    @classmethod
    def _models(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        catalog = (info.context or {}).get("catalog")
        if catalog is None:
            return v

        def problems() -> Iterator[tuple[tuple[Any, ...], Any, str]]:
            first_index: dict[str, int] = {}
            for i, name in enumerate(v):
                model = catalog.resolve_model(name)
                if rule := _model_rule(name, catalog):
                    yield (i,), name, rule
                elif model.id in first_index:
                    yield (
                        (i,),
                        name,
                        (
                            f"names the same model as models[{first_index[model.id]}] (an alias and its ID, "
                            f"{model.id}, count as the same model): list it once"
                        ),
                    )
                else:
                    first_index[model.id] = i

        _raise_all(problems())
        return v

    @field_validator("inference_source_regions")
    @classmethod
    def _source_regions(cls, v: tuple[str, ...] | None, info: ValidationInfo) -> tuple[str, ...] | None:
        _raise_all(((i,), region, rule) for i, region in enumerate(v or ()) if (rule := _region_rule(region, info)))
        return v

    @field_validator("applications")
    @classmethod
    def _application_models(cls, v: tuple[Application, ...], info: ValidationInfo) -> tuple[Application, ...]:
        catalog = (info.context or {}).get("catalog")
        if catalog is not None:
            _raise_all(
                ((i, "model"), app.model, rule)
                for i, app in enumerate(v)
                if app.model is not None and (rule := _model_rule(app.model, catalog))
            )
        return v

    @field_validator("accounts")
    @classmethod
    def _unique_accounts(cls, v: tuple[Account, ...]) -> tuple[Account, ...]:
        def problems() -> Iterator[tuple[tuple[Any, ...], Any, str]]:
            for key in ("id", "name"):
                first: dict[str, int] = {}
                for j, account in enumerate(v):
                    i = first.setdefault(getattr(account, key), j)
                    if i != j:
                        yield (
                            (j, key),
                            getattr(account, key),
                            f"repeats accounts[{i}].{key}: account IDs and names must be unique",
                        )

        _raise_all(problems())
        return v

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: Mapping[str, str], info: ValidationInfo) -> Mapping[str, str]:
        per_resource, key_max, value_max = _tag_limits(info)

        def problems() -> Iterator[tuple[tuple[Any, ...], Any, str]]:
            room = per_resource - LANDING_ZONE_TAGS_MAX
            if len(v) > room:
                yield (
                    (),
                    Described(f"{len(v)} tags"),
                    (
                        f"at most {room}: AWS allows {per_resource} tags per resource and the landing zone puts "
                        f"up to {LANDING_ZONE_TAGS_MAX} of its own on some resources (subnets: Name, aws-cdk:subnet-name, "
                        "aws-cdk:subnet-type, landing-zone, managed-by)"
                    ),
                )
            first_by_folded: dict[str, str] = {}
            for key, value in v.items():
                folded = key.strip().casefold()
                reserved = next((r for r in RESERVED_TAG_KEYS if r.casefold() == folded), None)
                if reserved is not None:
                    same = "" if key == reserved else f" (it differs from {reserved!r} only in case or whitespace)"
                    yield (
                        (key,),
                        key,
                        (
                            f"a key the landing zone sets itself ({', '.join(RESERVED_TAG_KEYS)}){same}: tag keys "
                            "are compared without regard to case (IAM and other services treat keys that differ "
                            "only in case as the same key, and a deploy would fail or override it), and overriding "
                            "it would break tamper protection, the budget scope or cost allocation; choose another key"
                        ),
                    )
                    continue
                if key != key.strip():
                    yield (key,), Described(f"the key {key!r}"), whitespace_rule(key)
                    continue
                earlier = first_by_folded.setdefault(folded, key)
                if earlier != key:
                    yield (
                        (key,),
                        Described(f"the key {key!r}"),
                        f"differs from the key {earlier!r} only in case: IAM and other services treat tag keys that "
                        "differ only in case as the same key, so a deploy would fail; keep one of them",
                    )
                    continue
                if rule := tag_rule(key, key=True, limit=key_max):
                    yield (key,), Described(f"the key {key!r}"), rule
                if rule := tag_rule(value, key=False, limit=value_max):
                    yield (key,), value, rule

        _raise_all(problems())
        return v

    def _problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """Every problem across keys (raised with the rules by type, :meth:`_Strict._type_rules`)."""
        yield from self._cross_field_problems()
        yield from self._guarantee_problems()
        yield from rules.arn_problems(self, self.partition, self.home_region)

    def _guarantee_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """Settings under which a guarantee of the guardrails could not hold (docs/THREAT_MODEL.md)."""
        q = self.policy_guardrails.cdk_bootstrap_qualifier
        if self.organization is not None and q == DEFAULT_CDK_QUALIFIER:
            yield (
                ("policy_guardrails", "cdk_bootstrap_qualifier"),
                q,
                "the default CDK bootstrap is shared by every stack deployed with it, so any other stack's template "
                "could create a role the guardrails exempt; in organization mode give the landing zone a bootstrap "
                "of its own: choose a qualifier (1-10 lowercase letters or digits), set it here and run `cdk "
                "bootstrap --qualifier <qualifier> aws://<account>/<home_region>` (docs/DEPLOY.md)",
            )
        toolkit = self.policy_guardrails.toolkit_stack_name
        if toolkit.lower() == DEFAULT_CDK_TOOLKIT_STACK.lower():
            yield (
                ("policy_guardrails", "cdk_toolkit_stack_name"),
                toolkit,
                "CDKToolkit is the account's shared CDK bootstrap stack: bootstrapping it with the landing zone's "
                "qualifier would re-parameterise it for every other app, and the tamper SCP would freeze it; give the "
                f"landing zone's bootstrap a stack of its own (omit the field for cdk-{q}-toolkit)",
            )
        elif toolkit in (own := [naming.stack_name(self.name, part) for part in naming.STACK_PARTS]):
            yield (
                ("policy_guardrails", "cdk_toolkit_stack_name"),
                toolkit,
                f"is the name of one of the landing zone's own stacks ({', '.join(own)}); the bootstrap stack needs "
                f"a name of its own (omit the field for cdk-{q}-toolkit)",
            )
        for i, region in enumerate(self.inference_source_regions or ()):
            if region not in self.compliant_regions:
                yield (
                    ("inference_source_regions", i),
                    region,
                    f"not in compliant_regions [{', '.join(self.compliant_regions)}]",
                )
            elif region != self.home_region:
                yield (
                    ("inference_source_regions", i),
                    region,
                    f"invocation logging, the spend alarms and the dashboard are deployed in home_region "
                    f"({self.home_region}) only, so inference started in {region} would be neither logged nor "
                    f"alarmed; allowed: [{self.home_region}]",
                )

    def _endpoint_principal_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """network.endpoint_principals: organization admits aws:PrincipalOrgID, so it needs the organization's ID; the
        member baseline's endpoints admit their own account only."""
        if self.network.endpoint_principals != "organization":
            return
        key = ("network", "endpoint_principals")
        if self.organization is None or not self.organization.organization_id:
            yield (
                key,
                "organization",
                "needs organization.organization_id (admitted by aws:PrincipalOrgID); allowed: accounts",
            )
        elif self.member_baseline.enabled:
            yield (
                key,
                "organization",
                "the member baseline's endpoints admit each member's own account only; allowed: accounts",
            )

    def _organization_policy_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """content_guardrail.organization_policy: organization mode, the guardrail enabled, an organization ID (the
        resource-based policy's aws:PrincipalOrgID) and canary targets among organization.target_ids."""
        g = self.content_guardrail
        if not g.organization_policy:
            if g.canary_target_ids or g.organization_policy_rollout != "canary":
                yield (
                    ("content_guardrail", "organization_policy"),
                    False,
                    "canary_target_ids and organization_policy_rollout apply only to the organization policy; "
                    "allowed: organization_policy: true, or leave them out",
                )
            return
        key = ("content_guardrail", "organization_policy")
        if self.organization is None:
            yield key, True, "allowed only in organization mode (an organization block); allowed here: false"
            return
        if not g.enabled:
            yield key, True, "allowed only with content_guardrail.enabled: true (the policy enforces that guardrail)"
        if not self.organization.organization_id:
            yield (
                ("organization", "organization_id"),
                Described("nothing"),
                "content_guardrail.organization_policy needs organization.organization_id (the guardrail's "
                "resource-based policy admits the organization's principals by aws:PrincipalOrgID)",
            )
        if not g.canary_target_ids:
            yield (
                ("content_guardrail", "canary_target_ids"),
                [],
                "required with organization_policy: at least one of organization.target_ids "
                f"[{', '.join(self.organization.target_ids)}] to attach the policy to first",
            )
        for i, target in enumerate(g.canary_target_ids):
            if target not in self.organization.target_ids:
                yield (
                    ("content_guardrail", "canary_target_ids", i),
                    target,
                    f"not in organization.target_ids [{', '.join(self.organization.target_ids)}]",
                )

    def _cross_field_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """Every problem that involves several keys, each at the key the user wrote, with the values and the fix
        (generated lazily: the caller stops after MAX_PROBLEMS_PER_KEY)."""
        yield from self._home_region_problems()
        yield from self._application_problems()
        yield from self._member_baseline_problems()
        yield from self._self_hosting_problems()
        yield from self._availability_zone_problems()
        yield from self._organization_policy_problems()
        yield from self._endpoint_principal_problems()
        yield from self._anomaly_monitor_problems()
        yield from self._central_bus_problems()

    def _central_bus_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """detection.central_event_bus_arn: organization mode, the detection stack deployed, another account's bus."""
        arn, key = self.detection.central_event_bus_arn, ("detection", "central_event_bus_arn")
        if arn is None:
            return
        if self.organization is None:
            yield key, arn, "a central account's bus is for organization mode: add an organization block, or omit it"
        elif not self.detection.on(True):
            yield key, arn, "detection.enabled is false, so no rule would deliver to it: omit it, or enable detection"
        elif self.member_baseline.enabled:
            yield key, arn, "not with member_baseline (its StackSet template does not carry the forwarder yet): omit it"
        elif arn.split(":")[4] == self.deployment_account:
            rule = f"a bus of the deployment account {self.deployment_account}, whose rules already alert its own "
            yield key, arn, rule + "alerts topic; allowed: another account's bus (the central security account's)"

    def _anomaly_monitor_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """cost.anomaly_monitor_arn: a monitor of the account the cost stack deploys to ("You can only access cost
        monitors and alert subscriptions under the account that created them", getting-started-ad.html)."""
        arn, key = self.cost.anomaly_monitor_arn, ("cost", "anomaly_monitor_arn")
        if arn is None:
            return
        if self.member_baseline.enabled:
            yield key, arn, "not with member_baseline (each member account's cost stack has its own monitor): omit it"
        elif (account := arn.split(":")[4]) != self.deployment_account:
            rule = f"a monitor of account {account}; the cost stack deploys to {self.deployment_account}, and a "
            yield key, arn, rule + "subscription can use only its own account's monitors: give one of that account's"

    def _home_region_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """home_region among compliant_regions."""
        if self.home_region not in self.compliant_regions:
            yield (
                ("home_region",),
                self.home_region,
                f"not in compliant_regions [{', '.join(self.compliant_regions)}]: the landing zone's own endpoints, "
                f"keys and logs must live in a compliant Region; add {self.home_region} to compliant_regions or choose "
                "home_region from them",
            )

    def _application_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """Applications: known accounts, unique names, cost-center tags."""
        known_accounts = self.account_ids_by_name_or_id
        for i, app in enumerate(self.applications):
            if app.account is not None and app.account not in known_accounts:
                yield (
                    ("applications", i, "account"),
                    app.account,
                    "not the name or ID of an entry of accounts"
                    + _suggestion(app.account, list(known_accounts), "accounts"),
                )
        first_app: dict[str, int] = {}
        for j, app in enumerate(self.applications):
            i = first_app.setdefault(app.name, j)
            if i != j:
                yield (
                    ("applications", j, "name"),
                    app.name,
                    f"repeats applications[{i}].name: application names must "
                    "be unique (they name the invoker role and the inference profile)",
                )
        for i, app in enumerate(self.applications):
            rule = tag_rule(app.cost_center, key=False)
            if rule:
                yield (("applications", i, "cost_center"), app.cost_center, f"{rule} (it becomes the cost-center tag)")
        for i, acct in enumerate(self.accounts):
            rule = tag_rule(acct.cost_center, key=False) if acct.cost_center is not None else None
            if rule:
                yield (("accounts", i, "cost_center"), acct.cost_center, f"{rule} (it becomes the cost-center tag)")

    def _member_baseline_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """The member baseline: organization, OUs, template-parameter limits, no per-account applications."""
        mb = self.member_baseline
        if mb.enabled and self.self_hosting.enabled:
            yield (
                ("self_hosting", "enabled"),
                True,
                "self_hosting and member_baseline cannot be combined: self-hosting runs in the deployment account's "
                "VPC (per-account stacks), not in every member account; turn one of them off",
            )
        if mb.enabled:
            if self.organization is None or not self.organization.organization_id:
                yield (
                    ("organization", "organization_id"),
                    Described("nothing"),
                    "member_baseline.enabled needs organization.organization_id (service-managed StackSets and the "
                    "organization-readable asset bucket are scoped to it)",
                )
            ous = self.member_target_ous
            if not ous:
                yield (
                    ("member_baseline", "target_ou_ids"),
                    Described("nothing, and no OU ID in organization.target_ids"),
                    "member_baseline.enabled needs target OUs: list them here or put OU IDs in organization.target_ids",
                )
            else:
                for i, acct in enumerate(self.accounts):
                    ou = acct.ou_id or (ous[0] if len(ous) == 1 else None)
                    if ou is None or ou not in ous:
                        yield (
                            ("accounts", i, "ou_id"),
                            acct.ou_id,
                            f"with several target OUs each account names its OU, one of [{', '.join(ous)}]",
                        )
            for i, acct in enumerate(self.accounts):
                if len(acct.alert_emails) > MEMBER_ALERT_EMAILS_MAX:
                    yield (
                        ("accounts", i, "alert_emails"),
                        Described(f"{len(acct.alert_emails)} e-mail addresses"),
                        f"at most {MEMBER_ALERT_EMAILS_MAX} per account in the member baseline (they become template "
                        "parameters)",
                    )
            if len(self.cost.alert_emails) > MEMBER_ALERT_EMAILS_MAX:
                yield (
                    ("cost", "alert_emails"),
                    Described(f"{len(self.cost.alert_emails)} e-mail addresses"),
                    f"at most {MEMBER_ALERT_EMAILS_MAX} with member_baseline (they become template parameters)",
                )
            for i, app in enumerate(self.applications):
                if app.account is not None:
                    yield (
                        ("applications", i, "account"),
                        app.account,
                        "with member_baseline every application exists in every member account (its principals call "
                        "it): remove `account`",
                    )

    def _self_hosting_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """Self-hosting: the GPU nodes' AZ in home_region and among the VPC's AZs."""
        sh = self.self_hosting
        if sh.enabled and sh.availability_zone and not sh.availability_zone.startswith(self.home_region):
            yield (
                ("self_hosting", "availability_zone"),
                sh.availability_zone,
                f"not in home_region {self.home_region}: self-hosted inference must run in the landing zone's "
                "home_region (a compliant Region)",
            )
        if sh.enabled and sh.capacity == "capacity-block" and not self.network.availability_zones:
            yield (
                ("network", "availability_zones"),
                [],
                "self_hosting with a Capacity Block needs network.availability_zones listing the block's AZ, so the "
                "VPC has subnets there (AZs picked by Fn::GetAZs at deploy time might not include it)",
            )
        if (
            sh.enabled
            and self.network.availability_zones
            and sh.availability_zone
            and (sh.availability_zone not in self.network.availability_zones)
        ):
            yield (
                ("self_hosting", "availability_zone"),
                sh.availability_zone,
                f"not one of network.availability_zones [{', '.join(self.network.availability_zones)}]: the GPU "
                "subnets must exist in the Capacity Block's AZ; add it there",
            )

    def _availability_zone_problems(self) -> Iterator[tuple[tuple[Any, ...], Any, str]]:
        """network.availability_zones in home_region."""
        for i, az in enumerate(self.network.availability_zones):
            if not az.startswith(self.home_region):
                yield (("network", "availability_zones", i), az, f"not an AZ of home_region {self.home_region}")

    # -- derived values ------------------------------------------------------------------------------
    @property
    def deployment_account(self) -> str:
        return self.deployment_account_id or self.accounts[0].id

    @property
    def member_target_ous(self) -> tuple[str, ...]:
        mb = self.member_baseline
        if mb.target_ou_ids:
            return mb.target_ou_ids
        targets = self.organization.target_ids if self.organization else ()
        return tuple(t for t in targets if t.startswith("ou-"))

    @property
    def stackset_administrator_account(self) -> str:
        assert self.organization is not None
        return self.member_baseline.administrator_account_id or self.organization.management_account_id

    @property
    def asset_bucket_prefix(self) -> str:
        return naming.asset_bucket_prefix(self.name, self.stackset_administrator_account if self.organization else "x")

    def asset_bucket_name(self, region: str) -> str:
        return naming.asset_bucket_name(
            self.name, self.stackset_administrator_account if self.organization else "x", region
        )

    @property
    def partition(self) -> str:
        """The AWS partition of home_region (every ARN of the configuration must be in it)."""
        return rules.partition_of_region(self.home_region)

    @property
    def source_regions(self) -> tuple[str, ...]:
        """Where inference may be started (``inference_source_regions``, default ``[home_region]``)."""
        return self.inference_source_regions or (self.home_region,)

    @property
    def automation_role_prefix(self) -> str:
        """Name prefix of the roles the landing zone's own automation uses (see policies/guardrails.py)."""
        return f"{self.name}-automation-"

    def account_id(self, name_or_id: str | None) -> str:
        """The ID of an account given by name or ID; None means the deployment account."""
        if name_or_id is None:
            return self.deployment_account
        return self.account_ids_by_name_or_id[name_or_id]

    @functools.cached_property
    def account_ids_by_name_or_id(self) -> dict[str, str]:
        """Account ID by account name and by ID (built once: thousands of accounts stay fast)."""
        index = {a.name: a.id for a in reversed(self.accounts)}
        index.update({a.id: a.id for a in self.accounts})
        return index

    @property
    def effective_applications(self) -> tuple[Application, ...]:
        """The configured applications; omitted: one per account named after it (member baseline: one 'default')."""
        if self.applications:
            return self.applications
        if self.member_baseline.enabled:  # one template for every member: one application in each
            return (Application(name="default", cost_center=self.name),)
        return tuple(Application(name=a.name, cost_center=a.name, account=a.id) for a in self.accounts)

    @property
    def account_ids(self) -> tuple[str, ...]:
        return tuple(sorted(a.id for a in self.accounts))


def json_schema() -> dict[str, Any]:
    return LandingZoneConfig.model_json_schema()
