"""Each governed account's account-level settings, read where the deploy will write them, and judged against what
the deploy does with them: model invocation logging, the data retention mode per Region, Cost Anomaly Detection
monitors and the AWS Config recorder.  (The CDK bootstraps are :mod:`landing_zone.preflight.bootstrap`.)

A setting someone else wrote is a conflict unless the configuration says what to do with it; one the landing zone
wrote in an earlier deploy, or none, is a note.
"""

from __future__ import annotations

from landing_zone.core import naming
from landing_zone.preflight import intent
from landing_zone.preflight.model import Finding, Severity
from landing_zone.preflight.reading import Context, Unread, ask
from landing_zone.verify.live import Live

__all__ = ["check_account"]

CE_REGION = "us-east-1"  # Cost Explorer's one endpoint (Cost Explorer API reference, "Endpoints")
RETENTION_DOCS = "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html"


def check_account(ctx: Context, account: str, live: Live) -> None:
    """Every setting of one workload account (an API that cannot be asked is an ``unchecked`` finding)."""
    for check in (_invocation_logging, _data_retention, _anomaly_monitors, _config_recorder):
        try:
            check(ctx, account, live)
        except Unread:
            continue


def _invocation_logging(ctx: Context, account: str, live: Live) -> None:
    where = f"account {account} {ctx.home}"
    answer = ask(
        ctx, live, "bedrock", "get_model_invocation_logging_configuration", check="invocation-logging", where=where
    )
    current = answer.get("loggingConfig") or {}
    lz, enabled = ctx.plan.config.name, ctx.plan.config.invocation_logging.enabled
    bucket = (current.get("s3Config") or {}).get("bucketName")
    group = (current.get("cloudWatchConfig") or {}).get("logGroupName")
    found = f"invocation logging to {_targets(bucket, group)}" if current else "no invocation logging configuration"
    if not enabled:
        ctx.add(_note("invocation-logging", where, found, "left alone (invocation_logging.enabled is false)"))
    elif not current:
        ctx.add(_note("invocation-logging", where, found, "the deploy sets the landing zone's"))
    elif naming.is_deployed_name(naming.invocation_logs_bucket_name(lz), bucket) or naming.is_deployed_name(
        naming.invocation_log_group_name(lz), group
    ):
        ctx.add(_note("invocation-logging", where, found, "the landing zone's own (an earlier deploy): kept"))
    elif intent.takes_over_invocation_logging(ctx.plan):
        # TODO(singletons): the handler saves the configuration it takes over and restores it on delete.
        ctx.add(
            _note(
                "invocation-logging", where, found,
                "taken over (invocation_logging.take_over_existing): saved, replaced, restored on delete",
            )
        )  # fmt: skip
    else:
        ctx.add(
            Finding(
                "invocation-logging", where, f"another team's configuration: {found}",
                # TODO(singletons): with wt-singletons the handler refuses it and the deploy fails naming it.
                "the deploy writes the landing zone's configuration over it: one configuration per account and Region, "
                "so every Bedrock call of the account would then be logged to the landing zone's bucket",
                "if the landing zone may take it over, set invocation_logging.take_over_existing: true (saved, and "
                "restored on delete); otherwise leave it to its owner: invocation_logging.enabled: false, or deploy to "
                "an account without one",
                Severity.CONFLICT,
            )
        )  # fmt: skip


def _targets(bucket: str | None, group: str | None) -> str:
    parts = ([f"S3 bucket {bucket}"] if bucket else []) + ([f"log group {group}"] if group else [])
    return " and ".join(parts) or "no destination"


def _data_retention(ctx: Context, account: str, live: Live) -> None:
    cfg = ctx.plan.config
    for region in sorted({cfg.home_region, *cfg.source_regions}):
        where = f"account {account} {region}"
        try:
            answer = ask(
                ctx, live, "bedrock", "get_account_data_retention", check="data-retention", where=where, region=region
            )
        except Unread:
            continue
        mode = str(answer.get("mode") or "inherit")
        _judge_retention(ctx, where, region, mode)


