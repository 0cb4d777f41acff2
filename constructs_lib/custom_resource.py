"""A Python Lambda custom resource (CDK Provider framework) with a named, managed-policy-only role.

The handler code lives in ``handlers/<name>/index.py`` (package data of the ``handlers`` package, found through it
wherever the landing zone is installed) (tested on its own with moto / botocore Stubber).  Every
part is named inside the landing zone's namespace, which the tamper guardrails protect by name
(landing_zone/policies/guardrails.py):

* the handler ``<lz>-<handler>`` runs as ``<lz>-automation-<handler>`` and logs to ``/<lz>/automation/<handler>-<suffix>``
  (retained: the stack's suffix, ``landing_zone.core.naming``);
* the CDK Provider framework function ``<lz>-<handler>-provider`` (invoked by CloudFormation, which runs as
  the exempt CDK execution role) runs as ``<lz>-automation-<short_name>-provider`` — an automation role, so
  the guardrails let it invoke the handler while nobody else may (a forged Delete event to the logging handler
  would otherwise remove invocation logging) — and logs to ``/<lz>/automation/<handler>-provider-<suffix>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import CustomResource, Duration, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import custom_resources as cr
from constructs import Construct

from constructs_lib.cfn import render, render_name
from constructs_lib.compliance import acknowledge, nag_text
from handlers import HANDLERS_DIR
from landing_zone.core import arns, naming

_DEFAULT_TIMEOUT = Duration.minutes(2)
RUNTIME = lambda_.Runtime.PYTHON_3_14  # cdk-nag AwsSolutions-L1 wants the latest runtime


class PythonCustomResource(Construct):
    """``resource``: the CustomResource; ``function``: the handler; ``role``: its role.

    ``policy`` / ``provider_policy``: the handler's and the provider's documents from the plan
    (``plan.policies.automation[handler]``), each writing only its own log group; ``values`` resolves the markers
    they name beyond the stack's account, Region and partition."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        handler: str,
        landing_zone_name: str,
        policy: Mapping[str, Any],
        provider_policy: Mapping[str, Any],
        properties: Mapping[str, Any],
        logs_key: kms.IKey,
        log_retention: logs.RetentionDays,
        resource_type: str,
        timeout: Duration = _DEFAULT_TIMEOUT,
        values: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        code_dir = HANDLERS_DIR / handler.replace("-", "_")
        if not (code_dir / "index.py").is_file():
            raise FileNotFoundError(
                f"handler code {code_dir / 'index.py'} is missing (the `handlers` package found at {HANDLERS_DIR} "
                "is not the landing zone's: a `handlers` package of your own earlier on sys.path hides it)"
            )
        log_name = render_name(self, naming.automation_log_group_name(landing_zone_name, handler))
        provider_log_name = render_name(self, naming.automation_provider_log_group_name(landing_zone_name, handler))
        self.log_group = logs.LogGroup(
            self,
            "Logs",
            log_group_name=log_name,
            encryption_key=logs_key,
            retention=log_retention,
            removal_policy=RemovalPolicy.RETAIN,
        )
        stack = Stack.of(self)
        self.policy = managed = iam.ManagedPolicy(
            self,
            "Policy",
            managed_policy_name=naming.automation_policy_name(landing_zone_name, handler),
            document=iam.PolicyDocument.from_json(render(self, policy, values)),
        )
        self.role = iam.Role(
            self,
            "Role",
            role_name=naming.automation_role_name(landing_zone_name, handler),
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            managed_policies=[managed],
            description=f"{landing_zone_name}: custom resource {handler} (exempt from tamper protection)",
        )
        self.function = lambda_.Function(
            self,
            "Handler",
            function_name=naming.automation_function_name(landing_zone_name, handler),
            runtime=RUNTIME,
            handler="index.on_event",
            code=lambda_.Code.from_asset(str(code_dir), exclude=["__pycache__", "*.pyc"]),
            timeout=timeout,
            memory_size=256,
            reserved_concurrent_executions=1,  # runs once per deployment; never competes for account concurrency
            # an immutable view: CDK must not append inline statements to the managed-policy-only role
            role=iam.Role.from_role_arn(self, "RoleRef", self.role.role_arn, mutable=False),
            log_group=self.log_group,
            description=f"{landing_zone_name}: {handler} custom resource handler",
        )
        self.function.node.add_dependency(managed)
        function_name = naming.automation_function_name(landing_zone_name, handler)
        function_arn = f"arn:{stack.partition}:lambda:{stack.region}:{stack.account}:function:{function_name}"
        self.provider_log_group = logs.LogGroup(
            self,
            "ProviderLogs",
            log_group_name=provider_log_name,
            encryption_key=logs_key,
            retention=log_retention,
            removal_policy=RemovalPolicy.RETAIN,
        )
        provider_managed = iam.ManagedPolicy(
            self,
            "ProviderPolicy",
            managed_policy_name=naming.automation_provider_policy_name(landing_zone_name, handler),
            document=iam.PolicyDocument.from_json(render(self, provider_policy)),
        )
        self.provider_role = iam.Role(
            self,
            "ProviderRole",
            role_name=naming.automation_provider_role_name(landing_zone_name, naming.AUTOMATION_HANDLERS[handler]),
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            managed_policies=[provider_managed],
            description=f"{landing_zone_name}: CDK Provider framework of {handler} (invokes the handler)",
        )
        provider = cr.Provider(
            self,
            "Provider",
            on_event_handler=self.function,
            provider_function_name=naming.automation_provider_function_name(landing_zone_name, handler),
            # immutable: the managed policy above grants the invoke; CDK must not add an inline policy
            framework_on_event_role=iam.Role.from_role_arn(
                self, "ProviderRoleRef", self.provider_role.role_arn, mutable=False
            ),
            log_group=self.provider_log_group,
        )
        provider.node.find_child("framework-onEvent").node.add_dependency(provider_managed)
        for managed_policy, name in ((self.policy, log_name), (provider_managed, provider_log_name)):
            acknowledge(
                managed_policy,
                "AwsSolutions-IAM5",
                finding="Resource::"
                + nag_text(self, arns.log_streams(stack.region, stack.account, name, stack.partition)),
                reason="writes streams of its own log group only (stream names are generated by Lambda)",
            )
        acknowledge(
            provider_managed,
            "AwsSolutions-IAM5",
            finding=f"Resource::{nag_text(self, function_arn)}:*",
            reason="CDK Provider framework: invokes exactly this handler function (all its versions)",
        )
        # The framework function runs the latest Node.js runtime aws-cdk-lib knows: AwsSolutions-L1 does not flag it,
        # so it is not acknowledged (an unused acknowledgment is a review finding, LZ-NAG-UNUSED-ACK).
        framework = provider.node.find_child("framework-onEvent")
        for target in (framework, self.function):
            for pack in ("NIST.800.53.R5", "HIPAA.Security"):
                acknowledge(
                    target,
                    f"{pack}-LambdaDLQ",
                    reason="invoked synchronously by CloudFormation, which records and reports every failure",
                )
                acknowledge(
                    target,
                    f"{pack}-LambdaInsideVPC",
                    reason="calls the Bedrock control plane and the CloudFormation response URL; no data plane access",
                )
        for pack in ("NIST.800.53.R5", "HIPAA.Security"):
            acknowledge(
                framework,
                f"{pack}-LambdaConcurrency",
                reason="CDK Provider framework function, invoked only by CloudFormation during deployments",
            )
        self.resource = CustomResource(
            self,
            "Resource",
            service_token=provider.service_token,
            resource_type=resource_type,
            properties=dict(properties),
        )
