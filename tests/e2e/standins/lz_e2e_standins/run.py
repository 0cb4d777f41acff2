"""E2E ONLY -- start LocalStack with the landing zone's stand-ins and fidelity patches (``make e2e``).

    python -m lz_e2e_standins.run        (instead of: python -m localstack.runtime.main)

LocalStack resolves a CloudFormation type to a resource provider through
``ResourceProviderExecutor.try_load_resource_provider``; this launcher wraps it so that, for a few types, our
provider answers first (entry points cannot override a built-in provider reliably: plux keeps whichever plugin of
a name it happens to enumerate last):

* stand-in (creates nothing, returns well-formed deterministic attributes whose IDs contain "standin"):
  AWS::Bedrock::ApplicationInferenceProfile and AWS::BedrockMantle::Project (no Bedrock here),
  AWS::Lambda::Function and AWS::Lambda::Permission
  (no Lambda can run here), Custom::BedrockInvocationLogging (its handler is a Lambda calling Bedrock)
* stand-in that does the work in-process instead of the Lambda: Custom::VpcRestrictDefaultSG (CDK's handler
  removes every rule of the new VPC's default security group), Custom::CDKBucketDeployment (copies the member
  template's assets)
* the member baseline's StackSet (stacksets.py): AWS::CloudFormation::StackSet creates the instance stacks in the
  member accounts itself (no Organizations here); AWS::Lambda::LayerVersion is a stand-in
* fidelity (the built-in provider drops properties the service API does support; see docs/E2E.md):
  AWS::EC2::SecurityGroup   inline SecurityGroupIngress / SecurityGroupEgress rules
  AWS::Logs::LogGroup       RetentionInDays, KmsKeyId, Tags
  AWS::EC2::VPCEndpoint     Tags
  AWS::EC2::FlowLog         no provider at all (it would be pretended): created through the EC2 API
  AWS::EC2::NetworkAclEntry, AWS::EC2::SubnetNetworkAclAssociation   the same (the endpoint subnets' ACL)
  AWS::S3::Bucket           BucketEncryption, LifecycleConfiguration, LoggingConfiguration,
                            PublicAccessBlockConfiguration, OwnershipControls

LZ_E2E_FIDELITY=0 keeps LocalStack's own providers for the fidelity types (stand-ins stay): for experiments only,
``make e2e`` then fails its read-back, as it should.
"""

from __future__ import annotations

import logging
import os

LOG = logging.getLogger("lz_e2e_standins")


def _ip_permissions(rules: list[dict], *, egress: bool) -> list[dict]:
    out = []
    for r in rules or []:
        perm: dict = {"IpProtocol": str(r["IpProtocol"])}
        if "FromPort" in r:
            perm["FromPort"] = int(r["FromPort"])
        if "ToPort" in r:
            perm["ToPort"] = int(r["ToPort"])
        desc = {"Description": r["Description"]} if r.get("Description") else {}
        if r.get("CidrIp"):
            perm["IpRanges"] = [{"CidrIp": r["CidrIp"], **desc}]
        if r.get("CidrIpv6"):
            perm["Ipv6Ranges"] = [{"CidrIpv6": r["CidrIpv6"], **desc}]
        peer = r.get("DestinationSecurityGroupId" if egress else "SourceSecurityGroupId")
        if peer:
            perm["UserIdGroupPairs"] = [{"GroupId": peer, **desc}]
        if r.get("DestinationPrefixListId" if egress else "SourcePrefixListId"):
            perm["PrefixListIds"] = [
                {"PrefixListId": r.get("DestinationPrefixListId" if egress else "SourcePrefixListId")}
            ]
        out.append(perm)
    return out


