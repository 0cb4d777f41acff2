"""Every policy document the landing zone deploys, built once from the config and the routing decision.

The only caller of the builders in :mod:`landing_zone.policies` outside that package (``tests/unit/
test_policy_call_sites.py`` checks it).  Deploy-time values are markers (:mod:`landing_zone.core.markers`), which
the constructs replace by CDK tokens when they render a document:

* per-account mode: the account is the configured deployment account, the Region ``home_region``;
* member baseline (one StackSet template for every account): the account is :data:`~markers.ACCOUNT`, and the
  endpoint policies admit that account's own principals only;
* documents of constructs that take the account, Region and partition from their stack use
  :data:`~markers.ACCOUNT`, :data:`~markers.REGION` and :data:`~markers.PARTITION`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from landing_zone.core import arns, markers, naming
from landing_zone.core.applications import (
    ApplicationPlan,
    activates_cost_allocation_tags,
    cost_allocation_tags_stack,
    effective_budget_scope,
    has_mantle_project,
)
from landing_zone.core.catalog import Catalog
from landing_zone.core.catalog.action_space import PROTECTED_SERVICES
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.config.schema import ALERT_PROTOCOLS
from landing_zone.core.routing import RoutingDecision
from landing_zone.policies.access import (
    bedrock_logging_role_policy,
    bedrock_logging_trust_policy,
    handler_policy,
    invocation_log_bucket_policy,
    invoker_policy,
    invoker_trust_policy,
)
from landing_zone.policies.bedrock_policy import guardrail_inference_policy, guardrail_resource_policy
from landing_zone.policies.common import document, statement
from landing_zone.policies.config_checks import AccountSettingsRule, PolicyDocuments, account_settings_rule
from landing_zone.policies.config_rules import (
    COMPLIANCE_ALERT_ID,
    ConfigRule,
    compliance_pattern,
    config_rule_name,
    config_rules,
)
from landing_zone.policies.cost import (
    alerts_topic_policy,
    budget_action_execution_policy,
    budget_action_trust_policy,
    budget_filter_expression,
    kill_switch_policy,
    kill_switch_reset_policy,
    kill_switch_reset_trust_policy,
)
from landing_zone.policies.detection import EventRule, event_rules
from landing_zone.policies.endpoints import endpoint_policy, s3_gateway_policy
from landing_zone.policies.guardrails import guardrail_statements, permissions_boundary
from landing_zone.policies.kms import eks_data_key_policy, key_policy, own_log_groups_key_policy
from landing_zone.policies.roles import flow_log_role_policy, secrets_key_use_policy, with_own_log_group
from landing_zone.policies.scp_layout import ScpSet, scp_documents

__all__ = [
    "INVOCATION_LOG_KEY_PREFIX",
    "AutomationPolicies",
    "DetectionPolicies",
    "GuardrailOrganizationPolicies",
    "InvokerPolicies",
    "PolicySet",
    "SelfHostingPolicies",
    "build_policies",
    "scp_set",
]

Document = dict[str, Any]

INVOCATION_LOG_KEY_PREFIX = "bedrock-invocation-logs/"  # where Bedrock writes invocation logs in the bucket
LOGGING_HANDLER_ACTIONS = (
    "bedrock:PutModelInvocationLoggingConfiguration",
    "bedrock:GetModelInvocationLoggingConfiguration",
    "bedrock:DeleteModelInvocationLoggingConfiguration",
)
AGREEMENT_HANDLER_ACTIONS = (
    "bedrock:GetFoundationModelAvailability",
    "bedrock:ListFoundationModelAgreementOffers",
    "bedrock:CreateFoundationModelAgreement",
    "aws-marketplace:Subscribe",
    "aws-marketplace:ViewSubscriptions",
)
# The data-retention handler reads the account mode before it sets it, and hands the saved one back on delete:
# https://docs.aws.amazon.com/bedrock/latest/APIReference/API_PutAccountDataRetention.html (and Get...).
RETENTION_HANDLER_ACTIONS = ("bedrock:PutAccountDataRetention", "bedrock:GetAccountDataRetention")
# Cost Explorer (a us-east-1 API; neither action takes a resource: Service Authorization Reference).
COST_ALLOCATION_HANDLER_ACTIONS = ("ce:UpdateCostAllocationTagsStatus", "ce:ListCostAllocationTags")
# What a handler took over (a setting it replaced, the tag keys it activated) waits in one SSM parameter of its own
# until the resource is deleted (naming.automation_saved_parameter_name).
SAVED_STATE_ACTIONS = ("ssm:GetParameter", "ssm:PutParameter", "ssm:DeleteParameter")
KEY_PURPOSES_ALWAYS = ("logs", "alerts")


@dataclass(frozen=True)
class InvokerPolicies:
    """One application's invoker role: ``permissions`` (its managed policy) and ``trust``."""

    permissions: Document
    trust: Document


