"""Security review of a synthesized cloud assembly (pure Python: never imports aws_cdk).

``python -m landing_zone review --assembly cdk.out --out reports/`` writes ``policy-review.{md,html,json,sarif}``
(:func:`landing_zone.review.report.build_review`, then the renderers).  Modules, in the order the review runs
(the assembly itself is read by :mod:`landing_zone.assembly`):

* ``inventory``  — every policy document of every template, with whom it applies to;
* ``summarize``  — each statement in plain words (conditions included);
* ``rules`` / ``findings`` / ``data_stores`` — the review rules (one table), the policy and the data-store checks;
* ``cases`` / ``matrices`` — the standard request cases, the routing and decision matrices;
* ``redteam``    — the attacks of the threat model, each with its legitimate twin;
* ``nag`` / ``scanners``   — cdk-nag results and acknowledgments; cfn-lint and checkov (offline);
* ``action_db``  — every synthesized statement checked against the IAM action database (tests);
* ``diff``       — access added and removed against a baseline assembly;
* ``report``     — all of it as one JSON-ready dict; ``render_md``, ``render_html``, ``sarif`` render it.
"""
