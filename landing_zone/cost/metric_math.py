"""Offline evaluation of the spend expressions of :mod:`landing_zone.cost.alarms` (the subset of CloudWatch metric
math they use), for the tests, ``make cost`` and the FinOps reports."""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Mapping

from landing_zone.errors import CostAlarmError


def evaluate_expression(expression: str, values: Mapping[str, float | None]) -> float:
    """Evaluate a spend expression of :func:`build_spend_alarms` offline, as CloudWatch would for one period.

    ``values`` maps metric IDs to the period's Sum (None or absent: no data point, which ``FILL(m, 0)`` turns into
    0).  Only the subset of metric math these expressions use is understood: ``FILL(id, 0)``, numbers,
    ``+ - * /`` and parentheses; anything else raises CostAlarmError.  Hand-written because no library evaluates
    CloudWatch metric math outside CloudWatch; it lets tests and ``make cost`` show what an alarm or a dashboard
    widget will compute for a given token series.
    """
    binary = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}

    def fill(match: re.Match[str]) -> str:
        value = values.get(match.group(1))
        return repr(float(value)) if value is not None else repr(float(match.group(2)))

    text = re.sub(r"FILL\(\s*([a-z][A-Za-z0-9_]*)\s*,\s*([0-9.]+)\s*\)", fill, expression)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise CostAlarmError("expression", expression, "FILL(id, 0), numbers, + - * / and parentheses") from None

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in binary:
            return float(binary[type(node.op)](walk(node.left), walk(node.right)))
        raise CostAlarmError("expression", expression, "FILL(id, 0), numbers, + - * / and parentheses")

    return walk(tree)
