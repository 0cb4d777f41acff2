"""Custom resource: accept the AWS Marketplace model agreement offer for third-party Bedrock models.

Why it exists: third-party (Marketplace-backed) foundation models such as Moonshot's need a model
agreement accepted once per account before they can be invoked, and CloudFormation has no resource
type for it. This Lambda (CDK ``custom_resources.Provider`` on_event handler) does it explicitly, so
access does not depend on whoever happens to invoke the model first having Marketplace permissions.

* Create/Update: for each model ID, ``GetFoundationModelAvailability``; status AVAILABLE -> nothing to
  do, PENDING -> an agreement is already being processed (no second request), otherwise
  ``ListFoundationModelAgreementOffers`` (first offer) + ``CreateFoundationModelAgreement``.
  Agreement creation is asynchronous (HTTP 202): this handler does not wait for AVAILABLE.
* Delete: deliberately a no-op, with no AWS call: removing the agreement would cut model access for
  every application in the account, not just this stack.

ResourceProperties (strings): ModelIds (required, comma-separated, e.g. "moonshotai.kimi-k3.1-pro"),
OfferType (optional, "PUBLIC" (default) or "ALL").

IAM: REQUIRED_IAM_ACTIONS. The aws-marketplace actions are the ones the Bedrock user guide lists for
requesting access to models with a Marketplace product ID; Unsubscribe is omitted because this handler
never removes access. aws-marketplace:Subscribe can be scoped with the aws-marketplace:ProductId key.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Mapping
from typing import Any

import boto3

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)

REQUIRED_IAM_ACTIONS: tuple[str, ...] = (
    "bedrock:GetFoundationModelAvailability",
    "bedrock:ListFoundationModelAgreementOffers",
    "bedrock:CreateFoundationModelAgreement",
    "aws-marketplace:Subscribe",
    "aws-marketplace:ViewSubscriptions",
)

OFFER_TYPES = ("PUBLIC", "ALL")  # botocore enum OfferType
MAX_PHYSICAL_ID = 200
# botocore shape BedrockModelId (max length 140)
MODEL_ID_RE = re.compile(
    r"^[a-z0-9-]{1,63}[.]{1}[a-z0-9-]{1,63}([a-z0-9-]{1,63}[.]){0,2}[a-z0-9-]{1,63}([:][a-z0-9-]{1,63}){0,2}(/[a-z0-9]{12}|)$"
)


def client(service: str) -> Any:
    """The single seam for every AWS call (tests replace it)."""
    return boto3.client(service)


def parse_model_ids(props: Mapping[str, Any]) -> list[str]:
    """Validated, de-duplicated model IDs, sorted."""
    raw = props.get("ModelIds")
    if not isinstance(raw, str) or not raw.strip():
        raise ValueError(f"Property ModelIds is required: a comma-separated list of Bedrock model IDs, got {raw!r}")
    ids = sorted({part.strip() for part in raw.split(",") if part.strip()})
    if not ids:
        raise ValueError(f"Property ModelIds contains no model ID, got {raw!r}")
    bad = [i for i in ids if len(i) > 140 or not MODEL_ID_RE.match(i)]
    if bad:
        raise ValueError(
            f"Property ModelIds has invalid Bedrock model ID(s) {', '.join(map(repr, bad))}: "
            "expected e.g. 'moonshotai.kimi-k3.1-pro' (lowercase provider.model[:version], at most 140 characters)"
        )
    return ids


def parse_offer_type(props: Mapping[str, Any]) -> str:
    value = props.get("OfferType")
    if value is None or str(value).strip() == "":
        return "PUBLIC"
    offer_type = str(value).strip().upper()
    if offer_type not in OFFER_TYPES:
        raise ValueError(f"Property OfferType must be one of {', '.join(OFFER_TYPES)}, got {value!r}")
    return offer_type


def physical_id(model_ids: list[str]) -> str:
    """``model-agreements-<sorted ids>``; if longer than 200 characters, truncated plus a hash of the full ID."""
    full = "model-agreements-" + "-".join(sorted(model_ids))
    if len(full) <= MAX_PHYSICAL_ID:
        return full
    digest = hashlib.sha256(full.encode()).hexdigest()[:16]
    return f"{full[: MAX_PHYSICAL_ID - len(digest) - 1]}-{digest}"


def _accept(bedrock: Any, model_id: str, offer_type: str) -> None:
    offers = bedrock.list_foundation_model_agreement_offers(modelId=model_id, offerType=offer_type).get("offers") or []
    if not offers:
        raise RuntimeError(
            f"No {offer_type} agreement offer exists for model {model_id!r} in this Region: check the model ID, "
            "that the model is offered here, or try OfferType 'ALL'"
        )
    offer = offers[0]
    LOG.info("Accepting offer %s for %s (%d offer(s) listed)", offer.get("offerId", "<no id>"), model_id, len(offers))
    bedrock.create_foundation_model_agreement(offerToken=offer["offerToken"], modelId=model_id)
    LOG.info("Requested model agreement for %s", model_id)


def ensure_agreements(props: Mapping[str, Any]) -> dict[str, str]:
    model_ids = parse_model_ids(props)
    offer_type = parse_offer_type(props)
    bedrock = client("bedrock")
    accepted: list[str] = []
    available: list[str] = []
    pending: list[str] = []
    for model_id in model_ids:
        availability = bedrock.get_foundation_model_availability(modelId=model_id)
        agreement = availability.get("agreementAvailability") or {}
        status = agreement.get("status")
        LOG.info(
            "%s: agreement %s, authorization %s, entitlement %s, region %s",
            model_id,
            status,
            availability.get("authorizationStatus"),
            availability.get("entitlementAvailability"),
            availability.get("regionAvailability"),
        )
        if status == "AVAILABLE":
            available.append(model_id)
        elif status == "PENDING":
            LOG.info("%s: an agreement is already being processed; not requesting another", model_id)
            pending.append(model_id)
        else:
            if status == "ERROR":
                LOG.warning(
                    "%s: previous agreement is in ERROR (%s); requesting again", model_id, agreement.get("errorMessage")
                )
            _accept(bedrock, model_id, offer_type)
            accepted.append(model_id)
    return {"Accepted": ",".join(accepted), "AlreadyAvailable": ",".join(available), "Pending": ",".join(pending)}


def on_event(event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
    request_type = event.get("RequestType")
    props = {k: v for k, v in (event.get("ResourceProperties") or {}).items() if k != "ServiceToken"}
    if request_type == "Delete":
        LOG.info(
            "Delete of %s: keeping the model agreements on purpose (removing them would cut model access "
            "for every application in the account); no AWS call made",
            event.get("PhysicalResourceId"),
        )
        return {"PhysicalResourceId": event.get("PhysicalResourceId") or "model-agreements", "Data": {}}
    if request_type not in ("Create", "Update"):
        raise ValueError(f"RequestType must be Create, Update or Delete, got {request_type!r}")
    LOG.info("%s request for model agreements: %s", request_type, props.get("ModelIds"))
    data = ensure_agreements(props)
    return {"PhysicalResourceId": physical_id(parse_model_ids(props)), "Data": data}
