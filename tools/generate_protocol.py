#!/usr/bin/env python3
"""Generate ``protocol/messages`` from Kafka's JSON message specs.

Usage::

    python tools/generate_protocol.py PATH/TO/kafka-message-specs

Kafka generates its Java protocol classes from these JSON files
(``generator/src/main/java/org/apache/kafka/message``); this does the same for
Python. For every message it writes one module with:

- a class per struct (the message itself and every nested or common struct),
  with ``__slots__`` holding the union of the fields over all versions, in
  snake_case, and Kafka's defaults;
- straight-line decode and encode functions per distinct wire layout (versions
  whose layouts are equal share one function), with runs of fixed-width fields
  read and written by one precompiled ``struct.Struct``;
- tables mapping each valid version to its functions.

The output is committed; nothing reads the JSON at run or test time.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "protocol" / "messages"

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


# ------------------------------------------------------------------ spec model


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


def snake(name: str) -> str:
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
    if f.flexible_none:
        return False
    if f.flexible is not None:
        return contains(f.flexible, v) and spec.is_flexible(v)
    return spec.is_flexible(v)


def layout(spec: Spec, st: Struct, v: int, cache: dict) -> tuple:
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


# ------------------------------------------------------------------ defaults


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


# ------------------------------------------------------------------ code emission


class Emitter:
    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.lines: list[str] = []
        self.structs_fmt: dict[str, str] = {}  # format -> constant name
        self.cache: dict = {}
        self.dec_names: dict[tuple, str] = {}
        self.enc_names: dict[tuple, str] = {}
        self.funcs: list[str] = []
        self.counter: dict[str, int] = {}

    def struct_const(self, fmt: str) -> str:
        if fmt not in self.structs_fmt:
            self.structs_fmt[fmt] = f"_S{len(self.structs_fmt)}"
        return self.structs_fmt[fmt]

    def _name(self, prefix: str, st: Struct) -> str:
        k = f"{prefix}_{st.name}"
        n = self.counter.get(k, 0)
        self.counter[k] = n + 1
        return f"{k}_{n}"

    # ---- decode

    def decoder(self, st: Struct, v: int) -> str:
        lay = layout(self.spec, st, v, self.cache)
        key = (st.name, lay)
        if key in self.dec_names:
            return self.dec_names[key]
        name = self._name("_dec", st)
        self.dec_names[key] = name
        body: list[str] = []
        present = [f for f in st.fields if f.present(v) and not f.is_tagged(v)]
        tagged = [f for f in st.fields if f.present(v) and f.is_tagged(v)]
        run: list[Field] = []

        def flush_run() -> None:
            if not run:
                return
            fmt = ">" + "".join(FIXED[f.type][0] for f in run)
            size = sum(FIXED[f.type][1] for f in run)
            const = self.struct_const(fmt)
            targets = ", ".join(f"o.{f.attr}" for f in run)
            if len(run) == 1:
                targets += ","
            body.append(f"    {targets} = {const}.unpack_from(buf, pos)")
            body.append(f"    pos += {size}")
            run.clear()

        for f in present:
            if not f.is_array and f.type in FIXED:
                run.append(f)
                continue
            flush_run()
            body.extend(self.decode_field(f, v, "    ", f"o.{f.attr}"))
        flush_run()
        if self.spec.is_flexible(v):
            body.extend(self.decode_tags(tagged, v))
        # fields absent at this version, and tagged fields not yet seen, take defaults
        absent = [f for f in st.fields if not f.present(v)]
        pre = []
        for f in absent + tagged:
            pre.append(f"    o.{f.attr} = {default_expr(f)}")
        if not self.spec.is_flexible(v):
            pre.append("    o.unknown_tagged_fields = None")
        lines = [f"def {name}(buf, pos):", f"    o = _new({st.name})", *pre, *body, "    return o, pos"]
        self.funcs.append("\n".join(lines))
        return name

    def decode_field(self, f: Field, v: int, ind: str, target: str) -> list[str]:
        flex = field_flexible(self.spec, f, v)
        nullable = contains(f.nullable, v)
        out: list[str] = []
        if f.is_array:
            if flex:
                # a one-byte uvarint is the common case: skip the call
                out.append(f"{ind}n = buf[pos] - 1")
                out.append(f"{ind}if n < 0x7F:")
                out.append(f"{ind}    pos += 1")
                out.append(f"{ind}else:")
                out.append(f"{ind}    n, pos = read_compact_array_length(buf, pos)")
            else:
                out.append(f"{ind}n, pos = read_array_length(buf, pos)")
            out.append(f"{ind}if n < 0:")
            if nullable:
                out.append(f"{ind}    {target} = None")
            else:
                out.append(f"{ind}    raise DecodeError('non-nullable array {f.name} was null')")
            out.append(f"{ind}else:")
            if f.struct is not None:
                dec = self.decoder(f.struct, v)
                out.append(f"{ind}    items = []")
                out.append(f"{ind}    append = items.append")
                out.append(f"{ind}    for _ in range(n):")
                out.append(f"{ind}        item, pos = {dec}(buf, pos)")
                out.append(f"{ind}        append(item)")
                out.append(f"{ind}    {target} = items")
            elif f.type in FIXED and f.type != "bool":
                code, size = FIXED[f.type]
                out.append(f"{ind}    end = pos + n * {size}")
                out.append(f"{ind}    if end > len(buf):")
                out.append(f"{ind}        raise DecodeError('truncated array {f.name}')")
                out.append(f"{ind}    {target} = list(_unpack_from('>%d{code}' % n, buf, pos))")
                out.append(f"{ind}    pos = end")
            else:
                rd = self.scalar_reader(f.type, flex, False)
                out.append(f"{ind}    items = []")
                out.append(f"{ind}    for _ in range(n):")
                out.append(f"{ind}        item, pos = {rd}(buf, pos)")
                out.append(f"{ind}        items.append(item)")
                out.append(f"{ind}    {target} = items")
            return out
        if f.struct is not None:
            dec = self.decoder(f.struct, v)
            if nullable:
                # A nullable struct is preceded by an int8 marker (-1 null, 1 present).
                out.append(f"{ind}marker, pos = read_int8(buf, pos)")
                out.append(f"{ind}if marker < 0:")
                out.append(f"{ind}    {target} = None")
                out.append(f"{ind}else:")
                out.append(f"{ind}    {target}, pos = {dec}(buf, pos)")
            else:
                out.append(f"{ind}{target}, pos = {dec}(buf, pos)")
            return out
        rd = self.scalar_reader(f.type, flex, nullable)
        out.append(f"{ind}{target}, pos = {rd}(buf, pos)")
        return out

    @staticmethod
    def scalar_reader(t: str, flex: bool, nullable: bool) -> str:
        if t in FIXED:
            return f"read_{t}"
        if t == "uuid":
            return "read_uuid"
        if t == "records":
            return "read_compact_records" if flex else "read_records"
        base = {"string": "string", "bytes": "bytes"}[t]
        name = ("compact_" if flex else "") + ("nullable_" if nullable else "") + base
        return f"read_{name}"

    def decode_tags(self, tagged: list[Field], v: int) -> list[str]:
        out = [
            "    o.unknown_tagged_fields = None",
            "    ntags = buf[pos]",
            "    if ntags < 0x80:",
            "        pos += 1",
            "    else:",
            "        ntags, pos = read_uvarint(buf, pos)",
            "    prev = -1",
            "    for _ in range(ntags):",
            "        tag, pos = read_uvarint(buf, pos)",
            "        if tag <= prev:",
            "            raise DecodeError(f'invalid or out-of-order tag {tag}')",
            "        prev = tag",
            "        size, pos = read_uvarint(buf, pos)",
            "        end = pos + size",
            "        if end > len(buf):",
            "            raise DecodeError('truncated tagged field')",
        ]
        first = True
        for f in sorted(tagged, key=lambda x: x.tag):
            kw = "if" if first else "elif"
            first = False
            out.append(f"        {kw} tag == {f.tag}:")
            out.append("            start = pos")
            if not f.is_array and f.type in FIXED:
                out.append(f"            o.{f.attr}, pos = read_{f.type}(buf, pos)")
            else:
                out.extend(self.decode_field(f, v, "            ", f"o.{f.attr}"))
            out.append("            if pos != end:")
            out.append(f"                raise DecodeError('tagged field {f.name} size mismatch')")
        if tagged:
            out.append("        else:")
            ind = "            "
        else:
            ind = "        "
        out.append(f"{ind}if o.unknown_tagged_fields is None:")
        out.append(f"{ind}    o.unknown_tagged_fields = []")
        out.append(f"{ind}o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))")
        out.append(f"{ind}pos = end")
        return out

    # ---- encode

    def encoder(self, st: Struct, v: int) -> str:
        lay = layout(self.spec, st, v, self.cache)
        key = (st.name, lay)
        if key in self.enc_names:
            return self.enc_names[key]
        name = self._name("_enc", st)
        self.enc_names[key] = name
        body: list[str] = []
        present = [f for f in st.fields if f.present(v) and not f.is_tagged(v)]
        tagged = [f for f in st.fields if f.present(v) and f.is_tagged(v)]
        run: list[Field] = []

        def flush_run() -> None:
            if not run:
                return
            fmt = ">" + "".join(FIXED[f.type][0] for f in run)
            const = self.struct_const(fmt)
            args = ", ".join(f"o.{f.attr}" for f in run)
            body.append(f"    w += {const}.pack({args})")
            run.clear()

        for f in present:
            if not f.is_array and f.type in FIXED:
                run.append(f)
                continue
            flush_run()
            body.extend(self.encode_field(f, v, "    ", f"o.{f.attr}", "w"))
        flush_run()
        if self.spec.is_flexible(v):
            if tagged:
                body.append("    tags = []")
                for f in sorted(tagged, key=lambda x: x.tag):
                    d = default_expr(f)
                    if f.is_array and d == "[]":
                        cond = f"o.{f.attr}"
                    elif d == "None":
                        cond = f"o.{f.attr} is not None"
                    else:
                        cond = f"o.{f.attr} != {d}"
                    body.append(f"    if {cond}:")
                    body.append("        t = bytearray()")
                    if not f.is_array and f.type in FIXED:
                        const = self.struct_const(">" + FIXED[f.type][0])
                        body.append(f"        t += {const}.pack(o.{f.attr})")
                    else:
                        body.extend(self.encode_field(f, v, "        ", f"o.{f.attr}", "t"))
                    body.append(f"        tags.append(({f.tag}, t))")
                body.append("    if o.unknown_tagged_fields:")
                body.append("        tags.extend(o.unknown_tagged_fields)")
                body.append("    write_tagged_fields(w, tags)")
            else:
                body.append("    if o.unknown_tagged_fields:")
                body.append("        write_tagged_fields(w, o.unknown_tagged_fields)")
                body.append("    else:")
                body.append("        w.append(0)")
        if not body:
            body.append("    pass")
        self.funcs.append("\n".join([f"def {name}(o, w):", *body]))
        return name

    def encode_field(self, f: Field, v: int, ind: str, src: str, w: str) -> list[str]:
        flex = field_flexible(self.spec, f, v)
        nullable = contains(f.nullable, v)
        out: list[str] = []
        if f.is_array:
            lw = "write_compact_array_length" if flex else "write_array_length"
            out.append(f"{ind}items = {src}")
            out.append(f"{ind}if items is None:")
            if nullable:
                out.append(f"{ind}    {lw}({w}, -1)")
            else:
                out.append(f"{ind}    raise EncodeError('non-nullable array {f.name} is None')")
            out.append(f"{ind}else:")
            if flex:
                out.append(f"{ind}    n = len(items) + 1")
                out.append(f"{ind}    if n < 0x80:")
                out.append(f"{ind}        {w}.append(n)")
                out.append(f"{ind}    else:")
                out.append(f"{ind}        write_uvarint({w}, n)")
            else:
                out.append(f"{ind}    {lw}({w}, len(items))")
            if f.struct is not None:
                enc = self.encoder(f.struct, v)
                out.append(f"{ind}    for item in items:")
                out.append(f"{ind}        {enc}(item, {w})")
            elif f.type in FIXED and f.type != "bool":
                code, _ = FIXED[f.type]
                out.append(f"{ind}    {w} += _pack('>%d{code}' % len(items), *items)")
            else:
                wr = self.scalar_writer(f.type, flex, False)
                out.append(f"{ind}    for item in items:")
                out.append(f"{ind}        {wr}({w}, item)")
            return out
        if f.struct is not None:
            enc = self.encoder(f.struct, v)
            if nullable:
                out.append(f"{ind}if {src} is None:")
                out.append(f"{ind}    {w}.append(0xFF)")
                out.append(f"{ind}else:")
                out.append(f"{ind}    {w}.append(1)")
                out.append(f"{ind}    {enc}({src}, {w})")
            else:
                out.append(f"{ind}{enc}({src}, {w})")
            return out
        if f.type in FIXED:
            const = self.struct_const(">" + FIXED[f.type][0])
            out.append(f"{ind}{w} += {const}.pack({src})")
            return out
        wr = self.scalar_writer(f.type, flex, nullable)
        if not nullable and f.type in ("string", "bytes"):
            out.append(f"{ind}if {src} is None:")
            out.append(f"{ind}    raise EncodeError('non-nullable field {f.name} is None')")
        out.append(f"{ind}{wr}({w}, {src})")
        return out

    @staticmethod
    def scalar_writer(t: str, flex: bool, nullable: bool) -> str:
        if t == "uuid":
            return "write_uuid"
        if t == "records":
            return "write_compact_records" if flex else "write_records"
        base = {"string": "string", "bytes": "bytes"}[t]
        name = ("compact_" if flex else "") + ("nullable_" if nullable else "") + base
        return f"write_{name}"


def all_structs(spec: Spec) -> list[Struct]:
    """Structs in dependency order (children first), then the root."""
    order: list[Struct] = []
    seen: set[str] = set()

    def visit(st: Struct) -> None:
        for f in st.fields:
            if f.struct is not None and f.struct.name not in seen:
                seen.add(f.struct.name)
                visit(f.struct)
                order.append(f.struct)

    visit(spec.root)
    return [*order, spec.root]


def field_meta(f: Field) -> str:
    def r(x: tuple[int, int] | None) -> str:
        return "None" if x is None else f"({x[0]}, {x[1]})"

    return (
        f"FieldMeta({f.attr!r}, {f.name!r}, {f.type!r}, {f.is_array}, {r(f.versions)}, {r(f.nullable)}, "
        f"{f.tag!r}, {r(f.tagged)}, {f.struct.name if f.struct else None})"
    )


def emit_module(spec: Spec) -> str:
    em = Emitter(spec)
    lo, hi = spec.valid
    structs = all_structs(spec)
    dec_tables: dict[int, str] = {}
    enc_tables: dict[int, str] = {}
    for v in range(lo, hi + 1):
        dec_tables[v] = em.decoder(spec.root, v)
        enc_tables[v] = em.encoder(spec.root, v)

    out: list[str] = []
    out.append(f'"""{spec.name}: generated from Kafka\'s {spec.name}.json by tools/generate_protocol.py.')
    out.append("")
    out.append("Do not edit: change the generator and run it again.")
    out.append('"""')
    out.append("")
    out.append("# ruff: noqa")
    out.append("from __future__ import annotations")
    out.append("")
    out.append("import struct")
    out.append("import uuid")
    out.append("")
    out.append("from protocol.messages._base import _DEFAULT, FieldMeta, Message, Struct, _new")
    out.append("from protocol.primitives import (")
    for n in sorted(
        [
            "DecodeError",
            "EncodeError",
            "ZERO_UUID",
            "read_array_length",
            "read_compact_array_length",
            "read_uvarint",
            "write_array_length",
            "write_compact_array_length",
            "write_uvarint",
            "write_tagged_fields",
            "read_int8",
            "read_int16",
            "read_int32",
            "read_int64",
            "read_uint16",
            "read_uint32",
            "read_float64",
            "read_bool",
            "read_uuid",
            "write_uuid",
            "read_string",
            "read_nullable_string",
            "read_compact_string",
            "read_compact_nullable_string",
            "write_string",
            "write_nullable_string",
            "write_compact_string",
            "write_compact_nullable_string",
            "read_bytes",
            "read_nullable_bytes",
            "read_compact_bytes",
            "read_compact_nullable_bytes",
            "write_bytes",
            "write_nullable_bytes",
            "write_compact_bytes",
            "write_compact_nullable_bytes",
            "read_records",
            "read_compact_records",
            "write_records",
            "write_compact_records",
        ]
    ):
        out.append(f"    {n},")
    out.append(")")
    out.append("")
    out.append("_unpack_from = struct.unpack_from")
    out.append("_pack = struct.pack")
    for fmt, const in em.structs_fmt.items():
        out.append(f"{const} = struct.Struct({fmt!r})")
    classes: list[str] = []
    for st in structs:
        is_root = st is spec.root
        base = "Message" if is_root else "Struct"
        cl = [f"class {st.name}({base}):"]
        if is_root:
            cl.append(f'    """Kafka {spec.type} {spec.name} (valid versions {lo}-{hi})."""')
            cl.append("")
            cl.append(f"    NAME = {spec.name!r}")
            cl.append(f"    TYPE = {spec.type!r}")
            cl.append(f"    API_KEY = {spec.api_key!r}")
            cl.append(f"    VALID_VERSIONS = ({lo}, {hi})")
            fl = spec.flexible
            cl.append(f"    FLEXIBLE_VERSIONS = {None if fl is None else (fl[0], min(fl[1], MAX_VERSION))}")
            for sub in structs[:-1]:
                cl.append(f"    {sub.name} = {sub.name}")
        slots = tuple([f.attr for f in st.fields] + ["unknown_tagged_fields"])
        cl.append(f"    __slots__ = {slots!r}")
        cl.append(
            f"    FIELDS = ({', '.join(field_meta(f) for f in st.fields)}{',' if len(st.fields) == 1 else ''})"
        )
        cl.append("")
        params = ["self"]
        if st.fields:
            params.append("*")
        for f in st.fields:
            d = default_expr(f)
            if is_constant_default(d):
                params.append(f"{f.attr}: {py_type(f)} = {d}")
            else:
                params.append(f"{f.attr}: {py_type(f)} | None = _DEFAULT")
        params.append("unknown_tagged_fields: list[tuple[int, bytes]] | None = None")
        cl.append(f"    def __init__({', '.join(params)}) -> None:")
        for f in st.fields:
            d = default_expr(f)
            if is_constant_default(d):
                cl.append(f"        self.{f.attr} = {f.attr}")
            else:
                cl.append(f"        self.{f.attr} = {d} if {f.attr} is _DEFAULT else {f.attr}")
        cl.append("        self.unknown_tagged_fields = unknown_tagged_fields")
        classes.append("\n".join(cl))
    out.append("")
    out.append("")
    out.append("\n\n\n".join(classes))
    out.append("")
    out.append("")
    out.append("\n\n\n".join(em.funcs))
    out.append("")
    out.append("")
    root = spec.root.name
    out.append(f"{root}._DECODERS = {{{', '.join(f'{v}: {n}' for v, n in dec_tables.items())}}}")
    out.append(f"{root}._ENCODERS = {{{', '.join(f'{v}: {n}' for v, n in enc_tables.items())}}}")
    return "\n".join(out) + "\n"


