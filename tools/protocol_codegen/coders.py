"""Decode and encode functions of one message, emitted as Python source text.

One function per struct and distinct wire layout (versions whose layouts are equal share
one function); runs of fixed-width fields are read and written by one precompiled
``struct.Struct`` (``_S0``, ``_S1``, ... in the module).
"""

from __future__ import annotations

from .spec_model import FIXED, Field, Spec, Struct, contains, default_expr, field_flexible, layout


class Emitter:
    """Collects the decode/encode functions and ``struct.Struct`` constants of one message."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
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
            body.extend(self.encode_tags(tagged, v))
        if not body:
            body.append("    pass")
        self.funcs.append("\n".join([f"def {name}(o, w):", *body]))
        return name

    def encode_tags(self, tagged: list[Field], v: int) -> list[str]:
        """The tagged-field section: known tags whose value is not the default, then unknown ones."""
        if not tagged:
            return [
                "    if o.unknown_tagged_fields:",
                "        write_tagged_fields(w, o.unknown_tagged_fields)",
                "    else:",
                "        w.append(0)",
            ]
        out = ["    tags = []"]
        for f in sorted(tagged, key=lambda x: x.tag):
            d = default_expr(f)
            if f.is_array and d == "[]":
                cond = f"o.{f.attr}"
            elif d == "None":
                cond = f"o.{f.attr} is not None"
            else:
                cond = f"o.{f.attr} != {d}"
            out.append(f"    if {cond}:")
            out.append("        t = bytearray()")
            if not f.is_array and f.type in FIXED:
                const = self.struct_const(">" + FIXED[f.type][0])
                out.append(f"        t += {const}.pack(o.{f.attr})")
            else:
                out.extend(self.encode_field(f, v, "        ", f"o.{f.attr}", "t"))
            out.append(f"        tags.append(({f.tag}, t))")
        out.append("    if o.unknown_tagged_fields:")
        out.append("        tags.extend(o.unknown_tagged_fields)")
        out.append("    write_tagged_fields(w, tags)")
        return out

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
