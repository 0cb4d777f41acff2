"""The module-size gate of `make lint`: no product module over 800 lines.

`python -m tests.support.module_size` prints each product `.py` file (landing_zone, constructs_lib, stacks,
handlers, app.py) longer than the limit, with its line count, and exits 1 if there is one; a module that
grows past it is split into cohesive modules, never excepted.
"""

from __future__ import annotations

import sys
from pathlib import Path

LIMIT = 800
PRODUCT = ("landing_zone", "constructs_lib", "stacks", "handlers", "app.py")


def oversized(root: Path, limit: int = LIMIT) -> list[tuple[str, int]]:
    """Every product module of `root` over `limit` lines, as (relative path, line count), sorted by path."""
    found: list[tuple[str, int]] = []
    for name in PRODUCT:
        top = root / name
        files = [top] if top.is_file() else sorted(top.rglob("*.py"))
        for path in files:
            count = len(path.read_text(encoding="utf-8").splitlines())
            if count > limit:
                found.append((path.relative_to(root).as_posix(), count))
    return sorted(found)


def main() -> int:
    found = oversized(Path.cwd())
    for path, count in found:
        print(f"{path}: {count} lines, over the limit of {LIMIT}; split it into cohesive modules", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
