"""Custom resource: activate the landing zone's cost allocation tags in Billing (Cost Explorer).

Why it exists: budgets (``cost.budget_scope: tagged``, ``cost.per_application_budgets``) and chargeback filter on the
tags the landing zone sets (application, cost-center, landing-zone), and a tag is usable in Billing only once it is
*activated* as a cost allocation tag; CloudFormation has no resource type for that.

* Create/Update: ``ce:UpdateCostAllocationTagsStatus`` with every key ``Active`` (one call; the API takes 1-20
  entries and does not fail when a key already has that status:
  https://docs.aws.amazon.com/goto/WebAPI/ce-2017-10-25/UpdateCostAllocationTagsStatus).  Per-key failures come
  back in ``Errors``: above all a key AWS has not yet seen on a resource, which "can take up to 24 hours" after the
  tag is first applied.  The handler tries again (``Attempts`` times, ``RetrySeconds`` apart) and then **succeeds**
  with those keys in ``Data.Pending`` and a warning in its log: failing would roll back the very stack that puts
  the tags on the resources.  ``verify`` (check ``cost-allocation-tag``) reports a pending key as DRIFT with the
  command that activates it.  Any other error (access denied, throttling after botocore's retries) fails the
  resource with the API's message.
* Delete: no AWS call: deactivating a key would stop cost allocation for every resource carrying it, including
  ones this stack does not own.

Cost Explorer is a us-east-1 API (endpoint ce.us-east-1.amazonaws.com): the client is created there whatever the
Region the function runs in.

ResourceProperties (strings): TagKeys (required, comma-separated), Attempts (optional, 1-10, default 3),
RetrySeconds (optional, 0-60, default 20).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import boto3

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)

REQUIRED_IAM_ACTIONS: tuple[str, ...] = ("ce:UpdateCostAllocationTagsStatus",)
CE_REGION = "us-east-1"
MAX_KEYS = 20  # botocore ce: CostAllocationTagStatusList max 20
MAX_KEY_LENGTH = 1024
PHYSICAL_ID = "cost-allocation-tags"


def client(service: str) -> Any:
    """The single seam for every AWS call (tests replace it)."""
    return boto3.client(service, region_name=CE_REGION)


def sleep(seconds: float) -> None:
    time.sleep(seconds)


def parse_tag_keys(props: Mapping[str, Any]) -> list[str]:
    raw = props.get("TagKeys")
    if not isinstance(raw, str) or not raw.strip():
        raise ValueError(f"Property TagKeys is required: a comma-separated list of tag keys, got {raw!r}")
    keys = sorted({k.strip() for k in raw.split(",") if k.strip()})
    if not keys or len(keys) > MAX_KEYS:
        raise ValueError(f"Property TagKeys must name 1 to {MAX_KEYS} tag keys, got {len(keys)} ({raw!r})")
    bad = [k for k in keys if len(k) > MAX_KEY_LENGTH]
    if bad:
        raise ValueError(f"Property TagKeys has keys longer than {MAX_KEY_LENGTH} characters: {bad!r}")
    return keys


def _int(props: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = props.get(name)
    if value is None or str(value).strip() == "":
        return default
    try:
        number = int(str(value))
    except ValueError:
        raise ValueError(f"Property {name} must be an integer from {low} to {high}, got {value!r}") from None
    if not low <= number <= high:
        raise ValueError(f"Property {name} must be an integer from {low} to {high}, got {value!r}")
    return number


def activate(props: Mapping[str, Any]) -> dict[str, str]:
    keys = parse_tag_keys(props)
    attempts = _int(props, "Attempts", 3, 1, 10)
    wait = _int(props, "RetrySeconds", 20, 0, 60)
    ce = client("ce")
    pending = list(keys)
    errors: dict[str, str] = {}
    for attempt in range(1, attempts + 1):
        answer = ce.update_cost_allocation_tags_status(
            CostAllocationTagsStatus=[{"TagKey": k, "Status": "Active"} for k in pending]
        )
        errors = {
            str(e.get("TagKey")): f"{e.get('Code') or '?'}: {e.get('Message') or 'no message'}"
            for e in answer.get("Errors") or []
        }
        pending = [k for k in pending if k in errors]
        if not pending:
            break
        LOG.info("attempt %d/%d: not activated yet: %s", attempt, attempts, errors)
        if attempt < attempts:
            sleep(wait)
    active = [k for k in keys if k not in pending]
    if pending:
        LOG.warning(
            "cost allocation tag key(s) %s could not be activated (%s). A key can be activated only after AWS has "
            "seen it on a resource, which can take up to 24 hours after the tag is first applied; `landing-zone "
            "verify` reports them as DRIFT with the command that activates them.",
            ", ".join(pending),
            "; ".join(f"{k}: {errors[k]}" for k in pending),
        )
    else:
        LOG.info("cost allocation tag keys active: %s", ", ".join(keys))
    return {"Active": ",".join(active), "Pending": ",".join(pending)}


def on_event(event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
    request_type = event.get("RequestType")
    props = {k: v for k, v in (event.get("ResourceProperties") or {}).items() if k != "ServiceToken"}
    if request_type == "Delete":
        LOG.info("Delete: leaving the cost allocation tags active on purpose (no AWS call)")
        return {"PhysicalResourceId": event.get("PhysicalResourceId") or PHYSICAL_ID, "Data": {}}
    if request_type not in ("Create", "Update"):
        raise ValueError(f"RequestType must be Create, Update or Delete, got {request_type!r}")
    LOG.info("%s request: activate %s", request_type, props.get("TagKeys"))
    return {"PhysicalResourceId": PHYSICAL_ID, "Data": activate(props)}
