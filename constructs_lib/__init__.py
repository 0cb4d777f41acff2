"""CDK constructs, one concern each, with typed keyword-only props and typed public attributes.

Policy documents come from the pure builders in ``landing_zone.policies``; constructs only wire them in.

The public API (typed: ``py.typed``) is :data:`__all__`; docs/PACKAGE.md describes each construct.  The names load on
first use (PEP 562): ``import constructs_lib`` imports no CDK module, and the EKS and cdk-nag ones only when used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from constructs_lib.access import ApplicationProfile, InvokerRole, MantleProject, PermissionsBoundary
    from constructs_lib.config_checks import AccountSettingsConfigRule
    from constructs_lib.content_guardrail import ContentGuardrail
    from constructs_lib.cost import (
        AlertsTopic,
        CostAnomalyDetection,
        KillSwitch,
        MonthlyCostBudget,
        OptionalEmailSubscriptions,
        SpendAlarms,
    )
    from constructs_lib.cost_allocation import CostAllocationTags
    from constructs_lib.custom_resource import PythonCustomResource
    from constructs_lib.dashboard import OperationsDashboard
    from constructs_lib.data_retention import DataRetentionMode
    from constructs_lib.detection import ConfigRules, DetectionRules, EventForwarding, HomeBusAccess, LegacyModelAlarms
    from constructs_lib.eks import GpuInferenceCluster, NodeEndpoints
    from constructs_lib.guardrail_organization_policy import GuardrailOrganizationPolicy
    from constructs_lib.invocation_logging import InvocationLoggingConfig
    from constructs_lib.keys import LandingZoneKey
    from constructs_lib.model_access import ModelAgreements
    from constructs_lib.nag import add_nag_checks
    from constructs_lib.network import BedrockEndpoints, InterfaceEndpoints, PrivateNetwork
    from constructs_lib.organizations import ScpSpec, ServiceControlPolicies
    from constructs_lib.stacksets import StackSetAssetBucket

__all__ = [
    "AccountSettingsConfigRule",
    "AlertsTopic",
    "ApplicationProfile",
    "BedrockEndpoints",
    "ConfigRules",
    "ContentGuardrail",
    "CostAllocationTags",
    "CostAnomalyDetection",
    "DataRetentionMode",
    "DetectionRules",
    "EventForwarding",
    "GpuInferenceCluster",
    "GuardrailOrganizationPolicy",
    "HomeBusAccess",
    "InterfaceEndpoints",
    "InvocationLoggingConfig",
    "InvokerRole",
    "KillSwitch",
    "LandingZoneKey",
    "LegacyModelAlarms",
    "MantleProject",
    "ModelAgreements",
    "MonthlyCostBudget",
    "NodeEndpoints",
    "OperationsDashboard",
    "OptionalEmailSubscriptions",
    "PermissionsBoundary",
    "PrivateNetwork",
    "PythonCustomResource",
    "ScpSpec",
    "ServiceControlPolicies",
    "SpendAlarms",
    "StackSetAssetBucket",
    "add_nag_checks",
]

# Each public name and the module that defines it.
_MODULES = {
    "ApplicationProfile": "constructs_lib.access",
    "InvokerRole": "constructs_lib.access",
    "MantleProject": "constructs_lib.access",
    "PermissionsBoundary": "constructs_lib.access",
    "AccountSettingsConfigRule": "constructs_lib.config_checks",
    "ContentGuardrail": "constructs_lib.content_guardrail",
    "AlertsTopic": "constructs_lib.cost",
    "CostAnomalyDetection": "constructs_lib.cost",
    "KillSwitch": "constructs_lib.cost",
    "MonthlyCostBudget": "constructs_lib.cost",
    "OptionalEmailSubscriptions": "constructs_lib.cost",
    "SpendAlarms": "constructs_lib.cost",
    "CostAllocationTags": "constructs_lib.cost_allocation",
    "PythonCustomResource": "constructs_lib.custom_resource",
    "OperationsDashboard": "constructs_lib.dashboard",
    "DataRetentionMode": "constructs_lib.data_retention",
    "ConfigRules": "constructs_lib.detection",
    "DetectionRules": "constructs_lib.detection",
    "EventForwarding": "constructs_lib.detection",
    "HomeBusAccess": "constructs_lib.detection",
    "LegacyModelAlarms": "constructs_lib.detection",
    "GpuInferenceCluster": "constructs_lib.eks",
    "NodeEndpoints": "constructs_lib.eks",
    "GuardrailOrganizationPolicy": "constructs_lib.guardrail_organization_policy",
    "InvocationLoggingConfig": "constructs_lib.invocation_logging",
    "LandingZoneKey": "constructs_lib.keys",
    "ModelAgreements": "constructs_lib.model_access",
    "add_nag_checks": "constructs_lib.nag",
    "BedrockEndpoints": "constructs_lib.network",
    "InterfaceEndpoints": "constructs_lib.network",
    "PrivateNetwork": "constructs_lib.network",
    "ScpSpec": "constructs_lib.organizations",
    "ServiceControlPolicies": "constructs_lib.organizations",
    "StackSetAssetBucket": "constructs_lib.stacksets",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'constructs_lib' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
