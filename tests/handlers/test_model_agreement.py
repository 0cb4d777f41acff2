"""handlers/model_agreement: botocore Stubber (moto 5.2.5 implements none of the agreement APIs).

Stubber validates every request and response against the installed bedrock service model, and
``expected_params`` pins each request exactly."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

HANDLER = Path(__file__).resolve().parents[2] / "handlers" / "model_agreement" / "index.py"
_spec = importlib.util.spec_from_file_location("model_agreement_index", HANDLER)
assert _spec and _spec.loader
index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(index)

KIMI = "moonshotai.kimi-k3.1-pro"
OTHER = "anthropic.claude-3-haiku-20240307-v1:0"


def event(request_type: str, **props: str) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "RequestType": request_type,
        "ResourceProperties": {"ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:p", **props},
    }
    if request_type != "Create":
        ev["PhysicalResourceId"] = f"model-agreements-{KIMI}"
    return ev


@pytest.fixture
def stubber(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stubber]:
    bedrock = boto3.client("bedrock", region_name="us-east-1")
    stub = Stubber(bedrock)
    services: list[str] = []
    monkeypatch.setattr(index, "client", lambda service: services.append(service) or bedrock)
    with stub:
        yield stub
    stub.assert_no_pending_responses()
    assert set(services) <= {"bedrock"}


def availability(model_id: str, status: str) -> dict[str, Any]:
    return {
        "modelId": model_id,
        "agreementAvailability": {"status": status},
        "authorizationStatus": "AUTHORIZED",
        "entitlementAvailability": "AVAILABLE",
        "regionAvailability": "AVAILABLE",
    }


def offers(model_id: str, *tokens: str) -> dict[str, Any]:
    return {
        "modelId": model_id,
        "offers": [
            {
                "offerId": f"offer-{n}",
                "offerToken": token,
                "termDetails": {
                    "usageBasedPricingTerm": {
                        "rateCard": [{"dimension": "input", "price": "0.6", "unit": "1M tokens"}]
                    },
                    "legalTerm": {"url": "https://example.com/eula"},
                    "supportTerm": {"refundPolicyDescription": "none"},
                },
            }
            for n, token in enumerate(tokens)
        ],
    }


def expect_availability(stub: Stubber, model_id: str, status: str) -> None:
    stub.add_response("get_foundation_model_availability", availability(model_id, status), {"modelId": model_id})


def expect_accept(stub: Stubber, model_id: str, token: str, offer_type: str = "PUBLIC") -> None:
    stub.add_response(
        "list_foundation_model_agreement_offers",
        offers(model_id, token, "second-token"),
        {"modelId": model_id, "offerType": offer_type},
    )
    stub.add_response(
        "create_foundation_model_agreement", {"modelId": model_id}, {"offerToken": token, "modelId": model_id}
    )


def test_already_available_model_is_not_accepted_again(stubber: Stubber) -> None:
    expect_availability(stubber, KIMI, "AVAILABLE")

    result = index.on_event(event("Create", ModelIds=KIMI), None)

    assert result == {
        "PhysicalResourceId": f"model-agreements-{KIMI}",
        "Data": {"Accepted": "", "AlreadyAvailable": KIMI, "Pending": ""},
    }


def test_not_available_model_accepts_first_offer(stubber: Stubber) -> None:
    expect_availability(stubber, KIMI, "NOT_AVAILABLE")
    expect_accept(stubber, KIMI, "first-token")

    result = index.on_event(event("Create", ModelIds=KIMI), None)

    assert result["Data"] == {"Accepted": KIMI, "AlreadyAvailable": "", "Pending": ""}


def test_error_status_requests_again_with_given_offer_type(stubber: Stubber) -> None:
    stubber.add_response(
        "get_foundation_model_availability",
        {**availability(KIMI, "ERROR"), "agreementAvailability": {"status": "ERROR", "errorMessage": "payment"}},
        {"modelId": KIMI},
    )
    expect_accept(stubber, KIMI, "tok", offer_type="ALL")

    result = index.on_event(event("Update", ModelIds=KIMI, OfferType="all"), None)

    assert result["Data"]["Accepted"] == KIMI


def test_pending_agreement_is_not_requested_twice(stubber: Stubber) -> None:
    expect_availability(stubber, KIMI, "PENDING")

    result = index.on_event(event("Create", ModelIds=KIMI), None)

    assert result["Data"] == {"Accepted": "", "AlreadyAvailable": "", "Pending": KIMI}


def test_two_models_mixed(stubber: Stubber) -> None:
    # processed in sorted order: anthropic... before moonshotai...
    expect_availability(stubber, OTHER, "AVAILABLE")
    expect_availability(stubber, KIMI, "NOT_AVAILABLE")
    expect_accept(stubber, KIMI, "kimi-token")

    result = index.on_event(event("Create", ModelIds=f" {KIMI} , {OTHER},{KIMI}"), None)

    assert result == {
        "PhysicalResourceId": f"model-agreements-{OTHER}-{KIMI}",
        "Data": {"Accepted": KIMI, "AlreadyAvailable": OTHER, "Pending": ""},
    }


def test_no_offers_is_a_clear_error(stubber: Stubber) -> None:
    expect_availability(stubber, KIMI, "NOT_AVAILABLE")
    stubber.add_response(
        "list_foundation_model_agreement_offers",
        {"modelId": KIMI, "offers": []},
        {"modelId": KIMI, "offerType": "PUBLIC"},
    )

    with pytest.raises(RuntimeError, match=r"No PUBLIC agreement offer exists for model 'moonshotai.kimi-k3.1-pro'"):
        index.on_event(event("Create", ModelIds=KIMI), None)


def test_delete_makes_no_aws_call(stubber: Stubber) -> None:
    result = index.on_event(event("Delete", ModelIds=KIMI), None)

    assert result == {"PhysicalResourceId": f"model-agreements-{KIMI}", "Data": {}}


def test_delete_with_invalid_properties_still_succeeds(stubber: Stubber) -> None:
    assert index.on_event(event("Delete", ModelIds="", OfferType="BOGUS"), None)["Data"] == {}


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({}, r"Property ModelIds is required.*got None"),
        ({"ModelIds": "  "}, r"Property ModelIds is required.*got '  '"),
        ({"ModelIds": " , ,"}, r"Property ModelIds contains no model ID"),
        ({"ModelIds": "Moonshot Kimi"}, r"Property ModelIds has invalid Bedrock model ID\(s\) 'Moonshot Kimi'"),
        ({"ModelIds": KIMI, "OfferType": "PRIVATE"}, r"Property OfferType must be one of PUBLIC, ALL, got 'PRIVATE'"),
    ],
)
def test_invalid_properties_fail_before_any_aws_call(stubber: Stubber, props: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        index.on_event(event("Create", **props), None)


def test_unknown_request_type_fails(stubber: Stubber) -> None:
    with pytest.raises(ValueError, match="RequestType"):
        index.on_event({"RequestType": "Replace", "ResourceProperties": {"ModelIds": KIMI}}, None)


def test_physical_id_is_bounded_and_deterministic() -> None:
    ids = [f"provider.model-{n:03d}-" + "x" * 40 for n in range(10)]
    first = index.physical_id(ids)
    assert len(first) <= 200
    assert first == index.physical_id(list(reversed(ids)))
    assert first != index.physical_id(ids[:-1])
    assert first.startswith("model-agreements-provider.model-000-")
    assert index.physical_id([KIMI]) == f"model-agreements-{KIMI}"


def test_required_iam_actions() -> None:
    assert index.REQUIRED_IAM_ACTIONS == (
        "bedrock:GetFoundationModelAvailability",
        "bedrock:ListFoundationModelAgreementOffers",
        "bedrock:CreateFoundationModelAgreement",
        "aws-marketplace:Subscribe",
        "aws-marketplace:ViewSubscriptions",
    )
