"""The spec model: Kafka's message JSON read into structs and fields, with per-version layouts.

Mirrors what Kafka's generator reads (``generator/src/main/java/org/apache/kafka/message``,
``MessageSpec``/``StructSpec``/``FieldSpec``): version ranges, nullable and tagged
versions, flexible versions, defaults, and common structs shared between fields.
"""

from __future__ import annotations

import json
import keyword
import re
from dataclasses import dataclass, field
from pathlib import Path

# Fixed-width types: struct format code and size in bytes.
FIXED = {
    "int8": ("b", 1),
    "int16": ("h", 2),
    "int32": ("i", 4),
    "int64": ("q", 8),
    "uint16": ("H", 2),
    "uint32": ("I", 4),
    "float64": ("d", 8),
    "bool": ("?", 1),
}
PRIMITIVES = set(FIXED) | {"string", "bytes", "uuid", "records"}
MAX_VERSION = 0x7FFF


def parse_versions(text: str | None) -> tuple[int, int] | None:
    """'3+' -> (3, MAX); '0-12' -> (0, 12); '5' -> (5, 5); 'none'/None -> None."""
    if text is None or text == "none":
        return None
    text = text.strip()
    if text.endswith("+"):
        return int(text[:-1]), MAX_VERSION
    if "-" in text:
        lo, hi = text.split("-")
        return int(lo), int(hi)
    return int(text), int(text)


def contains(rng: tuple[int, int] | None, v: int) -> bool:
    return rng is not None and rng[0] <= v <= rng[1]


# Words that the CamelCase split would cut in two ("isKRaftController" -> "is_kraft_controller").
WHOLE_WORDS = {"KRaft": "Kraft"}


def snake(name: str) -> str:
    for word, camel in WHOLE_WORDS.items():
        name = name.replace(word, camel)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()
    if keyword.iskeyword(s):
        s += "_"
    return s


@dataclass
class Field:
    name: str  # Kafka's CamelCase name
    attr: str  # python attribute
    type: str  # element type for arrays
    is_array: bool
    versions: tuple[int, int] | None
    nullable: tuple[int, int] | None
    tag: int | None
    tagged: tuple[int, int] | None
    flexible: tuple[int, int] | None  # field-level override; None = follow the message
    flexible_none: bool
    default: str | None
    struct: Struct | None = None

    def present(self, v: int) -> bool:
        return contains(self.versions, v)

    def is_tagged(self, v: int) -> bool:
        return self.tag is not None and contains(self.tagged, v)


@dataclass
class Struct:
    name: str
    fields: list[Field] = field(default_factory=list)


def load_spec(path: Path) -> dict:
    text = path.read_text()
    text = re.sub(r"//[^\n]*", "", text)
    return json.loads(text)


class Spec:
    def __init__(self, data: dict) -> None:
        self.data = data
        self.name: str = data["name"]
        self.type: str = data["type"]
        self.api_key: int | None = data.get("apiKey")
        self.valid = parse_versions(data["validVersions"])
        self.flexible = parse_versions(data.get("flexibleVersions"))
        self.structs: dict[str, Struct] = {}
        common = {c["name"]: c for c in data.get("commonStructs", [])}
        self._common = common
        self.root = Struct(self.name)
        self.root.fields = [self._field(f) for f in data.get("fields", [])]

    def _field(self, f: dict) -> Field:
        t = f["type"]
        is_array = t.startswith("[]")
        elem = t[2:] if is_array else t
        fl = Field(
            name=f["name"],
            attr=snake(f["name"]),
            type=elem,
            is_array=is_array,
            versions=parse_versions(f.get("versions")),
            nullable=parse_versions(f.get("nullableVersions")),
            tag=f.get("tag"),
            tagged=parse_versions(f.get("taggedVersions")),
            flexible=parse_versions(f.get("flexibleVersions")),
            flexible_none=f.get("flexibleVersions") == "none",
            default=None if f.get("default") is None else str(f.get("default")),
        )
        if elem not in PRIMITIVES:
            if elem not in self.structs:
                if "fields" in f:
                    sub = f["fields"]
                elif elem in self._common:
                    sub = self._common[elem]["fields"]
                else:
                    raise SystemExit(f"{self.name}: unknown type {elem}")
                st = Struct(elem)
                self.structs[elem] = st
                st.fields = [self._field(x) for x in sub]
            fl.struct = self.structs[elem]
        return fl

    def is_flexible(self, v: int) -> bool:
        return contains(self.flexible, v)


# ------------------------------------------------------------------ layouts


def field_flexible(spec: Spec, f: Field, v: int) -> bool:
    """Whether ``f`` takes the compact (flexible) encoding at ``v``; a field's own
    flexibleVersions can only narrow the message's."""
    if f.flexible_none:
        return False
    if f.flexible is not None:
        return contains(f.flexible, v) and spec.is_flexible(v)
    return spec.is_flexible(v)


def layout(spec: Spec, st: Struct, v: int, cache: dict) -> tuple:
    """Everything that decides the wire format of ``st`` at ``v``: versions with equal
    layouts share one decode and one encode function."""
    key = (st.name, v)
    if key in cache:
        return cache[key]
    parts = []
    for f in st.fields:
        if not f.present(v):
            parts.append((f.attr, "absent"))
            continue
        child = layout(spec, f.struct, v, cache) if f.struct else None
        parts.append(
            (
                f.attr,
                f.type,
                f.is_array,
                contains(f.nullable, v),
                f.tag if f.is_tagged(v) else None,
                field_flexible(spec, f, v),
                child,
            )
        )
    parts.append(("__flex__", spec.is_flexible(v)))
    result = tuple(parts)
    cache[key] = result
    return result


# ------------------------------------------------------------------ defaults and Python types


def default_expr(f: Field) -> str:
    """A Python expression for the field's default (fresh object where mutable)."""
    d = f.default
    if f.is_array:
        if d == "null":
            return "None"
        return "[]"
    if f.struct is not None:
        if d == "null":
            return "None"
        return f"{f.struct.name}()"
    t = f.type
    if t in ("int8", "int16", "int32", "int64", "uint16", "uint32"):
        if d is None or d == "":
            return "0"
        return str(int(d, 0))
    if t == "float64":
        return repr(float(d)) if d else "0.0"
    if t == "bool":
        return "True" if (d or "").lower() == "true" else "False"
    if t == "string":
        if d == "null":
            return "None"
        return repr(d or "")
    if t == "bytes":
        return "None" if d == "null" else "b''"
    if t == "records":
        return "None"
    if t == "uuid":
        return "ZERO_UUID"
    raise SystemExit(f"no default for {t}")


def is_constant_default(expr: str) -> bool:
    return not (expr == "[]" or expr.endswith("()"))


def py_type(f: Field) -> str:
    base = {
        "int8": "int",
        "int16": "int",
        "int32": "int",
        "int64": "int",
        "uint16": "int",
        "uint32": "int",
        "float64": "float",
        "bool": "bool",
        "string": "str",
        "bytes": "bytes",
        "records": "bytes | memoryview",
        "uuid": "uuid.UUID",
    }.get(f.type, f.struct.name if f.struct else "object")
    t = f"list[{base}]" if f.is_array else base
    if f.nullable is not None or f.default == "null" or f.type == "records":
        t += " | None"
    return t
