"""The plan's checks across keys and facts: every problem of a configuration that validated field by field."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata

from landing_zone.core import markers, naming
from landing_zone.core.applications import (
    ApplicationPlan,
    activates_cost_allocation_tags,
    cost_allocation_tags_stack,
    has_mantle_project,
    untagged_paths,
)
from landing_zone.core.catalog import Catalog, Model
from landing_zone.core.catalog.prices import PriceCatalog
from landing_zone.core.config import MAX_MONTHLY_USD, LandingZoneConfig
from landing_zone.core.routing import RoutingDecision
from landing_zone.cost.budget import MonthlyBudget
from landing_zone.cost.self_hosting import monthly_cost_line
from landing_zone.errors import Described, PricingError, Problem
from landing_zone.plan.detection import legacy_alarm_names, workload_forwarders
from landing_zone.plan.model import Plan
from landing_zone.plan.policies import detection_on

__all__ = [
    "GeneratedName",
    "blame_written_keys",
    "budget_problems",
    "budget_scope_problems",
    "per_request_guardrail_problems",
    "context_window_problems",
    "retention_problems",
    "generated_names",
    "name_problems",
    "plan_names",
    "self_hosting_problems",
    "service_tier_problems",
]

# Which models and Regions offer Priority and Flex: the table of this page (support is per model).
SERVICE_TIERS_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/service-tiers-inference.html"


def blame_written_keys(
    config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog, problems: list[Problem]
) -> list[Problem]:
    """Problems of the default applications (one per account, not written by the user) are about the keys the
    user did write: home_region, compliant_regions and models.  Said once, at home_region."""
    out, default_app_problem = [], None
    for problem in problems:
        if problem.path.startswith("applications (default"):
            default_app_problem = default_app_problem or problem
        else:
            out.append(problem)
    if default_app_problem is not None:
        model = catalog.resolve_model(config.models[0])
        reachable = sorted(
            {
                region
                for mr in routing.models
                if model is not None and mr.model.id == model.id
                for route in mr.compliant_routes
                if route.endpoint == "runtime"
                for region in route.source_regions
            }
        )
        where = f" (its compliant runtime paths are callable from {', '.join(reachable)})" if reachable else ""
        out.append(
            Problem(
                "home_region",
                config.home_region,
                f"{default_app_problem.allowed}; `applications` is omitted, so every account gets a default application "
                f"that calls models[0] ({config.models[0]}) from home_region{where}: choose such a home_region, or list "
                "`applications` with a model that is reachable from this one",
            )
        )
    return out


def context_window_problems(config: LandingZoneConfig, models: tuple[Model, ...]) -> list[Problem]:
    """A request holds its prompt and its completion: together at most the largest configured context window."""
    windows = [m.context_window_tokens for m in models if m.context_window_tokens]
    if not windows:
        return []
    w = config.cost.workload
    total = w.input_tokens_per_request + w.output_tokens_per_request
    if total <= max(windows):
        return []
    return [
        Problem(
            "cost.workload.input_tokens_per_request",
            w.input_tokens_per_request,
            f"with output_tokens_per_request {w.output_tokens_per_request:g} a request would hold {total:,.0f} tokens, "
            f"more than the largest context window of the configured models ({max(windows):,} tokens): lower them",
        )
    ]


def retention_problems(config: LandingZoneConfig, models: tuple[Model, ...]) -> list[Problem]:
    """``data_retention.mode`` that blocks *every* allowed model (each model's known allowed modes leave it out) is a
    contradiction: the landing zone would allow models Bedrock refuses to serve ("If your effective mode is not in a
    model's allowed_modes ... requests to it will be blocked", data-retention.html).  One model blocked is the review's
    advisory ``LZ-RETENTION-BLOCKS-MODEL``; unknown modes are a warning (``retention_warning``)."""
    mode = config.data_retention.mode
    known = [m for m in models if m.data_retention_modes is not None and m.data_retention_modes.allowed is not None]
    if mode is None or not models or len(known) < len(models):
        return []
    if not all(m.data_retention_modes is not None and m.data_retention_modes.blocks(mode) for m in known):
        return []
    allowed = sorted({a for m in known for a in (m.retention_modes or ())} | {"inherit"})
    return [
        Problem(
            "data_retention.mode",
            mode,
            f"blocks every allowed model ({', '.join(m.id for m in models)}: their allowed modes leave it out, "
            f"https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html); allowed here: "
            f"{', '.join(allowed)}",
        )
    ]


def service_tier_problems(config: LandingZoneConfig, models: tuple[Model, ...]) -> list[Problem]:
    """An allowed service tier that the catalog marks as not offered for an allowed model in any compliant Region:
    the guardrails would allow (and the cost model price) requests Bedrock cannot serve.  Unknown is a warning
    (:func:`landing_zone.plan.warnings.service_tier_warnings`)."""
    problems = []
    for i, tier in enumerate(config.policy_guardrails.allowed_service_tiers):
        for m in models:
            if m.tier_status(tier, config.compliant_regions) != "not-offered":
                continue
            offer = m.service_tiers
            assert offer is not None  # not-offered is only said by catalog data
            where = f" in {', '.join(offer.regions)}" if offer.regions is not None else ""
            problems.append(
                Problem(
                    f"policy_guardrails.allowed_service_tiers[{i}]",
                    tier,
                    f"a tier {m.id} offers in a compliant Region ({', '.join(config.compliant_regions)}); the catalog "
                    f"gives it {', '.join(('default', *(offer.offered or ())))}{where} "
                    f"({'verified' if offer.verified else 'unverified'}, {offer.source}; {SERVICE_TIERS_DOC}): remove "
                    f"{tier} or the model",
                )
            )
    return problems


def budget_problems(config: LandingZoneConfig, budget: MonthlyBudget) -> list[Problem]:
    """The computed monthly budget must be a positive amount AWS Budgets accepts (at most MAX_MONTHLY_USD)."""
    if budget.explicit:
        return []  # bounded by the field itself
    if budget.usd > MAX_MONTHLY_USD:
        return [
            Problem(
                "cost.workload",
                Described(f"a workload that costs {budget.usd / budget.headroom:,.0f} USD/month"),
                f"the computed monthly budget ({budget.usd:,.0f} USD with budget_headroom {budget.headroom:g}) exceeds "
                f"{MAX_MONTHLY_USD:,} USD, the most the landing zone sets: check requests_per_day and the tokens per "
                "request for a typo, or set cost.monthly_budget_usd",
            )
        ]
    if budget.usd < 0.01:
        return [
            Problem(
                "cost.workload.requests_per_day",
                config.cost.workload.requests_per_day,
                "the configured workload costs nothing, so the computed monthly budget would be 0 USD (AWS Budgets needs "
                "an amount above 0): give the expected workload, or set cost.monthly_budget_usd",
            )
        ]
    return []


def budget_scope_problems(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> list[Problem]:
    """``budget_scope: tagged`` counts only the spend that carries the landing zone's cost-allocation tags
    (application profiles, Mantle Projects).  A kill switch filtered on them can never fire on spend through paths
    that carry none (Mantle's default project, batch jobs: :func:`untagged_paths`), so a configuration whose
    invokers can use those paths is refused (``auto`` falls back to ``account`` there, with a warning)."""
    if config.cost.budget_scope != "tagged" or not config.cost.kill_switch:
        return []
    untagged = [f"{a.app.name} ({', '.join(paths)})" for a in applications if (paths := untagged_paths(a, config))]
    if not untagged:
        return []
    return [
        Problem(
            "cost.budget_scope",
            "tagged",
            "the budget and its kill switch would count only tagged spend (application inference profiles, Mantle "
            f"Projects), but these applications can also spend through untagged paths: {'; '.join(untagged)}. Give "
            "each application a runtime path or its own Mantle Project (access.mantle_projects, where home_region "
            "has AWS::BedrockMantle::Project) and no batch_role_arns, or set "
            "cost.budget_scope: account (everything billed to the deployment account, other teams' spend included)",
        )
    ]


def per_request_guardrail_problems(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> list[Problem]:
    """Per-request guardrail enforcement grants only calls that carry bedrock:GuardrailIdentifier: Mantle requests
    cannot, so an application with no runtime path would be granted nothing."""
    guardrail = config.content_guardrail
    if not (guardrail.enabled and guardrail.enforcement == "per-request"):
        return []
    mantle_only = [a.app.name for a in applications if a.route is None]
    if not mantle_only:
        return []
    return [
        Problem(
            "content_guardrail.enforcement",
            "per-request",
            f"applications {', '.join(mantle_only)} reach their model through Mantle only, whose requests cannot carry "
            "bedrock:GuardrailIdentifier, so per-request enforcement would grant them nothing: use enforcement: "
            "account, or give them a model with a runtime path",
        )
    ]


def kubectl_layer_distribution(kubernetes_version: str) -> str:
    """The PyPI distribution of the kubectl Lambda layer for a Kubernetes version (``1.34`` -> ``...-v34``)."""
    return f"aws-cdk.lambda-layer-kubectl-v{kubernetes_version.split('.')[1]}"


def self_hosting_problems(config: LandingZoneConfig, prices: PriceCatalog) -> list[Problem]:
    """What the EKS stack would need but the catalog or the environment does not have (empty when disabled)."""
    sh = config.self_hosting
    if not sh.enabled:
        return []
    problems = []
    try:
        monthly_cost_line(config, prices)
    except PricingError as exc:
        problems.append(Problem("self_hosting.hourly_usd", sh.hourly_usd, str(exc)))
    option = prices.self_hosting.get(sh.instance_type)
    if sh.efa and (option is None or option.network_cards is None):
        problems.append(
            Problem(
                "self_hosting.efa",
                True,
                f"EFA needs the number of network cards of {sh.instance_type}, which core/catalog/prices.yaml does not "
                "give: add self_hosting.<type>.network_cards there (or through a catalog overlay), or set efa: false",
            )
        )
    if sh.apply_manifests:
        distribution = kubectl_layer_distribution(sh.kubernetes_version)
        try:
            metadata.distribution(distribution)  # not imported: the plan never loads aws_cdk
        except metadata.PackageNotFoundError:
            problems.append(
                Problem(
                    "self_hosting.apply_manifests",
                    True,
                    f"needs the kubectl layer for Kubernetes {sh.kubernetes_version}: pip install {distribution} "
                    "(or set apply_manifests: false and apply cdk.out/manifests/ yourself)",
                )
            )
    return problems


# -- generated names -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GeneratedName:
    """A name the landing zone gives a resource (built by :mod:`landing_zone.core.naming`), the limit that applies
    (a key of core/catalog/limits.yaml), and the config keys whose values it contains, the most specific last."""

    name: str
    limit: str
    what: str
    fields: tuple[tuple[str, str], ...]  # (config key, its value)


# The characters a service accepts in a name, by the limit that applies to it (core/catalog/limits.yaml gives each
# page): S3 general purpose buckets take lowercase letters, digits, '.' and '-', beginning and ending with a letter or
# digit; Bedrock's CreateInferenceProfile takes ([0-9a-zA-Z:.][ _-]?)+, so no two '-' in a row.
_NAME_CHARACTERS = {
    "s3_bucket_name_max_length": (
        re.compile(r"^[a-z0-9][a-z0-9.-]*[a-z0-9]$"),
        "S3 bucket names hold only lowercase letters, digits, '.' and '-', and begin and end with a letter or digit",
    ),
    "bedrock_inference_profile_name_max_length": (
        re.compile(r"^(?:[0-9a-zA-Z:.][ _-]?)+$"),
        "Bedrock inference profile names hold letters, digits, ':' and '.', each followed by at most one ' ', '_' or "
        "'-' (no '--')",
    ),
}


def _application_fields(config: LandingZoneConfig) -> dict[str, tuple[str, str]]:
    """The config key each application's name comes from: applications[i].name, or accounts[i].name for the default
    applications (one per account); the member baseline's single default application comes from no key."""
    if config.applications:
        return {a.name: (f"applications[{i}].name", a.name) for i, a in enumerate(config.applications)}
    if config.member_baseline.enabled:
        return {}
    fields: dict[str, tuple[str, str]] = {}
    for i, account in enumerate(config.accounts):
        fields.setdefault(account.name, (f"accounts[{i}].name", account.name))
    return fields


class _Names:
    """Collects the generated names of one configuration with the limit and the config fields to shorten."""

    def __init__(self, lz: str) -> None:
        self.lz = lz
        self.base: tuple[tuple[str, str], ...] = (("name", lz),)
        self.out: list[GeneratedName] = []

    def add(self, name: str, limit: str, what: str, fields: tuple[tuple[str, str], ...] | None = None) -> None:
        # a retained resource's name ends with the stack's suffix (8 characters known at deploy): measured with a sample
        name = name.replace(markers.STACK_SUFFIX, naming.STACK_SUFFIX_SAMPLE)
        self.out.append(GeneratedName(name, limit, what, self.base if fields is None else fields))


def _stack_and_network_names(config: LandingZoneConfig, n: _Names) -> None:
    lz = n.lz
    stacks = ["keys", "network", "access", "cost"] + (["self-hosting"] if config.self_hosting.enabled else [])
    if config.member_baseline.enabled:
        stacks = ["rollout"]
    if config.organization is not None:
        stacks.append("guardrails")
    for part in stacks:
        n.add(naming.stack_name(lz, part), "cfn_stack_name_max_length", "CloudFormation stack name")
    purposes = ["logs", "alerts"] + (["secrets"] if config.self_hosting.enabled else [])
    for purpose in purposes:
        n.add(naming.key_alias(lz, purpose), "kms_alias_name_max_length", "KMS alias")
    n.add(naming.flow_log_group_name(lz), "log_group_name_max_length", "log group name")
    n.add(naming.flow_logs_role_name(lz), "iam_role_name_max_length", "IAM role name")
    n.add(naming.flow_logs_policy_name(lz), "iam_policy_name_max_length", "IAM policy name")
    n.add(naming.invoker_boundary_policy_name(lz), "iam_policy_name_max_length", "IAM policy name")
    if config.content_guardrail.enabled:
        n.add(naming.content_guardrail_name(lz), "bedrock_guardrail_name_max_length", "Bedrock guardrail name")


def _application_names(config: LandingZoneConfig, applications: Sequence[ApplicationPlan], n: _Names) -> None:
    lz = n.lz
    app_fields = _application_fields(config)
    for app in applications:
        name = app.app.name
        fields = (*n.base, app_fields[name]) if name in app_fields else n.base
        n.add(naming.invoker_role_name(lz, name), "iam_role_name_max_length", "IAM role name", fields)
        n.add(naming.invoker_policy_name(lz, name), "iam_policy_name_max_length", "IAM policy name", fields)
        if config.cost.per_application_budgets:
            n.add(naming.application_budget_name(lz, name), "budget_name_max_length", "budget name", fields)
        if has_mantle_project(app, config):
            n.add(naming.mantle_project_name(lz, name), "mantle_project_name_max_length", "Mantle project name", fields)
        if app.route is not None:
            n.add(
                naming.application_profile_name(lz, name),
                "bedrock_inference_profile_name_max_length",
                "application inference profile name",
                fields,
            )


def _logging_and_automation_names(
    config: LandingZoneConfig, applications: Sequence[ApplicationPlan], n: _Names
) -> None:
    lz = n.lz
    handlers = []
    if config.invocation_logging.enabled:
        n.add(naming.access_logs_bucket_name(lz), "s3_bucket_name_max_length", "S3 bucket name")
        n.add(naming.invocation_logs_bucket_name(lz), "s3_bucket_name_max_length", "S3 bucket name")
        n.add(naming.invocation_log_group_name(lz), "log_group_name_max_length", "log group name")
        n.add(naming.invocation_logging_role_name(lz), "iam_role_name_max_length", "IAM role name")
        n.add(naming.invocation_logging_policy_name(lz), "iam_policy_name_max_length", "IAM policy name")
        handlers.append("invocation-logging")
    if config.model_access.accept_agreements:
        handlers.append("model-agreement")
    if config.data_retention.mode is not None:
        handlers.append("data-retention")
    if activates_cost_allocation_tags(config, applications):
        handlers.append("cost-allocation-tags")
    if cost_allocation_tags_stack(config, applications) == "guardrails":
        n.add(naming.management_logs_key_alias(lz), "kms_alias_name_max_length", "KMS alias")
    for handler in handlers:
        n.add(naming.automation_log_group_name(lz, handler), "log_group_name_max_length", "log group name")
        n.add(naming.automation_provider_log_group_name(lz, handler), "log_group_name_max_length", "log group name")
        n.add(naming.automation_role_name(lz, handler), "iam_role_name_max_length", "IAM role name")
        n.add(naming.automation_policy_name(lz, handler), "iam_policy_name_max_length", "IAM policy name")
        n.add(naming.automation_function_name(lz, handler), "lambda_function_name_max_length", "Lambda function name")
        short = naming.AUTOMATION_HANDLERS[handler]
        n.add(naming.automation_provider_role_name(lz, short), "iam_role_name_max_length", "IAM role name")
        n.add(naming.automation_provider_policy_name(lz, handler), "iam_policy_name_max_length", "IAM policy name")
        n.add(
            naming.automation_provider_function_name(lz, handler),
            "lambda_function_name_max_length",
            "Lambda function name",
        )


def _cost_names(
    config: LandingZoneConfig, n: _Names, alarm_suffixes: Sequence[str], dashboard_name: str | None
) -> None:
    lz = n.lz
    n.add(naming.alerts_topic_name(lz), "sns_topic_name_max_length", "SNS topic name")
    n.add(naming.alerts_topic_name(lz), "sns_display_name_max_length", "SNS topic display name")
    n.add(naming.budget_name(lz), "budget_name_max_length", "budget name")
    if config.cost.kill_switch:
        n.add(naming.kill_switch_policy_name(lz), "iam_policy_name_max_length", "IAM policy name")
        n.add(naming.budget_action_role_name(lz), "iam_role_name_max_length", "IAM role name")
        n.add(naming.budget_action_policy_name(lz), "iam_policy_name_max_length", "IAM policy name")
        if config.cost.per_application_budgets:
            n.add(naming.application_kill_switch_policy_name(lz), "iam_policy_name_max_length", "IAM policy name")
        if config.cost.kill_switch_reset_principal_arns:
            n.add(naming.kill_switch_reset_role_name(lz), "iam_role_name_max_length", "IAM role name")
            n.add(naming.kill_switch_reset_policy_name(lz), "iam_policy_name_max_length", "IAM policy name")
    if config.cost.anomaly_monitor_arn is None:  # else the account's own monitor is reused
        n.add(naming.anomaly_monitor_name(lz), "cost_anomaly_name_max_length", "cost anomaly monitor name")
    n.add(naming.anomaly_subscription_name(lz), "cost_anomaly_name_max_length", "cost anomaly subscription name")
    for suffix in alarm_suffixes:
        n.add(naming.alarm_name(lz, suffix), "cloudwatch_alarm_name_max_length", "CloudWatch alarm name")
    if dashboard_name is not None:
        n.add(dashboard_name, "cloudwatch_dashboard_name_max_length", "CloudWatch dashboard name")


def _organization_and_self_hosting_names(config: LandingZoneConfig, n: _Names, scp_names: Sequence[str]) -> None:
    lz = n.lz
    for scp_name in scp_names:
        n.add(scp_name, "scp_name_max_length", "SCP name")
    if config.organization is not None and config.content_guardrail.organization_policy:
        # CreatePolicy's Name limit is the same for every policy type (the SCP entry's source)
        n.add(naming.bedrock_policy_name(lz), "scp_name_max_length", "Organizations policy name")
    if config.member_baseline.enabled and config.organization is not None:
        n.add(naming.member_baseline_stack_set_name(lz), "cfn_stack_set_name_max_length", "StackSet name")
        n.add(config.asset_bucket_name(config.home_region), "s3_bucket_name_max_length", "S3 bucket name")
    if config.self_hosting.enabled:
        n.add(naming.eks_cluster_name(lz), "eks_cluster_name_max_length", "EKS cluster name")
        n.add(naming.eks_log_group_name(lz), "log_group_name_max_length", "log group name")
        n.add(naming.eks_key_alias(lz), "kms_alias_name_max_length", "KMS alias")
        n.add(naming.eks_cluster_role_name(lz), "iam_role_name_max_length", "IAM role name")
        n.add(naming.eks_secrets_policy_name(lz), "iam_policy_name_max_length", "IAM policy name")
        for kind in ("gpu", "system"):
            n.add(naming.eks_node_role_name(lz, kind), "iam_role_name_max_length", "IAM role name")
        if config.self_hosting.apply_manifests:
            for kind in ("provider", "handler"):
                n.add(naming.kubectl_role_name(lz, kind), "iam_role_name_max_length", "IAM role name")


def _detection_names(
    config: LandingZoneConfig, n: _Names, rule_names: Sequence[str], alarm_names: Sequence[str]
) -> None:
    """The detection stacks (``detection_on``), their forwarder roles and policies (the central bus's with
    ``detection.central_event_bus_arn``), each rule's name and the
    legacy-model alarms'."""
    if not detection_on(config):
        return
    lz = n.lz
    for rule_name in rule_names:
        n.add(rule_name, "eventbridge_rule_name_max_length", "EventBridge rule name")
    for alarm in alarm_names:
        n.add(alarm, "cloudwatch_alarm_name_max_length", "CloudWatch alarm name")
    if config.member_baseline.enabled:  # the rules and alarms are in the StackSet's template: no stack, no forwarder
        return
    forwarders = workload_forwarders(config)
    parts = ["detection", *(f.part for f in forwarders)]
    parts += ["detection-management"] if config.organization is not None else []
    for part in parts:
        n.add(naming.stack_name(lz, part), "cfn_stack_name_max_length", "CloudFormation stack name")
    roles = {f.role_name for f in forwarders}
    roles |= {naming.detection_forwarder_role_name(lz)} if config.organization is not None else set()
    roles |= {naming.detection_central_forwarder_role_name(lz)} if config.detection.central_event_bus_arn else set()
    for role in sorted(roles):
        n.add(role, "iam_role_name_max_length", "IAM role name")
        n.add(role, "iam_policy_name_max_length", "IAM policy name")


def generated_names(
    config: LandingZoneConfig,
    applications: Sequence[ApplicationPlan],
    *,
    scp_names: Sequence[str] = (),
    alarm_suffixes: Sequence[str] = (),
    dashboard_name: str | None = None,
    detection_rule_names: Sequence[str] = (),
    legacy_alarm_names: Sequence[str] = (),
) -> list[GeneratedName]:
    """Every name the stacks set explicitly for this configuration, built by the functions the stacks call."""
    n = _Names(config.name)
    _detection_names(config, n, detection_rule_names, legacy_alarm_names)
    _stack_and_network_names(config, n)
    _application_names(config, applications, n)
    _logging_and_automation_names(config, applications, n)
    _cost_names(config, n, alarm_suffixes, dashboard_name)
    _organization_and_self_hosting_names(config, n, scp_names)
    return n.out


def name_problems(names: Sequence[GeneratedName], catalog: Catalog) -> list[Problem]:
    """Generated names longer than their service allows (and S3 bucket names AWS would refuse): one problem per
    config key, naming its longest generated name, that name's length, the limit and the key to shorten."""
    worst: dict[str, tuple[int, GeneratedName, int]] = {}
    for generated in names:
        limit = catalog.limit(generated.limit)
        over = len(generated.name) - limit
        key = generated.fields[-1][0]
        if over > 0 and (key not in worst or over > worst[key][0]):
            worst[key] = (over, generated, limit)
    problems = []
    for key, (over, generated, limit) in worst.items():
        value = generated.fields[-1][1]
        others = [f for f, _ in generated.fields[:-1]]
        also = f" (or {' or '.join(others)})" if others else ""
        problems.append(
            Problem(
                key,
                value,
                f"the landing zone would set the {generated.what} {generated.name!r} ({len(generated.name)} "
                f"characters), longer than the {limit} AWS allows (core/catalog/limits.yaml {generated.limit}): "
                f"shorten {key}{also} by at least {over} character(s)",
            )
        )
    for generated in names:
        pattern, rule = _NAME_CHARACTERS.get(generated.limit, (None, ""))
        if pattern is not None and not pattern.match(generated.name):
            key, value = generated.fields[-1]
            problems.append(
                Problem(
                    key,
                    value,
                    f"the landing zone would set the {generated.what} {generated.name!r}, which AWS refuses: {rule}",
                )
            )
    return problems


def plan_names(plan: Plan) -> list[GeneratedName]:
    """Every name the stacks of ``plan`` set explicitly (what :func:`name_problems` checked while it was built)."""
    config = plan.config
    return generated_names(
        config,
        plan.applications,
        scp_names=plan.policies.scp_set.names if plan.policies.scps is not None else (),
        alarm_suffixes=[a.name_suffix for a in (*plan.cost_alarms.alarms, *plan.quota_alarms.specs)],
        dashboard_name=plan.dashboard.name,
        detection_rule_names=_event_rule_names(plan),
        legacy_alarm_names=list(legacy_alarm_names(config, plan.routing).values()),
    )


def _event_rule_names(plan: Plan) -> list[str]:
    """The detection stack's EventBridge rule names: the detection rules and the Config compliance alert."""
    detection = plan.policies.detection
    if detection is None:
        return []
    alert = [detection.compliance_alert_name] if detection.compliance_alert_name is not None else []
    return [*detection.rule_names.values(), *alert]
