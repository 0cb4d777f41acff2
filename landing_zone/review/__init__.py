"""Security review of a synthesized cloud assembly (pure Python: never imports aws_cdk).

``python -m landing_zone review --assembly cdk.out --out reports/`` writes ``policy-review.{md,html,json,sarif}``.

Modules, in the order the review runs:

* ``assembly``   — read ``cdk.out``: templates, environments, exports, cdk-nag report, acknowledgments;
* ``intrinsics`` — CloudFormation intrinsics as readable placeholders (``<LogsKey….Arn>``);
* ``inventory``  — every policy document of every template, with whom it applies to;
* ``summarize``  — each statement in plain words (conditions included);
* ``rules`` / ``findings`` — the review rules (one table) and the policy and data-store checks;
* ``cases`` / ``matrices`` — the standard request cases, the routing and decision matrices;
* ``nag`` / ``scanners``   — cdk-nag results and acknowledgments; cfn-lint and checkov (offline);
* ``diff``       — access added and removed against a baseline assembly;
* ``report``     — all of it as one JSON-ready dict; ``render_md``, ``render_html``, ``sarif`` render it;
* ``cli``        — the ``review`` subcommand.
"""

from __future__ import annotations

__all__ = ["build_review"]


def __getattr__(name: str):  # lazy: `import landing_zone.review.cases` must not load the whole review
    if name == "build_review":
        from landing_zone.review.report import build_review

        return build_review
    raise AttributeError(name)