def _lifecycle_rule(rule: dict, index: int) -> dict:
    """A CloudFormation lifecycle rule in the S3 API's shape (what CloudFormation sends).  A rule without ``Id`` gets
    one, as S3 generates one for CloudFormation: the emulator refuses a rule without an ID."""
    api: dict = {"Status": rule["Status"], "Filter": {"Prefix": rule.get("Prefix", "")}}
    api["ID"] = rule.get("Id") or f"lz-e2e-rule-{index}"
    if rule.get("ExpirationInDays"):
        api["Expiration"] = {"Days": int(rule["ExpirationInDays"])}
    if rule.get("Transitions"):
        api["Transitions"] = [
            {"Days": int(t["TransitionInDays"]), "StorageClass": t["StorageClass"]} for t in rule["Transitions"]
        ]
    if rule.get("NoncurrentVersionExpiration"):
        days = int(rule["NoncurrentVersionExpiration"]["NoncurrentDays"])
        api["NoncurrentVersionExpiration"] = {"NoncurrentDays": days}
    if rule.get("AbortIncompleteMultipartUpload"):
        days = int(rule["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"])
        api["AbortIncompleteMultipartUpload"] = {"DaysAfterInitiation": days}
    return api


def _faithful_security_group_provider(OperationStatus, EC2SecurityGroupProvider) -> type:
    class FaithfulSecurityGroupProvider(EC2SecurityGroupProvider):
        def create(self, request):
            event = super().create(request)
            if event.status != OperationStatus.SUCCESS:
                return event
            model = event.resource_model
            ec2 = request.aws_client_factory.ec2
            group_id = model["GroupId"]
            ingress = _ip_permissions(model.get("SecurityGroupIngress"), egress=False)
            if ingress:
                ec2.authorize_security_group_ingress(GroupId=group_id, IpPermissions=ingress)
            if "SecurityGroupEgress" in model and model.get("VpcId"):
                # as CloudFormation does: the explicit rules replace the default allow-all egress rule
                ec2.revoke_security_group_egress(
                    GroupId=group_id, IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
                )
                egress = _ip_permissions(model.get("SecurityGroupEgress"), egress=True)
                if egress:
                    ec2.authorize_security_group_egress(GroupId=group_id, IpPermissions=egress)
            LOG.info(
                "FIDELITY AWS::EC2::SecurityGroup %s: %d ingress, %s egress rule(s) applied",
                group_id,
                len(ingress),
                len(model.get("SecurityGroupEgress") or []) if "SecurityGroupEgress" in model else "default",
            )
            return event

    return FaithfulSecurityGroupProvider


def _faithful_log_group_provider(OperationStatus, ProgressEvent, LogsLogGroupProvider) -> type:
    class FaithfulLogGroupProvider(LogsLogGroupProvider):
        def create(self, request):
            # LocalStack's provider calls CreateLogGroup with the name only; AssociateKmsKey is not implemented,
            # so pass the key (and tags) to CreateLogGroup, then PutRetentionPolicy.
            model = request.desired_state
            logs = request.aws_client_factory.logs
            if not model.get("LogGroupName"):
                return super().create(request)
            name = model["LogGroupName"]
            params = {"logGroupName": name}
            if model.get("KmsKeyId"):
                params["kmsKeyId"] = model["KmsKeyId"]
            if model.get("Tags"):
                params["tags"] = {t["Key"]: t["Value"] for t in model["Tags"]}
            logs.create_log_group(**params)
            if model.get("RetentionInDays"):
                logs.put_retention_policy(logGroupName=name, retentionInDays=int(model["RetentionInDays"]))
            model["Arn"] = logs.describe_log_groups(logGroupNamePrefix=name)["logGroups"][0]["arn"]
            LOG.info(
                "FIDELITY AWS::Logs::LogGroup %s: retention=%s kms=%s tags=%d",
                name,
                model.get("RetentionInDays"),
                bool(model.get("KmsKeyId")),
                len(model.get("Tags") or []),
            )
            return ProgressEvent(
                status=OperationStatus.SUCCESS, resource_model=model, custom_context=request.custom_context
            )

    return FaithfulLogGroupProvider


