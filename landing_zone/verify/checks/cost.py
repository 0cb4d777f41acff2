"""Cost controls.  SNS: each ``AWS::SNS::Topic`` exists with the synthesized KMS key, each
``AWS::SNS::Subscription`` is subscribed (pending confirmation counts as subscribed) and, once confirmed, has no
filter policy the landing zone did not set (an e-mail one confirmed without authentication is noted).  Budgets: each
``AWS::Budgets::Budget`` has the synthesized limit, time unit, type and filters, its notifications and their
subscribers; each ``AWS::Budgets::BudgetsAction`` matches on its budget.  CloudWatch: each
``AWS::CloudWatch::Alarm`` has the synthesized threshold, evaluation, actions and metric(s).  Cost Explorer: each
``AWS::CE::AnomalyMonitor`` and ``AWS::CE::AnomalySubscription`` exists as synthesized, and a monitor a subscription
names by ARN (``cost.anomaly_monitor_arn``, the account's own) exists and monitors per service.  Calls sns
GetTopicAttributes, ListSubscriptionsByTopic and GetSubscriptionAttributes, kms DescribeKey (to compare topic keys
as ARNs), budgets DescribeBudget, DescribeNotificationsForBudget, DescribeSubscribersForNotification and
DescribeBudgetActionsForBudget (with the account from STS GetCallerIdentity), cloudwatch DescribeAlarms, and ce
GetAnomalyMonitors and GetAnomalySubscriptions; budgets and ce in the partition's global Region.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from landing_zone.assembly import Resource
from landing_zone.policies.common import canonical
from landing_zone.verify.checks.common import (
    DRIFT,
    ERROR,
    MISSING,
    PASS,
    Context,
    chunks,
    error_rows,
    guarded,
    is_not_found,
    make_row,
    policy_row,
    unresolvable_rows,
)
from landing_zone.verify.checks.keys import key_arn
from landing_zone.verify.compare import (
    Unresolved,
    as_bool,
    document_diff,
    parse_json,
    same_number,
    unresolved_in,
)
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult, summarize


def check_topics(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    attributes: dict[str, dict[str, Any]] = {}  # topic ARN -> GetTopicAttributes, for the topic policies
    for res in ctx.resources("AWS::SNS::Topic"):
        rows += _topic_row(ctx, res, attributes)
    rows += _topic_policies(ctx, attributes)
    subs_by_topic: dict[str, list[dict[str, Any]] | ApiError] = {}
    for res in ctx.resources("AWS::SNS::Subscription"):
        rows += _subscription_row(ctx, res, subs_by_topic)
    return rows


def _topic_row(ctx: Context, res: Resource, attributes: dict[str, dict[str, Any]]) -> list[CheckResult]:
    """The topic exists and is encrypted with the synthesized key (its attributes kept for the policy check)."""
    region = ctx.region_of(res.stack)
    arn = ctx.resolver.ref_of(res)
    key_ref = res.prop("KmsMasterKeyId")
    label = arn.rsplit(":", 1)[-1] if isinstance(arn, str) else res.logical_id
    expected = f"exists, KMS {ctx.resolver.label(key_ref, res.stack) if key_ref is not None else '(none)'}"
    if isinstance(arn, Unresolved):
        return unresolvable_rows(["sns-topic"], label, arn, res)
    try:
        attrs = ctx.live.call("sns", "get_topic_attributes", region=region, TopicArn=arn)["Attributes"]
    except ApiError as exc:
        return error_rows(["sns-topic"], label, expected, exc, res)
    except ClientError as exc:
        if not is_not_found(exc, "NotFound"):
            raise
        return [make_row("sns-topic", label, expected, "not found", MISSING, arn, res)]
    attributes[arn] = attrs
    key = ctx.resolve(key_ref, res) if key_ref is not None else None
    if isinstance(key, Unresolved):
        return unresolvable_rows(["sns-topic"], label, key, res)
    got_key = attrs.get("KmsMasterKeyId")
    try:
        want_arn, got_arn = key_arn(ctx, region, key), key_arn(ctx, region, got_key)
    except ApiError as exc:
        return error_rows(["sns-topic"], label, expected, exc, res)
    ok = (want_arn or None) == (got_arn or None)
    got = f"exists, KMS {ctx.key_label(got_arn) if got_key else '(none)'}"
    return [make_row("sns-topic", label, expected, got, PASS if ok else DRIFT, "", res)]


def _subscriptions(
    ctx: Context, region: str, topic: str, subs_by_topic: dict[str, list[dict[str, Any]] | ApiError]
) -> list[dict[str, Any]] | ApiError:
    """The topic's live subscriptions, read once per topic (an API error is kept and reported per row)."""
    if topic not in subs_by_topic:
        try:
            subs_by_topic[topic] = ctx.live.paginate(
                "sns", "list_subscriptions_by_topic", "Subscriptions", region=region, TopicArn=topic
            )
        except ApiError as exc:
            subs_by_topic[topic] = exc
        except ClientError as exc:
            if not is_not_found(exc, "NotFound"):
                raise
            subs_by_topic[topic] = []
    return subs_by_topic[topic]


