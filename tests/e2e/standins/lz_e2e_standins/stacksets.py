"""E2E ONLY -- the member baseline's roll-out in the emulator: a service-managed StackSet and what it needs.

LocalStack (community) has no provider for ``AWS::CloudFormation::StackSet`` (it would be pretended: nothing reaches
a member account), no Organizations API to turn an OU into its accounts, and a StackSet API whose halves disagree
(CreateStackSet writes one store, DescribeStackSet and ListStackInstances read another; CreateStackInstances takes
account lists only and names the stacks ``sset-...``).  So:

* ``AWS::CloudFormation::StackSet`` (stand-in for Organizations and service-managed StackSets): the template comes
  from its ``TemplateURL`` (the CDK bootstrap bucket of the administrator account, in the emulator's S3).  The
  Organizations part is stood in: an OU has no accounts but the ones a stack-instance group names with
  ``AccountFilterType: INTERSECTION`` (the configured member accounts); a ``DIFFERENCE`` group (every other account
  of the OUs) reaches nobody, as in an organization whose OUs hold only the configured accounts.  For each
  (account, Region) CloudFormation in the member account creates ``StackSet-<name>-<uuid>`` (the name StackSets
  gives it) with the group's parameter overrides, as the StackSet would; the stack set and its instances are
  recorded where DescribeStackSet and ListStackInstances read them.  Delete removes the instance stacks (their
  retained resources stay, as with StackSets), then the record.  Its ID contains "standin".
* ``Custom::CDKBucketDeployment`` (cdk-stacksets copies the member template's Lambda code into the StackSet asset
  bucket with it; its Lambda cannot run here): the copy is done in-process, from the bootstrap bucket's zip files
  into the destination bucket, as the handler does.
* ``AWS::Lambda::LayerVersion`` (the AWS CLI layer of that handler; layers are not in the community emulator):
  nothing is published, the ARN contains "standin".
* ``Custom::S3AutoDeleteObjects`` (the StackSet asset bucket is emptied and deleted with its stack; CDK's handler
  is a Lambda): on delete the bucket's object versions are deleted in-process, as the handler does.
"""

from __future__ import annotations

import io
import logging
import re
import uuid
import zipfile
from typing import Any

LOG = logging.getLogger("lz_e2e_standins")
STANDIN_MARK = "standin"


def _template_body(s3: Any, url: str) -> str:
    """The template a TemplateURL names, read from the emulator's S3: path style https://s3.<region>.<suffix>/<bucket>/
    <key> or virtual-hosted https://<bucket>.s3.<region>.<suffix>/<key> (the suffix is the emulator's own)."""
    match = re.match(r"https://s3[.][^/]+/([^/]+)/(.+)$", url) or re.match(r"https://([^./]+)[.]s3[.][^/]+/(.+)$", url)
    if not match:
        raise ValueError(f"TemplateURL {url!r}: not an S3 URL")
    return str(s3.get_object(Bucket=match.group(1), Key=match.group(2))["Body"].read().decode())


def organization_accounts(group: dict[str, Any]) -> list[str]:
    """The accounts a stack-instance group reaches in the emulator's organization (the module docstring)."""
    targets = group.get("DeploymentTargets") or {}
    accounts = [str(a) for a in targets.get("Accounts") or []]
    kind = targets.get("AccountFilterType") or ("NONE" if targets.get("OrganizationalUnitIds") else "ACCOUNTS")
    if kind in ("INTERSECTION", "ACCOUNTS", "UNION"):
        return accounts
    return []  # DIFFERENCE / NONE: the OUs' other accounts, and the emulator's OUs have none


def _parameters(model: dict[str, Any], group: dict[str, Any]) -> list[dict[str, str]]:
    values = {p["ParameterKey"]: str(p["ParameterValue"]) for p in model.get("Parameters") or []}
    values.update({p["ParameterKey"]: str(p["ParameterValue"]) for p in group.get("ParameterOverrides") or []})
    return [{"ParameterKey": k, "ParameterValue": v} for k, v in sorted(values.items())]


def _wait(cfn: Any, waiter: str, stack_id: str, account: str) -> None:
    """Wait for an instance stack; when it fails, say why (each failed resource and its reason), as StackSets reports
    the instance's status reason."""
    try:
        cfn.get_waiter(waiter).wait(StackName=stack_id, WaiterConfig={"Delay": 1, "MaxAttempts": 600})
    except Exception as exc:
        events = cfn.describe_stack_events(StackName=stack_id)["StackEvents"]
        reasons = dict.fromkeys(
            f"{e['LogicalResourceId']} ({e['ResourceType']}): {e.get('ResourceStatusReason')}"
            for e in events
            if e.get("ResourceStatus", "").endswith("FAILED")
            and e.get("ResourceStatusReason")
            and e["ResourceType"] != "AWS::CloudFormation::Stack"
        )
        raise RuntimeError(f"stack instance in {account} failed: " + "; ".join(reasons)) from exc


