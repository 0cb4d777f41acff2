"""Write ``cfn_schemas.json``: what the deployability rules need of the CloudFormation resource provider schemas.

For each resource type the landing zone synthesizes (the types already in the file, plus ``--add TYPE``):

* ``createOnlyProperties`` — the schema's list, as JSON pointers (``/properties/ModelSource``): a change to one
  makes CloudFormation replace the resource;
* ``nameProperties`` — the properties that give the resource its own name: a top-level property, or a create-only
  one, called ``Name`` or ``<X>Name`` where the type's name ends with ``<X>`` (``LogGroupName`` of
  ``AWS::Logs::LogGroup``, ``InferenceProfileName`` of ``AWS::Bedrock::ApplicationInferenceProfile``,
  ``/properties/Budget/BudgetName`` of ``AWS::Budgets::Budget``; not ``ServiceName`` of ``AWS::EC2::VPCEndpoint``,
  which names another thing), read-only ones excepted.  "You can't perform an update that causes a custom-named
  resource to be replaced" (CloudFormation template reference, "CloudFormation resource custom naming",
  https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-name.html).

The schemas are the ones cfn-lint ships (``cfnlint/data/schemas``: the registry's provider schemas per Region, here
``us-east-1``), so this runs with the scanners' Python, which has cfn-lint, and imports nothing else of the project:

    .venv-scanners/bin/python landing_zone/review/cfn_schema_refresh.py [--add AWS::X::Y ...]   (make cfn-schemas)

``--check`` prints what it would write instead (``tests/review/test_cfn_schemas.py`` compares it with the file).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).resolve().parent / "cfn_schemas.json"
REGION = "us-east-1"


def _schemas_dir() -> Path:
    import cfnlint.data.schemas

    return Path(cfnlint.data.schemas.__file__).resolve().parent


def _schema(directory: Path, providers: dict[str, str], type_name: str) -> dict[str, Any]:
    digest = providers.get(type_name)
    if digest is None:
        raise SystemExit(f"error: {type_name}: no provider schema in cfn-lint's {REGION} schemas")
    schema: dict[str, Any] = json.loads((directory / "resources" / f"{digest}.json").read_text())
    return schema


def _is_name(type_name: str, segment: str) -> bool:
    if not segment.endswith("Name"):
        return False
    stem = segment[: -len("Name")]
    return stem == "" or type_name.rsplit("::", 1)[-1].endswith(stem)


def entry(type_name: str, schema: dict[str, Any]) -> dict[str, list[str]]:
    """The type's create-only properties and name properties (see the module docstring)."""
    create_only = sorted(schema.get("createOnlyProperties") or [])
    read_only = set(schema.get("readOnlyProperties") or [])
    top = [f"/properties/{p}" for p in schema.get("properties") or {} if _is_name(type_name, p)]
    nested = [p for p in create_only if _is_name(type_name, p.rsplit("/", 1)[-1])]
    names = sorted({p for p in (*top, *nested) if p not in read_only})
    return {"createOnlyProperties": create_only, "nameProperties": names}


def generate(types: list[str]) -> dict[str, Any]:
    from cfnlint.version import __version__

    directory = _schemas_dir()
    providers: dict[str, str] = json.loads((directory / "providers" / f"{REGION}.json").read_text())
    schema_date = json.loads((directory / "version.json").read_text()).get("schema_date", "unknown")
    return {
        "source": f"CloudFormation resource provider schemas as cfn-lint {__version__} ships them "
        f"(cfnlint/data/schemas/providers/{REGION}.json), schema date {schema_date}",
        "cfn_lint": __version__,
        "schema_date": schema_date,
        "region": REGION,
        "generated": datetime.date.today().isoformat(),
        "generator": "landing_zone/review/cfn_schema_refresh.py (make cfn-schemas)",
        "types": {t: entry(t, _schema(directory, providers, t)) for t in sorted(set(types))},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--add", nargs="*", default=[], metavar="TYPE", help="resource types to add")
    parser.add_argument("--check", action="store_true", help="print the data instead of writing the file")
    args = parser.parse_args(argv)
    current = json.loads(DATA_FILE.read_text()) if DATA_FILE.is_file() else {"types": {}}
    data = generate([*current["types"], *args.add])
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if args.check:
        sys.stdout.write(text)
    else:
        DATA_FILE.write_text(text)
        print(f"wrote {DATA_FILE.name}: {len(data['types'])} resource types, {data['source']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