def _subscription_row(
    ctx: Context, res: Resource, subs_by_topic: dict[str, list[dict[str, Any]] | ApiError]
) -> list[CheckResult]:
    region = ctx.region_of(res.stack)
    topic = ctx.resolve(res.prop("TopicArn"), res)
    protocol, endpoint = ctx.resolve(res.prop("Protocol"), res), ctx.resolve(res.prop("Endpoint"), res)
    label = f"{topic.rsplit(':', 1)[-1] if isinstance(topic, str) else '?'} -> {protocol}:{endpoint}"
    if unresolved_in([topic, protocol, endpoint]):
        return unresolvable_rows(["sns-subscription"], label, [topic, protocol, endpoint], res)
    subs = _subscriptions(ctx, region, topic, subs_by_topic)
    if isinstance(subs, ApiError):
        return error_rows(["sns-subscription"], label, "subscribed", subs, res)
    match = next((s for s in subs if s.get("Protocol") == protocol and s.get("Endpoint") == endpoint), None)
    if match is None:
        return [make_row("sns-subscription", label, "subscribed", "not subscribed", MISSING, "", res)]
    pending = str(match.get("SubscriptionArn", "")).lower() in ("pendingconfirmation", "pending confirmation")
    if pending:
        note = "the recipient has not confirmed yet: no mail is delivered until then"
        return [make_row("sns-subscription", label, "subscribed", "pending confirmation", PASS, note, res)]
    return _confirmed_subscription_row(ctx, res, region, label, str(match["SubscriptionArn"]))


# What no SCP can hold for an alert subscription (landing_zone/policies/alert_subscriptions.py, docs/THREAT_MODEL.md):
# a filter policy set by whoever AWS authorized, and an unsubscribe link anyone holding an alert e-mail may follow.
UNAUTHENTICATED_UNSUBSCRIBE = (
    "confirmed through its link: anyone holding an alert e-mail can unsubscribe it without AWS credentials; confirm "
    "it with authentication to require a signed Unsubscribe (aws sns confirm-subscription --authenticate-on-unsubscribe "
    "true, with the token of a new confirmation message)"
)


def _confirmed_subscription_row(ctx: Context, res: Resource, region: str, label: str, arn: str) -> list[CheckResult]:
    """A confirmed subscription the landing zone made: no filter policy it did not set (one that matches no alert
    mutes it while the subscription still looks present), and whether an unauthenticated unsubscribe can remove it
    (SNS GetSubscriptionAttributes: ``FilterPolicy``, ``ConfirmationWasAuthenticated``)."""
    expected = "subscribed, no filter policy" if res.prop("FilterPolicy") is None else "subscribed, its filter policy"
    try:
        attrs = ctx.live.call("sns", "get_subscription_attributes", region=region, SubscriptionArn=arn)["Attributes"]
    except ApiError as exc:
        return error_rows(["sns-subscription"], label, expected, exc, res)
    except ClientError as exc:
        if not is_not_found(exc, "NotFound"):
            raise
        return [make_row("sns-subscription", label, expected, "not subscribed", MISSING, "", res)]
    want = ctx.resolve(res.prop("FilterPolicy"), res) if res.prop("FilterPolicy") is not None else None
    got = parse_json(attrs.get("FilterPolicy") or "null")
    if canonical(got) != canonical(want):
        note = "a filter policy the landing zone did not set: alerts it does not match are dropped (muted)"
        return [
            make_row(
                "sns-subscription", label, expected, f"filter policy {attrs.get('FilterPolicy')}", DRIFT, note, res
            )
        ]
    authenticated = str(attrs.get("ConfirmationWasAuthenticated", "")).lower() == "true"
    note = "" if authenticated or res.prop("Protocol") != "email" else UNAUTHENTICATED_UNSUBSCRIBE
    return [make_row("sns-subscription", label, expected, "subscribed", PASS, note, res)]