@dataclass(frozen=True)
class AutomationPolicies:
    """A Python custom resource (``<lz>-automation-<handler>``): its handler's and its provider's policies."""

    handler: Document
    provider: Document


@dataclass(frozen=True)
class GuardrailOrganizationPolicies:
    """``content_guardrail.organization_policy``: the BEDROCK_POLICY (markers: the guardrail's ARN and version) and
    the guardrail's resource-based policy (marker: its ARN), both in the management account's guardrails stack."""

    inference: Document
    resource_policy: Document


@dataclass(frozen=True)
class SelfHostingPolicies:
    """The EKS cluster's documents (``self_hosting.enabled``); ``s3_gateway`` is None for an imported VPC."""

    data_key: Document
    secrets_key_use: Document
    s3_gateway: Document | None


@dataclass(frozen=True)
class DetectionPolicies:
    """``detection`` on: the EventBridge rules (:mod:`landing_zone.policies.detection`), the forwarder role's
    policy (PutEvents on the deployment account's default bus in ``home_region``, for the global services' events
    from us-east-1 and the management account's; and on ``central_bus_arn`` when set), and that bus's policy admitting
    the management account (None in single-account mode)."""

    rules: tuple[EventRule, ...]
    rule_names: Mapping[str, str]  # by rule id: the EventBridge rule's name (naming.detection_rule_name)
    forwarder: Document
    home_bus_statement: Document | None
    # detection.config_rules: the AWS Config managed rules and their names (empty: off)
    config_rules: tuple[ConfigRule, ...] = ()
    config_rule_names: Mapping[str, str] = field(default_factory=dict)  # by rule id (the custom rule's too)
    # the custom Lambda rule checking the account settings AWS Config does not record (None: off, or none is set)
    account_settings_rule: AccountSettingsRule | None = None
    # the EventBridge rule alerting a Config rule's non-compliance (None: no Config rule): name and event pattern
    compliance_alert_name: str | None = None
    compliance_alert_pattern: Document | None = None
    # detection.central_event_bus_arn: the central account's bus every rule of the detection stack also delivers to,
    # and its role's policy (events:PutEvents on that bus only); None: the alerts topic only
    central_bus_arn: str | None = None
    central_forwarder: Document | None = None


