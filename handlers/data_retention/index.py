"""Custom resource: set the account's Amazon Bedrock data retention mode in this Region.

Why it exists: the mode (``data_retention.mode``) is an account setting per Region and CloudFormation has no
resource type for it.  "The setting is per-Region: it governs every request in the Region where you set it and does
not propagate to other Regions" (https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html).  This
Lambda (CDK ``custom_resources.Provider`` on_event handler) runs in the access stack's Region (``home_region``).

* Create/Update: ``PutAccountDataRetention`` (``PUT /data-retention``, body ``{"mode": ...}``,
  https://docs.aws.amazon.com/bedrock/latest/APIReference/API_PutAccountDataRetention.html) through the ``bedrock``
  client of the pinned botocore (1.44.8 has ``put_account_data_retention``); the answer's ``mode`` and
  ``updatedAt`` are returned as Data.  No read-back here: the role may call that one action only, and ``verify``
  reads the mode back (``GetAccountDataRetention``, check ``data-retention``).
* Delete: deliberately a no-op, with no AWS call: the mode is left as it is.  Restoring an earlier mode (or
  ``inherit``) would loosen retention for every application in the account the moment the stack is removed, and the
  landing zone's SCP would deny a different mode to anyone else anyway.

ResourceProperties (strings): Mode (required; one of MODES).

IAM: REQUIRED_IAM_ACTIONS (conditioned on ``bedrock:DataRetentionMode`` = Mode by the plan).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import boto3

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)

REQUIRED_IAM_ACTIONS: tuple[str, ...] = ("bedrock:PutAccountDataRetention",)
# botocore 1.44.8 bedrock model, PutAccountDataRetention mode enum (the API page lists four; aws_review is newer).
MODES = ("default", "none", "aws_review", "provider_data_share", "inherit")
PHYSICAL_ID = "bedrock-data-retention"


def client(service: str) -> Any:
    """The single seam for every AWS call (tests replace it)."""
    return boto3.client(service)


def parse_mode(props: Mapping[str, Any]) -> str:
    value = props.get("Mode")
    if not isinstance(value, str) or value not in MODES:
        raise ValueError(f"Property Mode must be one of {', '.join(MODES)}, got {value!r}")
    return value


def apply_mode(mode: str) -> dict[str, str]:
    answer = client("bedrock").put_account_data_retention(mode=mode)
    updated = answer.get("updatedAt")
    LOG.info("Account data retention mode set to %s (updatedAt %s)", answer.get("mode"), updated)
    return {"Mode": str(answer.get("mode", mode)), "UpdatedAt": updated.isoformat() if updated else ""}


def on_event(event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
    request_type = event.get("RequestType")
    props = {k: v for k, v in (event.get("ResourceProperties") or {}).items() if k != "ServiceToken"}
    if request_type == "Delete":
        LOG.info(
            "Delete of %s: leaving the account data retention mode as it is on purpose (restoring another mode "
            "would loosen retention for every application in the account); no AWS call made",
            event.get("PhysicalResourceId"),
        )
        return {"PhysicalResourceId": event.get("PhysicalResourceId") or PHYSICAL_ID, "Data": {}}
    if request_type not in ("Create", "Update"):
        raise ValueError(f"RequestType must be Create, Update or Delete, got {request_type!r}")
    mode = parse_mode(props)
    LOG.info("%s request: account data retention mode %s", request_type, mode)
    return {"PhysicalResourceId": PHYSICAL_ID, "Data": apply_mode(mode)}
