"""The names the landing zone gives AWS resources: one function per name.

The stacks and constructs call these functions to name what they synthesize, and the plan's name check
(:func:`landing_zone.plan.checks.name_problems`) calls the same functions to check every name against the service's
limit (``core/catalog/limits.yaml``) before anything is synthesized, so the names checked are the names deployed.
``lz`` is the configuration's ``name``; ``app`` an application's name.

What a stack keeps when it is deleted (log groups, buckets: ``RemovalPolicy.RETAIN``) and names itself ends with
:data:`~landing_zone.core.markers.STACK_SUFFIX`, 8 characters of the stack's own ID: a stack deployed again after
``cdk destroy`` names them anew instead of failing on what the first one left ("already exists"; review rule
``LZ-RETAINED-NAME-COLLISION``).  The constructs resolve the marker (``constructs_lib.cfn.render_name``); the name
check measures the names with :data:`STACK_SUFFIX_SAMPLE` in its place.  The landing zone's prefixes (``/<lz>/``,
``<lz>-``), which the guardrails protect, stay in front.
"""

from __future__ import annotations

import hashlib
import re

from landing_zone.core.markers import STACK_SUFFIX

__all__ = [
    "AUTOMATION_HANDLERS",
    "COST_ALLOCATION_TAG_KEYS",
    "STACK_PARTS",
    "detection_forwarder_role_name",
    "detection_region_stack_part",
    "detection_rule_name",
    "detection_rule_prefix",
    "STACK_SUFFIX_SAMPLE",
    "access_logs_bucket_name",
    "alarm_name",
    "alerts_topic_name",
    "anomaly_monitor_name",
    "anomaly_subscription_name",
    "application_budget_name",
    "application_kill_switch_policy_name",
    "application_profile_name",
    "asset_bucket_name",
    "asset_bucket_prefix",
    "automation_function_name",
    "automation_log_group_name",
    "automation_policy_name",
    "automation_provider_function_name",
    "automation_provider_log_group_name",
    "automation_provider_policy_name",
    "automation_provider_role_name",
    "automation_role_name",
    "automation_saved_parameter_name",
    "budget_action_policy_name",
    "budget_action_role_name",
    "bedrock_policy_name",
    "budget_name",
    "content_guardrail_name",
    "eks_cluster_name",
    "eks_cluster_role_name",
    "eks_key_alias",
    "eks_log_group_name",
    "eks_node_role_name",
    "eks_secrets_policy_name",
    "flow_log_group_name",
    "flow_logs_policy_name",
    "flow_logs_role_name",
    "invocation_log_group_name",
    "is_deployed_name",
    "invocation_logging_policy_name",
    "invocation_logging_role_name",
    "invocation_logs_bucket_name",
    "invoker_boundary_policy_name",
    "invoker_policy_name",
    "invoker_role_name",
    "key_alias",
    "management_logs_key_alias",
    "kill_switch_policy_name",
    "kill_switch_reset_policy_name",
    "kill_switch_reset_role_name",
    "kubectl_role_name",
    "mantle_project_name",
    "member_baseline_stack_set_name",
    "scp_name",
    "stack_name",
]

# The custom-resource handlers (folder under handlers/, with '-' for '_') and the short name in their provider role.
AUTOMATION_HANDLERS = {
    "invocation-logging": "logging",
    "model-agreement": "agreements",
    "data-retention": "retention",
    "cost-allocation-tags": "cost-tags",
}
# The tag keys budgets and chargeback filter on, set on invoker roles, application profiles and Mantle Projects and
# activated as cost allocation tags (handlers/cost_allocation_tags): the application's name, its cost centre, the
# landing zone (the budget_scope: tagged filter).  The configuration has no team field.
APPLICATION_TAG_KEY, COST_CENTER_TAG_KEY, LANDING_ZONE_TAG_KEY = "application", "cost-center", "landing-zone"
COST_ALLOCATION_TAG_KEYS = (APPLICATION_TAG_KEY, COST_CENTER_TAG_KEY, LANDING_ZONE_TAG_KEY)
# The stacks: '<lz>-<part>'.
STACK_PARTS = (
    "keys",
    "network",
    "access",
    "cost",
    "self-hosting",
    "guardrails",
    "rollout",
    "detection",
    "detection-global",
    "detection-management",
)
# What the stack suffix looks like (8 lowercase hexadecimal characters), for the name checks.
STACK_SUFFIX_SAMPLE = "0a1b2c3d"


def is_deployed_name(name: str, deployed: str | None) -> bool:
    """Whether ``deployed`` (a name read from an account) is ``name`` as a stack made it: the marker
    :data:`STACK_SUFFIX` stands for 8 lower-case hexadecimal characters, the first group of the stack's UUID."""
    if not deployed:
        return False
    pattern = "[0-9a-f]{8}".join(re.escape(part) for part in name.split(STACK_SUFFIX))
    return re.fullmatch(pattern, deployed) is not None


