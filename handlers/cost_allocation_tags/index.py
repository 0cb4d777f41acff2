"""Custom resource: activate the landing zone's cost allocation tags in Billing (Cost Explorer).

Why it exists: budgets (``cost.budget_scope: tagged``, ``cost.per_application_budgets``) and chargeback filter on the
tags the landing zone sets (application, cost-center, landing-zone), and a tag is usable in Billing only once it is
*activated* as a cost allocation tag; CloudFormation has no resource type for that.

Activation is an account setting of the payer account, shared with every team: the handler reads before it writes,
and on delete hands back only what it changed.

* Create/Update: ``ce:ListCostAllocationTags`` (Type UserDefined, the keys named) first.  A key already ``Active`` is
  left alone and never counted as the landing zone's.  The others get ``ce:UpdateCostAllocationTagsStatus`` with
  ``Active`` (one call; the API takes 1-20 entries:
  https://docs.aws.amazon.com/goto/WebAPI/ce-2017-10-25/UpdateCostAllocationTagsStatus), and the keys activated
  here are added to the list kept in the SSM parameter ``SavedParameterName``.  Per-key failures come
  back in ``Errors``: above all a key AWS has not yet seen on a resource, which "can take up to 24 hours" after the
  tag is first applied.  The handler tries again (``Attempts`` times, ``RetrySeconds`` apart) and then **succeeds**
  with those keys in ``Data.Pending`` and a warning in its log: failing would roll back the very stack that puts
  the tags on the resources.  ``verify`` (check ``cost-allocation-tag``) reports a pending key as DRIFT with the
  command that activates it.  Any other error (access denied, throttling after botocore's retries) fails the
  resource with the API's message.
* Delete: only the keys in that list — the ones the landing zone activated itself — are set ``Inactive``; a key
  that was already active before it (another team's, or activated by hand) is never deactivated.  A key that
  cannot be deactivated is logged, not failed on (the stack is going away).  Then the parameter is removed.

Why an SSM parameter: CloudFormation hands a Delete the resource's properties, not the data a Create returned; the
parameter survives every Update, and its name ``<name>-...`` is inside the name scope the tamper guardrails protect.
It lives in the function's Region; Cost Explorer is a us-east-1 API (endpoint ce.us-east-1.amazonaws.com): that
client is created there whatever the Region the function runs in.

ResourceProperties (strings): TagKeys (required, comma-separated), SavedParameterName (required), Attempts
(optional, 1-10, default 3), RetrySeconds (optional, 0-60, default 20).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any

import boto3
from botocore.exceptions import ClientError

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)

REQUIRED_IAM_ACTIONS: tuple[str, ...] = (
    "ce:UpdateCostAllocationTagsStatus",
    "ce:ListCostAllocationTags",
    "ssm:GetParameter",
    "ssm:PutParameter",
    "ssm:DeleteParameter",
)
CE_REGION = "us-east-1"
MAX_KEYS = 20  # botocore ce: CostAllocationTagStatusList max 20
MAX_KEY_LENGTH = 1024
PHYSICAL_ID = "cost-allocation-tags"


def client(service: str) -> Any:
    """The single seam for every AWS call (tests replace it): Cost Explorer in us-east-1, the rest in the function's
    Region."""
    return boto3.client(service, region_name=CE_REGION) if service == "ce" else boto3.client(service)


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


def _parameter(props: Mapping[str, Any]) -> str:
    value = props.get("SavedParameterName")
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"Property SavedParameterName is required and must be a non-empty string, got {value!r}")
    return value


# -- the keys activated here (an SSM parameter; each handler is packaged alone, so these few lines are its own) -----
def _load(name: str) -> Any:
    try:
        return json.loads(client("ssm").get_parameter(Name=name)["Parameter"]["Value"])
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") == "ParameterNotFound":
            return None
        raise


def _save(name: str, value: Any, description: str) -> None:
    client("ssm").put_parameter(
        Name=name, Value=json.dumps(value, sort_keys=True), Type="String", Overwrite=True, Description=description
    )


def _forget(name: str) -> None:
    try:
        client("ssm").delete_parameter(Name=name)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "ParameterNotFound":
            raise


def statuses(ce: Any, keys: list[str]) -> dict[str, str]:
    """Each key's status in Billing ('Active' / 'Inactive'); a key Billing does not list yet is absent."""
    found: dict[str, str] = {}
    params: dict[str, Any] = {"TagKeys": keys, "Type": "UserDefined", "MaxResults": 100}
    while True:
        page = ce.list_cost_allocation_tags(**params)
        found.update({str(t["TagKey"]): str(t.get("Status")) for t in page.get("CostAllocationTags") or []})
        if not page.get("NextToken"):
            return found
        params["NextToken"] = page["NextToken"]


