"""Generator of ``protocol/messages`` from Kafka's JSON message specs (``protocol/specs``).

``spec_model`` reads the specs, ``coders`` emits the decode/encode functions, ``modules``
assembles the files; ``generate`` writes them. The command line is ``tools/generate_protocol.py``.
"""

from __future__ import annotations

from pathlib import Path

from .modules import emit_module, emit_registry, module_name
from .spec_model import Spec, load_spec

# Hand-written modules that live among the generated ones.
HAND_WRITTEN = frozenset({"_base.py"})


def generate(spec_dir: Path, out_dir: Path) -> list[Path]:
    """Write one module per ``*.json`` spec of ``spec_dir`` and the registry into ``out_dir``.

    Generated modules left from earlier runs are removed first, so the directory holds
    exactly the generated files (and the hand-written ones). Returns the files written.
    """
    spec_paths = sorted(spec_dir.glob("*.json"))
    if not spec_paths:
        raise SystemExit(f"no *.json message specs in {spec_dir}")
    specs = [Spec(load_spec(path)) for path in spec_paths]
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.py"):
        if old.name not in HAND_WRITTEN:
            old.unlink()
    written = []
    for spec in specs:
        path = out_dir / f"{module_name(spec.name)}.py"
        path.write_text(emit_module(spec))
        written.append(path)
    registry = out_dir / "__init__.py"
    registry.write_text(emit_registry(specs))
    written.append(registry)
    return written


__all__ = ["HAND_WRITTEN", "generate"]