@dataclass(frozen=True)
class PolicySet:
    """Every document the landing zone deploys, keyed as the stacks render them.

    ``scps`` is None without an ``organization`` block; ``kill_switch`` / ``budget_action_*`` are None without
    ``cost.kill_switch`` or applications; ``invocation_*`` None without invocation logging.
    """

    boundary: Document
    invokers: Mapping[str, InvokerPolicies]  # by application name
    endpoints: Mapping[str, Document]  # by endpoint service
    keys: Mapping[str, Document]  # by key purpose
    alerts_topic: Document
    budget_filter: Document
    flow_logs: Document
    automation: Mapping[str, AutomationPolicies]  # by custom-resource handler name
    # cost.per_application_budgets: each application's budget filter (account AND its cost-allocation tags)
    application_budget_filters: Mapping[str, Document] = field(default_factory=dict)
    scps: ScpSet | None = None
    kill_switch: Document | None = None
    budget_action_trust: Document | None = None
    budget_action_execution: Document | None = None
    # cost.kill_switch_reset_principal_arns: the reset role's trust and permissions (markers: the actions' IDs)
    kill_switch_reset_trust: Document | None = None
    kill_switch_reset: Document | None = None
    invocation_log_bucket: Document | None = None
    invocation_logging_trust: Document | None = None
    invocation_logging_role: Document | None = None
    self_hosting: SelfHostingPolicies | None = None
    guardrail_organization: GuardrailOrganizationPolicies | None = None
    # the management account's key for the cost-allocation-tag activation's logs (organization mode, activation on)
    management_logs_key: Document | None = None
    scp_contents: tuple[str, ...] = field(default=())  # each SCP as Organizations receives it (minified JSON)
    detection: DetectionPolicies | None = None  # detection on (landing_zone.plan.policies.detection_on)

    @property
    def scp_set(self) -> ScpSet:
        """``scps`` for a configuration with an ``organization`` block (the guardrails stack, simulate, the threat
        model); raises ValueError without one."""
        if self.scps is None:
            raise ValueError("the configuration has no organization block: the landing zone deploys no SCPs")
        return self.scps


def detection_on(config: LandingZoneConfig) -> bool:
    """Whether the detection rules are deployed: ``detection.enabled``, omitted on in organization mode.  With the
    member baseline they are in the StackSet's template, alerting each member account's own alerts topic
    (:func:`landing_zone.plan.detection.member_rules`); otherwise in the detection stacks."""
    return config.detection.on(config.organization is not None)


def _checked_endpoints(
    endpoints: Mapping[str, Document], self_hosting: SelfHostingPolicies | None
) -> dict[str, Document]:
    """The endpoint policies the account-settings Config rule checks: the interface endpoints' and, with self-hosting
    in a new VPC, the S3 gateway endpoint's (service ``s3``)."""
    gateway = self_hosting.s3_gateway if self_hosting is not None else None
    return {**endpoints, **({"s3": gateway} if gateway is not None else {})}


def _detection(
    config: LandingZoneConfig,
    routing: RoutingDecision,
    catalog: Catalog,
    *,
    endpoints: Mapping[str, Document],
    keys: Mapping[str, Document],
) -> DetectionPolicies | None:
    """``endpoints`` and ``keys``: the endpoint and key policies the account-settings Config rule expects."""
    if not detection_on(config):
        return None
    account, region = config.deployment_account, config.home_region
    statements = guardrail_statements(config, routing, catalog) if config.organization is not None else []
    home_bus = f"arn:aws:events:{region}:{account}:event-bus/default"
    central = config.detection.central_event_bus_arn
    central_forwarder = (
        document([statement("ForwardToCentralBus", actions=["events:PutEvents"], resources=[central])])
        if central
        else None
    )
    # the forwarding stacks' role: the home bus, and the central bus too (a forwarded event is not sent on again)
    forwarder = document(
        [
            statement("ForwardToHomeBus", actions=["events:PutEvents"], resources=[home_bus]),
            *(central_forwarder["Statement"] if central_forwarder else []),
        ]
    )
    home_bus_statement = None
    if config.organization is not None and not config.member_baseline.enabled:  # no home bus with the member baseline
        management = config.organization.management_account_id
        home_bus_statement = statement(
            "ManagementAccountForwards",
            principal={"AWS": f"arn:aws:iam::{management}:root"},
            actions=["events:PutEvents"],
            resources=[home_bus],
        )
    rules = event_rules(config, statements, PROTECTED_SERVICES)
    limit = catalog.limit("eventbridge_rule_name_max_length")
    on = config.detection.config_rules_on(config.organization is not None)
    checks = config_rules(config.name, own_vpc=config.network.vpc_id is None, catalog=catalog) if on else ()
    settings = (
        account_settings_rule(
            config,
            key_prefix=INVOCATION_LOG_KEY_PREFIX,
            catalog=catalog,
            documents=PolicyDocuments(endpoints=endpoints, keys=keys),
        )
        if on
        else None
    )
    ids = [r.id for r in checks] + ([settings.id] if settings else [])
    check_names = {i: config_rule_name(config.name, i) for i in ids}
    return DetectionPolicies(
        rules=rules,
        rule_names={r.id: naming.detection_rule_name(config.name, r.id, limit) for r in rules},
        forwarder=forwarder,
        home_bus_statement=home_bus_statement,
        config_rules=checks,
        config_rule_names=check_names,
        account_settings_rule=settings,
        compliance_alert_name=naming.detection_rule_name(config.name, COMPLIANCE_ALERT_ID, limit) if ids else None,
        compliance_alert_pattern=compliance_pattern(tuple(check_names.values())) if ids else None,
        central_bus_arn=central,
        central_forwarder=central_forwarder,
    )


