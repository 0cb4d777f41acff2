"""Live state through :mod:`landing_zone.aws`, and resolution of template values to live names and ARNs.

:class:`Live` (in :mod:`landing_zone.verify.client`, re-exported here) memoizes clients and turns "could not ask"
exceptions into :class:`ApiError`.

:class:`Resolver` evaluates the intrinsic functions the assembly uses (``Ref``, ``Fn::GetAtt``, ``Fn::ImportValue``,
``Fn::Join``, ``Fn::Sub``, pseudo parameters). A generated physical name (bucket, unnamed alarm ...) comes from
CloudFormation ``ListStackResources`` of the deployed stack, else from a stack output that names the resource
(``DescribeStacks``), else — for a VPC or VPC endpoint — from the tags the template gives it; a KMS key from its
stack's record (its alias only when the stack cannot be asked); an application inference profile's ARN from its stack
first, then Bedrock by name. What cannot be resolved becomes :class:`~landing_zone.verify.compare.Unresolved`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from landing_zone import aws
from landing_zone.assembly import Assembly, Resource, Stack
from landing_zone.verify.client import CREDENTIAL_FAILURES as CREDENTIAL_FAILURES
from landing_zone.verify.client import STICKY_FAILURES as STICKY_FAILURES
from landing_zone.verify.client import UNANSWERED_CODES as UNANSWERED_CODES
from landing_zone.verify.client import ApiError as ApiError
from landing_zone.verify.client import Live as Live
from landing_zone.verify.client import could_not_ask as could_not_ask
from landing_zone.verify.client import partition_of as partition_of
from landing_zone.verify.compare import Unresolved

# Literal name properties: Ref (or the physical ID) is this name when the template sets it.
NAME_PROPERTY = {
    "AWS::S3::Bucket": "BucketName",
    "AWS::Logs::LogGroup": "LogGroupName",
    "AWS::IAM::Role": "RoleName",
    "AWS::CloudWatch::Alarm": "AlarmName",
    "AWS::Budgets::Budget": "Budget.BudgetName",
    "AWS::EKS::Cluster": "Name",
    "AWS::EC2::LaunchTemplate": "LaunchTemplateName",
}


class Resolver:
    """Evaluates template values against the live account (see the module docstring)."""

    def __init__(
        self,
        assembly: Assembly,
        live: Live,
        *,
        region_of: Callable[[Stack], str],
        management_of: Callable[[Stack], bool] | None = None,
    ) -> None:
        self.assembly = assembly
        self.live = live
        self.region_of = region_of
        # whether a stack is asked with the management profile (a stack of the management account, e.g. the SCPs)
        self.management_of = management_of or (lambda _stack: False)
        self._stacks: dict[str, dict[str, Any] | None | ApiError] = {}
        self._physical: dict[str, str | Unresolved] = {}
        self._resources: dict[tuple[str, str, bool], dict[str, dict[str, Any]] | Exception] = {}
        self._key_ids: dict[str, dict[str, Any] | Unresolved] = {}
        self._profiles: dict[str, list[dict[str, Any]] | ApiError] = {}
        self._instance_names: dict[str, str | Unresolved] = {}
        self._parameters: dict[str, dict[str, str] | Unresolved] = {}
        self.notes: dict[str, str] = {}  # resource path -> how its physical name was found

    # -- environment ------------------------------------------------------------------------------------
    def account_of(self, stack: Stack) -> str:
        if stack.account:
            return stack.account
        return self.live.account()

    def partition(self, stack: Stack) -> str:
        return partition_of(self.region_of(stack))

    # -- values -----------------------------------------------------------------------------------------
    def value(self, value: Any, stack: Stack) -> Any:
        if isinstance(value, dict):
            if len(value) == 1:
                ((fn, arg),) = value.items()
                evaluate = self._INTRINSICS.get(fn)
                if evaluate is not None:
                    return evaluate(self, arg, stack)
                if fn.startswith("Fn::"):
                    return Unresolved(f"{fn} is evaluated only at deploy time")
            mapped = {k: self.value(v, stack) for k, v in value.items()}
            return {k: v for k, v in mapped.items() if v is not _NO_VALUE}
        if isinstance(value, list):
            return [v for v in (self.value(item, stack) for item in value) if v is not _NO_VALUE]
        return value

    # one method per intrinsic function the assembly uses: (argument, stack) -> value or Unresolved
    def _get_att(self, arg: Any, stack: Stack) -> Any:
        logical_id, attr = arg.split(".", 1) if isinstance(arg, str) else arg
        return self.get_att(logical_id, attr, stack)

    def _join(self, arg: Any, stack: Stack) -> Any:
        sep, parts = arg
        resolved = [self.value(p, stack) for p in self.value(parts, stack)]
        bad = [p for p in resolved if isinstance(p, Unresolved)]
        return bad[0] if bad else sep.join(str(p) for p in resolved)

    def _if(self, arg: Any, stack: Stack) -> Any:
        name, when_true, when_false = arg
        holds = self.condition(name, stack)
        if isinstance(holds, Unresolved):
            return holds
        return self.value(when_true if holds else when_false, stack)

    def _select(self, arg: Any, stack: Stack) -> Any:
        index, items = arg
        items = self.value(items, stack)
        return items[int(index)] if isinstance(items, list) else Unresolved(f"Fn::Select over {items!r}")

    def _split(self, arg: Any, stack: Stack) -> Any:
        """The stack's suffix in a retained resource's name splits ``AWS::StackId`` (landing_zone.core.naming)."""
        separator, source = arg
        text = self.value(source, stack)
        return text.split(separator) if isinstance(text, str) else text

    _INTRINSICS: dict[str, Callable[[Resolver, Any, Stack], Any]] = {
        "Ref": lambda self, arg, stack: self.ref(arg, stack),
        "Fn::GetAtt": _get_att,
        "Fn::ImportValue": lambda self, arg, stack: self.import_value(self.value(arg, stack)),
        "Fn::Join": _join,
        "Fn::Sub": lambda self, arg, stack: self.sub(arg, stack),
        "Fn::If": _if,
        "Fn::Select": _select,
        "Fn::Split": _split,
    }

    def sub(self, arg: Any, stack: Stack) -> Any:
        template, variables = (arg, {}) if isinstance(arg, str) else (arg[0], arg[1])
        failed: list[Unresolved] = []

        def repl(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in variables:
                got = self.value(variables[name], stack)
            elif "." in name:
                logical_id, attr = name.split(".", 1)
                got = self.get_att(logical_id, attr, stack)
            else:
                got = self.ref(name, stack)
            if isinstance(got, Unresolved):
                failed.append(got)
                return ""
            return str(got)

        text = re.sub(r"\$\{([^!}][^}]*)\}", repl, template)
        return failed[0] if failed else text

    def ref(self, name: str, stack: Stack) -> Any:
        pseudo: dict[str, Callable[[], Any]] = {
            "AWS::AccountId": lambda: self.account_of(stack),
            "AWS::Region": lambda: self.region_of(stack),
            "AWS::Partition": lambda: self.partition(stack),
            "AWS::URLSuffix": lambda: "amazonaws.com.cn" if self.partition(stack) == "aws-cn" else "amazonaws.com",
            "AWS::StackName": lambda: stack.name,
            "AWS::StackId": lambda: self.stack_id(stack),
            "AWS::NoValue": lambda: _NO_VALUE,
        }
        if name in pseudo:
            return pseudo[name]()
        res = stack.resource(name)
        if res is None:
            parameter = (stack.template.get("Parameters") or {}).get(name)
            if parameter is None:
                return Unresolved(f"Ref {name} in {stack.name}: not a resource or parameter of the stack")
            if stack.stack_set:  # per-account overrides: only the deployed instance knows the value
                values = self.stack_parameters(stack)
                if isinstance(values, Unresolved):
                    return values
                return values.get(name, Unresolved(f"parameter {name} is not set on the {stack.name} instance stack"))
            if "Default" in parameter and not str(parameter.get("Type", "")).startswith("AWS::SSM"):
                return parameter["Default"]
            return Unresolved(f"Ref {name} in {stack.name}: parameter without a default")
        return self.ref_of(res)

    def condition(self, name: str, stack: Stack) -> bool | Unresolved:
        """A template Condition (Fn::Equals / Fn::Not / Fn::And / Fn::Or / Condition) against live values."""
        expression = (stack.template.get("Conditions") or {}).get(name)
        if expression is None:
            return Unresolved(f"condition {name} is not defined in {stack.name}")
        return self._holds(expression, stack)

    def _holds(self, expression: Any, stack: Stack) -> bool | Unresolved:
        if not isinstance(expression, dict) or len(expression) != 1:
            return Unresolved(f"condition {expression!r} is not understood")
        ((fn, arg),) = expression.items()
        if fn == "Condition":
            return self.condition(arg, stack)
        if fn == "Fn::Equals":
            left, right = self.value(arg[0], stack), self.value(arg[1], stack)
            bad = [v for v in (left, right) if isinstance(v, Unresolved)]
            return bad[0] if bad else str(left) == str(right)
        parts = [self._holds(a, stack) for a in arg] if isinstance(arg, list) else []
        return _combine(fn, parts)

    # -- StackSet member stacks: the instance stack's real name and parameters ---------------------------
    def stack_name(self, stack: Stack) -> str | Unresolved:
        """The deployed stack's name: the assembly's, or for a StackSet member the instance stack
        ``StackSet-<name>-<id>`` found in this account."""
        if not stack.stack_set:
            return stack.name
        if stack.name not in self._instance_names:
            prefix = f"StackSet-{stack.stack_set}-"
            try:
                summaries = self.live.paginate(
                    "cloudformation",
                    "list_stacks",
                    "StackSummaries",
                    region=self.region_of(stack),
                    StackStatusFilter=list(_LIVE_STACK_STATUSES),
                )
                found = sorted(
                    (s for s in summaries if s.get("StackName", "").startswith(prefix)),
                    key=lambda s: str(s.get("CreationTime", "")),
                )
                self._instance_names[stack.name] = (
                    found[-1]["StackName"]
                    if found
                    else Unresolved(
                        f"no stack instance of StackSet {stack.stack_set} ({prefix}...) in this account/Region"
                    )
                )
            except ApiError as exc:
                self._instance_names[stack.name] = Unresolved(f"CloudFormation ListStacks: {exc.description}")
        return self._instance_names[stack.name]

    def stack_id(self, stack: Stack) -> str | Unresolved:
        """``AWS::StackId`` of the deployed stack (DescribeStacks): what a retained resource's name ends with."""
        from botocore.exceptions import ClientError

        try:
            described = self.describe_stack(stack)
        except ApiError as exc:
            return Unresolved(f"AWS::StackId of {stack.name}: CloudFormation {exc.description}")
        except ClientError as exc:
            return Unresolved(f"AWS::StackId of {stack.name}: CloudFormation DescribeStacks: {aws.error_code(exc)}")
        if described is None or not described.get("StackId"):
            return Unresolved(f"AWS::StackId of {stack.name}: the stack is not deployed")
        return str(described["StackId"])

    def stack_absent(self, stack: Stack) -> bool:
        """Whether CloudFormation answered that the stack does not exist (False when it could not be asked): what
        it would have created is missing, whatever its name (a retained resource's name needs the stack's ID)."""
        from botocore.exceptions import ClientError

        try:
            return self.describe_stack(stack) is None
        except (ApiError, ClientError):
            return False

    def describe_stack(self, stack: Stack) -> dict[str, Any] | None:
        """The deployed stack (CloudFormation DescribeStacks, once per run), ``None`` when no stack of that name
        exists; raises :class:`ApiError` when CloudFormation could not be asked.  A StackSet member is its instance
        stack (``stack_name``); a stack that cannot be named (no instance found) is ``None``."""
        if stack.name not in self._stacks:
            from botocore.exceptions import ClientError

            name = self.stack_name(stack)
            found: dict[str, Any] | None | ApiError
            if isinstance(name, Unresolved):
                found = ApiError("cloudformation", "ListStacks", name.why) if "ListStacks:" in name.why else None
            else:
                try:
                    stacks = self.live.call(
                        "cloudformation",
                        "describe_stacks",
                        region=self.region_of(stack),
                        management=self.management_of(stack),
                        StackName=name,
                    ).get("Stacks")
                    found = stacks[0] if stacks else None
                except ApiError as exc:
                    found = exc
                except ClientError as exc:
                    message = (exc.response.get("Error") or {}).get("Message") or ""
                    if aws.error_code(exc) != "ValidationError" or "does not exist" not in message:
                        raise
                    found = None
            self._stacks[stack.name] = found
        result = self._stacks[stack.name]
        if isinstance(result, ApiError):
            raise result
        return result

    def stack_parameters(self, stack: Stack) -> dict[str, str] | Unresolved:
        from botocore.exceptions import ClientError

        if stack.name not in self._parameters:
            name = self.stack_name(stack)
            if isinstance(name, Unresolved):
                self._parameters[stack.name] = name
            else:
                try:
                    described = self.describe_stack(stack)
                    if described is None:
                        self._parameters[stack.name] = Unresolved(
                            f"CloudFormation DescribeStacks {name}: no such stack"
                        )
                    else:
                        self._parameters[stack.name] = {
                            p["ParameterKey"]: p.get("ResolvedValue", p.get("ParameterValue"))
                            for p in described.get("Parameters") or []
                        }
                        self.notes[stack.name] = f"parameters of the instance stack {name}"
                except ApiError as exc:
                    self._parameters[stack.name] = Unresolved(
                        f"CloudFormation DescribeStacks {name}: {exc.description}"
                    )
                except ClientError as exc:
                    self._parameters[stack.name] = Unresolved(
                        f"CloudFormation DescribeStacks {name}: {aws.error_code(exc)}"
                    )
        return self._parameters[stack.name]

    def output_value(self, res: Resource, attr: str | None = None) -> str | Unresolved:
        """The live value of an output of ``res``'s stack whose template value is ``Ref res`` (``attr`` None) or
        ``Fn::GetAtt res.attr``: what the deployed stack reports for the resource (DescribeStacks ``Outputs``)."""
        wanted = (
            [{"Ref": res.logical_id}]
            if attr is None
            else [{"Fn::GetAtt": [res.logical_id, attr]}, {"Fn::GetAtt": f"{res.logical_id}.{attr}"}]
        )
        keys = [k for k, o in sorted(res.stack.outputs().items()) if isinstance(o, dict) and o.get("Value") in wanted]
        what = f"{res.path}{'.' + attr if attr else ''}"
        if not keys:
            return Unresolved(f"{what}: no stack output names it")
        from botocore.exceptions import ClientError

        try:
            described = self.describe_stack(res.stack)
        except ApiError as exc:
            return Unresolved(f"{what}: CloudFormation {exc.description}")
        except ClientError as exc:
            return Unresolved(f"{what}: CloudFormation DescribeStacks: {aws.error_code(exc)}")
        if described is None:
            return Unresolved(f"{what}: stack {res.stack.name} not found")
        live = {o.get("OutputKey"): o.get("OutputValue") for o in described.get("Outputs") or []}
        for key in keys:
            if live.get(key):
                self.notes.setdefault(what, f"CloudFormation stack output {res.stack.name}.{key}")
                return str(live[key])
        return Unresolved(f"{what}: the deployed stack has no output {', '.join(keys)}")

    def ref_of(self, res: Resource) -> Any:
        stack = res.stack
        account, region, partition = self.account_of(stack), self.region_of(stack), self.partition(stack)
        if res.type == "AWS::IAM::ManagedPolicy" and isinstance(res.prop("ManagedPolicyName"), str):
            return f"arn:{partition}:iam::{account}:policy{res.prop('Path', '/')}{res.prop('ManagedPolicyName')}"
        if res.type == "AWS::SNS::Topic" and isinstance(res.prop("TopicName"), str):
            return f"arn:{partition}:sns:{region}:{account}:{res.prop('TopicName')}"
        if res.type == "AWS::KMS::Key":
            key = self.kms_key(res)
            return key["KeyId"] if isinstance(key, dict) else key
        return self.physical_id(res)

    def get_att(self, logical_id: str, attr: str, stack: Stack) -> Any:
        res = stack.resource(logical_id)
        if res is None:
            return Unresolved(f"Fn::GetAtt {logical_id}.{attr} in {stack.name}: no such resource")
        account, region, partition = self.account_of(stack), self.region_of(stack), self.partition(stack)
        kind = (res.type, attr)
        if kind in _NAMED_ARNS:
            name = self.physical_id(res)
            if isinstance(name, Unresolved):
                return name
            return _NAMED_ARNS[kind](res, name, partition, region, account)
        if kind == ("AWS::KMS::Key", "Arn"):
            key = self.kms_key(res)
            return key["Arn"] if isinstance(key, dict) else key
        if kind in (("AWS::SNS::Topic", "TopicArn"), ("AWS::IAM::ManagedPolicy", "PolicyArn")):
            return self.ref_of(res)
        if kind == ("AWS::SNS::Topic", "TopicName"):
            arn = self.ref_of(res)
            return arn.rsplit(":", 1)[-1] if isinstance(arn, str) else arn
        return self._service_att(res, attr)

    def _service_att(self, res: Resource, attr: str) -> Any:
        """The attributes only the service itself knows (inference profile, Mantle project, VPC, budget action)."""
        kind = (res.type, attr)
        if kind == ("AWS::Bedrock::ApplicationInferenceProfile", "InferenceProfileArn"):
            return self.application_profile_arn(res)
        if res.type == "AWS::BedrockMantle::Project" and attr in ("Arn", "Id"):
            return self.mantle_project(res, attr)
        if res.type == "AWS::EC2::VPC" and attr in ("DefaultSecurityGroup", "CidrBlock"):
            return self.vpc_attribute(res, attr)
        if kind == ("AWS::Budgets::BudgetsAction", "ActionId"):
            return self.budget_action_id(res)
        return Unresolved(f"Fn::GetAtt {res.path}.{attr}: known only to the deployed stack")

    def budget_action_id(self, res: Resource) -> str | Unresolved:
        """The ID of a live budget action (the kill switch's, named by its reset role's policy): the one action of
        its budget (budgets DescribeBudgetActionsForBudget) that applies the same policy, of the same type."""
        budget = self.value(res.prop("BudgetName"), res.stack)
        policy = self.value(res.prop("Definition.IamActionDefinition.PolicyArn"), res.stack)
        if isinstance(budget, Unresolved) or isinstance(policy, Unresolved):
            return budget if isinstance(budget, Unresolved) else policy
        try:
            actions = self.live.paginate(
                "budgets",
                "describe_budget_actions_for_budget",
                "Actions",
                region=self.region_of(res.stack),
                AccountId=self.account_of(res.stack),
                BudgetName=budget,
            )
        except ApiError as exc:
            return Unresolved(f"{res.path}.ActionId: {exc}")
        found = [
            a
            for a in actions
            if a.get("ActionType") == res.prop("ActionType")
            and ((a.get("Definition") or {}).get("IamActionDefinition") or {}).get("PolicyArn") == policy
        ]
        if len(found) != 1:
            return Unresolved(f"{res.path}.ActionId: {len(found)} action(s) of budget {budget} apply {policy}")
        return str(found[0]["ActionId"])

    def vpc_attribute(self, res: Resource, attr: str) -> str | Unresolved:
        """``CidrBlock`` (ec2 DescribeVpcs) or ``DefaultSecurityGroup`` (ec2 DescribeSecurityGroups, the group
        named ``default``) of the live VPC."""
        vpc_id = self.physical_id(res)
        if isinstance(vpc_id, Unresolved):
            return vpc_id
        region = self.region_of(res.stack)
        try:
            if attr == "CidrBlock":
                vpcs = self.live.paginate("ec2", "describe_vpcs", "Vpcs", region=region, VpcIds=[vpc_id])
                return str(vpcs[0]["CidrBlock"]) if vpcs else Unresolved(f"{res.path}: VPC {vpc_id} not found")
            groups = self.live.paginate(
                "ec2",
                "describe_security_groups",
                "SecurityGroups",
                region=region,
                Filters=[{"Name": "vpc-id", "Values": [vpc_id]}, {"Name": "group-name", "Values": ["default"]}],
            )
        except ApiError as exc:
            return Unresolved(f"{res.path}.{attr}: {exc}")
        return str(groups[0]["GroupId"]) if groups else Unresolved(f"{res.path}: VPC {vpc_id} has no default group")

    def by_tags(self, res: Resource) -> str | Unresolved:
        """A VPC or VPC endpoint without a CloudFormation record: the one that carries every tag the template gives
        it (``landing-zone``, ``Name``, ``*-endpoint-service`` ...; an endpoint also its service name), found with
        ec2 DescribeVpcs / DescribeVpcEndpoints."""
        tags = self.value(res.prop("Tags") or [], res.stack)
        literal = {
            str(t.get("Key")): str(t.get("Value"))
            for t in (tags if isinstance(tags, list) else [])
            if isinstance(t, dict) and isinstance(t.get("Value"), str) and not str(t.get("Key")).startswith("aws:")
        }
        kinds = {
            "AWS::EC2::VPC": ("describe_vpcs", "Vpcs", "VpcId", "VPCs"),
            "AWS::EC2::VPCEndpoint": ("describe_vpc_endpoints", "VpcEndpoints", "VpcEndpointId", "VPC endpoints"),
        }
        if res.type not in kinds or not literal:
            return Unresolved(f"{res.path}: no CloudFormation record and no tags to find it by")
        operation, key, id_key, plural = kinds[res.type]
        filters = [{"Name": f"tag:{k}", "Values": [v]} for k, v in sorted(literal.items())]
        service = self.value(res.prop("ServiceName"), res.stack) if res.type == "AWS::EC2::VPCEndpoint" else None
        if isinstance(service, str):
            filters.append({"Name": "service-name", "Values": [service]})
        try:
            found = [
                item
                for item in self.live.paginate("ec2", operation, key, region=self.region_of(res.stack), Filters=filters)
                if str(item.get("State", "")).lower() not in ("deleted", "deleting")
            ]
        except ApiError as exc:
            return Unresolved(f"{res.path}: {exc}")
        if len(found) != 1:
            return Unresolved(f"{res.path}: {len(found)} {plural} carry its tags {literal}")
        self.notes[res.path] = "its tags " + ", ".join(f"{k}={v}" for k, v in sorted(literal.items()))
        return str(found[0][id_key])

    def import_value(self, name: Any) -> Any:
        if isinstance(name, Unresolved):
            return name
        found = self.assembly.export(name)
        if found is None:
            return Unresolved(f"Fn::ImportValue {name}: no stack in the assembly exports it")
        stack, value = found
        return self.value(value, stack)

    def label(self, value: Any, stack: Stack) -> str:
        """A readable name for a template value without asking AWS: a KMS key reference becomes its alias,
        another resource reference ``<stack>/<logical id>``, a literal itself."""
        target = self._target(value, stack)
        if target is None:
            return str(value)
        if target.type == "AWS::KMS::Key":
            aliases = self.aliases_of(target)
            if aliases:
                return aliases[0]
        return target.path

    def _target(self, value: Any, stack: Stack, depth: int = 0) -> Resource | None:
        if not isinstance(value, dict) or len(value) != 1 or depth > 5:
            return None
        ((fn, arg),) = value.items()
        if fn == "Ref" and isinstance(arg, str):
            return stack.resource(arg)
        if fn == "Fn::GetAtt":
            logical_id = arg.split(".", 1)[0] if isinstance(arg, str) else arg[0]
            return stack.resource(logical_id)
        if fn == "Fn::ImportValue" and isinstance(arg, str):
            found = self.assembly.export(arg)
            return self._target(found[1], found[0], depth + 1) if found else None
        return None

    # -- application inference profiles (random IDs: found by name) --------------------------------------
    def application_profiles(self, region: str) -> list[dict[str, Any]]:
        """ListInferenceProfiles(typeEquals=APPLICATION) in ``region``, once per run; raises :class:`ApiError`."""
        if region not in self._profiles:
            try:
                self._profiles[region] = self.live.paginate(
                    "bedrock",
                    "list_inference_profiles",
                    "inferenceProfileSummaries",
                    region=region,
                    typeEquals="APPLICATION",
                )
            except ApiError as exc:
                self._profiles[region] = exc
        found = self._profiles[region]
        if isinstance(found, ApiError):
            raise found
        return found

    def application_profile_arn(self, res: Resource) -> str | Unresolved:
        """The profile's ARN: what its stack says first (ListStackResources: the physical ID is the ARN; else a
        stack output of ``Fn::GetAtt <profile>.InferenceProfileArn``, e.g. ``<App>ProfileArn``), else Bedrock
        ListInferenceProfiles by name."""
        stack = res.stack
        physical = self.cloudformation_physical_id(res)
        if isinstance(physical, str) and physical:
            if physical.startswith("arn:") and "inference-profile/" in physical:
                return physical
            if ":" not in physical and "/" not in physical:  # the bare profile ID
                return (
                    f"arn:{self.partition(stack)}:bedrock:{self.region_of(stack)}:{self.account_of(stack)}:"
                    f"application-inference-profile/{physical}"
                )
        output = self.output_value(res, "InferenceProfileArn")
        if isinstance(output, str):
            self.notes.setdefault(res.path, self.notes.get(f"{res.path}.InferenceProfileArn", "stack output"))
            return output
        name = self.value(res.prop("InferenceProfileName"), stack)
        try:
            summaries = self.application_profiles(self.region_of(stack))
        except ApiError as exc:
            return Unresolved(f"{res.path}: {exc} (and {output.why})")
        match = next((s for s in summaries if s.get("inferenceProfileName") == name), None)
        if match is None:
            return Unresolved(f"{res.path}: no application inference profile named {name!r}")
        self.notes.setdefault(res.path, f"ListInferenceProfiles by name {name}")
        return str(match["inferenceProfileArn"])

    def mantle_project(self, res: Resource, attr: str) -> str | Unresolved:
        """A Mantle Project's ``Arn`` or ``Id`` (``arn:...:bedrock-mantle:<region>:<account>:project/<Id>``): the
        physical ID its stack records is the ARN (``Ref``, as CDK's ``projectRef`` reads it), else a stack output of
        ``Fn::GetAtt <project>.<attr>``; the SDK has no Mantle client to list projects by name."""
        arn = self.cloudformation_physical_id(res)
        if isinstance(arn, str) and ":project/" in arn:
            return arn if attr == "Arn" else arn.rsplit("/", 1)[-1]
        output = self.output_value(res, attr)
        if isinstance(output, str):
            return output
        recorded = arn.why if isinstance(arn, Unresolved) else f"its stack records {arn!r}, not a project ARN"
        return Unresolved(f"{recorded}; {output.why}")

    # -- physical names ---------------------------------------------------------------------------------
    def physical_id(self, res: Resource) -> str | Unresolved:
        """The resource's physical name: the literal name property, else CloudFormation's record of it."""
        prop = NAME_PROPERTY.get(res.type)
        if prop:
            literal = res.prop(prop)
            if literal is not None:
                resolved = self.value(literal, res.stack)
                if isinstance(resolved, str):
                    self.notes.setdefault(res.path, f"name {prop} in the template")
                    return resolved
        return self.cloudformation_physical_id(res)

    def stack_resources(self, stack: Stack, stack_name: str) -> dict[str, dict[str, Any]]:
        """The deployed stack's resources by logical ID (CloudFormation ListStackResources, paginated, once per run):
        one listing answers every resource of the stack.  Its failure (:class:`ApiError`, or ``ClientError`` such as
        a stack that does not exist) is raised again to every caller."""
        from botocore.exceptions import ClientError

        key = (stack_name, self.region_of(stack), self.management_of(stack))
        if key not in self._resources:
            try:
                summaries = self.live.paginate(
                    "cloudformation",
                    "list_stack_resources",
                    "StackResourceSummaries",
                    region=key[1],
                    management=key[2],
                    StackName=stack_name,
                )
                self._resources[key] = {str(s.get("LogicalResourceId")): s for s in summaries}
            except (ApiError, ClientError) as exc:
                self._resources[key] = exc
        found = self._resources[key]
        if isinstance(found, Exception):
            raise found
        return found

    def cloudformation_physical_id(self, res: Resource) -> str | Unresolved:
        if res.path in self._physical:
            return self._physical[res.path]
        from botocore.exceptions import ClientError

        stack_name = self.stack_name(res.stack)
        if isinstance(stack_name, Unresolved):
            self._physical[res.path] = Unresolved(f"{res.path}: {stack_name.why}")
            return self._physical[res.path]
        try:
            detail = self.stack_resources(res.stack, stack_name).get(res.logical_id)
            physical = detail.get("PhysicalResourceId") if detail is not None else None
            result: str | Unresolved = (
                physical
                if physical
                else Unresolved(
                    f"{res.path}: CloudFormation: Resource {res.logical_id} does not exist for stack {stack_name}"
                    if detail is None
                    else f"{res.path}: CloudFormation has no physical ID (status {detail.get('ResourceStatus')})"
                )
            )
            if physical:
                self.notes[res.path] = f"CloudFormation ListStackResources {stack_name}/{res.logical_id}"
        except ApiError as exc:
            result = Unresolved(f"{res.path}: CloudFormation {exc.description}")
        except ClientError as exc:
            message = (exc.response.get("Error") or {}).get("Message") or str(exc)
            result = Unresolved(f"{res.path}: CloudFormation: {message}")
        if isinstance(result, Unresolved):
            output = self.output_value(res)  # the stack may still report it (an output of Ref <resource>)
            if isinstance(output, str):
                result = output
            elif res.type in ("AWS::EC2::VPC", "AWS::EC2::VPCEndpoint"):
                tagged = self.by_tags(res)
                result = tagged if isinstance(tagged, str) else Unresolved(f"{result.why}; {tagged.why}")
        self._physical[res.path] = result
        return result

    def aliases_of(self, key: Resource) -> list[str]:
        names = []
        for alias in key.stack.resources("AWS::KMS::Alias"):
            target = alias.prop("TargetKeyId")
            if target in ({"Ref": key.logical_id}, {"Fn::GetAtt": [key.logical_id, "Arn"]}) and isinstance(
                alias.prop("AliasName"), str
            ):
                names.append(alias.prop("AliasName"))
        return sorted(names)

    def kms_key(self, key: Resource) -> dict[str, Any] | Unresolved:
        """KeyMetadata of the live key: found by CloudFormation's physical ID first (ListStackResources, else a
        stack output of ``Ref``/``Fn::GetAtt .Arn`` of the key), and by its alias only when the stack cannot be
        asked.  An alias can be moved to another key (``kms:UpdateAlias``); the stack's record cannot, so every
        family that compares a configured key compares it with the key the stack created, and the ``kms-alias``
        check reports a moved alias once."""
        if key.path in self._key_ids:
            return self._key_ids[key.path]
        from botocore.exceptions import ClientError

        region = self.region_of(key.stack)
        key_id = self.kms_key_id(key)
        result: dict[str, Any] | Unresolved
        try:
            if isinstance(key_id, Unresolved):
                result = key_id
            else:
                result = self.live.call(
                    "kms", "describe_key", region=region, management=self.management_of(key.stack), KeyId=key_id
                )["KeyMetadata"]
        except ApiError as exc:
            result = Unresolved(f"{key.path}: {exc}")
        except ClientError as exc:
            result = Unresolved(f"{key.path}: {aws.error_code(exc)} for {key_id}")
        self._key_ids[key.path] = result
        return result

    def kms_key_id(self, key: Resource) -> str | Unresolved:
        """What to ask KMS for: the key ID CloudFormation recorded (ListStackResources, else a stack output of
        ``Ref``/``Fn::GetAtt .Arn`` of the key), else — the stack cannot be asked or does not know the key — its
        first alias (noted: :meth:`found_by_alias`)."""
        key_id = self.cloudformation_physical_id(key)
        if isinstance(key_id, str):
            return key_id
        arn = self.output_value(key, "Arn")
        if isinstance(arn, str):
            return arn
        aliases = self.aliases_of(key)
        if aliases:
            self.notes[key.path] = f"alias {aliases[0]} (no CloudFormation record: {key_id.why})"
            return aliases[0]
        return key_id

    def found_by_alias(self, key: Resource) -> bool:
        """Whether :meth:`kms_key` had to find the key by its alias (no CloudFormation record of it)."""
        return self.notes.get(key.path, "").startswith("alias ")


