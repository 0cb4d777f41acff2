"""Custom resource: set the account's Amazon Bedrock data retention mode in this Region, and hand it back on delete.

Why it exists: the mode (``data_retention.mode``) is an account setting per Region and CloudFormation has no
resource type for it.  "The setting is per-Region: it governs every request in the Region where you set it and does
not propagate to other Regions" (https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html).  This
Lambda (CDK ``custom_resources.Provider`` on_event handler) runs in the access stack's Region (``home_region``).

The mode is an account singleton, so the handler reads it before it writes it (``GetAccountDataRetention``,
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_GetAccountDataRetention.html) and hands it back:

* Create: the mode found is what was there before the landing zone.  ``inherit`` ("No opinion at this scope",
  the default of new accounts: data-retention.html) or the configured mode replace nothing.  Any other mode was
  chosen by someone else: the resource FAILS naming it and the option that takes it over, and writes nothing,
  unless ``TakeOverExisting`` is "true".  The mode found is saved in the SSM parameter ``SavedParameterName``, then
  ``PutAccountDataRetention`` (``PUT /data-retention``, body ``{"mode": ...}``,
  https://docs.aws.amazon.com/bedrock/latest/APIReference/API_PutAccountDataRetention.html) sets the configured
  mode; the answer's ``mode`` and ``updatedAt`` are returned as Data.
* Update: the landing zone's own mode is the configured one or the previous properties' ``Mode``; the saved mode
  (what was there before the landing zone) is kept.  Any other mode was set by someone else since: refused, or
  saved and replaced with ``TakeOverExisting``.  Putting the same mode again is harmless (idempotent).
* Delete: when a mode was saved and the live mode is still the configured one, the saved mode is put back
  (``inherit`` when the Region had never been configured) and the parameter removed.  Without a saved mode (a
  stack created before the handler saved one, a Create that was refused) or when someone else changed the mode
  since, the mode is left as it is.

Only the ``bedrock:`` setting is written here: Mantle's ``bedrock-mantle:PutAccountDataRetention`` is a separate
setting the handler never sets (botocore has no ``bedrock-mantle`` client), so there is nothing to hand back there;
the SCP governs it.

Why an SSM parameter: CloudFormation hands a Delete the resource's properties, not the data a Create returned; the
parameter survives every Update, and its name ``<name>-...`` is inside the name scope the tamper guardrails protect
(only the exempt deployment and automation principals may write it).

ResourceProperties (strings): Mode (required; one of MODES), SavedParameterName (required), TakeOverExisting
("true"/"false", default false).

IAM: REQUIRED_IAM_ACTIONS (PutAccountDataRetention conditioned on ``bedrock:DataRetentionMode`` by the plan: the
configured mode and ``inherit``, every mode with ``take_over_existing``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import boto3
from botocore.exceptions import ClientError

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)

REQUIRED_IAM_ACTIONS: tuple[str, ...] = (
    "bedrock:PutAccountDataRetention",
    "bedrock:GetAccountDataRetention",
    "ssm:GetParameter",
    "ssm:PutParameter",
    "ssm:DeleteParameter",
)
# botocore 1.44.8 bedrock model, PutAccountDataRetention mode enum (the API page lists four; aws_review is newer).
MODES = ("default", "none", "aws_review", "provider_data_share", "inherit")
UNSET = "inherit"  # "No opinion at this scope — defer to a broader scope. This is the default" (data-retention.html)
PHYSICAL_ID = "bedrock-data-retention"


def client(service: str) -> Any:
    """The single seam for every AWS call (tests replace it)."""
    return boto3.client(service)


def parse_mode(props: Mapping[str, Any]) -> str:
    value = props.get("Mode")
    if not isinstance(value, str) or value not in MODES:
        raise ValueError(f"Property Mode must be one of {', '.join(MODES)}, got {value!r}")
    return value


def _take_over(props: Mapping[str, Any]) -> bool:
    value = str(props.get("TakeOverExisting", "false")).strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"Property TakeOverExisting must be 'true' or 'false', got {props.get('TakeOverExisting')!r}")
    return value == "true"


def _parameter(props: Mapping[str, Any]) -> str:
    value = props.get("SavedParameterName")
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"Property SavedParameterName is required and must be a non-empty string, got {value!r}")
    return value


# -- the saved mode (an SSM parameter; each handler is packaged alone, so these few lines are its own) --------------
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


def live_mode(bedrock: Any) -> str:
    return str(bedrock.get_account_data_retention()["mode"])  # required in the answer (botocore's bedrock model)


def apply_mode(bedrock: Any, mode: str) -> dict[str, str]:
    answer = bedrock.put_account_data_retention(mode=mode)
    updated = answer.get("updatedAt")
    LOG.info("Account data retention mode set to %s (updatedAt %s)", answer.get("mode"), updated)
    return {"Mode": str(answer.get("mode", mode)), "UpdatedAt": updated.isoformat() if updated else ""}


def _refusal(live: str, mode: str) -> str:
    return (
        f"The account's Bedrock data retention mode in this Region is {live!r}, set by someone other than this "
        f"landing zone; data_retention.mode is {mode!r}. Replacing it changes retention for every team in the "
        "account, so nothing was changed. To take it over (the mode is saved, and put back when the stack is "
        "deleted), set data_retention.take_over_existing: true; to keep it, set data_retention.mode to "
        f"{live!r} or leave the mode out (docs/DEPLOY.md, 'Shared account settings')"
    )


def ensure_mode(props: Mapping[str, Any], old: Mapping[str, Any], request_type: str) -> dict[str, str]:
    mode = parse_mode(props)
    parameter = _parameter(props)
    take_over = _take_over(props)
    bedrock = client("bedrock")
    live = live_mode(bedrock)
    # nothing chosen (inherit) or already this mode replaces nothing; on an Update the previous Mode is the
    # landing zone's own too
    own = {UNSET, mode, *([old["Mode"]] if request_type == "Update" and isinstance(old.get("Mode"), str) else [])}
    taken_over = ""
    if live not in own:
        if not take_over:
            raise RuntimeError(_refusal(live, mode))
        LOG.warning("Taking over the data retention mode %s; saved in %s", live, parameter)
        taken_over = live
    if request_type == "Create" or taken_over:
        _save(parameter, {"mode": live}, f"Bedrock data retention mode before the landing zone set it: {live}")
    LOG.info("%s request: account data retention mode %s (found %s)", request_type, mode, live)
    return {**apply_mode(bedrock, mode), "Previous": live, "TakenOver": taken_over}


def hand_back(props: Mapping[str, Any]) -> None:
    parameter = props.get("SavedParameterName")
    if not isinstance(parameter, str) or not parameter:
        LOG.info("Delete: no SavedParameterName (a stack from before the handler saved one); leaving the mode")
        return
    saved = _load(parameter)
    if saved is None:
        LOG.info("Delete: no saved data retention mode (nothing to hand back); leaving the mode as it is")
        return
    bedrock = client("bedrock")
    live, previous, mode = live_mode(bedrock), str(saved.get("mode") or UNSET), props.get("Mode")
    if live != mode:
        LOG.warning(
            "Delete: the mode is now %s, not this landing zone's %s: someone changed it since; leaving it "
            "(not restoring the saved %s)",
            live,
            mode,
            previous,
        )
    elif previous != live:
        apply_mode(bedrock, previous)
        LOG.info("Delete: handed back the data retention mode found at deployment: %s", previous)
    _forget(parameter)


def on_event(event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
    request_type = event.get("RequestType")
    props = {k: v for k, v in (event.get("ResourceProperties") or {}).items() if k != "ServiceToken"}
    if request_type == "Delete":
        hand_back(props)
        return {"PhysicalResourceId": event.get("PhysicalResourceId") or PHYSICAL_ID, "Data": {}}
    if request_type not in ("Create", "Update"):
        raise ValueError(f"RequestType must be Create, Update or Delete, got {request_type!r}")
    old = event.get("OldResourceProperties") or {}
    return {"PhysicalResourceId": PHYSICAL_ID, "Data": ensure_mode(props, old, str(request_type))}