def _stack_set_provider(OperationStatus, ProgressEvent, ResourceProvider) -> type:
    from localstack.aws.connect import connect_to
    from localstack.services.cloudformation.engine.entities import StackInstance, StackSet
    from localstack.services.cloudformation.models import get_cloudformation_store

    class StandInStackSetProvider(ResourceProvider):
        TYPE = "AWS::CloudFormation::StackSet"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/StackSetId"]}

        def _record(self, request) -> Any:
            store = get_cloudformation_store(request.account_id, request.region_name)
            name = request.desired_state["StackSetName"]
            return next((s for s in store.stack_sets.values() if s.stack_set_name == name), None)

        def _deploy(self, request, body: str, record: Any) -> None:
            model = request.desired_state
            have = {(i.metadata["Account"], i.metadata["Region"]): i for i in record.stack_instances}
            for group in model.get("StackInstancesGroup") or []:
                for account in organization_accounts(group):
                    for region in group.get("Regions") or []:
                        cfn = connect_to(aws_access_key_id=account, region_name=region).cloudformation
                        # as StackSets do: the template from S3 (a member template exceeds TemplateBody's 51,200 bytes)
                        source = (
                            {"TemplateURL": model["TemplateURL"]}
                            if model.get("TemplateURL")
                            else {"TemplateBody": body}
                        )
                        args = {
                            **source,
                            "Parameters": _parameters(model, group),
                            "Capabilities": model.get("Capabilities") or [],
                            "Tags": model.get("Tags") or [],
                        }
                        instance = have.get((account, region))
                        if instance is None:
                            name = f"StackSet-{model['StackSetName']}-{uuid.uuid4()}"
                            stack_id = cfn.create_stack(StackName=name, **args)["StackId"]
                            _wait(cfn, "stack_create_complete", stack_id, account)
                            metadata = {
                                "StackSetId": record.metadata["StackSetId"],
                                "Account": account,
                                "Region": region,
                                "StackId": stack_id,
                                "Status": "CURRENT",
                                "StackInstanceStatus": {"DetailedStatus": "SUCCEEDED"},
                            }
                            record.stack_instances.append(StackInstance(metadata))
                            LOG.warning("STAND-IN StackSet %s: instance %s in %s", model["StackSetName"], name, account)
                        else:
                            try:
                                cfn.update_stack(StackName=instance.metadata["StackId"], **args)
                                _wait(cfn, "stack_update_complete", instance.metadata["StackId"], account)
                            except Exception as exc:
                                if "No updates" not in str(exc):
                                    raise

        def create(self, request):
            model = dict(request.desired_state or {})
            clients = request.aws_client_factory
            body = model.get("TemplateBody") or _template_body(clients.s3, model["TemplateURL"])
            stack_set_id = f"{model['StackSetName']}:{STANDIN_MARK}-{uuid.uuid4()}"
            metadata = {
                "StackSetName": model["StackSetName"],
                "StackSetId": stack_set_id,
                "Status": "ACTIVE",
                "PermissionModel": model.get("PermissionModel", "SELF_MANAGED"),
                "Description": model.get("Description", ""),
                "Capabilities": model.get("Capabilities") or [],
                "Tags": model.get("Tags") or [],
                "TemplateBody": body,
            }
            store = get_cloudformation_store(request.account_id, request.region_name)
            record = StackSet(metadata)
            store.stack_sets[stack_set_id] = record
            self._deploy(request, body, record)
            model["StackSetId"] = stack_set_id
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def update(self, request):
            model = dict(request.desired_state or {})
            record = self._record(request)
            if record is None:
                return self.create(request)
            body = model.get("TemplateBody") or _template_body(request.aws_client_factory.s3, model["TemplateURL"])
            record.metadata["TemplateBody"] = body
            self._deploy(request, body, record)
            model["StackSetId"] = record.metadata["StackSetId"]
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def delete(self, request):
            record = self._record(request)
            if record is not None:
                for instance in record.stack_instances:
                    meta = instance.metadata
                    cfn = connect_to(aws_access_key_id=meta["Account"], region_name=meta["Region"]).cloudformation
                    cfn.delete_stack(StackName=meta["StackId"])
                    cfn.get_waiter("stack_delete_complete").wait(
                        StackName=meta["StackId"], WaiterConfig={"Delay": 1, "MaxAttempts": 600}
                    )
                    LOG.warning("STAND-IN StackSet: instance %s deleted", meta["StackId"])
                store = get_cloudformation_store(request.account_id, request.region_name)
                store.stack_sets.pop(record.metadata["StackSetId"], None)
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return StandInStackSetProvider