def _faithful_vpc_endpoint_provider(OperationStatus, EC2VPCEndpointProvider) -> type:
    class FaithfulVpcEndpointProvider(EC2VPCEndpointProvider):
        def create(self, request):
            # LocalStack's provider drops Tags; verify finds the endpoints by their landing-zone tags.
            event = super().create(request)
            model = event.resource_model or {}
            tags = (request.desired_state or {}).get("Tags")
            if event.status == OperationStatus.IN_PROGRESS and model.get("Id") and tags:
                request.aws_client_factory.ec2.create_tags(
                    Resources=[model["Id"]], Tags=[{"Key": t["Key"], "Value": t["Value"]} for t in tags]
                )
                LOG.info("FIDELITY AWS::EC2::VPCEndpoint %s: %d tag(s) applied", model["Id"], len(tags))
            return event

    return FaithfulVpcEndpointProvider


def _faithful_bucket_provider(ClientError, OperationStatus, S3BucketProvider) -> type:
    class FaithfulBucketProvider(S3BucketProvider):
        """LocalStack's provider drops BucketEncryption, LifecycleConfiguration, LoggingConfiguration,
        PublicAccessBlockConfiguration and OwnershipControls: apply them through the S3 API after it created the
        bucket (each on its own: one the emulator refuses is logged and left for the read-back and verify)."""

        def create(self, request):
            event = super().create(request)
            if event.status != OperationStatus.SUCCESS:
                return event
            model = event.resource_model
            s3 = request.aws_client_factory.s3
            name = model["BucketName"]
            calls = []
            for rule in (model.get("BucketEncryption") or {}).get("ServerSideEncryptionConfiguration") or []:
                default = rule.get("ServerSideEncryptionByDefault") or {}
                api_rule = {"ApplyServerSideEncryptionByDefault": default}
                if "BucketKeyEnabled" in rule:
                    api_rule["BucketKeyEnabled"] = str(rule["BucketKeyEnabled"]).lower() == "true"
                calls.append(
                    (
                        "encryption",
                        s3.put_bucket_encryption,
                        {"ServerSideEncryptionConfiguration": {"Rules": [api_rule]}},
                    )
                )
            if model.get("LifecycleConfiguration"):
                rules = [
                    _lifecycle_rule(r, i) for i, r in enumerate(model["LifecycleConfiguration"].get("Rules") or [])
                ]
                calls.append(
                    ("lifecycle", s3.put_bucket_lifecycle_configuration, {"LifecycleConfiguration": {"Rules": rules}})
                )
            if model.get("PublicAccessBlockConfiguration"):
                block = {k: str(v).lower() == "true" for k, v in model["PublicAccessBlockConfiguration"].items()}
                calls.append(
                    ("public access block", s3.put_public_access_block, {"PublicAccessBlockConfiguration": block})
                )
            if model.get("OwnershipControls"):
                calls.append(
                    ("ownership", s3.put_bucket_ownership_controls, {"OwnershipControls": model["OwnershipControls"]})
                )
            logging_config = model.get("LoggingConfiguration")
            if logging_config:
                enabled = {
                    "TargetBucket": logging_config.get("DestinationBucketName") or name,
                    "TargetPrefix": logging_config.get("LogFilePrefix", ""),
                }
                calls.append(("logging", s3.put_bucket_logging, {"BucketLoggingStatus": {"LoggingEnabled": enabled}}))
            applied = []
            for what, call, params in calls:
                try:
                    call(Bucket=name, **params)
                    applied.append(what)
                except ClientError as exc:
                    LOG.warning("FIDELITY AWS::S3::Bucket %s: %s not applied: %s", name, what, exc)
            LOG.info("FIDELITY AWS::S3::Bucket %s: %s applied", name, ", ".join(applied) or "nothing")
            return event

    return FaithfulBucketProvider


