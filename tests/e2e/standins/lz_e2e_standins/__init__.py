"""E2E ONLY -- stand-ins for CloudFormation resource types that LocalStack (community) does not emulate.

LocalStack's CFN_IGNORE_UNSUPPORTED_RESOURCE_TYPES gives an unsupported resource the literal "unknown" for every
Ref/GetAtt, and IAM rejects "unknown" as a policy Resource.  A stand-in creates nothing: it only returns
well-formed, deterministic attribute values (ARN/ID derived from stack + logical ID) so that dependent resources
(the invoker policy) can be created.  The stand-in ARNs contain "standin" so they can never be mistaken for real
ones.  No Bedrock API exists in the emulator; `verify` therefore reports the profile as unverifiable.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime

from localstack.services.cloudformation.resource_provider import (
    OperationStatus,
    ProgressEvent,
    ResourceProvider,
)

STANDIN_MARK = "standin"
LOG = logging.getLogger(__name__)


def _standin_id(stack_name: str, logical_id: str) -> str:
    return STANDIN_MARK + hashlib.sha256(f"{stack_name}/{logical_id}".encode()).hexdigest()[:12]


class StandInApplicationInferenceProfileProvider(ResourceProvider[dict]):
    TYPE = "AWS::Bedrock::ApplicationInferenceProfile"
    SCHEMA = {
        "typeName": TYPE,
        "primaryIdentifier": ["/properties/InferenceProfileArn"],
        "readOnlyProperties": [
            "/properties/InferenceProfileArn",
            "/properties/InferenceProfileId",
            "/properties/InferenceProfileIdentifier",
            "/properties/Status",
            "/properties/Type",
            "/properties/CreatedAt",
            "/properties/UpdatedAt",
            "/properties/Models",
        ],
    }

    def _model(self, request) -> dict:
        model = dict(request.desired_state or {})
        pid = _standin_id(request.stack_name, request.logical_resource_id)
        arn = f"arn:aws:bedrock:{request.region_name}:{request.account_id}:application-inference-profile/{pid}"
        now = datetime.now(UTC).isoformat()
        model.update(
            InferenceProfileArn=arn,
            InferenceProfileId=pid,
            InferenceProfileIdentifier=arn,
            Status="ACTIVE",
            Type="APPLICATION",
            CreatedAt=now,
            UpdatedAt=now,
        )
        return model

    def create(self, request) -> ProgressEvent:
        LOG.warning(
            "STAND-IN %s %s: nothing created (no Bedrock in the emulator)", self.TYPE, request.logical_resource_id
        )
        return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=self._model(request))

    def update(self, request) -> ProgressEvent:
        return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=self._model(request))

    def read(self, request) -> ProgressEvent:
        return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=self._model(request))

    def delete(self, request) -> ProgressEvent:
        return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})


class StandInMantleProjectProvider(ResourceProvider[dict]):
    """AWS::BedrockMantle::Project (access.mantle_projects): no Bedrock Mantle in the emulator.  Its ``Arn`` is the
    invoker's only allowed CreateInference resource (DenyMantleOutsideOwnProject's NotResource) and its ``Id`` the
    cost stack's spend-alarm dimension: both well-formed, marked "standin"."""

    TYPE = "AWS::BedrockMantle::Project"
    SCHEMA = {
        "typeName": TYPE,
        "primaryIdentifier": ["/properties/Arn"],
        "readOnlyProperties": ["/properties/Arn", "/properties/Id"],
    }

    def _model(self, request) -> dict:
        model = dict(request.desired_state or {})
        pid = _standin_id(request.stack_name, request.logical_resource_id)
        model.update(Arn=f"arn:aws:bedrock-mantle:{request.region_name}:{request.account_id}:project/{pid}", Id=pid)
        return model

    def create(self, request) -> ProgressEvent:
        LOG.warning(
            "STAND-IN %s %s: nothing created (no Mantle in the emulator)", self.TYPE, request.logical_resource_id
        )
        return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=self._model(request))

    def update(self, request) -> ProgressEvent:
        return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=self._model(request))

    def read(self, request) -> ProgressEvent:
        return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=self._model(request))

    def delete(self, request) -> ProgressEvent:
        return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})
