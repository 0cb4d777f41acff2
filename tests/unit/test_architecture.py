"""House rules that keep the layers apart."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_package_never_imports_the_cdk():
    for path in sorted((ROOT / "landing_zone").rglob("*.py")):
        assert not imports_of(path) & {"aws_cdk", "constructs", "cdk_nag"}, path


def test_stacks_define_no_raw_resources():
    """Stacks compose constructs from constructs_lib: no `ec2.Vpc(...)`-style constructor calls in stacks/."""
    service_modules = {"ec2", "kms", "logs", "iam", "s3", "sns", "eks", "budgets", "cloudwatch", "organizations"}
    for path in sorted((ROOT / "stacks").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in service_modules
                and node.func.attr[:1].isupper()
            ):
                raise AssertionError(
                    f"{path.name}:{node.lineno}: {node.func.value.id}.{node.func.attr}(...) in a stack"
                )


def test_constructs_build_no_policy_documents_themselves():
    """Policy documents come from the pure builders in landing_zone.policies; constructs only wire them in."""
    for path in sorted((ROOT / "constructs_lib").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "landing_zone.policies.common":
                names = {a.name for a in node.names}
                assert not names & {"document", "statement"}, f"{path.name} builds policy documents itself"


def _layer_contract() -> list[str]:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers" and "landing_zone.cli" in c["layers"]]
    return [name.strip() for layer in contract["layers"] for name in layer.split("|")]


def test_every_package_of_landing_zone_has_a_layer():
    """The import-linter contract (`make lint`) can only keep the layering if every module is in a layer: a new
    top-level module or package of landing_zone must be placed in pyproject.toml's layer list."""
    layered = set(_layer_contract())
    modules = {
        f"landing_zone.{p.stem if p.is_file() else p.name}"
        for p in (ROOT / "landing_zone").iterdir()
        if (p.is_file() and p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
        or (p.is_dir() and (p / "__init__.py").is_file())
    }
    assert modules == layered, f"not layered: {sorted(modules - layered)}; stale: {sorted(layered - modules)}"


def test_the_layers_read_as_the_pipeline():
    """config -> catalog -> routing (core) -> policies / cost -> plan -> review / verify / finops -> cli."""
    order = _layer_contract()
    assert order.index("landing_zone.cli") < order.index("landing_zone.review") < order.index("landing_zone.plan")
    assert order.index("landing_zone.plan") < order.index("landing_zone.policies") < order.index("landing_zone.core")
    assert order[-1] == "landing_zone.errors"


def test_no_function_level_import_of_the_package_itself():
    """No lazy `from landing_zone...` inside a function: a cycle must be broken by the layering, not hidden.  The one
    exception is the CLI edge, which loads a command's optional dependencies (boto3 for verify) on use."""
    lazy = []
    for path in sorted((ROOT / "landing_zone").rglob("*.py")):
        if path.parent.name == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("landing_zone"):
                        lazy.append(f"{path.relative_to(ROOT)}:{inner.lineno} {inner.module}")
    assert not lazy, "\n".join(lazy)