# -- stacks -----------------------------------------------------------------------------------------------------
def stack_name(lz: str, part: str) -> str:
    return f"{lz}-{part}"


def member_baseline_stack_set_name(lz: str) -> str:
    return f"{lz}-member-baseline"


def asset_bucket_prefix(lz: str, administrator_account: str) -> str:
    """The prefix of the StackSet asset buckets (cdk-stacksets appends '-<region>')."""
    return f"{lz}-stackset-assets-{administrator_account}"


def asset_bucket_name(lz: str, administrator_account: str, region: str) -> str:
    """The StackSet asset bucket of one Region (in the StackSet administrator account)."""
    return f"{asset_bucket_prefix(lz, administrator_account)}-{region}"


# -- keys, network ------------------------------------------------------------------------------------------------
def key_alias(lz: str, purpose: str) -> str:
    return f"alias/{lz}/{purpose}"


def management_logs_key_alias(lz: str) -> str:
    """The key of the cost-allocation-tag activation's logs in the management account (organization mode)."""
    return key_alias(lz, "management-logs")


def flow_log_group_name(lz: str) -> str:
    return f"/{lz}/vpc-flow-logs-{STACK_SUFFIX}"


def flow_logs_role_name(lz: str) -> str:
    return f"{lz}-flow-logs"


def flow_logs_policy_name(lz: str) -> str:
    return f"{lz}-flow-logs"


# -- access -------------------------------------------------------------------------------------------------------
def invoker_boundary_policy_name(lz: str) -> str:
    return f"{lz}-invoker-boundary"


def invoker_role_name(lz: str, app: str) -> str:
    return f"{lz}-invoker-{app}"


def invoker_policy_name(lz: str, app: str) -> str:
    return f"{lz}-invoke-{app}"


def application_profile_name(lz: str, app: str) -> str:
    return f"{lz}-{app}"


def mantle_project_name(lz: str, app: str) -> str:
    """The application's Bedrock Mantle Project (``AWS::BedrockMantle::Project``)."""
    return f"{lz}-{app}"


def content_guardrail_name(lz: str) -> str:
    return f"{lz}-content"


def access_logs_bucket_name(lz: str) -> str:
    """Globally unique by the stack's suffix (unpredictable before the stack exists, so nobody can take the name
    first), which replaced the account ID: both would not fit 63 characters with a 32-character ``lz``."""
    return f"{lz}-access-logs-{STACK_SUFFIX}"


def invocation_logs_bucket_name(lz: str) -> str:
    return f"{lz}-invocation-logs-{STACK_SUFFIX}"


def invocation_log_group_name(lz: str) -> str:
    return f"/{lz}/bedrock/invocations-{STACK_SUFFIX}"


def invocation_logging_role_name(lz: str) -> str:
    return f"{lz}-bedrock-invocation-logging"


def invocation_logging_policy_name(lz: str) -> str:
    return f"{lz}-bedrock-invocation-logging"


# -- custom resources (constructs_lib/custom_resource.py) -------------------------------------------------------
def automation_log_group_name(lz: str, handler: str) -> str:
    return f"/{lz}/automation/{handler}-{STACK_SUFFIX}"


def automation_provider_log_group_name(lz: str, handler: str) -> str:
    return f"/{lz}/automation/{handler}-provider-{STACK_SUFFIX}"


def automation_policy_name(lz: str, handler: str) -> str:
    return f"{lz}-automation-{handler}"


def automation_role_name(lz: str, handler: str) -> str:
    return f"{lz}-automation-{handler}"


def automation_function_name(lz: str, handler: str) -> str:
    return f"{lz}-{handler}"


def automation_saved_parameter_name(lz: str, handler: str) -> str:
    """The SSM parameter in which a handler keeps what it took over (an account setting it replaced, the tag keys it
    activated) until its resource is deleted: inside the '<lz>-' name scope the tamper guardrails protect."""
    return f"{lz}-automation-{handler}-saved"


def automation_provider_policy_name(lz: str, handler: str) -> str:
    return f"{lz}-automation-{handler}-provider"


def automation_provider_role_name(lz: str, short_name: str) -> str:
    return f"{lz}-automation-{short_name}-provider"


def automation_provider_function_name(lz: str, handler: str) -> str:
    return f"{lz}-{handler}-provider"


# -- cost -----------------------------------------------------------------------------------------------------------
def alerts_topic_name(lz: str) -> str:
    """The cost alerts topic (also its display name)."""
    return f"{lz}-cost-alerts"


def budget_name(lz: str) -> str:
    return f"{lz}-bedrock-monthly"


def application_budget_name(lz: str, app: str) -> str:
    """``cost.per_application_budgets``: the application's monthly budget."""
    return f"{lz}-bedrock-monthly-{app}"


def kill_switch_policy_name(lz: str) -> str:
    return f"{lz}-kill-switch"


