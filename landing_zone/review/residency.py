"""The residency and data-flow sheet: per invocation path, where a request starts and is processed, whether it is
logged (where, with which key), the data retention mode, how long logs are kept, whether they are locked and who can
read them (issue 34, the first section of the report, the same in the JSON under ``residency``).

Derived from the plan (the routing decision, the configuration, the key and bucket policies the stacks render) and
the assembly (the log bucket's Object Lock and encryption, the log group's retention as synthesized).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from landing_zone.assembly import Assembly
from landing_zone.core.routing import PathKind
from landing_zone.plan import Plan

__all__ = ["residency_section"]

MANTLE_LOGGING_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/model-invocation-logging.html"
RETENTION_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html"


def _logging_resources(assembly: Assembly | None) -> dict[str, Any]:
    """The invocation log bucket and log group as synthesized: Object Lock, encryption, retention."""
    out: dict[str, Any] = {"object_lock": None, "bucket_encryption": None, "log_group_retention_days": None}
    if assembly is None:
        return out
    for res in assembly.resources("Custom::BedrockInvocationLogging"):
        stack = res.stack
        bucket_ref = (res.prop("BucketName") or {}).get("Ref") if isinstance(res.prop("BucketName"), dict) else None
        group_ref = (res.prop("LogGroupName") or {}).get("Ref") if isinstance(res.prop("LogGroupName"), dict) else None
        bucket = stack.resource(bucket_ref) if bucket_ref else None
        group = stack.resource(group_ref) if group_ref else None
        if bucket is not None:
            lock = bucket.prop("ObjectLockEnabled")
            rule = bucket.prop("ObjectLockConfiguration.Rule.DefaultRetention") or {}
            out["object_lock"] = (
                f"enabled: {rule.get('Mode', 'no default mode')} {rule.get('Days') or rule.get('Years', '')}".strip()
                if lock
                else "none"
            )
            sse = (bucket.prop("BucketEncryption.ServerSideEncryptionConfiguration") or [{}])[0]
            algo = (sse.get("ServerSideEncryptionByDefault") or {}).get("SSEAlgorithm")
            out["bucket_encryption"] = algo or "none"
        if group is not None:
            out["log_group_retention_days"] = group.prop("RetentionInDays")
    return out


def _principal_names(stmt: Mapping[str, Any]) -> list[str]:
    principal = stmt.get("Principal") or {}
    if isinstance(principal, str):
        return [principal]
    out = []
    for kind, values in principal.items():
        for v in values if isinstance(values, list) else [values]:
            out.append(f"{kind}: {v}")
    return out


def _readers(plan: Plan) -> list[str]:
    """Who can read the invocation logs: the key policy's and the bucket policy's grants of Decrypt / GetObject."""
    out: list[str] = []
    key = plan.policies.keys.get("logs") or {}
    for stmt in key.get("Statement") or []:
        actions = stmt.get("Action")
        actions = actions if isinstance(actions, list) else [actions]
        if stmt.get("Effect") != "Allow" or not any(a in ("kms:*", "kms:Decrypt", "kms:Decrypt*") for a in actions):
            continue
        for who in _principal_names(stmt):
            if who.endswith(":root"):
                out.append(
                    "IAM principals of the account holding the logs, allowed s3:GetObject or logs:GetLogEvents and "
                    f"kms:Decrypt by their own policies (key policy {stmt.get('Sid', '')} delegates to IAM)"
                )
            elif who.startswith("Service:"):
                continue  # services that write and deliver the logs, not readers
            else:
                out.append(f"{who} ({stmt.get('Sid', '')})")
    bucket = plan.policies.invocation_log_bucket or {}
    for stmt in bucket.get("Statement") or []:
        actions = stmt.get("Action")
        actions = actions if isinstance(actions, list) else [actions]
        if stmt.get("Effect") == "Allow" and any(str(a).startswith("s3:Get") for a in actions):
            out += [f"{who} (bucket policy {stmt.get('Sid', '')})" for who in _principal_names(stmt)]
    out.append("no guardrail prevents reading (residual risk RR-05)")
    return list(dict.fromkeys(out))


def _retention(plan: Plan) -> str:
    mode = plan.config.data_retention.mode
    if mode is None:
        return "not governed (data_retention.mode unset): the account's own setting applies"
    return f"{mode}, applied in {plan.config.home_region} (both endpoints) and its change denied by the guardrails"


def _logged(plan: Plan, kind: str, starts: list[str], keys: Mapping[str, Any]) -> dict[str, Any]:
    il = plan.config.invocation_logging
    home = plan.config.home_region
    if kind == PathKind.MANTLE.value:
        return {
            "logged": False,
            "where": f"not captured: Mantle calls are never captured by model invocation logging ({MANTLE_LOGGING_DOC});"
            " token metrics in AWS/BedrockMantle only",
            "summary": "NO: Mantle calls are never captured by invocation logging",
            "key": None,
        }
    if kind == "batch":
        return {
            "logged": False,
            "where": "the job's own S3 output (the job's input and output buckets); invocation logging is not claimed "
            "for batch",
            "summary": "NO: the batch job's own S3 output",
            "key": None,
        }
    if kind == "model-calling-service":
        where = "not by invocation logging: the service calls models itself"
        return {"logged": False, "where": where, "summary": "NO: the service's own", "key": None}
    if not il.enabled:
        where = "invocation logging is off (invocation_logging.enabled: false)"
        return {"logged": False, "where": where, "summary": "NO: logging off", "key": None}
    if starts and home not in starts:
        where = f"logging is configured in {home} only"
        return {"logged": False, "where": where, "summary": f"NO: only {home} logs", "key": None}
    content = ", ".join(k for k in ("text", "image", "embedding", "video") if getattr(il, k))
    return {
        "logged": True,
        "where": f"S3 bucket {plan.config.name}-invocation-logs-* (prefix bedrock-invocation-logs/) and CloudWatch "
        f"Logs /{plan.config.name}/bedrock/invocations-* in {home}; full request and response bodies ({content})",
        "key": f"alias/{plan.config.name}/logs (customer managed; bucket SSE {keys.get('bucket_encryption') or '?'})",
        "summary": f"yes: prompts and responses to S3 and CloudWatch Logs in {home}, key alias/{plan.config.name}/logs",
    }


def _row(
    plan: Plan,
    path: str,
    endpoint: str,
    model: str,
    invoke_id: str,
    allowed: bool,
    starts: list[str],
    processed: list[str],
    reason: str,
    logs: Mapping[str, Any],
) -> dict[str, Any]:
    il = plan.config.invocation_logging
    logged = (
        _logged(plan, path, starts, logs)
        if allowed
        else {"logged": None, "where": "- (the path is denied)", "summary": "-", "key": None}
    )
    return {
        "path": path,
        "endpoint": endpoint,
        "model": model,
        "invoke_id": invoke_id,
        "allowed": allowed,
        "starts_in": starts,
        "processed_in": processed,
        "reason": reason,
        **logged,
        "retention_mode": _retention(plan),
        "log_retention": (
            f"CloudWatch Logs {logs.get('log_group_retention_days') or il.log_retention_days} d, S3 "
            f"{il.s3_expiration_days} d (infrequent access after {il.s3_infrequent_access_after_days})"
            if logged["logged"]
            else "-"
        ),
        "object_lock": (logs.get("object_lock") or "none") if logged["logged"] else "-",
        "readers": _readers(plan) if logged["logged"] else [],
    }


def residency_section(plan: Plan, assembly: Assembly | None) -> dict[str, Any]:
    """One row per invocation path (runtime in-Region, geographic and global profiles, Mantle, batch, the
    model-calling services), allowed paths first."""
    c = plan.config
    logs = _logging_resources(assembly)
    sources = set(c.source_regions)
    rows = []
    for mr in plan.routing.models:
        for rt in mr.routes:
            starts = sorted(set(rt.source_regions) & sources) if rt.compliant else sorted(rt.source_regions)
            rows.append(
                _row(
                    plan,
                    rt.kind.value,
                    rt.endpoint,
                    rt.model_id,
                    rt.invoke_id,
                    rt.compliant and bool(starts),
                    starts,
                    sorted(rt.destination_regions),
                    rt.reason,
                    logs,
                )
            )
        batch = sorted(
            {r for rt in mr.compliant_routes if rt.kind is not PathKind.MANTLE for r in rt.destination_regions}
        )
        rows.append(
            _row(
                plan,
                "batch",
                "bedrock",
                mr.model.id,
                "CreateModelInvocationJob",
                bool(batch),
                sorted(sources),
                batch,
                "a job of an allowed runtime path, started in a source Region; a job naming the global profile looks "
                "in-Region to IAM (docs/THREAT_MODEL.md)",
                {**logs},
            )
        )
    confined = c.policy_guardrails.confine_model_calling_services
    rows.append(
        _row(
            plan,
            "model-calling-service",
            "the service's own",
            "(the service's choice)",
            "Q Business, Connect, ...",
            True,
            sorted(c.compliant_regions) if confined else ["any"],
            ["within the service's geography (service-defined)"],
            "the services are denied outside compliant_regions"
            if confined
            else "policy_guardrails.confine_model_calling_services is off: not confined",
            logs,
        )
    )
    order = [k.value for k in PathKind] + ["batch", "model-calling-service"]
    rows.sort(key=lambda r: (not r["allowed"], order.index(r["path"]), r["invoke_id"]))
    return {
        "home_region": c.home_region,
        "compliant_regions": sorted(c.compliant_regions),
        "source_regions": list(c.source_regions),
        "retention_mode": _retention(plan),
        "retention_doc": RETENTION_DOC,
        "log_bucket_object_lock": logs.get("object_lock") or "none",
        "paths": rows,
    }