def _stand_in_lambda_function_provider(OperationStatus, ProgressEvent, ResourceProvider) -> type:
    class StandInLambdaFunctionProvider(ResourceProvider):
        """No Lambda can run here (community LocalStack executes functions only in Docker, and creating one
        downloads a runtime from the internet): record the function, return a well-formed ARN.  Its physical ID
        (``StandInId``) contains "standin", also for a named function."""

        TYPE = "AWS::Lambda::Function"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/StandInId"]}

        def create(self, request):
            model = dict(request.desired_state or {})
            model.setdefault("FunctionName", f"standin-{request.logical_resource_id}"[:64])
            model["Arn"] = f"arn:aws:lambda:{request.region_name}:{request.account_id}:function:{model['FunctionName']}"
            name = model["FunctionName"]
            model["StandInId"] = name if name.startswith("standin-") else f"standin-{name}"[:64]
            LOG.warning("STAND-IN AWS::Lambda::Function %s: not created", request.logical_resource_id)
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def update(self, request):
            return self.create(request)

        def delete(self, request):
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return StandInLambdaFunctionProvider


def _stand_in_lambda_permission_provider(OperationStatus, ProgressEvent, ResourceProvider) -> type:
    class StandInLambdaPermissionProvider(ResourceProvider):
        """The permission of a stand-in function (LocalStack's own provider would call AddPermission on a
        function that does not exist)."""

        TYPE = "AWS::Lambda::Permission"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/Id"]}

        def create(self, request):
            model = dict(request.desired_state or {})
            model["Id"] = f"standin-permission-{request.logical_resource_id}"[:100]
            LOG.warning("STAND-IN AWS::Lambda::Permission %s: not created", request.logical_resource_id)
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def update(self, request):
            return self.create(request)

        def delete(self, request):
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return StandInLambdaPermissionProvider


def _stand_in_invocation_logging_provider(OperationStatus, ProgressEvent, ResourceProvider) -> type:
    class StandInInvocationLoggingProvider(ResourceProvider):
        """The landing zone's invocation-logging custom resource: its Lambda would call Bedrock's
        PutModelInvocationLoggingConfiguration, and the emulator has neither Lambda nor Bedrock.  Nothing is
        configured; the bucket, its policy, the log group and the delivery role it names are deployed for real."""

        TYPE = "Custom::BedrockInvocationLogging"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/PhysicalResourceId"]}

        def create(self, request):
            model = dict(request.desired_state or {})
            model["PhysicalResourceId"] = f"standin-invocation-logging-{request.logical_resource_id}"
            LOG.warning("STAND-IN %s %s: nothing configured", self.TYPE, request.logical_resource_id)
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def update(self, request):
            return self.create(request)

        def delete(self, request):
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return StandInInvocationLoggingProvider


def _flow_log_provider(OperationStatus, ProgressEvent, ResourceProvider) -> type:
    class FlowLogProvider(ResourceProvider):
        """LocalStack has no provider for AWS::EC2::FlowLog (it would be pretended), but its EC2 API has
        CreateFlowLogs: create the flow log through it, so that it exists and can be read back and verified."""

        TYPE = "AWS::EC2::FlowLog"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/Id"]}

        def create(self, request):
            model = dict(request.desired_state or {})
            params = {
                "ResourceIds": [model["ResourceId"]],
                "ResourceType": model["ResourceType"],
                "TrafficType": model.get("TrafficType", "ALL"),
                "LogDestinationType": model.get("LogDestinationType", "cloud-watch-logs"),
            }
            for key in ("LogGroupName", "LogDestination", "DeliverLogsPermissionArn", "LogFormat"):
                if model.get(key):
                    params[key] = model[key]
            if model.get("MaxAggregationInterval"):
                params["MaxAggregationInterval"] = int(model["MaxAggregationInterval"])
            if model.get("Tags"):
                tags = [{"Key": t["Key"], "Value": t["Value"]} for t in model["Tags"]]
                params["TagSpecifications"] = [{"ResourceType": "vpc-flow-log", "Tags": tags}]
            response = request.aws_client_factory.ec2.create_flow_logs(**params)
            if response.get("Unsuccessful") or not response.get("FlowLogIds"):
                return ProgressEvent(
                    status=OperationStatus.FAILED, resource_model=model, message=str(response.get("Unsuccessful"))
                )
            model["Id"] = response["FlowLogIds"][0]
            LOG.info("FIDELITY AWS::EC2::FlowLog %s created through the EC2 API", model["Id"])
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def read(self, request):
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=request.desired_state)

        def update(self, request):
            model = dict(request.desired_state or {})
            model["Id"] = (request.previous_state or {}).get("Id")
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def delete(self, request):
            flow_log_id = (request.desired_state or {}).get("Id")
            if flow_log_id:
                request.aws_client_factory.ec2.delete_flow_logs(FlowLogIds=[flow_log_id])
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return FlowLogProvider