def _judge_retention(ctx: Context, where: str, region: str, mode: str) -> None:
    """In home_region with data_retention.mode set the deploy writes the mode; elsewhere the mode found stays, and
    inference of a model whose allowed modes leave it out is refused there."""
    configured = ctx.plan.config.data_retention.mode
    found = f"data retention mode {mode}"
    if configured is not None and region == ctx.home:
        if mode in ("inherit", configured):
            ctx.add(_note("data-retention", where, found, f"the deploy sets {configured} (data_retention.mode)"))
            return
        ctx.add(
            Finding(
                "data-retention", where, f"{found}, set by someone else",
                f"the deploy sets {configured} over it for every team of the account in {region}, and the SCPs then "
                "deny any other mode",
                f"agree the mode with the account's owner: set data_retention.mode: {mode}, or leave data_retention.mode "
                "unset (not governed)",
                Severity.CONFLICT,
            )
        )  # fmt: skip
        return
    blocked = [
        m.id for m in ctx.plan.models if m.data_retention_modes is not None and m.data_retention_modes.blocks(mode)
    ]
    if not blocked:
        ctx.add(_note("data-retention", where, found, "left alone (the landing zone sets no mode here)"))
        return
    ctx.add(
        Finding(
            "data-retention", where, found,
            f"inference of {', '.join(blocked)} is refused in {region}: the mode is not among the model's allowed "
            f"modes ({RETENTION_DOCS})",
            f"agree another mode with the account's owner, or remove {region} from inference_source_regions",
            Severity.CONFLICT,
        )
    )  # fmt: skip


def _anomaly_monitors(ctx: Context, account: str, live: Live) -> None:
    where = f"account {account}"
    monitors = ask(
        ctx, live, "ce", "get_anomaly_monitors", check="anomaly-monitor", where=where, key="AnomalyMonitors", region=CE_REGION,
    )  # fmt: skip
    own = naming.anomaly_monitor_name(ctx.plan.config.name)
    reused = intent.reused_anomaly_monitor(ctx.plan)
    service = [m for m in monitors if m.get("MonitorType") == "DIMENSIONAL" and m.get("MonitorDimension") == "SERVICE"]
    foreign = [m for m in service if m.get("MonitorName") != own and m.get("MonitorArn") != reused]
    if not service:
        ctx.add(_note("anomaly-monitor", where, "no SERVICE anomaly monitor", f"the deploy creates {own}"))
    for m in service:
        if m not in foreign:
            what = "the landing zone's own (an earlier deploy)" if m.get("MonitorName") == own else "reused"
            ctx.add(_note("anomaly-monitor", where, f"SERVICE monitor {m.get('MonitorName')}", what))
    for m in foreign:
        ctx.add(
            Finding(
                "anomaly-monitor", where, f"SERVICE monitor {m.get('MonitorName')} ({m.get('MonitorArn')})",
                f"the deploy creates a second SERVICE monitor ({own}); an account has one AWS services monitor",
                f"reuse it: set cost.anomaly_monitor_arn: {m.get('MonitorArn')}",
                Severity.CONFLICT,
            )
        )  # fmt: skip
    others = [m.get("MonitorName") for m in monitors if m not in service]
    if others:
        ctx.add(_note("anomaly-monitor", where, f"other monitors: {', '.join(map(str, others))}", "left alone"))


def _config_recorder(ctx: Context, account: str, live: Live) -> None:
    where = f"account {account} {ctx.home}"
    answer = ask(ctx, live, "config", "describe_configuration_recorders", check="config-recorder", where=where)
    names = [str(r.get("name")) for r in answer.get("ConfigurationRecorders") or []]
    found = f"AWS Config recorder {', '.join(names)}" if names else "no AWS Config recorder"
    detection = ctx.plan.policies.detection
    if account != ctx.plan.config.deployment_account or detection is None or not detection.config_rules:
        ctx.add(
            _note("config-recorder", where, found, "left alone: the landing zone creates no recorder (one per Region)")
        )
        return
    rules = ", ".join(sorted(detection.config_rule_names.values()))
    if not names:  # PutConfigRule raises NoAvailableConfigurationRecorderException: the detection stack would fail
        ctx.add(
            Finding(
                "config-recorder",
                where,
                found,
                f"the detection stack creates the AWS Config rules {rules}, which need a recorder; the landing zone "
                "creates none (one per account and Region), so the deploy would fail",
                "turn AWS Config on in this Region (e.g. enroll the account in Control Tower), or set "
                "detection.config_rules: false",
                Severity.CONFLICT,
            )
        )
        return
    status = ask(ctx, live, "config", "describe_configuration_recorder_status", check="config-recorder", where=where)
    recording = [str(s.get("name")) for s in status.get("ConfigurationRecordersStatus") or [] if s.get("recording")]
    deploy = (
        f"left alone; the AWS Config rules {rules} run on it (recording: {', '.join(recording)})"
        if recording
        else f"left alone; WARNING: it is not recording, so the AWS Config rules {rules} deploy but evaluate "
        "nothing until it is started (StartConfigurationRecorder)"
    )
    ctx.add(_note("config-recorder", where, found, deploy))


def _note(check: str, where: str, found: str, deploy: str) -> Finding:
    return Finding(check, where, found, deploy, "", Severity.NOTE)
