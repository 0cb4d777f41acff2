"""CloudFormation template limits, checked from the plan before anything is synthesized.

The CDK stops a synth that puts more than 500 resources into one stack with a jsii traceback
(``TooManyResourcesInStack``); CloudFormation refuses a template with more than 200 outputs only at deploy
time.  Both grow with the number of applications, so :func:`stack_limit_problems` counts, for the templates
that grow, what the stacks will create, and turns "over the limit" into a configuration error with the
numbers.  The other templates (keys, network, guardrails, self-hosting, rollout) have a fixed size.

Counts per template, N = number of applications (``tests/cdk/test_stack_limits.py`` compares them with real
synths of 1, 10 and 50 applications and of every example):

``<name>-access`` (per-account mode)
    resources = 1 permissions boundary + 17 invocation logging (if enabled) + 3 / 2 content guardrail
                (account / per-request enforcement) + 10 model agreements (if accepted); in the StackSet
                template one fewer for each custom resource (no handler permission)
                + 10 cost-allocation-tag activation (``cost.activate_cost_allocation_tags``; without an organization only:
                with one, the guardrails stack activates them in the management account)
                + 10 data retention mode (``data_retention.mode`` set; the custom resource and its framework)
                + 3 per application (inference profile, invoker role, invoke policy); 2 for a Mantle-only one;
                + 1 Mantle Project per application with a Mantle path where CloudFormation has the type
                (``access.mantle_projects``)
    outputs   = 2 (log bucket and log group, if logging) + per application: 2 (profile ARN, role ARN)
                + 1 export of the profile ARN (the cost stack's spend alarms) + 2 exports of the role ARN and
                name (the cost stack's kill switch, if on); a Mantle-only application has no profile ARN
                + 1 export of the Mantle Project's ID (its spend alarm) per project
                + 1 export per deploy-time value the account-settings Config rule expects (``detection.config_rules``:
                the invocation-log bucket, log group and role, the guardrail's ID and version, as configured)
``<name>-cost`` (per-account mode)
    resources = 6 (alerts topic and policy, budget, anomaly monitor and subscription, operations dashboard; 5 with
                ``cost.anomaly_monitor_arn``: the account's monitor is reused)
                + 4 kill switch (if on; + 1 application deny with per-application budgets, + 2 reset role and
                policy with ``cost.kill_switch_reset_principal_arns``) + 1 per alert e-mail and per ``cost.alert_recipients``
                entry + the spend alarms + the
                Mantle usage alarms + the quota headroom alarms (one alarm per ``metric_math_max_metrics`` metrics;
                every application profile is a source)
                + per application with ``cost.per_application_budgets``: 1 budget + 1 budget action (kill switch on)
                + 1 spend alarm per Mantle Project (on its Project series)
    outputs   = 5 + 1 export of the alerts topic's ARN (the detection stack's rules alert it; detection on)
the member-baseline StackSet template
    resources = 4 keys + network (new VPC: 9 + 3 per AZ + 1 per endpoint; imported: 5 + 1 per endpoint)
                + access and cost as above (no alert e-mails) + 3 optional e-mail subscriptions
                + detection on: 1 EventBridge rule per member rule and 1 legacy-model alarm per model ID
    outputs   = 2 per application + 2 (logging) + 1 per endpoint + 3 (alerts topic, alarm coverage, dashboard URL)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from landing_zone.core import markers
from landing_zone.core.applications import ApplicationPlan, cost_allocation_tags_stack, has_mantle_project
from landing_zone.core.catalog import Catalog
from landing_zone.core.config import LandingZoneConfig
from landing_zone.cost.alarms import CostAlarmPlan
from landing_zone.errors import Described, Problem
from landing_zone.plan.policies import detection_on
from landing_zone.policies.config_checks import account_settings_parameters

__all__ = ["TemplateFootprint", "stack_limit_problems", "template_footprints"]

# What each part adds to a template (see the module docstring).
BOUNDARY_RESOURCES = 1
LOGGING_RESOURCES = 16
# Per-account stacks only: the CDK Provider grants its (immutable, pre-created) framework role the invoke through
# the handler's resource policy, one AWS::Lambda::Permission per custom resource; StackSet templates have none.
HANDLER_PERMISSION = 1
LOGGING_OUTPUTS = 2
GUARDRAIL_RESOURCES = {"account": 3, "per-request": 2}
AGREEMENTS_RESOURCES = 9
COST_ALLOCATION_RESOURCES = 9  # the custom-resource framework's parts, as for the agreements
DATA_RETENTION_RESOURCES = 9  # data_retention.mode: the custom resource and its framework parts, as for the agreements
APPLICATION_RESOURCES = 3
APPLICATION_OUTPUTS = 2
PROFILE_EXPORTS = 1
KILL_SWITCH_EXPORTS = 2
COST_BASE_RESOURCES = 6  # topic, topic policy, budget, anomaly monitor and subscription, dashboard
KILL_SWITCH_RESOURCES = 4
# cost.per_application_budgets: the applications' own deny policy; cost.kill_switch_reset_principal_arns: the reset
# role and its managed policy
APPLICATION_KILL_SWITCH_RESOURCES = 1
KILL_SWITCH_RESET_RESOURCES = 2
KEYS_RESOURCES = 4
# a new VPC: + the endpoint subnets' tagged network ACL and its 3 entries; per AZ: + the subnet's ACL association
NEW_VPC_RESOURCES, PER_AZ_RESOURCES, IMPORTED_VPC_RESOURCES = 13, 4, 5
MEMBER_EMAIL_SUBSCRIPTIONS = 3
MEMBER_COST_OUTPUTS = 3
COST_OUTPUTS = 5
DETECTION_TOPIC_EXPORT = 1


@dataclass(frozen=True)
class TemplateFootprint:
    """What one template will hold: resources and outputs, and what each application adds to them."""

    template: str
    resources: int
    outputs: int
    resources_per_application: float
    outputs_per_application: float


def _alarm_counts(config: LandingZoneConfig, catalog: Catalog, cost_alarms: CostAlarmPlan) -> tuple[int, int, float]:
    """(spend alarms, Mantle usage alarms, spend alarms each application adds): the plan's alarms as built, and
    the share of an alarm one application-profile source takes (0 when profiles are not sources of their own)."""
    per_profile = cost_alarms.metrics_per_profile
    limit = catalog.limit("metric_math_max_metrics")
    per_app = 1 / (limit // per_profile) if per_profile else 0.0
    return len(cost_alarms.spend), len(cost_alarms.mantle_usage) + len(cost_alarms.application_spend), per_app


def _kill_switch_resources(cfg: LandingZoneConfig) -> int:
    return (
        KILL_SWITCH_RESOURCES
        + (APPLICATION_KILL_SWITCH_RESOURCES if cfg.cost.per_application_budgets else 0)
        + (KILL_SWITCH_RESET_RESOURCES if cfg.cost.kill_switch_reset_principal_arns else 0)
    )


def _access_fixed_resources(cfg: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> int:
    """The access template's resources that do not grow with the applications."""
    logging = cfg.invocation_logging.enabled
    permission = 0 if cfg.member_baseline.enabled else HANDLER_PERMISSION
    return (
        BOUNDARY_RESOURCES
        + (LOGGING_RESOURCES + permission if logging else 0)
        + (GUARDRAIL_RESOURCES[cfg.content_guardrail.enforcement] if cfg.content_guardrail.enabled else 0)
        + (AGREEMENTS_RESOURCES + permission if cfg.model_access.accept_agreements else 0)
        + (COST_ALLOCATION_RESOURCES + permission if cost_allocation_tags_stack(cfg, applications) == "access" else 0)
        + (DATA_RETENTION_RESOURCES + permission if cfg.data_retention.mode is not None else 0)
    )


