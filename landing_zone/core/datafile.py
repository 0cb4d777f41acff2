"""Reading configuration files that may be hostile: bounded in size, depth and time, never a traceback.

Every file the landing zone reads from a user (the ``--config`` / ``-c config=`` file, ``--cdk-json`` and the
``catalog_overlays``) goes through :func:`load_data_file`:

* at most :data:`MAX_CONFIG_BYTES` (1 MiB) — a larger file is refused before it is parsed;
* UTF-8 text (a byte-order mark is allowed);
* nesting at most :data:`MAX_NESTING_DEPTH` (64) lists/mappings deep, checked before anything recursive runs;
* YAML anchors, aliases and merge keys (``&a``, ``*a``, ``<<:``) are refused when the parser meets the first
  one, so an alias bomb ("billion laughs") is rejected before anything is expanded;
* a key may appear once per mapping: a duplicate is refused with the key and both line numbers (YAML and
  JSON silently keep the last one);
* YAML scalars follow the YAML 1.2 core schema, the one JSON agrees with: only ``true``/``false`` are
  booleans (``yes``, ``no``, ``on``, ``off`` stay strings), ``010`` is ten, ``1e6`` is a number, dates stay
  strings, and tags other than the core ones (``!!binary``, ``!!set``, ``!!python/...``) are refused.

Problems become a :class:`~landing_zone.errors.ConfigError` naming the file, the line and what to do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, NodeEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import BaseResolver

from landing_zone.errors import ConfigError, Described, Problem

MAX_CONFIG_BYTES = 1024 * 1024  # 1 MiB: a 100-account config is ~10 KB; 10,000 accounts still fit
MAX_NESTING_DEPTH = 64  # the configuration itself is at most 5 levels deep
MAX_NUMBER_CHARACTERS = 100  # no real setting needs a longer number literal

_CORE = "tag:yaml.org,2002:"


# -- YAML: the 1.2 core schema, without anchors, aliases or duplicate keys ---------------------------------
class _CoreResolver(BaseResolver):
    """Implicit types of the YAML 1.2 core schema (plus ``_`` digit separators, as in PyYAML)."""


for _tag, _regexp, _first in (
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("int", r"^(?:[-+]?[0-9][0-9_]*|0o[0-7_]+|0x[0-9a-fA-F_]+)$", list("-+0123456789")),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9][0-9_]*|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+.0123456789"),
    ),
):
    _CoreResolver.add_implicit_resolver(_CORE + _tag, re.compile(_regexp), _first)


class _CoreConstructor(SafeConstructor):
    """Plain data only; duplicate keys and non-core tags are errors."""

    yaml_constructors: ClassVar[dict[str | None, Any]] = {}

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, MappingNode):
            raise ConstructorError(
                None, None, f"expected a mapping, found {getattr(node, 'id', type(node).__name__)}", node.start_mark
            )
        mapping: dict[Any, Any] = {}
        lines: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise ConstructorError(
                    "while reading a mapping",
                    node.start_mark,
                    "found a list or mapping used as a key (keys must be plain text)",
                    key_node.start_mark,
                ) from None
            line = key_node.start_mark.line + 1
            if key in lines:
                raise _DuplicateKey(node, key, lines[key], line)
            lines[key] = line
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def construct_yaml_int(self, node: ScalarNode) -> int:
        text = str(self.construct_scalar(node)).replace("_", "")
        _check_number_length(text, node)
        sign = -1 if text.startswith("-") else 1
        digits = text.lstrip("+-")
        if digits.startswith("0o"):
            return sign * int(digits[2:], 8)
        if digits.startswith("0x"):
            return sign * int(digits[2:], 16)
        return sign * int(digits, 10)  # YAML 1.2: a leading zero is not octal

    def construct_yaml_float(self, node: ScalarNode) -> float:
        _check_number_length(str(node.value), node)
        return super().construct_yaml_float(node)

    def construct_undefined(self, node: Node) -> Any:
        raise ConstructorError(
            None,
            None,
            f"the YAML tag {node.tag.replace(_CORE, '!!')!r} is not allowed here: a config holds only text, numbers, "
            "true/false, null, "
            "lists and mappings",
            node.start_mark,
        )


_CONSTRUCTORS: tuple[tuple[str, Callable[[Any, Any], Any]], ...] = (
    ("null", SafeConstructor.construct_yaml_null),
    ("bool", SafeConstructor.construct_yaml_bool),
    ("int", _CoreConstructor.construct_yaml_int),
    ("float", _CoreConstructor.construct_yaml_float),
    ("str", SafeConstructor.construct_yaml_str),
    ("seq", SafeConstructor.construct_yaml_seq),
    ("map", SafeConstructor.construct_yaml_map),
)
for _tag, _method in _CONSTRUCTORS:
    _CoreConstructor.add_constructor(_CORE + _tag, _method)
# typed loosely: the stubs want a loader class as the first parameter, and the loader is assembled below
_UNDEFINED: Callable[[Any, Any], Any] = _CoreConstructor.construct_undefined
_CoreConstructor.add_constructor(None, _UNDEFINED)


def _check_number_length(text: str, node: Node) -> None:
    if len(text) > MAX_NUMBER_CHARACTERS:
        raise ConstructorError(
            None,
            None,
            f"a number written with {len(text):,} characters (at most {MAX_NUMBER_CHARACTERS})",
            node.start_mark,
        )


class _DuplicateKey(Exception):
    def __init__(self, mapping: Node, key: Any, first_line: int, second_line: int) -> None:
        super().__init__(key)
        self.mapping, self.key, self.first_line, self.second_line = mapping, key, first_line, second_line


class _Refused(Exception):
    """A structural rule broken: at ``mark`` (a YAML position) or at the config ``path`` (e.g. a duplicate key)."""

    def __init__(self, mark: Any, got: str, rule: str, *, path: str | None = None) -> None:
        super().__init__(rule)
        self.mark, self.got, self.rule, self.path = mark, got, rule, path


# libyaml's parser when present (fast, iterative); PyYAML's pure-Python one otherwise.  Only events are read
# from it before the checks pass, so neither ever recurses into hostile nesting.
if yaml.__with_libyaml__:
    from yaml._yaml import CParser as _CParser  # what yaml.cyaml re-exports; the stubs declare it here

    class _Parser(_CParser):
        pass

else:  # pragma: no cover - libyaml is part of the pinned PyYAML wheels

    class _Parser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            yaml.composer.Composer.__init__(self)


class _ConfigYamlLoader(_Parser, _CoreConstructor, _CoreResolver):
    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        _CoreConstructor.__init__(self)
        _CoreResolver.__init__(self)


def _check_events(text: str) -> None:
    """Walk the YAML events once: refuse anchors, aliases and nesting deeper than MAX_NESTING_DEPTH."""
    loader = _ConfigYamlLoader(text)
    try:
        depth = 0
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, AliasEvent):
                raise _Refused(event.start_mark, f"the alias *{event.anchor}", _NO_ANCHORS)
            if isinstance(event, NodeEvent) and event.anchor is not None:
                raise _Refused(event.start_mark, f"the anchor &{event.anchor}", _NO_ANCHORS)
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_NESTING_DEPTH:
                    raise _Refused(event.start_mark, f"more than {MAX_NESTING_DEPTH} levels of nesting", _TOO_DEEP)
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    finally:
        loader.dispose()


_NO_ANCHORS = (
    "YAML anchors, aliases and merge keys (&name, *name, <<: *name) are not allowed in a config: write the values out"
)
_TOO_DEEP = f"a config may nest lists and mappings at most {MAX_NESTING_DEPTH} levels deep"


def _parse_yaml(text: str) -> Any:
    _check_events(text)
    loader = _ConfigYamlLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        try:
            return loader.construct_document(root)
        except _DuplicateKey as dup:
            raise _Refused(
                None,
                f"the key {dup.key!r} twice (lines {dup.first_line} and {dup.second_line})",
                "a key may appear once per mapping (YAML would silently keep the last value): delete one of them",
                path=_key_path(root, dup.mapping, dup.key),
            ) from None
    finally:
        loader.dispose()


def _key_path(root: Node, mapping: Node, key: Any) -> str:
    """The config path of ``key`` inside ``mapping`` (found by walking the composed nodes)."""
    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, path = stack.pop()
        if node is mapping:
            return _join(path, key)
        if isinstance(node, MappingNode):
            stack.extend((v, _join(path, k.value if isinstance(k, ScalarNode) else "?")) for k, v in node.value)
        elif isinstance(node, SequenceNode):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(node.value))
    return str(key)


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


# -- JSON ----------------------------------------------------------------------------------------------------
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _json_depth_check(text: str) -> None:
    depth = 0
    for bracket in re.findall(r"[\[\]{}]", _JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_NESTING_DEPTH:
            raise _Refused(None, f"more than {MAX_NESTING_DEPTH} levels of nesting", _TOO_DEEP)


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _JsonDuplicateKey(key)
        result[key] = value
    return result


class _JsonDuplicateKey(Exception):
    pass


def _json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _parse_json(text: str) -> Any:
    _json_depth_check(text)
    try:
        return json.loads(text, object_pairs_hook=_json_object, parse_constant=_json_constant)
    except _JsonDuplicateKey as dup:
        key = dup.args[0]
        lines = list(
            dict.fromkeys(
                text.count("\n", 0, m.start()) + 1 for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)
            )
        )
        shown = ", ".join(map(str, lines[:6])) + (" ..." if len(lines) > 6 else "")
        raise _Refused(
            None,
            f"the key {key!r} twice in one object (lines where {json.dumps(key)} is a key: {shown})",
            "a key may appear once per object (JSON readers silently keep the last value): delete one of them",
            path=str(key),
        ) from None


# -- the entry point -----------------------------------------------------------------------------------------
def read_text_bounded(path: Path, *, origin: str, what: str = "config") -> str:
    """The text of ``path``: a regular file (or pipe) of at most MAX_CONFIG_BYTES bytes of UTF-8."""

    def refuse(got: object, rule: str) -> ConfigError:
        return ConfigError([Problem(what, got, rule)], origin=origin)

    if path.is_dir():
        raise refuse(str(path), "is a directory: give the path of a YAML or JSON file")
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise refuse(str(path), "the file does not exist") from None
    except OSError as exc:
        raise refuse(str(path), f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_CONFIG_BYTES:
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        size_text = f"{size:,} bytes" if size > MAX_CONFIG_BYTES else f"more than {MAX_CONFIG_BYTES:,} bytes"
        raise refuse(
            Described(f"a file of {size_text}"),
            f"a config file may hold at most {MAX_CONFIG_BYTES:,} bytes (1 MiB, MAX_CONFIG_BYTES in "
            "landing_zone/core/datafile.py): a real configuration is a few kilobytes",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        problem = Problem(
            f"{what} (line {line})",
            Described(f"the byte 0x{data[exc.start]:02x} at offset {exc.start}, which is not UTF-8"),
            "the file must be UTF-8 text: save it as UTF-8",
        )
        raise ConfigError([problem], origin=origin) from None


def parse_data(text: str, *, json_format: bool, origin: str, what: str = "config") -> Any:
    """Parse YAML (or JSON) text under the rules of this module; problems raise ConfigError."""
    try:
        return _parse_json(text) if json_format else _parse_yaml(text)
    except _Refused as exc:
        place = exc.path or (f"{what} (line {exc.mark.line + 1}, column {exc.mark.column + 1})" if exc.mark else what)
        raise ConfigError([Problem(place, Described(exc.got), exc.rule)], origin=origin) from None
    except json.JSONDecodeError as exc:
        problem = Problem(
            f"{what} (line {exc.lineno}, column {exc.colno})", Described("text that is not valid JSON"), exc.msg
        )
        raise ConfigError([problem], origin=origin) from None
    except yaml.YAMLError as exc:
        raise ConfigError([_yaml_problem(exc, what, text)], origin=origin) from None
    except (ValueError, RecursionError, MemoryError) as exc:  # e.g. an integer beyond Python's 4,300 digits
        raise ConfigError(
            [Problem(what, Described("text that cannot be read as data"), str(exc)[:200])], origin=origin
        ) from None


def _yaml_problem(exc: yaml.YAMLError, what: str, text: str) -> Problem:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    place = f"{what} (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else what
    parts = [getattr(exc, "context", None), getattr(exc, "problem", None)]
    message = "; ".join(p for p in parts if p) or str(exc).splitlines()[0]
    if mark is not None and "\t" in (text.splitlines()[mark.line : mark.line + 1] or [""])[0]:
        message += " (a tab: YAML indents with spaces only)"
    got = "YAML that is not plain data" if isinstance(exc, ConstructorError) else "text that is not valid YAML"
    return Problem(place, Described(got), message)


def load_data_file(path: str | Path, *, origin: str | None = None, what: str = "config") -> Any:
    """Read and parse one YAML/JSON file (``.json``: JSON, anything else: YAML) under every rule above."""
    p = Path(path)
    origin = origin or f"config file {p}"
    text = read_text_bounded(p, origin=origin, what=what)
    return parse_data(text, json_format=p.suffix.lower() == ".json", origin=origin, what=what)


def structure_problems(value: Any, *, prefix: str = "") -> list[Problem]:
    """Nesting deeper than MAX_NESTING_DEPTH, found without recursion (the first place only).

    For data that did not come through :func:`load_data_file`: cdk.json context handed over by the CDK CLI,
    overrides built in code.  Validation and error messages recurse, so they run only on data that passed."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict) or (
            not isinstance(item, (str, int, float, list, tuple)) and isinstance(item, Mapping)
        ):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth >= MAX_NESTING_DEPTH:
            return [
                Problem(
                    _deep_path(value, prefix), Described(f"more than {MAX_NESTING_DEPTH} levels of nesting"), _TOO_DEEP
                )
            ]
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple, Mapping)))
    return []


def _deep_path(value: Any, prefix: str) -> str:
    """Where the too-deep nesting starts: its first three keys (a second walk, only when there is one)."""
    stack: list[tuple[Any, tuple[str, ...], int]] = [(value, (prefix,) if prefix else (), 0)]
    while stack:
        item, keys, depth = stack.pop()
        if depth >= MAX_NESTING_DEPTH:
            return ".".join(keys[:3]) + (".…" if len(keys) > 3 else "") if keys else "(top level)"
        if isinstance(item, Mapping):
            stack.extend(
                (child, (*keys, str(key)), depth + 1)
                for key, child in item.items()
                if isinstance(child, (Mapping, list, tuple))
            )
        elif isinstance(item, (list, tuple)):
            stack.extend((child, keys, depth + 1) for child in item if isinstance(child, (Mapping, list, tuple)))
    return prefix or "(top level)"


def iter_strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in plain data with its config path (iterative; used for placeholder detection)."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, Mapping):
            stack.extend((v, _join(where, k)) for k, v in reversed(list(item.items())))
        elif isinstance(item, (list, tuple)):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(item))))
