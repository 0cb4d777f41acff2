"""The IAM action space the guardrails are derived from (``action_space.yaml``, generated from the IAM action
database's snapshot by ``python -m landing_zone actiondb refresh``; the rules are in ``landing_zone/actiondb/space.py``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from landing_zone.errors import CatalogError

ACTION_SPACE_FILE = Path(__file__).resolve().parent / "action_space.yaml"

# Every IAM service prefix that owns a resource in the protected-resource inventory
# (landing_zone/policies/protected.py); the tamper denies' NotAction holds these services' read actions.
PROTECTED_SERVICES = (
    "bedrock",
    "bedrock-mantle",
    "budgets",
    "ce",
    "cloudformation",
    "cloudwatch",
    "ec2",
    "ecr",
    "eks",
    "events",
    "iam",
    "kms",
    "lambda",
    "logs",
    "organizations",
    "s3",
    "sns",
    "ssm",
)


class ActionSpace(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int
    source: str = Field(min_length=3)
    generated_by: str
    # every service prefix of the Bedrock family (bedrock*): the Region deny covers each whole
    bedrock_prefixes: tuple[str, ...] = Field(min_length=1)
    read_actions: dict[str, tuple[str, ...]]
    model_actions: tuple[str, ...] = Field(min_length=1)
    model_source_actions: tuple[str, ...]
    foundation_model_actions: tuple[str, ...] = ()
    data_automation_actions: tuple[str, ...]
    project_use_actions: tuple[str, ...]

    def reads_of(self, services: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(a for s in services for a in self.read_actions.get(s, ()))


_Model = TypeVar("_Model", bound=BaseModel)


def _load(path: Path, model: type[_Model]) -> _Model:
    """One catalog file, validated; any problem is a CatalogError naming the file."""
    try:
        return model(**yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError, ValidationError, TypeError) as exc:
        raise CatalogError(f"{path}: {exc}") from None


@lru_cache(maxsize=1)
def load_action_space() -> ActionSpace:
    return _load(ACTION_SPACE_FILE, ActionSpace)


DATA_AUTOMATION_FILE = Path(__file__).resolve().parent / "data_automation.yaml"


class DataAutomationProfile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    source_regions: tuple[str, ...] = Field(min_length=1)
    destination_regions: tuple[str, ...] = Field(min_length=1)


class _Sourced(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int
    source: str = Field(min_length=3)
    as_of: str
    verified: bool


class DataAutomationProfiles(_Sourced):
    profiles: dict[str, DataAutomationProfile]

    def compliant(self, compliant_regions: frozenset[str] | set[str] | tuple[str, ...]) -> tuple[str, ...]:
        """Profiles whose every destination Region is compliant."""
        allowed = set(compliant_regions)
        return tuple(sorted(p for p, d in self.profiles.items() if set(d.destination_regions) <= allowed))


@lru_cache(maxsize=1)
def load_data_automation_profiles() -> DataAutomationProfiles:
    return _load(DATA_AUTOMATION_FILE, DataAutomationProfiles)


MODEL_CALLING_SERVICES_FILE = Path(__file__).resolve().parent / "model_calling_services.yaml"


class ModelCallingServices(_Sourced):
    actions: tuple[str, ...] = Field(min_length=1)


@lru_cache(maxsize=1)
def load_model_calling_services() -> ModelCallingServices:
    return _load(MODEL_CALLING_SERVICES_FILE, ModelCallingServices)