def _network_resources(cfg: LandingZoneConfig) -> int:
    """The member baseline's network: an imported VPC's endpoints, or a new VPC with its per-AZ resources."""
    net = cfg.network
    endpoints = len(net.endpoints)
    if net.vpc_id:
        return IMPORTED_VPC_RESOURCES + endpoints
    return NEW_VPC_RESOURCES + PER_AZ_RESOURCES * (len(net.availability_zones) or net.az_count) + endpoints


def template_footprints(
    config: LandingZoneConfig,
    catalog: Catalog,
    applications: Sequence[ApplicationPlan],
    cost_alarms: CostAlarmPlan,
    *,
    quota_alarms: int = 0,
    member_detection: int = 0,
) -> tuple[TemplateFootprint, ...]:
    """The templates that grow with the configuration, with their resource and output counts (``member_detection``:
    the detection rules and alarms of the member baseline's template, ``plan.detection.member_detection_resources``)."""
    cfg = config
    n = len(applications)
    kill_switch = cfg.cost.kill_switch and n > 0
    logging = cfg.invocation_logging.enabled
    access_fixed = _access_fixed_resources(cfg, applications)
    spend_alarms, mantle_alarms, alarms_per_app = _alarm_counts(cfg, catalog, cost_alarms)
    per_app_budget = (1 + (1 if kill_switch else 0)) if cfg.cost.per_application_budgets else 0
    cost_fixed = (
        COST_BASE_RESOURCES
        - (1 if cfg.cost.anomaly_monitor_arn else 0)
        + (_kill_switch_resources(cfg) if kill_switch else 0)
        + spend_alarms
        + mantle_alarms
        + quota_alarms
        + per_app_budget * n
    )
    mantle_only = sum(1 for a in applications if a.mantle_only)
    projects = sum(1 for a in applications if has_mantle_project(a, cfg))
    access_resources = access_fixed + APPLICATION_RESOURCES * n - mantle_only + projects  # no profile; projects
    app_resources = APPLICATION_RESOURCES + (1 if projects else 0)
    if not cfg.member_baseline.enabled:
        per_app_outputs = APPLICATION_OUTPUTS + PROFILE_EXPORTS + (KILL_SWITCH_EXPORTS if kill_switch else 0)
        outputs = (LOGGING_OUTPUTS if logging else 0) + per_app_outputs * n - (1 + PROFILE_EXPORTS) * mantle_only
        outputs += projects  # each project's ID is exported to the cost stack's spend alarm on its Project series
        outputs += _account_settings_exports(cfg)
        per_project = 1 if projects else 0  # its spend alarm; its ID export
        return (
            TemplateFootprint(
                f"{cfg.name}-access", access_resources, outputs, app_resources, per_app_outputs + per_project
            ),
            TemplateFootprint(
                f"{cfg.name}-cost",
                cost_fixed + len(cfg.cost.alert_emails) + len(cfg.cost.alert_recipients),
                COST_OUTPUTS + (DETECTION_TOPIC_EXPORT if detection_on(cfg) else 0),
                alarms_per_app + per_app_budget + per_project,
                0,
            ),
        )
    endpoints = len(cfg.network.endpoints)
    network = _network_resources(cfg)
    resources = KEYS_RESOURCES + network + access_resources + cost_fixed + MEMBER_EMAIL_SUBSCRIPTIONS + member_detection
    resources += len(cfg.cost.alert_recipients)  # every member subscribes them too
    outputs = (
        APPLICATION_OUTPUTS * n - mantle_only + (LOGGING_OUTPUTS if logging else 0) + endpoints + MEMBER_COST_OUTPUTS
    )
    return (
        TemplateFootprint(
            f"{cfg.name}-rollout member-baseline StackSet",
            resources,
            outputs,
            app_resources + alarms_per_app + per_app_budget,
            APPLICATION_OUTPUTS,
        ),
    )