def scp_set(config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog) -> ScpSet | None:
    """The guardrail SCPs (None without an organization); raises GuardrailSizeError when they do not fit."""
    return scp_documents(config, routing, catalog) if config.organization is not None else None


def _with_saved_state(name: str, handler: str, policy: Document) -> Document:
    """``policy`` plus reading, writing and removing the handler's own saved-state parameter (stack markers)."""
    parameter = arns.ssm_parameter(
        markers.REGION, markers.ACCOUNT, naming.automation_saved_parameter_name(name, handler), markers.PARTITION
    )
    saved = handler_policy(SAVED_STATE_ACTIONS, resources=[parameter], sid="KeepSavedState")
    return {**policy, "Statement": [*policy["Statement"], *saved["Statement"]]}


def _automation(name: str, handler: str, policy: Document) -> AutomationPolicies:
    """A handler's policy plus its own log group; its provider may invoke exactly the handler (stack markers)."""
    log_name = naming.automation_log_group_name(name, handler)
    region, account, partition = markers.REGION, markers.ACCOUNT, markers.PARTITION
    function_arn = (
        f"arn:{partition}:lambda:{region}:{account}:function:{naming.automation_function_name(name, handler)}"
    )
    return AutomationPolicies(
        handler=with_own_log_group(policy, log_streams_arn=arns.log_streams(region, account, log_name, partition)),
        provider=with_own_log_group(
            handler_policy(
                ["lambda:InvokeFunction"], resources=[function_arn, f"{function_arn}:*"], sid="InvokeHandler"
            ),
            log_streams_arn=arns.log_streams(
                region, account, naming.automation_provider_log_group_name(name, handler), partition
            ),
        ),
    )


def retention_handler_policy(config: LandingZoneConfig) -> Document:
    """``bedrock:GetAccountDataRetention`` and ``bedrock:PutAccountDataRetention`` on ``*`` (no resource type: the SAR
    lists them with none), the put only for the modes the handler may write (``bedrock:DataRetentionMode``, the key
    the action carries; the same key the SCP's ``DenyDataRetentionModeChange`` tests): the configured mode, and the
    ``inherit`` it hands back when the Region had never been configured; with ``take_over_existing`` any mode, since
    it hands back whatever mode it took over.  Its role ``<name>-automation-data-retention`` matches the automation
    exemption of that deny (``<name>-automation-*``, :func:`landing_zone.policies.guardrails.exemptions`)."""
    retention = config.data_retention
    put = handler_policy(RETENTION_HANDLER_ACTIONS[:1], sid="SetAccountDataRetention")
    if not retention.take_over_existing:
        modes = sorted({retention.mode or "", "inherit"})
        put["Statement"][0]["Condition"] = {"StringEquals": {"bedrock:DataRetentionMode": modes}}
    read = handler_policy(RETENTION_HANDLER_ACTIONS[1:], sid="ReadAccountDataRetention")
    return {**put, "Statement": [*put["Statement"], *read["Statement"]]}


