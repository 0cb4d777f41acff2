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
                raise AssertionError(f"{path.name}:{node.lineno}: {node.func.value.id}.{node.func.attr}(...) in a stack")


def test_constructs_build_no_policy_documents_themselves():
    """Policy documents come from the pure builders in landing_zone.policies; constructs only wire them in."""
    for path in sorted((ROOT / "constructs_lib").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "landing_zone.policies.common":
                names = {a.name for a in node.names}
                assert not names & {"document", "statement"}, f"{path.name} builds policy documents itself"