def application_kill_switch_policy_name(lz: str) -> str:
    """``cost.per_application_budgets``: the deny the applications' own budget actions attach (a policy of its own, so
    that reversing the landing-zone action never lifts an application's)."""
    return f"{lz}-kill-switch-application"


def kill_switch_reset_role_name(lz: str) -> str:
    """``cost.kill_switch_reset_principal_arns``: the role that may reverse and re-arm the kill switch (an automation
    role: exempt from the tamper SCP, its name protected)."""
    return f"{lz}-automation-kill-switch-reset"


def kill_switch_reset_policy_name(lz: str) -> str:
    return f"{lz}-automation-kill-switch-reset"


def budget_action_role_name(lz: str) -> str:
    return f"{lz}-automation-budget-action"


def budget_action_policy_name(lz: str) -> str:
    return f"{lz}-automation-budget-action"


def alarm_name(lz: str, suffix: str) -> str:
    """A spend or usage alarm: ``suffix`` is the alarm plan's ``name_suffix``."""
    return f"{lz}-{suffix}"


def anomaly_monitor_name(lz: str) -> str:
    return f"{lz}-services"


def anomaly_subscription_name(lz: str) -> str:
    return f"{lz}-anomalies"


# -- guardrails -----------------------------------------------------------------------------------------------------
def detection_rule_prefix(lz: str) -> str:
    """EventBridge rules of the detection stacks: '<lz>-detect-<rule id>' (the alerts topic and key admit these)."""
    return f"{lz}-detect-"


def detection_rule_name(lz: str, rule_id: str, max_length: int) -> str:
    """'<lz>-detect-<rule id>', or, when that is longer than ``max_length`` (EventBridge's rule name limit, catalog
    ``eventbridge_rule_name_max_length``), the id cut to fit and ended with 8 hex digits of its SHA-256, so two long
    ids stay two names.  The prefix is kept whole: the alerts topic's policy admits the rules by it."""
    prefix = detection_rule_prefix(lz)
    room = max_length - len(prefix)
    if len(rule_id) <= room or room < 10:  # too little room even for a digest: the plan's name check reports it
        return f"{prefix}{rule_id}"
    digest = hashlib.sha256(rule_id.encode()).hexdigest()[:8]
    return f"{prefix}{rule_id[: room - 9].rstrip('-')}-{digest}"


def detection_forwarder_role_name(lz: str, region: str | None = None) -> str:
    """The role EventBridge forwards events to the home Region's default bus with: '<lz>-detect-forwarder' (global
    services' events from us-east-1, the management account's events), '<lz>-detect-forwarder-<region>' in another
    source Region of the deployment account (IAM role names are account-wide, not per Region)."""
    return f"{lz}-detect-forwarder" + (f"-{region}" if region else "")


def detection_central_forwarder_role_name(lz: str) -> str:
    """The role EventBridge delivers the detection stack's events to ``detection.central_event_bus_arn`` with:
    '<lz>-detect-central-forwarder' (events:PutEvents on that bus only)."""
    return f"{lz}-detect-central-forwarder"


def detection_region_stack_part(region: str) -> str:
    """The stack part of the deployment account's forwarder in a source Region other than home_region and us-east-1:
    'detection-<region>' (stack '<lz>-detection-<region>')."""
    return f"detection-{region}"


def scp_name(lz: str, concern: str) -> str:
    """The guardrail SCP of one concern (``regions``, ``models``, ``tamper``, ...; ``tamper-2`` for a second part,
    ``api-keys-and-service-tiers`` when two were merged to fit a target's quota)."""
    return f"{lz}-guardrails-{concern}"


def bedrock_policy_name(lz: str) -> str:
    """The BEDROCK_POLICY that enforces the content guardrail across the organization."""
    return f"{lz}-bedrock-guardrail-inference"


# -- self-hosting ---------------------------------------------------------------------------------------------------
def eks_cluster_name(lz: str) -> str:
    """Suffixed like a retained name: EKS writes the control-plane logs to ``/aws/eks/<cluster>/cluster``, which the
    stack creates first (KMS, retention) and retains."""
    return f"{lz}-inference-{STACK_SUFFIX}"


def eks_log_group_name(lz: str) -> str:
    return f"/aws/eks/{eks_cluster_name(lz)}/cluster"


def eks_key_alias(lz: str) -> str:
    return key_alias(lz, "eks-data")


def eks_cluster_role_name(lz: str) -> str:
    return f"{lz}-eks-cluster"


def eks_secrets_policy_name(lz: str) -> str:
    return f"{lz}-eks-secrets-key-use"


def eks_node_role_name(lz: str, kind: str) -> str:
    """``kind``: 'gpu' or 'system'."""
    return f"{lz}-eks-{kind}-nodes"


def kubectl_role_name(lz: str, kind: str) -> str:
    """The kubectl provider's roles (``kind``: 'provider' or 'handler'), under the automation prefix."""
    return f"{lz}-automation-kubectl-{kind}"
