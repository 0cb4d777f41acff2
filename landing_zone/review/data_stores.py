"""The data-store checks: S3 buckets, log groups, SNS topics and EKS clusters without encryption at rest (with a
customer-managed key where the rule asks for one)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from landing_zone.assembly import Assembly
from landing_zone.review.findings import Finding, finding
from landing_zone.review.rules import ADVISORY, BLOCKING, define

# cdk-nag and checkov rules about S3 encryption with a customer-managed key
_S3_KMS = ("*-S3DefaultEncryptionKMS", "CKV_AWS_145")

__all__ = ["data_store_findings"]


UNENCRYPTED_S3 = define(
    "LZ-UNENCRYPTED-S3",
    BLOCKING,
    "S3 bucket without BucketEncryption",
    "An AWS::S3::Bucket has no BucketEncryption configuration.",
    "Data at rest without a customer-managed key has no key policy to keep it inside the landing zone. "
    "Set BucketEncryption with SSE-KMS.",
    related=_S3_KMS,
)


S3_SSE_S3 = define(
    "LZ-S3-SSE-S3",
    ADVISORY,
    "S3 bucket encrypted with S3-managed keys",
    "An AWS::S3::Bucket uses SSE-S3 (AES256) rather than a customer-managed KMS key.",
    "Advisory: SSE-S3 encrypts at rest, but only the bucket policy controls access (no key policy). S3 "
    "server-access-log destinations must use it (they cannot use SSE-KMS); elsewhere use a "
    "customer-managed key.",
    related=_S3_KMS,
)


UNENCRYPTED_LOGS = define(
    "LZ-UNENCRYPTED-LOGS",
    BLOCKING,
    "Log group without KmsKeyId",
    "An AWS::Logs::LogGroup is not encrypted with a customer-managed key.",
    "Log data at rest without a customer-managed key has no key policy to keep it inside the landing "
    "zone. Set KmsKeyId.",
    related=("*-CloudWatchLogGroupEncrypted", "CKV_AWS_158"),
)


UNENCRYPTED_SNS = define(
    "LZ-UNENCRYPTED-SNS",
    BLOCKING,
    "SNS topic without KmsMasterKeyId",
    "An AWS::SNS::Topic is not encrypted with a KMS key.",
    "Messages at rest without a KMS key. Set KmsMasterKeyId (a customer-managed key whose policy admits "
    "the publishing services with a source condition).",
    related=("AwsSolutions-SNS2", "*-SNSEncryptedKMS", "CKV_AWS_26"),
)


UNENCRYPTED_EKS = define(
    "LZ-UNENCRYPTED-EKS",
    BLOCKING,
    "EKS cluster without secrets encryption",
    "An AWS::EKS::Cluster has no EncryptionConfig.",
    "Kubernetes secrets are stored unencrypted in etcd. Set EncryptionConfig with a KMS key for secrets.",
    related=("AwsSolutions-EKS*", "CKV_AWS_58"),
)


def data_store_findings(assembly: Assembly) -> list[Finding]:
    out: list[Finding] = []
    for t in assembly.templates:
        for logical_id, res in sorted(t.resource_map.items()):
            if not isinstance(res, Mapping):
                continue
            kind = res.get("Type")
            raw_props = res.get("Properties")
            props: Mapping[str, Any] = raw_props if isinstance(raw_props, Mapping) else {}
            evidence = {"template": t.file, "stack": t.name, "logical_id": logical_id}
            if kind == "AWS::S3::Bucket":
                encryption = props.get("BucketEncryption")
                if not encryption:
                    out.append(
                        finding(
                            UNENCRYPTED_S3,
                            f"bucket {logical_id} has no BucketEncryption",
                            element="BucketEncryption (missing)",
                            **evidence,
                        )
                    )
                elif "aws:kms" not in str(encryption):
                    out.append(
                        finding(
                            S3_SSE_S3,
                            f"bucket {logical_id} is encrypted with S3-managed keys (SSE-S3)",
                            element="BucketEncryption SSEAlgorithm AES256",
                            **evidence,
                        )
                    )
            elif kind == "AWS::Logs::LogGroup" and not props.get("KmsKeyId"):
                out.append(
                    finding(
                        UNENCRYPTED_LOGS,
                        f"log group {logical_id} has no KmsKeyId",
                        element="KmsKeyId (missing)",
                        **evidence,
                    )
                )
            elif kind == "AWS::SNS::Topic" and not props.get("KmsMasterKeyId"):
                out.append(
                    finding(
                        UNENCRYPTED_SNS,
                        f"topic {logical_id} has no KmsMasterKeyId",
                        element="KmsMasterKeyId (missing)",
                        **evidence,
                    )
                )
            elif kind == "AWS::EKS::Cluster" and not props.get("EncryptionConfig"):
                out.append(
                    finding(
                        UNENCRYPTED_EKS,
                        f"EKS cluster {logical_id} has no EncryptionConfig",
                        element="EncryptionConfig (missing)",
                        **evidence,
                    )
                )
    return out