def _topic_policies(ctx: Context, attributes: dict[str, dict[str, Any]]) -> list[CheckResult]:
    """Each ``AWS::SNS::TopicPolicy``: its document is the access policy of every topic it names (the ``Policy``
    attribute of GetTopicAttributes, compared as IAM reads it)."""
    rows: list[CheckResult] = []
    for res in ctx.resources("AWS::SNS::TopicPolicy"):
        topics = ctx.resolve(res.prop("Topics") or [], res)
        expected = ctx.resolve(res.prop("PolicyDocument"), res)
        for topic in topics if isinstance(topics, list) else [topics]:
            label = topic.rsplit(":", 1)[-1] if isinstance(topic, str) else res.logical_id
            if unresolved_in([topic, expected]):
                rows += unresolvable_rows(["sns-topic-policy"], label, [topic, expected], res)
                continue
            if topic not in attributes:
                try:
                    attributes[topic] = ctx.live.call(
                        "sns", "get_topic_attributes", region=ctx.region_of(res.stack), TopicArn=topic
                    )["Attributes"]
                except ApiError as exc:
                    rows += error_rows(["sns-topic-policy"], label, "as synthesized", exc, res)
                    continue
                except ClientError as exc:
                    if not is_not_found(exc, "NotFound"):
                        raise
                    rows.append(
                        make_row("sns-topic-policy", label, "as synthesized", "topic not found", MISSING, "", res)
                    )
                    continue
            rows.append(policy_row("sns-topic-policy", label, expected, attributes[topic].get("Policy"), res))
    return rows


def check_budgets(ctx: Context) -> list[CheckResult]:
    budgets = ctx.resources("AWS::Budgets::Budget")
    actions = ctx.resources("AWS::Budgets::BudgetsAction")
    if not budgets and not actions:
        return []
    rows: list[CheckResult] = []
    region = ctx.global_region()
    try:
        account = ctx.live.account()
    except ApiError as exc:
        return [
            r
            for res in budgets
            for r in error_rows(["budget"], str(res.prop("Budget.BudgetName", res.logical_id)), "exists", exc, res)
        ]
    seen_actions: set[str] = set()
    for res in budgets:
        rows += _one_budget_rows(ctx, res, actions, seen_actions, account, region)
    for a in actions:
        if a.path not in seen_actions:
            rows.append(
                make_row(
                    "budget-action",
                    str(a.prop("BudgetName")),
                    "its budget in the assembly",
                    "budget unknown",
                    ERROR,
                    "the action names a budget that is not in the assembly",
                    a,
                )
            )
    return rows


def _one_budget_rows(
    ctx: Context, res: Resource, actions: list[Resource], seen_actions: set[str], account: str, region: str
) -> list[CheckResult]:
    """One budget compared with the live one, with its notifications and actions (their paths go to ``seen_actions``)."""
    rows: list[CheckResult] = []
    name = ctx.resolver.physical_id(res)
    if isinstance(name, Unresolved):
        rows += unresolvable_rows(["budget"], res.logical_id, name, res)
        return rows
    spec = ctx.resolve(res.prop("Budget") or {}, res)
    limit = spec.get("BudgetLimit") or {}
    expected = (
        f"{_num(limit.get('Amount'))} {limit.get('Unit', '')} {spec.get('TimeUnit', '')} {spec.get('BudgetType', '')}"
    ).strip()
    mine = [a for a in actions if ctx.resolve(a.prop("BudgetName"), a) == name]
    seen_actions.update(a.path for a in mine)
    try:
        live_budget = ctx.live.call("budgets", "describe_budget", region=region, AccountId=account, BudgetName=name)[
            "Budget"
        ]
    except ApiError as exc:
        rows += error_rows(["budget"], name, expected, exc, res)
        return rows
    except ClientError as exc:
        if not is_not_found(exc):
            raise
        rows += _missing_budget_rows(res, name, expected, mine)
        return rows
    if unresolved_in(spec):
        rows += unresolvable_rows(["budget"], name, spec, res)
    else:
        rows.append(_budget_row(ctx, res, name, spec, expected, live_budget))
    rows += _budget_notifications(ctx, res, name, account, region)
    if mine:
        rows += _budget_actions(ctx, name, account, region, mine)
    return rows


