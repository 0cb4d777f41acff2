"""The operations dashboard ``<name>-operations``: renders the plan's :class:`DashboardPlan` as CloudWatch widgets.

Every number and expression comes from :mod:`landing_zone.cost.dashboard`; this module only maps panels to
``GraphWidget`` / ``TextWidget`` / ``AlarmStatusWidget`` and puts the application profiles' ARNs where the plan
wrote their placeholders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from constructs_lib.cost import resolve_dimension
from landing_zone.core import naming
from landing_zone.cost.alarms import MetricSpec
from landing_zone.cost.dashboard import AlarmPanel, DashboardPlan, GraphPanel, Line, TextPanel, dashboard_url

__all__ = ["OperationsDashboard"]

FULL_WIDTH = 24
GRAPH_WIDTH = 12
GRAPH_HEIGHT = 6


class OperationsDashboard(Construct):
    """``dashboard``: the CloudWatch dashboard; ``url``: its console address."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        plan: DashboardPlan,
        alarms: Sequence[cloudwatch.IAlarm],
        alarm_name_prefix: str,
        dimension_values: Mapping[str, str],
    ) -> None:
        super().__init__(scope, construct_id)
        values = dict(dimension_values)
        by_name = {naming.alarm_name(alarm_name_prefix, _suffix(a, alarm_name_prefix)): a for a in alarms}
        widgets: list[cloudwatch.IWidget] = []
        for panel in plan.panels:
            if isinstance(panel, TextPanel):
                widgets.append(
                    cloudwatch.TextWidget(markdown=f"### {panel.title}\n\n{panel.markdown}", width=FULL_WIDTH, height=3)
                )
            elif isinstance(panel, AlarmPanel):
                chosen = [
                    by_name[naming.alarm_name(alarm_name_prefix, s)]
                    for s in panel.alarm_suffixes
                    if naming.alarm_name(alarm_name_prefix, s) in by_name
                ]
                if chosen:
                    widgets.append(
                        cloudwatch.AlarmStatusWidget(alarms=chosen, title=panel.title, width=FULL_WIDTH, height=3)
                    )
            else:
                widgets.append(_graph(panel, values, plan.region))
        self.dashboard = cloudwatch.Dashboard(
            self,
            "Dashboard",
            dashboard_name=plan.name,
            default_interval=Duration.hours(24),
            widgets=[widgets],
        )
        self.url = dashboard_url(plan.region, plan.name)


def _suffix(alarm: cloudwatch.IAlarm, prefix: str) -> str:
    node_id = alarm.node.id  # "Alarm-<suffix>" (constructs_lib.cost.SpendAlarms)
    return node_id.removeprefix("Alarm-")


def _metric(spec: MetricSpec, values: Mapping[str, str]) -> cloudwatch.Metric:
    return cloudwatch.Metric(
        namespace=spec.namespace,
        metric_name=spec.metric_name,
        dimensions_map={k: resolve_dimension(v, values) for k, v in spec.dimensions.items()},
        statistic=spec.statistic,
        period=Duration.seconds(spec.period),
        label=spec.label or None,
    )


def _line(line: Line, panel: GraphPanel, values: Mapping[str, str]) -> cloudwatch.IMetric:
    if line.expression is None:
        (spec,) = line.metrics
        metric = _metric(spec, values)
        return metric.with_(label=line.label)
    expression = f"RUNNING_SUM({line.expression})" if panel.cumulative else line.expression
    return cloudwatch.MathExpression(
        expression=expression,
        label=line.label,
        period=Duration.seconds(panel.period),
        using_metrics={m.id: _metric(m, values) for m in line.metrics},
    )


def _graph(panel: GraphPanel, values: Mapping[str, str], region: str) -> cloudwatch.GraphWidget:
    return cloudwatch.GraphWidget(
        title=panel.title,
        region=region,
        left=[_line(line, panel, values) for line in panel.lines],
        left_y_axis=cloudwatch.YAxisProps(label=panel.unit, show_units=False, min=0),
        left_annotations=[cloudwatch.HorizontalAnnotation(value=a.value, label=a.label) for a in panel.annotations],
        stacked=panel.stacked,
        period=Duration.seconds(panel.period),
        start=panel.start,
        width=GRAPH_WIDTH,
        height=GRAPH_HEIGHT,
        legend_position=cloudwatch.LegendPosition.BOTTOM,
    )