def _guardrail_organization(config: LandingZoneConfig) -> GuardrailOrganizationPolicies | None:
    """The organization-level guardrail documents (None unless ``content_guardrail.organization_policy``; the config
    refuses it outside organization mode, without the guardrail or without ``organization.organization_id``)."""
    org = config.organization
    if not config.content_guardrail.organization_policy or org is None or org.organization_id is None:
        return None
    region, account = config.home_region, org.management_account_id
    # Longest plausible deploy-time values (a guardrail ID is 12 lowercase characters; versions count from 1).
    sample = f"arn:aws:bedrock:{region}:{account}:guardrail/abcdefghijkl:99999"
    return GuardrailOrganizationPolicies(
        inference=guardrail_inference_policy(
            region=region,
            identifier=f"{markers.GUARDRAIL_ARN}:{markers.GUARDRAIL_VERSION}",
            input_tags=config.content_guardrail.input_tags,
            sample_identifier=sample,
            account=account,
        ),
        resource_policy=guardrail_resource_policy(
            guardrail_arn=markers.GUARDRAIL_ARN, organization_id=org.organization_id
        ),
    )


def _management_logs_key(config: LandingZoneConfig, applications: tuple[ApplicationPlan, ...]) -> Document | None:
    """The key of the cost-allocation-tag activation's logs in the management account (the guardrails stack), or
    None where the activation is not there: its own account's root and CloudWatch Logs for the activation's two log
    groups, each named with that stack's suffix (markers: the stack's account, Region, partition and suffix).  Not
    the workload ``logs`` key's policy: the management account has no invocation logging for Bedrock to write."""
    if cost_allocation_tags_stack(config, applications) != "guardrails":
        return None
    handler = "cost-allocation-tags"
    return own_log_groups_key_policy(
        account=markers.ACCOUNT,
        region=markers.REGION,
        partition=markers.PARTITION,
        log_group_names=(
            naming.automation_log_group_name(config.name, handler),
            naming.automation_provider_log_group_name(config.name, handler),
        ),
    )


def _invoker(
    app: ApplicationPlan, config: LandingZoneConfig, routing: RoutingDecision, *, account: str, caller: str | None
) -> InvokerPolicies:
    require_vpce = config.access.require_vpc_endpoint
    services = set(config.network.endpoints)

    def endpoint(service: str) -> str | None:
        return markers.endpoint_id(service) if (require_vpce and service in services) else None

    guardrail = config.content_guardrail
    per_request = guardrail.enabled and guardrail.enforcement == "per-request"
    permissions = invoker_policy(
        app,
        routing,
        account=account,
        region=config.home_region,
        application_profile_arn=markers.profile_arn(app.app.name) if app.route is not None else None,
        allowed_service_tiers=config.policy_guardrails.allowed_service_tiers,
        runtime_endpoint_id=endpoint("bedrock-runtime"),
        mantle_endpoint_id=endpoint("bedrock-mantle"),
        control_endpoint_id=endpoint("bedrock"),
        require_endpoints=require_vpce,
        guardrail_arn=markers.GUARDRAIL_ARN if per_request else None,
        mantle_project_arn=markers.mantle_project_arn(app.app.name) if has_mantle_project(app, config) else None,
    )
    trust = invoker_trust_policy(
        caller_account=caller or app.caller_account_id,
        trusted_principal_arns=app.app.trusted_principal_arns,
        sso_permission_sets=app.app.sso_permission_sets,
    )
    return InvokerPolicies(permissions=permissions, trust=trust)