def activate(props: Mapping[str, Any]) -> dict[str, str]:
    keys = parse_tag_keys(props)
    parameter = _parameter(props)
    attempts = _int(props, "Attempts", 3, 1, 10)
    wait = _int(props, "RetrySeconds", 20, 0, 60)
    ce = client("ce")
    before = statuses(ce, keys)
    already = [k for k in keys if before.get(k) == "Active"]
    ours = set(_load(parameter) or [])
    pending = [k for k in keys if k not in already]
    if already:
        LOG.info("already active before this request (left alone): %s", ", ".join(already))
    pending, errors = _activate_with_retries(ce, pending, attempts, wait)
    active = [k for k in keys if k not in pending]
    activated = sorted(set(active) - set(already))
    if activated and not set(activated) <= ours:
        ours |= set(activated)
        _save(
            parameter, sorted(ours), "cost allocation tag keys the landing zone activated: " + ", ".join(sorted(ours))
        )
    _log_outcome(keys, pending, errors)
    return {
        "Active": ",".join(active),
        "Pending": ",".join(pending),
        "AlreadyActive": ",".join(k for k in already if k not in ours),
        "ActivatedHere": ",".join(sorted(ours)),
    }


def _activate_with_retries(ce: Any, pending: list[str], attempts: int, wait: int) -> tuple[list[str], dict[str, str]]:
    """Ask Cost Explorer to activate the keys, retrying those it refused; the keys still pending and its errors."""
    errors: dict[str, str] = {}
    for attempt in range(1, attempts + 1 if pending else 1):
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
    return pending, errors


def _log_outcome(keys: list[str], pending: list[str], errors: dict[str, str]) -> None:
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


def deactivate_own(props: Mapping[str, Any]) -> None:
    parameter = props.get("SavedParameterName")
    ours = _load(parameter) if isinstance(parameter, str) and parameter else None
    if not ours:
        LOG.info("Delete: the landing zone activated no tag key itself; leaving every key as it is (no Billing call)")
    else:
        answer = client("ce").update_cost_allocation_tags_status(
            CostAllocationTagsStatus=[{"TagKey": k, "Status": "Inactive"} for k in ours]
        )
        errors = {str(e.get("TagKey")): f"{e.get('Code')}: {e.get('Message')}" for e in answer.get("Errors") or []}
        done = [k for k in ours if k not in errors]
        LOG.info("Delete: deactivated the keys the landing zone had activated: %s", ", ".join(done) or "none")
        if errors:
            LOG.warning("Delete: could not deactivate %s", "; ".join(f"{k}: {v}" for k, v in errors.items()))
    if isinstance(parameter, str) and parameter:
        _forget(parameter)


def on_event(event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
    request_type = event.get("RequestType")
    props = {k: v for k, v in (event.get("ResourceProperties") or {}).items() if k != "ServiceToken"}
    if request_type == "Delete":
        deactivate_own(props)
        return {"PhysicalResourceId": event.get("PhysicalResourceId") or PHYSICAL_ID, "Data": {}}
    if request_type not in ("Create", "Update"):
        raise ValueError(f"RequestType must be Create, Update or Delete, got {request_type!r}")
    LOG.info("%s request: activate %s", request_type, props.get("TagKeys"))
    return {"PhysicalResourceId": PHYSICAL_ID, "Data": activate(props)}
