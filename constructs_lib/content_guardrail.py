"""An optional Bedrock guardrail with a numbered version, optionally enforced account-wide."""

from __future__ import annotations

from aws_cdk import CfnTag
from aws_cdk import aws_bedrock as bedrock
from constructs import Construct

from landing_zone.core.config import ContentGuardrail as Settings

FILTER_TYPES = ("HATE", "INSULTS", "SEXUAL", "VIOLENCE", "MISCONDUCT")


class ContentGuardrail(Construct):
    """``guardrail`` + ``version`` (numbered: enforcement needs one); ``enforcement`` when account-wide."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        name: str,
        settings: Settings,
        tags: dict[str, str],
        enforce_in_account: bool = True,
    ) -> None:
        """``enforce_in_account``: False for the management account's copy, which the organization policy enforces
        (``settings.enforcement`` is about the deployment account)."""
        super().__init__(scope, construct_id)
        filters = [
            bedrock.CfnGuardrail.ContentFilterConfigProperty(
                type=t, input_strength=settings.filter_strength, output_strength=settings.filter_strength
            )
            for t in FILTER_TYPES
        ]
        filters.append(
            bedrock.CfnGuardrail.ContentFilterConfigProperty(
                type="PROMPT_ATTACK", input_strength=settings.prompt_attack_strength, output_strength="NONE"
            )
        )
        self.guardrail = bedrock.CfnGuardrail(
            self,
            "Guardrail",
            name=name,
            description="Landing-zone content guardrail for Bedrock inference",
            blocked_input_messaging=settings.blocked_message,
            blocked_outputs_messaging=settings.blocked_message,
            content_policy_config=bedrock.CfnGuardrail.ContentPolicyConfigProperty(filters_config=filters),
            tags=[CfnTag(key=k, value=v) for k, v in sorted(tags.items())],
        )
        self.version = bedrock.CfnGuardrailVersion(
            self,
            "Version",
            guardrail_identifier=self.guardrail.attr_guardrail_arn,
            description="Version pinned by the landing zone",
        )
        self.arn: str = self.guardrail.attr_guardrail_arn
        self.enforcement: bedrock.CfnEnforcedGuardrailConfiguration | None = None
        if enforce_in_account and settings.enforcement == "account":
            self.enforcement = bedrock.CfnEnforcedGuardrailConfiguration(
                self,
                "AccountEnforcement",
                guardrail_identifier=self.guardrail.attr_guardrail_id,
                guardrail_version=self.version.attr_version,
            )