_LIVE_STACK_STATUSES = (
    "CREATE_COMPLETE",
    "UPDATE_COMPLETE",
    "UPDATE_ROLLBACK_COMPLETE",
    "IMPORT_COMPLETE",
    "IMPORT_ROLLBACK_COMPLETE",
    "UPDATE_IN_PROGRESS",
    "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS",
    "UPDATE_ROLLBACK_IN_PROGRESS",
    "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS",
)


class _NoValue:
    def __repr__(self) -> str:
        return "AWS::NoValue"


_NO_VALUE = _NoValue()


def _combine(fn: str, parts: list[bool | Unresolved]) -> bool | Unresolved:
    """Fn::Not, Fn::And or Fn::Or of evaluated conditions (the first unresolved one, if any)."""
    understood = bool(parts) and (fn in ("Fn::And", "Fn::Or") or (fn == "Fn::Not" and len(parts) == 1))
    if not understood:
        return Unresolved(f"condition function {fn} is not understood")
    bad = [p for p in parts if isinstance(p, Unresolved)]
    if bad:
        return bad[0]
    if fn == "Fn::Not":
        return not parts[0]
    return all(parts) if fn == "Fn::And" else any(parts)


# Fn::GetAtt values built from the resource's physical name: (resource, name, partition, region, account) -> ARN.
_NAMED_ARNS: dict[tuple[str, str], Callable[[Resource, str, str, str, str], str]] = {
    ("AWS::IAM::Role", "Arn"): lambda res, name, partition, _region, account: (
        f"arn:{partition}:iam::{account}:role{res.prop('Path', '/')}{name}"
    ),
    ("AWS::Logs::LogGroup", "Arn"): lambda _res, name, partition, region, account: (
        f"arn:{partition}:logs:{region}:{account}:log-group:{name}:*"
    ),
    ("AWS::S3::Bucket", "Arn"): lambda _res, name, partition, _region, _account: f"arn:{partition}:s3:::{name}",
}
