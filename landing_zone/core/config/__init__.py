"""The configuration contract: one typed, frozen model validated once at the edge.

Defaults live in ``cdk.json`` under the ``landing_zone`` context key (the package ships the repository's as
``defaults.json``: :func:`packaged_defaults`, used where there is no cdk.json); an optional YAML/JSON file given as
``-c config=PATH`` (or ``--config PATH`` on the CLI) is deep-merged over them (mappings merge, lists and
scalars replace).  Every invalid value is collected and reported in one :class:`ConfigError`.

* :mod:`.schema` — the root model, which assembles the sections and holds the rules that span several of them;
* :mod:`.sections` — the pydantic models of each section (organization, network, workload, cost, access,
  guardrails) on a common strict base;
* :mod:`.rules` — the rules every model takes from its fields' types (numbers and booleans of their type, lists
  that hold each entry once, no empty optional list, every ARN in the landing zone's partition);
* :mod:`.loading` — reading cdk.json and config files, merging them;
* :mod:`.problems` — validation errors in plain words, :func:`build_config`;
* :mod:`.placeholders` — example values left in a configuration.
"""

from landing_zone.core.config.loading import (
    catalog_for,
    check_regular_file,
    context_switches,
    deep_merge,
    packaged_defaults,
    raw_config,
    read_cdk_json_defaults,
    read_config_file,
)
from landing_zone.core.config.placeholders import is_placeholder_account_id, placeholders
from landing_zone.core.config.problems import build_config, problems_from_validation_error
from landing_zone.core.config.schema import *  # noqa: F403 - the schema's names are the package's public names
from landing_zone.core.config.schema import __all__ as _schema_names

__all__ = [
    *_schema_names,
    "build_config",
    "catalog_for",
    "check_regular_file",
    "context_switches",
    "deep_merge",
    "is_placeholder_account_id",
    "packaged_defaults",
    "placeholders",
    "problems_from_validation_error",
    "raw_config",
    "read_cdk_json_defaults",
    "read_config_file",
]