def _acl_entry_params(model: dict) -> dict:
    params = {
        "NetworkAclId": model["NetworkAclId"],
        "RuleNumber": int(model["RuleNumber"]),
        "Protocol": str(model["Protocol"]),
        "RuleAction": model["RuleAction"],
        "Egress": str(model.get("Egress", False)).lower() == "true",
    }
    if model.get("CidrBlock"):
        params["CidrBlock"] = model["CidrBlock"]
    if model.get("Ipv6CidrBlock"):
        params["Ipv6CidrBlock"] = model["Ipv6CidrBlock"]
    if model.get("PortRange"):
        params["PortRange"] = {k: int(v) for k, v in model["PortRange"].items()}
    if model.get("Icmp"):
        params["IcmpTypeCode"] = {k: int(v) for k, v in model["Icmp"].items()}
    return params


def _network_acl_entry_provider(OperationStatus, ProgressEvent, ResourceProvider) -> type:
    class NetworkAclEntryProvider(ResourceProvider):
        """LocalStack's CloudFormation has no provider for AWS::EC2::NetworkAclEntry (it would be pretended, and the
        endpoint subnets' ACL would have no rule to verify), but its EC2 API has CreateNetworkAclEntry: use it."""

        TYPE = "AWS::EC2::NetworkAclEntry"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/Id"]}

        def create(self, request):
            model = dict(request.desired_state or {})
            params = _acl_entry_params(model)
            request.aws_client_factory.ec2.create_network_acl_entry(**params)
            model["Id"] = f"{params['NetworkAclId']}|{params['Egress']}|{params['RuleNumber']}"
            LOG.info("FIDELITY AWS::EC2::NetworkAclEntry %s created through the EC2 API", model["Id"])
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def read(self, request):
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=request.desired_state)

        def update(self, request):
            model = dict(request.desired_state or {})
            request.aws_client_factory.ec2.replace_network_acl_entry(**_acl_entry_params(model))
            model["Id"] = (request.previous_state or {}).get("Id")
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def delete(self, request):
            model = request.desired_state or {}
            if model.get("NetworkAclId"):
                params = _acl_entry_params(model)
                request.aws_client_factory.ec2.delete_network_acl_entry(
                    NetworkAclId=params["NetworkAclId"], RuleNumber=params["RuleNumber"], Egress=params["Egress"]
                )
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return NetworkAclEntryProvider


def _subnet_acl_association_provider(OperationStatus, ProgressEvent, ResourceProvider) -> type:
    class SubnetNetworkAclAssociationProvider(ResourceProvider):
        """No provider for AWS::EC2::SubnetNetworkAclAssociation either: ReplaceNetworkAclAssociation moves the
        subnet from the ACL it is on (the VPC's default) to the given one; delete moves it back to the default."""

        TYPE = "AWS::EC2::SubnetNetworkAclAssociation"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/Id"]}

        @staticmethod
        def _current(ec2, subnet_id: str) -> tuple[str, str, str]:
            """(association ID, ACL ID, VPC ID) of the subnet's current association."""
            acls = ec2.describe_network_acls(Filters=[{"Name": "association.subnet-id", "Values": [subnet_id]}])
            for acl in acls["NetworkAcls"]:
                for assoc in acl["Associations"]:
                    if assoc["SubnetId"] == subnet_id:
                        return assoc["NetworkAclAssociationId"], acl["NetworkAclId"], acl["VpcId"]
            raise RuntimeError(f"subnet {subnet_id} has no network ACL association")

        def create(self, request):
            model = dict(request.desired_state or {})
            ec2 = request.aws_client_factory.ec2
            association, _, _ = self._current(ec2, model["SubnetId"])
            new = ec2.replace_network_acl_association(AssociationId=association, NetworkAclId=model["NetworkAclId"])
            model["Id"] = model["AssociationId"] = new["NewAssociationId"]
            LOG.info("FIDELITY AWS::EC2::SubnetNetworkAclAssociation %s through the EC2 API", model["Id"])
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def read(self, request):
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=request.desired_state)

        def update(self, request):
            return self.create(request)

        def delete(self, request):
            model = request.desired_state or {}
            if model.get("SubnetId"):
                ec2 = request.aws_client_factory.ec2
                association, _, vpc = self._current(ec2, model["SubnetId"])
                default = ec2.describe_network_acls(
                    Filters=[{"Name": "vpc-id", "Values": [vpc]}, {"Name": "default", "Values": ["true"]}]
                )["NetworkAcls"][0]["NetworkAclId"]
                ec2.replace_network_acl_association(AssociationId=association, NetworkAclId=default)
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return SubnetNetworkAclAssociationProvider