def _missing_budget_rows(res: Resource, name: str, expected: str, mine: list[Resource]) -> list[CheckResult]:
    """A budget that is not there, with its notifications and actions."""
    rows: list[CheckResult] = []
    rows.append(make_row("budget", name, expected, "not found", MISSING, "", res))
    rows += [
        make_row(
            "budget-notification",
            f"{name}: {_notification_label(n.get('Notification') or {})}",
            "exists",
            "budget not found",
            MISSING,
            "",
            res,
        )
        for n in res.prop("NotificationsWithSubscribers") or []
    ]
    rows += [
        make_row("budget-action", f"{name}: {a.prop('ActionType')}", "exists", "budget not found", MISSING, "", a)
        for a in mine
    ]
    return rows


def _num(value: Any) -> str:
    """12.0 -> '12', 62.4 -> '62.4', '22776.0' -> '22776' (numbers as people write them)."""
    try:
        return f"{Decimal(str(value)).normalize():f}"
    except (InvalidOperation, TypeError, ValueError):
        return str(value)


def _budget_row(
    ctx: Context, res: Resource, name: str, spec: dict[str, Any], expected: str, live_budget: dict[str, Any]
) -> CheckResult:
    limit, got_limit = spec.get("BudgetLimit") or {}, live_budget.get("BudgetLimit") or {}
    actual = (
        f"{_num(got_limit.get('Amount'))} {got_limit.get('Unit', '')} "
        f"{live_budget.get('TimeUnit', '')} {live_budget.get('BudgetType', '')}"
    ).strip()
    problems = []
    if limit and not (
        same_number(limit.get("Amount"), got_limit.get("Amount")) and limit.get("Unit") == got_limit.get("Unit")
    ):
        problems.append(
            f"limit {got_limit.get('Amount')} {got_limit.get('Unit')} "
            f"(expected {limit.get('Amount')} {limit.get('Unit')})"
        )
    for field_name in ("TimeUnit", "BudgetType"):
        if spec.get(field_name) and spec.get(field_name) != live_budget.get(field_name):
            problems.append(f"{field_name} {live_budget.get(field_name)} (expected {spec.get(field_name)})")
    for field_name in ("FilterExpression", "CostFilters"):
        if spec.get(field_name) and canonical(spec[field_name]) != canonical(live_budget.get(field_name) or {}):
            problems.append(
                f"{field_name} differs:\n{document_diff(spec[field_name], live_budget.get(field_name) or {})}"
            )
    return make_row("budget", name, expected, actual, DRIFT if problems else PASS, "\n".join(problems), res)


def _notification_label(n: dict[str, Any]) -> str:
    return (
        f"{n.get('NotificationType')} {n.get('ComparisonOperator')} {_num(n.get('Threshold'))} "
        f"{n.get('ThresholdType', 'PERCENTAGE')}"
    )


def _budget_notifications(ctx: Context, res: Resource, name: str, account: str, region: str) -> list[CheckResult]:
    wanted = ctx.resolve(res.prop("NotificationsWithSubscribers") or [], res)
    if not wanted:
        return []
    rows: list[CheckResult] = []
    try:
        live = ctx.live.paginate(
            "budgets",
            "describe_notifications_for_budget",
            "Notifications",
            region=region,
            AccountId=account,
            BudgetName=name,
        )
    except ApiError as exc:
        return error_rows(["budget-notification"], name, f"{len(wanted)} notification(s)", exc, res)
    for item in wanted:
        rows += _notification_rows(ctx, res, item, name, live, account, region)
    return rows


def _notification_rows(
    ctx: Context, res: Resource, item: dict[str, Any], name: str, live: list[dict[str, Any]], account: str, region: str
) -> list[CheckResult]:
    rows: list[CheckResult] = []
    n = item.get("Notification") or {}
    label = f"{name}: {_notification_label(n)}"
    match = next((m for m in live if _same_notification(m, n)), None)
    if match is None:
        rows.append(
            make_row(
                "budget-notification",
                label,
                "exists",
                "not found",
                MISSING,
                "live notifications: " + summarize(_notification_label(m) for m in live),
                res,
            )
        )
        return rows
    rows.append(make_row("budget-notification", label, "exists", "exists", PASS, "", res))
    want_subs = {(s.get("SubscriptionType"), s.get("Address")) for s in item.get("Subscribers") or []}
    if unresolved_in(list(want_subs)):
        rows += unresolvable_rows(["budget-subscribers"], label, list(want_subs), res)
        return rows
    notification = {
        k: match[k] for k in ("NotificationType", "ComparisonOperator", "Threshold", "ThresholdType") if k in match
    }
    try:
        subs = ctx.live.paginate(
            "budgets",
            "describe_subscribers_for_notification",
            "Subscribers",
            region=region,
            AccountId=account,
            BudgetName=name,
            Notification=notification,
        )
    except ApiError as exc:
        rows += error_rows(["budget-subscribers"], label, "subscribers", exc, res)
        return rows
    got_subs = {(s.get("SubscriptionType"), s.get("Address")) for s in subs}
    missing = sorted(want_subs - got_subs, key=str)
    rows.append(
        make_row(
            "budget-subscribers",
            label,
            summarize(_sub(s) for s in sorted(want_subs, key=str)),
            "all present" if not missing else "missing " + summarize(_sub(s) for s in missing),
            PASS if not missing else MISSING,
            "",
            res,
        )
    )
    return rows


