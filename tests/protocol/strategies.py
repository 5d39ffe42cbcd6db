"""Hypothesis strategies for every generated message, built from its FIELDS metadata."""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st

from protocol.messages._base import FieldMeta

INT_RANGES = {
    "int8": (-(1 << 7), (1 << 7) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
    "uint16": (0, (1 << 16) - 1),
    "uint32": (0, (1 << 32) - 1),
}


def covers(rng: tuple[int, int] | None, v: int) -> bool:
    return rng is not None and rng[0] <= v <= rng[1]


def _scalar(f: FieldMeta) -> st.SearchStrategy:
    t = f.type
    if t in INT_RANGES:
        lo, hi = INT_RANGES[t]
        return st.integers(lo, hi)
    if t == "bool":
        return st.booleans()
    if t == "float64":
        return st.floats(allow_nan=False)
    if t == "string":
        return st.text(max_size=20)
    if t in ("bytes", "records"):
        return st.binary(max_size=40)
    if t == "uuid":
        return st.uuids()
    raise AssertionError(t)


def field_strategy(f: FieldMeta, version: int) -> st.SearchStrategy:
    nullable = covers(f.nullable_versions, version)
    if f.struct is not None:
        elem = struct_strategy(f.struct, version)
    else:
        elem = _scalar(f)
    base = st.lists(elem, max_size=3) if f.is_array else elem
    return st.one_of(st.none(), base) if nullable else base


@cache
def struct_strategy(cls: type, version: int) -> st.SearchStrategy:
    kwargs = {f.attr: field_strategy(f, version) for f in cls.FIELDS if covers(f.versions, version)}
    return st.builds(cls, **kwargs)