def _bucket_deployment_provider(OperationStatus, ProgressEvent, ResourceProvider) -> type:
    class BucketDeploymentProvider(ResourceProvider):
        """Does what CDK's BucketDeployment handler does on create and update: every source zip (or file) of the
        bootstrap bucket into the destination bucket under the key prefix.  Delete keeps the objects
        (``RetainOnDelete``, the CDK default) unless the template says otherwise."""

        TYPE = "Custom::CDKBucketDeployment"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/PhysicalResourceId"]}

        def create(self, request):
            model = dict(request.desired_state or {})
            s3 = request.aws_client_factory.s3
            destination, prefix = model["DestinationBucketName"], model.get("DestinationBucketKeyPrefix") or ""
            extract = str(model.get("Extract", "true")).lower() != "false"
            copied = 0
            for bucket, key in zip(
                model.get("SourceBucketNames") or [], model.get("SourceObjectKeys") or [], strict=True
            ):
                data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
                if extract and zipfile.is_zipfile(io.BytesIO(data)):
                    with zipfile.ZipFile(io.BytesIO(data)) as archive:
                        for member in archive.infolist():
                            if not member.is_dir():
                                s3.put_object(
                                    Bucket=destination, Key=prefix + member.filename, Body=archive.read(member)
                                )
                                copied += 1
                else:
                    s3.put_object(Bucket=destination, Key=prefix + key.rsplit("/", 1)[-1], Body=data)
                    copied += 1
            model["PhysicalResourceId"] = f"{STANDIN_MARK}-bucket-deployment-{request.logical_resource_id}"
            LOG.warning(
                "STAND-IN Custom::CDKBucketDeployment: %d object(s) copied in-process to %s", copied, destination
            )
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def update(self, request):
            return self.create(request)

        def delete(self, request):
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return BucketDeploymentProvider


def _auto_delete_objects_provider(OperationStatus, ProgressEvent, ResourceProvider) -> type:
    class AutoDeleteObjectsProvider(ResourceProvider):
        """Does what CDK's auto-delete-objects handler does (the StackSet asset bucket is deleted with its stack): on
        delete, every object version and delete marker of the bucket, so that CloudFormation can delete it."""

        TYPE = "Custom::S3AutoDeleteObjects"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/PhysicalResourceId"]}

        def create(self, request):
            model = dict(request.desired_state or {})
            model["PhysicalResourceId"] = f"{STANDIN_MARK}-auto-delete-{request.logical_resource_id}"
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def update(self, request):
            return self.create(request)

        def delete(self, request):
            s3 = request.aws_client_factory.s3
            bucket = (request.desired_state or request.previous_state or {}).get("BucketName")
            deleted = 0
            for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket):
                items = [
                    {"Key": v["Key"], "VersionId": v["VersionId"]}
                    for v in (page.get("Versions") or []) + (page.get("DeleteMarkers") or [])
                ]
                if items:
                    s3.delete_objects(Bucket=bucket, Delete={"Objects": items, "Quiet": True})
                    deleted += len(items)
            LOG.warning(
                "STAND-IN Custom::S3AutoDeleteObjects: %d version(s) deleted in-process from %s", deleted, bucket
            )
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return AutoDeleteObjectsProvider


def _layer_version_provider(OperationStatus, ProgressEvent, ResourceProvider) -> type:
    class StandInLayerVersionProvider(ResourceProvider):
        TYPE = "AWS::Lambda::LayerVersion"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/LayerVersionArn"]}

        def create(self, request):
            model = dict(request.desired_state or {})
            name = f"{STANDIN_MARK}-{request.logical_resource_id}"[:64]
            model["LayerVersionArn"] = f"arn:aws:lambda:{request.region_name}:{request.account_id}:layer:{name}:1"
            LOG.warning("STAND-IN AWS::Lambda::LayerVersion %s: not published", request.logical_resource_id)
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def update(self, request):
            return self.create(request)

        def delete(self, request):
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return StandInLayerVersionProvider


def providers() -> dict[str, type]:
    from localstack.services.cloudformation.resource_provider import OperationStatus, ProgressEvent, ResourceProvider

    return {
        "AWS::CloudFormation::StackSet": _stack_set_provider(OperationStatus, ProgressEvent, ResourceProvider),
        "Custom::CDKBucketDeployment": _bucket_deployment_provider(OperationStatus, ProgressEvent, ResourceProvider),
        "AWS::Lambda::LayerVersion": _layer_version_provider(OperationStatus, ProgressEvent, ResourceProvider),
        "Custom::S3AutoDeleteObjects": _auto_delete_objects_provider(OperationStatus, ProgressEvent, ResourceProvider),
    }
