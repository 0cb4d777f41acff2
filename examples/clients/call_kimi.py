"""Call Kimi K3.1 Pro through the landing zone: assume the invoker role, then use the application profile.

    python examples/clients/call_kimi.py --role-arn ROLE --profile-arn PROFILE [--region eu-central-1] "prompt"

ROLE and PROFILE are outputs of the <name>-access stack (<App>InvokerRoleArn, <App>ProfileArn). Run it inside
the landing zone's VPC: the invoker role only works through its VPC endpoints (private DNS makes the default
hostnames resolve to them).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def assume_invoker(role_arn: str, *, session_name: str = "kimi-app", sts_client: Any = None) -> boto3.Session:
    sts = sts_client or boto3.client("sts")
    creds = sts.assume_role(RoleArn=role_arn, RoleSessionName=session_name)["Credentials"]
    return boto3.Session(
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
    )


def converse(runtime_client: Any, profile_arn: str, prompt: str, *, max_tokens: int = 1024) -> str:
    """bedrock-runtime Converse with the application inference profile as modelId (cost-allocated)."""
    response = runtime_client.converse(
        modelId=profile_arn,
        messages=[{"role": "user", "content": [{"text": prompt}]}],
        inferenceConfig={"maxTokens": max_tokens},
    )
    return "".join(block.get("text", "") for block in response["output"]["message"]["content"])


def mantle_chat_request(
    credentials: Credentials, *, region: str, model: str, prompt: str, max_tokens: int = 1024
) -> AWSRequest:
    """A SigV4-signed OpenAI-compatible Chat Completions request for bedrock-mantle (send it with any HTTP
    client).  The host name is the Mantle endpoint's (through the VPC endpoint's private DNS)."""
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens})
    request = AWSRequest(
        method="POST",
        url=f"https://bedrock-mantle.{region}.api.aws/v1/chat/completions",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    SigV4Auth(credentials, "bedrock-mantle", region).add_auth(request)
    return request


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-arn", required=True)
    parser.add_argument("--profile-arn", required=True)
    parser.add_argument("--region", default="us-east-1")
    parser.add_argument("prompt")
    args = parser.parse_args()
    session = assume_invoker(args.role_arn)
    print(converse(session.client("bedrock-runtime", region_name=args.region), args.profile_arn, args.prompt))


if __name__ == "__main__":
    main()