def _cost_policies(config: LandingZoneConfig, applications: tuple[ApplicationPlan, ...], *, account: str) -> Any:
    """The budgets' filters, the kill switch, its budget actions' execution role and its reset role.

    The landing-zone budget counts what ``cost.budget_scope`` decides (:func:`effective_budget_scope`): with
    ``tagged``, the spend carrying ``landing-zone=<name>`` AND ``application=<one of the applications>``; each
    application's own budget (``cost.per_application_budgets``) always counts ``landing-zone=<name>`` AND
    ``application=<it>``, so a neighbour's resource tagged ``application=<same name>`` does not count.
    """
    cost = config.cost
    apps = sorted(a.app.name for a in applications)

    def budget_filter(scope: str, names: list[str]) -> Document:
        tags = {naming.LANDING_ZONE_TAG_KEY: [config.name], **({naming.APPLICATION_TAG_KEY: names} if names else {})}
        return budget_filter_expression(scope=scope, account=account, tags=tags)

    out: dict[str, Any] = {
        "budget_filter": budget_filter(effective_budget_scope(config, applications), apps),
        "application_budget_filters": {app: budget_filter("tagged", [app]) for app in apps}
        if cost.per_application_budgets
        else {},
    }
    if not (cost.kill_switch and apps):
        return out
    deny_arns = [markers.KILL_SWITCH_POLICY_ARN]
    action_ids = {naming.budget_name(config.name): markers.budget_action_id()}
    if cost.per_application_budgets:
        deny_arns.append(markers.APPLICATION_KILL_SWITCH_POLICY_ARN)
        action_ids.update({naming.application_budget_name(config.name, a): markers.budget_action_id(a) for a in apps})
    out.update(
        kill_switch=kill_switch_policy(),
        budget_action_trust=budget_action_trust_policy(account=account),
        budget_action_execution=budget_action_execution_policy(
            kill_switch_policy_arns=deny_arns, invoker_role_arns=[markers.invoker_role_arn(a) for a in apps]
        ),
    )
    if cost.kill_switch_reset_principal_arns:
        out.update(
            kill_switch_reset_trust=kill_switch_reset_trust_policy(
                principal_arns=cost.kill_switch_reset_principal_arns
            ),
            kill_switch_reset=kill_switch_reset_policy(account=account, action_ids=action_ids),
        )
    return out


