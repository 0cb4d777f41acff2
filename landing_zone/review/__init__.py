"""Security review of a synthesized cloud assembly (pure Python: never imports aws_cdk).

``python -m landing_zone review --assembly cdk.out --out reports/`` writes ``policy-review.{md,html,json,sarif}``
(:func:`landing_zone.review.report.build_review`, then the renderers).  Modules, in the order the review runs
(the assembly itself is read by :mod:`landing_zone.assembly`):

* ``inventory``  — every policy document of every template, with whom it applies to;
* ``summarize``  — each statement in plain words (conditions included);
* ``rules`` / ``findings`` / ``data_stores`` — the review rules (one table), the policy and the data-store checks;
* ``matrices``   — the routing and decision matrices (the request cases: :mod:`landing_zone.tables.decision_cases`);
* the attacks of the threat model, each with its legitimate twin: :mod:`landing_zone.tables.attacks`;
* ``nag`` / ``scanners``   — cdk-nag results and acknowledgments; cfn-lint and checkov (offline);
* the proofs over every request (z3) are :mod:`landing_zone.prove`, which the report reads; the IAM action database
  (and the statement checks against it) is :mod:`landing_zone.actiondb`;
* ``diff``       — access added and removed against a baseline assembly;
* ``report``     — all of it as one JSON-ready dict; ``render_md``, ``render_html``, ``sarif`` render it.
"""