def module_name(spec_name: str) -> str:
    return snake(spec_name)


def api_const(name: str) -> str:
    base = name[: -len("Request")] if name.endswith("Request") else name
    return snake(base).upper()


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    src = Path(argv[1])
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.py"):
        if old.name not in ("_base.py",):
            old.unlink()
    specs = []
    for path in sorted(src.glob("*.json")):
        spec = Spec(load_spec(path))
        specs.append(spec)
        (OUT / f"{module_name(spec.name)}.py").write_text(emit_module(spec))
    reg = [
        '"""Registry of the generated Kafka messages: generated by tools/generate_protocol.py; do not edit."""',
        "",
        "# ruff: noqa",
        "from __future__ import annotations",
        "",
        "from enum import IntEnum",
        "",
    ]
    for spec in specs:
        reg.append(f"from protocol.messages.{module_name(spec.name)} import {spec.name}")
    reg.append("")
    reg.append("")
    reg.append("class ApiKey(IntEnum):")
    reg.append('    """Kafka API keys (the apiKey of each request spec)."""')
    reg.append("")
    for spec in sorted((s for s in specs if s.type == "request"), key=lambda s: s.api_key):
        reg.append(f"    {api_const(spec.name)} = {spec.api_key}")
    reg.append("")
    reg.append("")
    reg.append("REQUESTS: dict[int, type] = {")
    for spec in sorted((s for s in specs if s.type == "request"), key=lambda s: s.api_key):
        reg.append(f"    {spec.api_key}: {spec.name},")
    reg.append("}")
    reg.append("RESPONSES: dict[int, type] = {")
    for spec in sorted((s for s in specs if s.type == "response"), key=lambda s: s.api_key):
        reg.append(f"    {spec.api_key}: {spec.name},")
    reg.append("}")
    reg.append("")
    reg.append("__all__ = [")
    reg.append('    "REQUESTS",')
    reg.append('    "RESPONSES",')
    reg.append('    "ApiKey",')
    for spec in specs:
        reg.append(f"    {spec.name!r},")
    reg.append("]")
    (OUT / "__init__.py").write_text("\n".join(reg) + "\n")
    print(f"generated {len(specs)} message modules into {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