def stack_limit_problems(
    config: LandingZoneConfig,
    catalog: Catalog,
    applications: Sequence[ApplicationPlan],
    cost_alarms: CostAlarmPlan,
    *,
    quota_alarms: int = 0,
    member_detection: int = 0,
) -> list[Problem]:
    """A problem per template over CloudFormation's resource or output limit, blaming the key that the user
    wrote (``applications``, or ``accounts`` when every account gets a default application)."""
    cfg = config
    max_resources = catalog.limit("cfn_max_resources_per_stack")
    max_outputs = catalog.limit("cfn_max_outputs_per_stack")
    n = len(applications)
    if cfg.applications:
        key, got = "applications", Described(f"{n} applications")
    else:
        key, got = (
            "accounts",
            Described(f"{len(cfg.accounts)} accounts, each with a default application (`applications` is omitted)"),
        )
    over: list[str] = []
    fits: list[int] = []
    for fp in template_footprints(
        config, catalog, applications, cost_alarms, quota_alarms=quota_alarms, member_detection=member_detection
    ):
        counts = []
        if fp.resources > max_resources:
            counts.append(
                f"{fp.resources} resources (CloudFormation allows {max_resources} per stack; each "
                f"application adds {fp.resources_per_application:g})"
            )
        if fp.outputs > max_outputs:
            counts.append(
                f"{fp.outputs} outputs (CloudFormation allows {max_outputs} per template; each application "
                f"adds {fp.outputs_per_application:g})"
            )
        if counts:
            over.append(f"the {fp.template} template would hold {' and '.join(counts)}")
        fits.append(_applications_that_fit(fp, n, max_resources, max_outputs))
    if not over:
        return []
    fix = (
        "roll the baseline out with member_baseline.enabled (one StackSet: the applications are a template, the "
        "accounts only parameter overrides), or configure fewer applications"
        if not cfg.member_baseline.enabled
        else "configure fewer applications (every application exists in every member account), or split them "
        "across landing zones with different names"
    )
    return [Problem(key, got, f"{'; '.join(over)}; at most {min(fits)} application(s) fit: {fix}")]


def _account_settings_exports(config: LandingZoneConfig) -> int:
    """The access stack's exports the detection stack imports for the account-settings Config rule: one per marker of
    its parameters (none without ``detection.config_rules`` or without detection)."""
    if not (detection_on(config) and config.detection.config_rules_on(config.organization is not None)):
        return 0
    return len(markers.markers_in(account_settings_parameters(config, key_prefix="")))


def _applications_that_fit(fp: TemplateFootprint, n: int, max_resources: int, max_outputs: int) -> int:
    fits = []
    if fp.resources_per_application:
        fixed = fp.resources - fp.resources_per_application * n
        fits.append(math.floor((max_resources - fixed) / fp.resources_per_application))
    if fp.outputs_per_application:
        fixed = fp.outputs - fp.outputs_per_application * n
        fits.append(math.floor((max_outputs - fixed) / fp.outputs_per_application))
    return max(0, min(fits)) if fits else 0
