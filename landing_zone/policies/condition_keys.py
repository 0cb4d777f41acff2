"""The condition keys the guardrail SCPs test, by name.

The builders and the request tables (``landing_zone/tables/attacks.py``, ``cases.py``) refer to a key by these names,
never by a copied string."""

from __future__ import annotations

PROFILE_KEY = "bedrock:InferenceProfileArn"
MANTLE_KEY = "bedrock-mantle:Model"
TIER_KEY = "bedrock:ServiceTier"
MANTLE_TIER_KEY = "bedrock-mantle:ServiceTier"
BEARER_TYPE_KEY = "bedrock:BearerTokenType"
MANTLE_BEARER_TYPE_KEY = "bedrock-mantle:BearerTokenType"
RETENTION_KEY = "bedrock:DataRetentionMode"
MANTLE_RETENTION_KEY = "bedrock-mantle:DataRetentionMode"
GATEWAY_AUTHORIZER_KEY = "bedrock-agentcore:GatewayAuthorizerType"
POLICY_TYPE_KEY = "organizations:PolicyType"
TAG_KEYS = "aws:TagKeys"
