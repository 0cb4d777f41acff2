"""The README's client example, exercised offline (botocore Stubber; no request leaves the machine)."""

from __future__ import annotations

import importlib.util

import boto3
from botocore.credentials import Credentials
from botocore.stub import Stubber

from tests.conftest import ROOT

spec = importlib.util.spec_from_file_location("call_kimi", ROOT / "examples" / "clients" / "call_kimi.py")
call_kimi = importlib.util.module_from_spec(spec)
spec.loader.exec_module(call_kimi)

PROFILE = "arn:aws:bedrock:eu-central-1:222222222222:application-inference-profile/a1b2c3d4e5f6"


def test_converse_uses_the_application_profile_as_model_id():
    client = boto3.client("bedrock-runtime", region_name="eu-central-1")
    with Stubber(client) as stub:
        stub.add_response(
            "converse",
            {
                "output": {"message": {"role": "assistant", "content": [{"text": "Hallo!"}]}},
                "stopReason": "end_turn",
                "usage": {"inputTokens": 5, "outputTokens": 2, "totalTokens": 7},
                "metrics": {"latencyMs": 10},
            },
            expected_params={
                "modelId": PROFILE,
                "messages": [{"role": "user", "content": [{"text": "Sag hallo"}]}],
                "inferenceConfig": {"maxTokens": 1024},
            },
        )
        assert call_kimi.converse(client, PROFILE, "Sag hallo") == "Hallo!"
        stub.assert_no_pending_responses()


def test_assume_invoker_returns_a_session_with_the_role_credentials():
    sts = boto3.client("sts", region_name="eu-central-1")
    with Stubber(sts) as stub:
        stub.add_response(
            "assume_role",
            {
                "Credentials": {
                    "AccessKeyId": "ASIAEXAMPLEKEY123456",
                    "SecretAccessKey": "s" * 40,
                    "SessionToken": "t",
                    "Expiration": "2026-12-01T00:00:00Z",
                }
            },
            {"RoleArn": "arn:aws:iam::222222222222:role/kimi-eu-invoker-support-bot", "RoleSessionName": "kimi-app"},
        )
        session = call_kimi.assume_invoker("arn:aws:iam::222222222222:role/kimi-eu-invoker-support-bot", sts_client=sts)
    assert session.get_credentials().access_key == "ASIAEXAMPLEKEY123456"


def test_mantle_request_is_sigv4_signed_for_bedrock_mantle():
    request = call_kimi.mantle_chat_request(
        Credentials("AKIDEXAMPLE", "secret"), region="eu-central-1", model="moonshotai.kimi-k3.1-pro", prompt="hi"
    )
    assert request.url == "https://bedrock-mantle.eu-central-1.api.aws/v1/chat/completions"
    auth = request.headers["Authorization"]
    assert (
        auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
        and "/eu-central-1/bedrock-mantle/aws4_request" in auth
    )
    assert b'"model": "moonshotai.kimi-k3.1-pro"' in request.body
