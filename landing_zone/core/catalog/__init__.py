"""The catalog: Regions, models, inference profiles and limits as data with provenance.

The YAML files next to this module are the shipped defaults.  An overlay written by
``python -m landing_zone discover`` (``verified: true``, live ``as_of``) replaces shipped model entries by ID.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from landing_zone.core.catalog.quotas import QuotaCatalog, QuotaNameMatcher, load_quota_catalog
from landing_zone.errors import CatalogError

CATALOG_DIR = Path(__file__).resolve().parent
ALL_REGIONS = "*"
# The top-level keys of a catalog overlay (what `discover` writes): models replace shipped entries by ID, quotas give
# quota values, discover is its account facts (ignored by load_catalog), config_rules replace shipped AWS Config rule
# entries by id.
OVERLAY_KEYS = ("schema_version", "models", "quotas", "discover", "config_rules")
# Prefixes of system-defined inference profiles (docs: inference-profiles-support.html).
GEOGRAPHIC_PREFIXES = ("us", "eu", "apac", "jp", "au", "ca", "us-gov")
GLOBAL_PREFIX = "global"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Provenance(_Frozen):
    source: str = Field(min_length=3)
    as_of: date
    verified: bool


class Region(_Frozen):
    code: str
    partition: Literal["aws", "aws-cn", "aws-us-gov"]
    geography: str
    opt_in: bool
    name: str


class InferenceProfile(_Frozen):
    id: str
    scope: Literal["geographic", "global"]
    source_regions: tuple[str, ...] = Field(min_length=1)
    destination_regions: tuple[str, ...] = Field(min_length=1)

    @property
    def prefix(self) -> str:
        return self.id.split(".", 1)[0]


# The account data retention modes (botocore 1.44.8 bedrock, PutAccountDataRetention: default | none | aws_review |
# provider_data_share | inherit; https://docs.aws.amazon.com/bedrock/latest/APIReference/API_PutAccountDataRetention.html).
RetentionMode = Literal["default", "none", "aws_review", "provider_data_share", "inherit"]


class DataRetentionModes(_Frozen):
    """The data retention modes a model permits: "Each model specifies which retention modes it permits via
    `allowed_modes`. If your effective mode is not in a model's `allowed_modes` ... requests to it will be blocked"
    (https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html).  ``allowed`` None: unknown (read it
    from the live API: bedrock-mantle ``GET /v1/models/{model}``, field ``data_retention.allowed_modes``)."""

    allowed: tuple[RetentionMode, ...] | None = Field(default=None, min_length=1)
    source: str = Field(min_length=3)
    verified: bool

    def blocks(self, mode: str) -> bool:
        """Whether the account mode ``mode`` blocks the model: known modes that leave it out (``inherit`` defers to
        the model's own default, so it never does)."""
        return self.allowed is not None and mode != "inherit" and mode not in self.allowed


# Service tiers a model may offer besides the Standard tier (API value ``default``, offered by every model):
# https://docs.aws.amazon.com/bedrock/latest/userguide/service-tiers-inference.html ("Models and regions supported by
# Priority and Flex service tiers").
OptionalTier = Literal["priority", "flex", "reserved"]


class ServiceTierOffer(_Frozen):
    """Which service tiers besides Standard a model offers, and where.  ``offered`` None: unknown (the tiers page
    lists support per model and Region; read it live).  ``regions`` None: every Region the model is offered in."""

    offered: tuple[OptionalTier, ...] | None = None
    regions: tuple[str, ...] | None = None
    # The APIs on which a request can select a tier besides Standard (None: every API); on the others it runs Standard.
    apis: tuple[Literal["invoke", "converse", "chat-completions", "responses"], ...] | None = None
    source: str = Field(min_length=3)
    verified: bool

    def status(self, tier: str, compliant_regions: Iterable[str]) -> Literal["offered", "not-offered", "unknown"]:
        """Whether ``tier`` is offered in at least one of ``compliant_regions`` (``default`` always is)."""
        if tier == "default":
            return "offered"
        if self.offered is None:
            return "unknown"
        if tier not in self.offered:
            return "not-offered"
        if self.regions is not None and not set(self.regions) & set(compliant_regions):
            return "not-offered"
        return "offered"


class Model(Provenance):
    id: str
    name: str
    provider: str
    aliases: tuple[str, ...] = ()
    endpoints: tuple[Literal["runtime", "mantle"], ...] = Field(min_length=1)
    context_window_tokens: int | None = None
    in_region_regions: tuple[str, ...] = ()
    mantle_regions: tuple[str, ...] = ()
    inference_profiles: tuple[InferenceProfile, ...] = ()
    # The model name Mantle requests carry (`model` field, condition key bedrock-mantle:Model); omitted: `id`.
    mantle_model_id: str | None = None
    # Omitted: unknown, as ``allowed: null`` (validate warns under data_retention.mode none).
    data_retention_modes: DataRetentionModes | None = None
    # Omitted: unknown, as ``offered: null`` (validate warns when policy_guardrails.allowed_service_tiers allows more
    # than the default tier).
    service_tiers: ServiceTierOffer | None = None

    def tier_status(self, tier: str, compliant_regions: Iterable[str]) -> Literal["offered", "not-offered", "unknown"]:
        """:meth:`ServiceTierOffer.status` of the model (unknown when the catalog has no ``service_tiers``)."""
        if self.service_tiers is None:
            return "offered" if tier == "default" else "unknown"
        return self.service_tiers.status(tier, compliant_regions)

    @property
    def retention_modes(self) -> tuple[str, ...] | None:
        """The modes the model permits, None when unknown."""
        return self.data_retention_modes.allowed if self.data_retention_modes is not None else None

    @property
    def mantle_name(self) -> str:
        return self.mantle_model_id or self.id

    @field_validator("aliases")
    @classmethod
    def _lower_aliases(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(a.lower() for a in v)

    @property
    def provenance(self) -> str:
        state = "verified" if self.verified else "UNVERIFIED"
        return f"{state}, source: {self.source}, as of {self.as_of.isoformat()}"


class DataRetentionSetting(Provenance):
    """The account data retention setting (``data_retention.mode``): per Region or per account, and the mode a Region
    (or account) never configured holds."""

    scope: Literal["region", "account"]
    unconfigured_mode: str
    endpoints: tuple[str, ...] = Field(min_length=1)
    modes: tuple[str, ...] = Field(min_length=1)


# AWS Config API reference, ConfigRule.MaximumExecutionFrequency (botocore's config model has the same enum).
ConfigRuleFrequency = Literal["One_Hour", "Three_Hours", "Six_Hours", "Twelve_Hours", "TwentyFour_Hours"]


class ConfigRuleSource(Provenance):
    """Where an AWS Config rule of the landing zone gets its evaluation (config_rules.yaml): ``owner`` AWS with the
    managed rule's ``identifier``, or CUSTOM_LAMBDA with the ``frequency`` AWS Config runs it at."""

    owner: Literal["AWS", "CUSTOM_LAMBDA"]
    identifier: str | None = Field(default=None, pattern=r"^[A-Z0-9_]{3,128}$")
    frequency: ConfigRuleFrequency | None = None


class Limit(Provenance):
    value: int
    note: str | None = None


class RegionSet(Provenance):
    """Regions where something exists (e.g. the bedrock-mantle endpoint), with provenance."""

    regions: tuple[str, ...] = Field(min_length=1)


class GlobalServices(Provenance):
    """Actions exempt from a Region deny (global services)."""

    not_actions: tuple[str, ...] = Field(min_length=1)


class Catalog(_Frozen):
    regions: Mapping[str, Region]
    regions_provenance: Provenance
    models: Mapping[str, Model]
    limits: Mapping[str, Limit]
    global_services: GlobalServices
    mantle_endpoint_regions: RegionSet | None = None
    # Regions where CloudFormation has AWS::BedrockMantle::Project (None: not catalogued, so none).
    mantle_project_regions: RegionSet | None = None
    # The account data retention setting's scope (None: not catalogued).
    data_retention_setting: DataRetentionSetting | None = None
    # Bedrock per-model quotas (quotas.yaml) with the values of the overlays' `quotas:` blocks; None: not loaded.
    quotas: QuotaCatalog | None = None
    # The AWS Config rules' sources by rule id (config_rules.yaml, overlays' `config_rules:` blocks by id).
    config_rules: Mapping[str, ConfigRuleSource] = Field(default_factory=dict)

    # -- look-ups -------------------------------------------------------------------------------------
    def commercial_regions(self) -> tuple[str, ...]:
        return tuple(sorted(c for c, r in self.regions.items() if r.partition == "aws"))

    def resolve_model(self, name: str) -> Model | None:
        """A model by Bedrock model ID or alias (aliases are case-insensitive)."""
        if name in self.models:
            return self.models[name]
        lowered = name.lower()
        for model in self.models.values():
            if lowered in model.aliases:
                return model
        return None

    def require_model(self, name: str) -> Model:
        """:meth:`resolve_model` for a name the configuration already validated against this catalog."""
        model = self.resolve_model(name)
        if model is None:
            raise CatalogError(f"model {name!r} is not in the catalog (known: {', '.join(self.model_names())})")
        return model

    def model_names(self) -> tuple[str, ...]:
        names: list[str] = []
        for model in sorted(self.models.values(), key=lambda m: m.id):
            names.append(model.id)
            names.extend(model.aliases)
        return tuple(names)

    def destinations(self, profile: InferenceProfile) -> tuple[str, ...]:
        """Destination Regions of a profile, with the global wildcard expanded to every commercial Region."""
        if ALL_REGIONS in profile.destination_regions:
            return self.commercial_regions()
        return tuple(sorted(profile.destination_regions))

    def limit(self, name: str) -> int:
        return self.limits[name].value

    def config_rule(self, rule_id: str) -> ConfigRuleSource:
        """The source of the landing zone's AWS Config rule ``rule_id`` (config_rules.yaml, or an overlay's)."""
        if rule_id not in self.config_rules:
            known = ", ".join(sorted(self.config_rules)) or "none"
            raise CatalogError(f"config_rules.{rule_id}: not in the catalog (known: {known})")
        return self.config_rules[rule_id]

    def quota_name_matcher(self, model_ids: Iterable[str]) -> QuotaNameMatcher | None:
        """The :class:`QuotaNameMatcher` of these models (a model is named in Service Quotas by its catalog name,
        provider and name, or ID); None without a quota catalog."""
        if self.quotas is None:
            return None
        names: dict[str, tuple[str, ...]] = {}
        for model_id in model_ids:
            model = self.models.get(model_id)
            names[model_id] = (model.name, f"{model.provider} {model.name}", model_id) if model else (model_id,)
        return QuotaNameMatcher(self.quotas.kinds, names)


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        with path.open(encoding="utf-8") as fh:
            data = yaml.safe_load(fh) or {}
    except OSError as exc:
        raise CatalogError(f"catalog file {path}: cannot be read ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise CatalogError(f"catalog file {path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise CatalogError(f"catalog file {path}: expected a mapping at the top level, got {type(data).__name__}")
    return data


def _check_integrity(catalog: Catalog) -> list[str]:
    problems: list[str] = []
    seen_names: dict[str, str] = {}
    for model_id, model in catalog.models.items():
        where = f"models.{model_id}"
        if model.id != model_id:
            problems.append(f"{where}.id: got {model.id!r}; must equal the entry key")
        for name in (model.id, *model.aliases):
            if name in seen_names and seen_names[name] != model_id:
                problems.append(f"{where}.aliases: {name!r} is already used by {seen_names[name]}")
            seen_names[name] = model_id
        problems += _model_region_problems(catalog, where, model)
        for i, profile in enumerate(model.inference_profiles):
            problems += _profile_problems(set(catalog.regions), f"{where}.inference_profiles[{i}]", model, profile)
    return problems


def _model_region_problems(catalog: Catalog, where: str, model: Model) -> list[str]:
    problems = [
        f"{where}.{field}: unknown Region {region!r}"
        for field in ("in_region_regions", "mantle_regions")
        for region in getattr(model, field)
        if region not in catalog.regions
    ]
    if "mantle" in model.endpoints and not model.mantle_regions:
        problems.append(f"{where}.mantle_regions: empty, but endpoints include 'mantle'")
    if "mantle" not in model.endpoints and model.mantle_regions:
        problems.append(f"{where}.mantle_regions: set, but endpoints do not include 'mantle'")
    if catalog.mantle_endpoint_regions is not None:
        outside = sorted(set(model.mantle_regions) - set(catalog.mantle_endpoint_regions.regions))
        if outside:
            problems.append(
                f"{where}.mantle_regions: {outside} have no bedrock-mantle endpoint "
                f"(mantle_endpoint_regions: {', '.join(catalog.mantle_endpoint_regions.regions)})"
            )
    return problems


def _profile_problems(known: set[str], pwhere: str, model: Model, profile: InferenceProfile) -> list[str]:
    problems: list[str] = []
    if not profile.id.endswith("." + model.id):
        problems.append(f"{pwhere}.id: got {profile.id!r}; must be '<prefix>.{model.id}'")
    if profile.scope == "global":
        if profile.prefix != GLOBAL_PREFIX:
            problems.append(f"{pwhere}.id: global profiles start with 'global.', got {profile.id!r}")
        if tuple(profile.destination_regions) != (ALL_REGIONS,):
            problems.append(f"{pwhere}.destination_regions: global profiles route to every Region; use ['*']")
    if profile.scope == "geographic":
        if profile.prefix not in GEOGRAPHIC_PREFIXES:
            problems.append(f"{pwhere}.id: prefix {profile.prefix!r} is not a geographic prefix {GEOGRAPHIC_PREFIXES}")
        if ALL_REGIONS in profile.destination_regions:
            problems.append(f"{pwhere}.destination_regions: '*' is only valid for global profiles")
    problems += [f"{pwhere}.source_regions: unknown Region {r!r}" for r in profile.source_regions if r not in known]
    problems += [
        f"{pwhere}.destination_regions: unknown Region {r!r}"
        for r in profile.destination_regions
        if r != ALL_REGIONS and r not in known
    ]
    if profile.scope == "geographic":
        missing = set(profile.source_regions) - set(profile.destination_regions)
        if missing:
            problems.append(
                f"{pwhere}: source Regions {sorted(missing)} are not destinations; a geographic profile "
                "always serves its own source Regions"
            )
    return problems


def _models_from(data: Mapping[str, Any], origin: str) -> dict[str, Model]:
    models: dict[str, Model] = {}
    for model_id, entry in (data.get("models") or {}).items():
        try:
            models[model_id] = Model(id=model_id, **{k: v for k, v in entry.items() if k != "id"})
        except ValidationError as exc:
            details = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
            raise CatalogError(f"{origin}: models.{model_id}: {details}") from None
        except TypeError as exc:
            raise CatalogError(f"{origin}: models.{model_id}: {exc}") from None
    return models


def _config_rules_from(
    data: Mapping[str, Any], origin: str, key: str, known: Mapping[str, ConfigRuleSource] | None
) -> dict[str, ConfigRuleSource]:
    """The ``key`` block of a catalog document as :class:`ConfigRuleSource` by id; with ``known`` (an overlay), an id
    that is not one of those, or another owner, is refused (an overlay replaces the landing zone's rules' sources; it
    adds no rule and does not turn a managed rule into a custom one)."""
    block = data.get(key) or {}
    if not isinstance(block, Mapping):
        raise CatalogError(f"{origin}: {key}: expected a mapping of rule ids to entries, got {type(block).__name__}")
    rules: dict[str, ConfigRuleSource] = {}
    for rule_id, entry in block.items():
        if known is not None and rule_id not in known:
            raise CatalogError(
                f"{origin}: {key}.{rule_id}: not a rule of the landing zone; allowed: {', '.join(sorted(known))}"
            )
        try:
            rule = ConfigRuleSource(**entry)
        except (ValidationError, TypeError) as exc:
            details = (
                "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
                if isinstance(exc, ValidationError)
                else str(exc)
            )
            raise CatalogError(f"{origin}: {key}.{rule_id}: {details}") from None
        if (rule.owner == "AWS") != (rule.identifier is not None) or (rule.owner == "CUSTOM_LAMBDA") != (
            rule.frequency is not None
        ):
            raise CatalogError(
                f"{origin}: {key}.{rule_id}: owner {rule.owner} needs "
                + (
                    "identifier (the managed rule's) and no frequency"
                    if rule.owner == "AWS"
                    else "frequency and no identifier"
                )
            )
        if known is not None and rule.owner != known[rule_id].owner:
            raise CatalogError(
                f"{origin}: {key}.{rule_id}.owner: got {rule.owner}; allowed: {known[rule_id].owner} (the rule's kind)"
            )
        rules[rule_id] = rule
    return rules


def load_catalog(overlays: Iterable[Path] = (), *, catalog_dir: Path = CATALOG_DIR) -> Catalog:
    """Load the shipped catalog, apply overlays (later wins, whole model entries), and check integrity."""
    return _load_catalog(tuple(Path(p) for p in overlays), catalog_dir)


@lru_cache(maxsize=8)
def _load_catalog(overlays: tuple[Path, ...], catalog_dir: Path) -> Catalog:
    regions_doc = _read_yaml(catalog_dir / "regions.yaml")
    models_doc = _read_yaml(catalog_dir / "models.yaml")
    limits_doc = _read_yaml(catalog_dir / "limits.yaml")
    global_doc = _read_yaml(catalog_dir / "global_services.yaml")
    try:
        regions = {code: Region(code=code, **entry) for code, entry in (regions_doc.get("regions") or {}).items()}
        regions_provenance = Provenance(
            source=regions_doc["source"], as_of=regions_doc["as_of"], verified=regions_doc["verified"]
        )
        limits = {name: Limit(**entry) for name, entry in (limits_doc.get("limits") or {}).items()}
        global_services = GlobalServices(**{k: v for k, v in global_doc.items() if k != "schema_version"})
        mantle_doc = models_doc.get("mantle_endpoint_regions")
        mantle_endpoint_regions = RegionSet(**mantle_doc) if mantle_doc else None
        project_doc = models_doc.get("mantle_project_regions")
        mantle_project_regions = RegionSet(**project_doc) if project_doc else None
        retention_doc = models_doc.get("data_retention_setting")
        retention = DataRetentionSetting(**retention_doc) if retention_doc else None
    except (ValidationError, KeyError, TypeError) as exc:
        raise CatalogError(f"catalog files in {catalog_dir}: {exc}") from None
    models = _models_from(models_doc, str(catalog_dir / "models.yaml"))
    overlay_docs = [(str(overlay), _read_yaml(overlay)) for overlay in overlays]
    for origin, doc in overlay_docs:
        models.update(_models_from(doc, origin))
    quotas_path = catalog_dir / "quotas.yaml"
    quotas = load_quota_catalog(overlay_docs, path=quotas_path) if quotas_path.is_file() else None
    rules_path = catalog_dir / "config_rules.yaml"
    config_rules = (
        _config_rules_from(_read_yaml(rules_path), str(rules_path), "rules", None) if rules_path.is_file() else {}
    )
    for origin, doc in overlay_docs:
        config_rules.update(_config_rules_from(doc, origin, "config_rules", dict(config_rules)))
    catalog = Catalog(
        regions=regions,
        regions_provenance=regions_provenance,
        models=models,
        limits=limits,
        global_services=global_services,
        mantle_endpoint_regions=mantle_endpoint_regions,
        mantle_project_regions=mantle_project_regions,
        data_retention_setting=retention,
        quotas=quotas,
        config_rules=config_rules,
    )
    problems = _check_integrity(catalog)
    if problems:
        raise CatalogError("catalog is inconsistent:\n" + "\n".join(f"  - {p}" for p in problems))
    return catalog