def build_policies(
    config: LandingZoneConfig,
    routing: RoutingDecision,
    catalog: Catalog,
    applications: tuple[ApplicationPlan, ...],
    *,
    scps: ScpSet | None,
) -> PolicySet:
    """Every document, once (``scps`` from :func:`scp_set`, built earlier because its size is a config check)."""
    name, region = config.name, config.home_region
    member_baseline = config.member_baseline.enabled
    # The account the per-account stacks deploy to; in the member baseline each StackSet instance's own.
    account = markers.ACCOUNT if member_baseline else config.deployment_account
    if member_baseline:
        endpoint_accounts: tuple[str, ...] = (markers.ACCOUNT,)
        organization_id = None  # each member's endpoints admit its own principals only
    else:
        endpoint_accounts = config.account_ids
        # the whole organization only where the configuration asks for it (network.endpoint_principals); an
        # organization ID given for other features (the member baseline, the Bedrock policy) admits nobody here
        organization_id = (
            config.organization.organization_id
            if config.organization and config.network.endpoint_principals == "organization"
            else None
        )

    invokers = {
        a.app.name: _invoker(a, config, routing, account=account, caller=account if member_baseline else None)
        for a in applications
    }
    purposes = KEY_PURPOSES_ALWAYS + (("secrets",) if config.self_hosting.enabled else ())
    rule_prefix = naming.detection_rule_prefix(name) if detection_on(config) else None
    stack_region, stack_account, stack_partition = markers.REGION, markers.ACCOUNT, markers.PARTITION
    flow_log_group = naming.flow_log_group_name(name)
    endpoints: dict[str, Document] = {
        service: endpoint_policy(
            service, routing, region=region, accounts=endpoint_accounts, organization_id=organization_id
        )
        for service in config.network.endpoints
    }
    # Every key policy names its own stack's account (resolved where the key is created): the workload keys in
    # the deployment account (or each StackSet member), the management-account logs key in the management account.
    keys = {
        p: key_policy(p, account=markers.ACCOUNT, region=region, name=name, event_rule_prefix=rule_prefix)
        for p in purposes
    }
    automation: dict[str, AutomationPolicies] = {}
    if config.model_access.accept_agreements:
        agreements = handler_policy(AGREEMENT_HANDLER_ACTIONS, sid="AcceptModelAgreements")
        automation["model-agreement"] = _automation(name, "model-agreement", agreements)
    if config.data_retention.mode is not None:
        retention = _with_saved_state(name, "data-retention", retention_handler_policy(config))
        automation["data-retention"] = _automation(name, "data-retention", retention)
    if activates_cost_allocation_tags(config, applications):
        tags = handler_policy(COST_ALLOCATION_HANDLER_ACTIONS, sid="ActivateCostAllocationTags")
        tags = _with_saved_state(name, "cost-allocation-tags", tags)
        automation["cost-allocation-tags"] = _automation(name, "cost-allocation-tags", tags)
    logging: dict[str, Document | None] = {"bucket": None, "trust": None, "role": None}
    if config.invocation_logging.enabled:
        handler = handler_policy(LOGGING_HANDLER_ACTIONS, sid="ManageInvocationLogging")
        handler["Statement"].append(
            {
                "Sid": "PassLoggingRoleToBedrock",
                "Effect": "Allow",
                "Action": "iam:PassRole",
                "Resource": markers.LOGGING_ROLE_ARN,
                "Condition": {"StringEquals": {"iam:PassedToService": "bedrock.amazonaws.com"}},
            }
        )
        if config.invocation_logging.take_over_existing:
            # the restore on delete passes the taken-over configuration's role, unknown before deploy: this account's
            handler["Statement"].append(
                {
                    "Sid": "PassTakenOverRoleToBedrock",
                    "Effect": "Allow",
                    "Action": "iam:PassRole",
                    "Resource": f"arn:{stack_partition}:iam::{stack_account}:role/*",
                    "Condition": {"StringEquals": {"iam:PassedToService": "bedrock.amazonaws.com"}},
                }
            )
        handler = _with_saved_state(name, "invocation-logging", handler)
        automation["invocation-logging"] = _automation(name, "invocation-logging", handler)
        log_group_name = naming.invocation_log_group_name(name)
        logging = {
            "bucket": invocation_log_bucket_policy(
                bucket_arn=markers.BUCKET_ARN,
                key_prefix=INVOCATION_LOG_KEY_PREFIX,
                account=stack_account,
                region=stack_region,
            ),
            "trust": bedrock_logging_trust_policy(account=stack_account, region=stack_region),
            "role": bedrock_logging_role_policy(
                log_streams_arn=arns.log_streams(stack_region, stack_account, log_group_name, stack_partition)
            ),
        }
    self_hosting = None
    if config.self_hosting.enabled:  # never in the member baseline: the deployment account's own stack
        self_hosting = SelfHostingPolicies(
            data_key=eks_data_key_policy(
                account=config.deployment_account,
                region=region,
                log_group_name=naming.eks_log_group_name(name),
            ),
            secrets_key_use=secrets_key_use_policy(key_arn=markers.SECRETS_KEY_ARN),
            s3_gateway=None
            if config.network.vpc_id
            else s3_gateway_policy(
                region=region,
                accounts=config.account_ids,
                partition="aws",
                custom_resource_responses=config.self_hosting.apply_manifests,
            ),
        )
    return PolicySet(
        boundary=permissions_boundary(config, routing, catalog),
        invokers=invokers,
        endpoints=endpoints,
        keys=keys,
        alerts_topic=alerts_topic_policy(
            topic_arn=markers.TOPIC_ARN,
            account=account,
            region=region,
            event_rule_prefix=rule_prefix,
            subscribers=config.cost.alert_subscriber_principal_arns,
            protocols=ALERT_PROTOCOLS,
        ),
        flow_logs=flow_log_role_policy(
            log_group_arn=arns.log_group(stack_region, stack_account, flow_log_group, stack_partition),
            log_streams_arn=arns.log_streams(stack_region, stack_account, flow_log_group, stack_partition),
        ),
        automation=automation,
        scps=scps,
        **_cost_policies(config, applications, account=account),
        invocation_log_bucket=logging["bucket"],
        invocation_logging_trust=logging["trust"],
        invocation_logging_role=logging["role"],
        self_hosting=self_hosting,
        guardrail_organization=_guardrail_organization(config),
        management_logs_key=_management_logs_key(config, applications),
        scp_contents=tuple(p.content for p in scps.policies) if scps is not None else (),
        detection=_detection(
            config, routing, catalog, endpoints=_checked_endpoints(endpoints, self_hosting), keys=keys
        ),
    )