def _restrict_default_security_group_provider(ClientError, OperationStatus, ProgressEvent, ResourceProvider) -> type:
    class RestrictDefaultSecurityGroupProvider(ResourceProvider):
        """Does what CDK's Custom::VpcRestrictDefaultSG Lambda does: remove every rule of the VPC's default
        security group (and put the defaults back on delete)."""

        TYPE = "Custom::VpcRestrictDefaultSG"
        SCHEMA = {"typeName": TYPE, "primaryIdentifier": ["/properties/PhysicalResourceId"]}

        def create(self, request):
            model = dict(request.desired_state or {})
            ec2 = request.aws_client_factory.ec2
            sg_id = model["DefaultSecurityGroupId"]
            sg = ec2.describe_security_groups(GroupIds=[sg_id])["SecurityGroups"][0]
            if sg["IpPermissions"]:
                ec2.revoke_security_group_ingress(GroupId=sg_id, IpPermissions=sg["IpPermissions"])
            if sg["IpPermissionsEgress"]:
                ec2.revoke_security_group_egress(GroupId=sg_id, IpPermissions=sg["IpPermissionsEgress"])
            model["PhysicalResourceId"] = f"standin-restrict-{sg_id}"
            LOG.warning("STAND-IN Custom::VpcRestrictDefaultSG %s: default rules removed in-process", sg_id)
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model=model)

        def update(self, request):
            return self.create(request)

        def delete(self, request):
            model = request.desired_state or {}
            ec2 = request.aws_client_factory.ec2
            sg_id = model.get("DefaultSecurityGroupId")
            try:
                ec2.authorize_security_group_ingress(
                    GroupId=sg_id, IpPermissions=[{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": sg_id}]}]
                )
                ec2.authorize_security_group_egress(
                    GroupId=sg_id, IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
                )
            except ClientError as exc:  # the VPC may already be going away
                LOG.info("restoring default rules of %s: %s", sg_id, exc)
            return ProgressEvent(status=OperationStatus.SUCCESS, resource_model={})

    return RestrictDefaultSecurityGroupProvider


def _stand_in_custom(type_name: str, base: type) -> type:
    """A stand-in like the invocation-logging one for another custom resource type (nothing is configured)."""
    schema = {"typeName": type_name, "primaryIdentifier": ["/properties/PhysicalResourceId"]}
    return type(
        type_name.replace("::", "").replace("Custom", "StandIn") + "Provider",
        (base,),
        {"TYPE": type_name, "SCHEMA": schema},
    )


def _providers() -> dict:
    from botocore.exceptions import ClientError
    from localstack.services.cloudformation.resource_provider import OperationStatus, ProgressEvent, ResourceProvider
    from localstack.services.ec2.resource_providers.aws_ec2_securitygroup import EC2SecurityGroupProvider
    from localstack.services.ec2.resource_providers.aws_ec2_vpcendpoint import EC2VPCEndpointProvider
    from localstack.services.logs.resource_providers.aws_logs_loggroup import LogsLogGroupProvider
    from localstack.services.s3.resource_providers.aws_s3_bucket import S3BucketProvider

    from lz_e2e_standins import StandInApplicationInferenceProfileProvider, StandInMantleProjectProvider, stacksets

    FaithfulSecurityGroupProvider = _faithful_security_group_provider(OperationStatus, EC2SecurityGroupProvider)
    FaithfulLogGroupProvider = _faithful_log_group_provider(OperationStatus, ProgressEvent, LogsLogGroupProvider)
    FaithfulVpcEndpointProvider = _faithful_vpc_endpoint_provider(OperationStatus, EC2VPCEndpointProvider)
    FaithfulBucketProvider = _faithful_bucket_provider(ClientError, OperationStatus, S3BucketProvider)
    StandInLambdaFunctionProvider = _stand_in_lambda_function_provider(OperationStatus, ProgressEvent, ResourceProvider)
    StandInLambdaPermissionProvider = _stand_in_lambda_permission_provider(
        OperationStatus, ProgressEvent, ResourceProvider
    )
    StandInInvocationLoggingProvider = _stand_in_invocation_logging_provider(
        OperationStatus, ProgressEvent, ResourceProvider
    )
    FlowLogProvider = _flow_log_provider(OperationStatus, ProgressEvent, ResourceProvider)
    NetworkAclEntryProvider = _network_acl_entry_provider(OperationStatus, ProgressEvent, ResourceProvider)
    SubnetAclAssociationProvider = _subnet_acl_association_provider(OperationStatus, ProgressEvent, ResourceProvider)
    RestrictDefaultSecurityGroupProvider = _restrict_default_security_group_provider(
        ClientError, OperationStatus, ProgressEvent, ResourceProvider
    )

    providers = {
        "AWS::Bedrock::ApplicationInferenceProfile": StandInApplicationInferenceProfileProvider,
        "AWS::BedrockMantle::Project": StandInMantleProjectProvider,
        "AWS::Lambda::Function": StandInLambdaFunctionProvider,
        "AWS::Lambda::Permission": StandInLambdaPermissionProvider,
        "Custom::VpcRestrictDefaultSG": RestrictDefaultSecurityGroupProvider,
        "Custom::BedrockInvocationLogging": StandInInvocationLoggingProvider,
        # the other landing-zone custom resources call APIs the emulator does not have (Cost Explorer, Bedrock)
        "Custom::CostAllocationTags": _stand_in_custom("Custom::CostAllocationTags", StandInInvocationLoggingProvider),
        "Custom::BedrockDataRetention": _stand_in_custom(
            "Custom::BedrockDataRetention", StandInInvocationLoggingProvider
        ),
        # the member baseline's roll-out: StackSet (Organizations stood in), its asset copy and layer
        **stacksets.providers(),
    }
    if os.environ.get("LZ_E2E_FIDELITY", "1") != "0":
        providers["AWS::EC2::SecurityGroup"] = FaithfulSecurityGroupProvider
        providers["AWS::Logs::LogGroup"] = FaithfulLogGroupProvider
        providers["AWS::EC2::VPCEndpoint"] = FaithfulVpcEndpointProvider
        providers["AWS::EC2::FlowLog"] = FlowLogProvider
        providers["AWS::EC2::NetworkAclEntry"] = NetworkAclEntryProvider
        providers["AWS::EC2::SubnetNetworkAclAssociation"] = SubnetAclAssociationProvider
        providers["AWS::S3::Bucket"] = FaithfulBucketProvider
    return providers


def install() -> None:
    from localstack.services.cloudformation import resource_provider as rp

    original = rp.ResourceProviderExecutor.try_load_resource_provider
    cache: dict = {}

    def try_load_resource_provider(resource_type: str):
        if not cache:
            cache.update(_providers())
        if resource_type in cache:
            return cache[resource_type]()
        return original(resource_type)

    rp.ResourceProviderExecutor.try_load_resource_provider = staticmethod(try_load_resource_provider)


if __name__ == "__main__":
    install()
    from localstack.runtime.main import main

    main()