def _same_notification(live: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Whether a live budget notification is the synthesized one (type, operator, threshold and its type)."""
    return bool(
        live.get("NotificationType") == wanted.get("NotificationType")
        and live.get("ComparisonOperator") == wanted.get("ComparisonOperator")
        and same_number(live.get("Threshold"), wanted.get("Threshold"))
        and live.get("ThresholdType", "PERCENTAGE") == wanted.get("ThresholdType", "PERCENTAGE")
    )


def _sub(sub: tuple[Any, ...]) -> str:
    kind, address = sub
    return f"{kind}:{str(address).rsplit(':', 1)[-1] if kind == 'SNS' else address}"


def _budget_actions(ctx: Context, name: str, account: str, region: str, actions: list[Resource]) -> list[CheckResult]:
    rows: list[CheckResult] = []
    try:
        live = ctx.live.paginate(
            "budgets",
            "describe_budget_actions_for_budget",
            "Actions",
            region=region,
            AccountId=account,
            BudgetName=name,
        )
    except ApiError as exc:
        return [
            r
            for a in actions
            for r in error_rows(["budget-action"], f"{name}: {a.prop('ActionType')}", "exists", exc, a)
        ]
    for a in actions:
        want = _wanted_action(ctx, a)
        label = f"{name}: {want['ActionType']}"
        expected = (
            f"{want['ActionType']} at {_num(want['ThresholdValue'])} {want['ThresholdType']} "
            f"({want['NotificationType']}), {want['ApprovalModel']}"
        )
        if unresolved_in(list(want.values())):
            rows += unresolvable_rows(["budget-action"], label, list(want.values()), a)
            continue
        candidates = [x for x in live if x.get("ActionType") == want["ActionType"]]
        if not candidates:
            rows.append(
                make_row(
                    "budget-action",
                    label,
                    expected,
                    "not found",
                    MISSING,
                    f"{len(live)} action(s) on the budget, none of type {want['ActionType']}",
                    a,
                )
            )
            continue
        best, best_diff = None, None
        for x in candidates:
            got = _live_action(x)
            diff = [k for k in want if not _same_setting(k, want[k], got[k])]
            if best_diff is None or len(diff) < len(best_diff):
                best, best_diff, best_got = x, diff, got
        assert best is not None and best_diff is not None
        actual = (
            f"{best_got['ActionType']} at {_num(best_got['ThresholdValue'])} {best_got['ThresholdType']} "
            f"({best_got['NotificationType']}), {best_got['ApprovalModel']}, status {best.get('Status')}"
        )
        detail = "\n".join(f"{k}: expected {want[k]}, live {best_got[k]}" for k in best_diff)
        rows.append(make_row("budget-action", label, expected, actual, DRIFT if best_diff else PASS, detail, a))
    return rows


def _wanted_action(ctx: Context, a: Resource) -> dict[str, Any]:
    """A budget action as synthesized."""
    want = {
        "ActionType": ctx.resolve(a.prop("ActionType"), a),
        "NotificationType": ctx.resolve(a.prop("NotificationType"), a),
        "ApprovalModel": ctx.resolve(a.prop("ApprovalModel", "MANUAL"), a),
        "ThresholdType": ctx.resolve(a.prop("ActionThreshold.Type"), a),
        "ThresholdValue": ctx.resolve(a.prop("ActionThreshold.Value"), a),
        "ExecutionRoleArn": ctx.resolve(a.prop("ExecutionRoleArn"), a),
        "PolicyArn": ctx.resolve(a.prop("Definition.IamActionDefinition.PolicyArn"), a),
        "Roles": sorted(ctx.resolve(a.prop("Definition.IamActionDefinition.Roles") or [], a), key=str),
        "Subscribers": sorted(
            {(s.get("Type"), s.get("Address")) for s in ctx.resolve(a.prop("Subscribers") or [], a)}, key=str
        ),
    }
    return want


def _live_action(x: dict[str, Any]) -> dict[str, Any]:
    """A live budget action, in the keys of :func:`_wanted_action`."""
    iam_def = (x.get("Definition") or {}).get("IamActionDefinition") or {}
    return {
        "ActionType": x.get("ActionType"),
        "NotificationType": x.get("NotificationType"),
        "ApprovalModel": x.get("ApprovalModel"),
        "ThresholdType": (x.get("ActionThreshold") or {}).get("ActionThresholdType"),
        "ThresholdValue": (x.get("ActionThreshold") or {}).get("ActionThresholdValue"),
        "ExecutionRoleArn": x.get("ExecutionRoleArn"),
        "PolicyArn": iam_def.get("PolicyArn"),
        "Roles": sorted(iam_def.get("Roles") or [], key=str),
        "Subscribers": sorted(
            {(s.get("SubscriptionType"), s.get("Address")) for s in x.get("Subscribers") or []}, key=str
        ),
    }


def _same_setting(key: str, wanted: Any, got: Any) -> bool:
    return same_number(wanted, got) if key == "ThresholdValue" else bool(wanted == got)


def check_alarms(ctx: Context) -> list[CheckResult]:
    alarms = ctx.resources("AWS::CloudWatch::Alarm")
    rows: list[CheckResult] = []
    by_region: dict[str, list[tuple[Resource, str]]] = {}
    for res in alarms:
        name = ctx.resolver.physical_id(res)
        if isinstance(name, Unresolved):
            rows += unresolvable_rows(["alarm"], res.logical_id, name, res)
            continue
        by_region.setdefault(ctx.region_of(res.stack), []).append((res, name))
    for region, items in by_region.items():
        names = [name for _, name in items]
        found: dict[str, dict[str, Any]] = {}
        try:
            for batch in chunks(names, 100):
                for alarm in ctx.live.paginate(
                    "cloudwatch",
                    "describe_alarms",
                    "MetricAlarms",
                    region=region,
                    AlarmNames=list(batch),
                    AlarmTypes=["MetricAlarm"],
                ):
                    found[alarm["AlarmName"]] = alarm
        except ApiError as exc:
            rows += [r for res, name in items for r in error_rows(["alarm"], name, "exists", exc, res)]
            continue
        for res, name in items:
            rows += guarded(["alarm"], name, res, partial(_alarm_row, ctx, res, name, found.get(name)))
    return rows


def _alarm_row(ctx: Context, res: Resource, name: str, live: dict[str, Any] | None) -> list[CheckResult]:
    """One alarm against its DescribeAlarms entry.  A dimension that names an application inference profile is
    resolved from the stack first (see :meth:`~landing_zone.verify.live.Resolver.application_profile_arn`); one
    that cannot be resolved makes this alarm's row ERROR, not the family's."""
    want = _alarm_intent(ctx, res)
    expected = f"{want['ComparisonOperator']} {_num(want['Threshold'])} x{want['EvaluationPeriods']}"
    if live is None:
        return [make_row("alarm", name, expected, "not found", MISSING, "", res)]
    if unresolved_in(list(want.values())):
        return unresolvable_rows(["alarm"], name, list(want.values()), res)
    got = _alarm_live(live)
    diff = [k for k in want if not (same_number(want[k], got[k]) if k == "Threshold" else want[k] == got[k])]
    actual = f"{got['ComparisonOperator']} {_num(got['Threshold'])} x{got['EvaluationPeriods']}"
    detail = "\n".join(f"{k}: expected {want[k]}, live {got[k]}" for k in diff)
    return [make_row("alarm", name, expected, actual, DRIFT if diff else PASS, detail, res)]


def _metric_stat(stat: dict[str, Any]) -> tuple[Any, ...]:
    metric = stat.get("Metric") or {}
    dims = tuple(sorted((d.get("Name"), d.get("Value")) for d in metric.get("Dimensions") or []))
    return (metric.get("Namespace"), metric.get("MetricName"), dims, stat.get("Period"), stat.get("Stat"))


def _alarm_intent(ctx: Context, res: Resource) -> dict[str, Any]:
    p = ctx.resolve(dict(res.properties), res)
    return {
        "ComparisonOperator": p.get("ComparisonOperator"),
        "Threshold": p.get("Threshold"),
        "EvaluationPeriods": p.get("EvaluationPeriods"),
        "DatapointsToAlarm": p.get("DatapointsToAlarm"),
        "TreatMissingData": p.get("TreatMissingData", "missing"),
        "ActionsEnabled": bool(as_bool(p.get("ActionsEnabled", True))),
        "AlarmActions": sorted(p.get("AlarmActions") or [], key=str),
        "Metric": (p.get("Namespace"), p.get("MetricName"), p.get("Statistic"), p.get("Period"))
        if p.get("MetricName")
        else None,
        "Metrics": sorted(
            (
                (m.get("Id"), m.get("Expression"), _metric_stat(m["MetricStat"]) if m.get("MetricStat") else None)
                for m in p.get("Metrics") or []
            ),
            key=str,
        ),
    }


def _alarm_live(a: dict[str, Any]) -> dict[str, Any]:
    return {
        "ComparisonOperator": a.get("ComparisonOperator"),
        "Threshold": a.get("Threshold"),
        "EvaluationPeriods": a.get("EvaluationPeriods"),
        "DatapointsToAlarm": a.get("DatapointsToAlarm"),
        "TreatMissingData": a.get("TreatMissingData", "missing"),
        "ActionsEnabled": bool(a.get("ActionsEnabled", True)),
        "AlarmActions": sorted(a.get("AlarmActions") or [], key=str),
        "Metric": (a.get("Namespace"), a.get("MetricName"), a.get("Statistic"), a.get("Period"))
        if a.get("MetricName")
        else None,
        "Metrics": sorted(
            (
                (m.get("Id"), m.get("Expression"), _metric_stat(m["MetricStat"]) if m.get("MetricStat") else None)
                for m in a.get("Metrics") or []
            ),
            key=str,
        ),
    }


def check_anomaly_detection(ctx: Context) -> list[CheckResult]:
    """Collect the live monitors and subscriptions once (Cost Explorer), then evaluate each synthesized one."""
    monitors = ctx.resources("AWS::CE::AnomalyMonitor")
    subscriptions = ctx.resources("AWS::CE::AnomalySubscription")
    if not monitors and not subscriptions:
        return []
    rows: list[CheckResult] = []
    region = ctx.global_region()
    try:
        live_monitors = _ce_all(ctx, "get_anomaly_monitors", "AnomalyMonitors", region)
    except ApiError as exc:
        return _anomaly_error_rows(monitors, "anomaly-monitor", "MonitorName", exc) + _anomaly_error_rows(
            subscriptions, "anomaly-subscription", "SubscriptionName", exc
        )
    monitor_arns: dict[str, str] = {}  # template path -> live ARN
    for res in monitors:
        rows.append(_monitor_row(ctx, res, live_monitors, monitor_arns))
    rows += _reused_monitors(ctx, subscriptions, live_monitors)
    if not subscriptions:
        return rows
    try:
        live_subs = _ce_all(ctx, "get_anomaly_subscriptions", "AnomalySubscriptions", region)
    except ApiError as exc:
        return rows + _anomaly_error_rows(subscriptions, "anomaly-subscription", "SubscriptionName", exc)
    for res in subscriptions:
        rows += _subscription_rows(ctx, res, live_subs, monitor_arns)
    return rows


def _anomaly_error_rows(resources: list[Resource], check: str, name_key: str, exc: ApiError) -> list[CheckResult]:
    return [r for res in resources for r in error_rows([check], str(res.prop(name_key)), "exists", exc, res)]


def _monitor_row(
    ctx: Context, res: Resource, live_monitors: list[dict[str, Any]], monitor_arns: dict[str, str]
) -> CheckResult:
    """One monitor compared with the live one of its name (whose ARN is recorded in ``monitor_arns``)."""
    name = ctx.resolve(res.prop("MonitorName"), res)
    want = {k: ctx.resolve(res.prop(k), res) for k in ("MonitorType", "MonitorDimension")}
    expected = " ".join(str(v) for v in want.values() if v)
    match = next((m for m in live_monitors if m.get("MonitorName") == name), None)
    if match is None:
        return make_row("anomaly-monitor", str(name), expected, "not found", MISSING, "", res)
    monitor_arns[res.path] = match["MonitorArn"]
    got = {k: match.get(k) for k in want}
    diff = [k for k in want if want[k] is not None and want[k] != got[k]]
    spec = res.prop("MonitorSpecification")
    if spec is not None and canonical(parse_json(spec)) != canonical(match.get("MonitorSpecification") or {}):
        diff.append("MonitorSpecification")
    return make_row(
        "anomaly-monitor",
        str(name),
        expected,
        " ".join(str(v) for v in got.values() if v),
        DRIFT if diff else PASS,
        "; ".join(f"{k}: expected {want.get(k)}, live {got.get(k)}" for k in diff),
        res,
    )


def _wanted_subscription(ctx: Context, res: Resource, monitor_arns: dict[str, str]) -> tuple[dict[str, Any], list[Any]]:
    """The subscription as synthesized (its monitors by their live ARNs), and those monitors."""
    want_monitors = []
    for ref in res.prop("MonitorArnList") or []:
        target = ref.get("Fn::GetAtt", [None])[0] if isinstance(ref, dict) else None
        target_res = res.stack.resource(target) if target else None
        want_monitors.append(monitor_arns.get(target_res.path) if target_res else ctx.resolve(ref, res))
    threshold = res.prop("ThresholdExpression")
    want = {
        "Frequency": ctx.resolve(res.prop("Frequency"), res),
        "Subscribers": sorted(
            {(s.get("Type"), s.get("Address")) for s in ctx.resolve(res.prop("Subscribers") or [], res)}, key=str
        ),
        "ThresholdExpression": canonical(parse_json(ctx.resolve(threshold, res))) if threshold else None,
        "MonitorArnList": sorted(str(m) for m in want_monitors),
    }
    return want, want_monitors


def _live_subscription(match: dict[str, Any]) -> dict[str, Any]:
    threshold = match.get("ThresholdExpression")
    return {
        "Frequency": match.get("Frequency"),
        "Subscribers": sorted({(s.get("Type"), s.get("Address")) for s in match.get("Subscribers") or []}, key=str),
        "ThresholdExpression": canonical(threshold) if threshold else None,
        "MonitorArnList": sorted(match.get("MonitorArnList") or []),
    }


def _subscription_rows(
    ctx: Context, res: Resource, live_subs: list[dict[str, Any]], monitor_arns: dict[str, str]
) -> list[CheckResult]:
    name = ctx.resolve(res.prop("SubscriptionName"), res)
    want, want_monitors = _wanted_subscription(ctx, res, monitor_arns)
    expected = f"{want['Frequency']} to {summarize(_sub(s) for s in want['Subscribers'])}"
    match = next((s for s in live_subs if s.get("SubscriptionName") == name), None)
    if match is None:
        return [make_row("anomaly-subscription", str(name), expected, "not found", MISSING, "", res)]
    if None in want_monitors or unresolved_in(list(want.values())):
        return unresolvable_rows(["anomaly-subscription"], str(name), [*want_monitors, *want.values()], res)
    got = _live_subscription(match)
    diff = [k for k in want if want[k] != got[k]]
    return [
        make_row(
            "anomaly-subscription",
            str(name),
            expected,
            f"{got['Frequency']} to {summarize(_sub(s) for s in got.get('Subscribers') or [])}",
            DRIFT if diff else PASS,
            "\n".join(f"{k}: expected {want[k]}, live {got[k]}" for k in diff),
            res,
        )
    ]


def _reused_monitors(ctx: Context, subscriptions: list[Resource], live: list[dict[str, Any]]) -> list[CheckResult]:
    """``cost.anomaly_monitor_arn``: a subscription names the account's own AWS services monitor by ARN (no
    ``AWS::CE::AnomalyMonitor`` in the template); that monitor exists and still monitors per service."""
    rows: list[CheckResult] = []
    for res in subscriptions:
        for ref in res.prop("MonitorArnList") or []:
            if not isinstance(ref, str):
                continue  # a monitor of the template: checked above
            expected = "DIMENSIONAL SERVICE (reused)"
            match = next((m for m in live if m.get("MonitorArn") == ref), None)
            if match is None:
                detail = "the monitor named by cost.anomaly_monitor_arn is gone: `aws ce get-anomaly-monitors`"
                rows.append(make_row("anomaly-monitor", ref, expected, "not found", MISSING, detail, res))
                continue
            got = f"{match.get('MonitorType')} {match.get('MonitorDimension') or ''}".strip()
            ok = got == "DIMENSIONAL SERVICE"
            detail = "" if ok else "cost.anomaly_monitor_arn names a monitor that does not watch every service"
            rows.append(
                make_row(
                    "anomaly-monitor",
                    str(match.get("MonitorName") or ref),
                    expected,
                    got,
                    PASS if ok else DRIFT,
                    detail,
                    res,
                )
            )
    return rows


def _ce_all(ctx: Context, operation: str, key: str, region: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    params: dict[str, Any] = {}
    while True:
        page = ctx.live.call("ce", operation, region=region, **params)
        items.extend(page.get(key) or [])
        token = page.get("NextPageToken")
        if not token:
            return items
        params = {"NextPageToken": token}
