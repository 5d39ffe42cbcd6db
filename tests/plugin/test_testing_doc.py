"""docs/TESTING.md shows the example project as it is, and names only what exists.

Its shell command is run by tests/test_docs_commands.py; the example files it shows are
run, as a user runs them, by tests/plugin/test_plugin_as_user.py.
"""

from __future__ import annotations

import re
from pathlib import Path

from broker.testing import plugin
from broker.testing.cluster import InProcessCluster
from broker.testing.embedded import InProcessBroker
from tests.support.broker_process import ROOT

DOC = ROOT / "docs" / "TESTING.md"
EXAMPLES = ROOT / "docs" / "testing"

_SHOWN = re.compile(r"^`docs/testing/([^`]+)`:\n\n```\w+\n(.*?)^```$", re.M | re.S)


def _tables(text: str, first_header: str) -> list[str]:
    """The first cells of the rows of the tables whose first column is ``first_header``."""
    cells: list[str] = []
    in_table = False
    for line in text.splitlines():
        if line.startswith(f"| {first_header} |"):
            in_table = True
        elif in_table and line.startswith("| ") and not line.startswith("|---"):
            cells.append(line.split(" | ")[0][2:])
        elif not line.startswith("|"):
            in_table = False
    return cells


def test_the_doc_shows_every_example_file_as_it_is() -> None:
    shown = dict(_SHOWN.findall(DOC.read_text(encoding="utf-8")))
    files = sorted(p.name for p in EXAMPLES.iterdir() if p.is_file())
    assert sorted(shown) == files
    for name, text in shown.items():
        assert text == (EXAMPLES / name).read_text(encoding="utf-8"), f"docs/TESTING.md shows an old {name}"


def test_every_member_and_hook_the_doc_names_exists(tmp_path: Path) -> None:
    kafka = InProcessBroker(tmp_path)  # not started: its members exist all the same
    text = DOC.read_text(encoding="utf-8")
    names = [
        name
        for cell in _tables(text, "Member") + _tables(text, "Hook")
        for name in re.findall(r"`(\w+)", cell)
    ]
    assert len(names) >= 20, names
    for name in names:
        assert name in dir(kafka), f"docs/TESTING.md names InProcessBroker.{name}"
    for name in re.findall(r"`(\w+)`", " ".join(_tables(text, "Fixture"))):
        assert callable(getattr(plugin, name, None)), f"docs/TESTING.md names a fixture {name}"


def test_every_cluster_member_and_hook_the_doc_names_exists(tmp_path: Path) -> None:
    cluster = InProcessCluster(3, "127.0.0.1:1/unused", tmp_path)  # not started
    text = DOC.read_text(encoding="utf-8")
    names = [
        name
        for cell in _tables(text, "Cluster member") + _tables(text, "Cluster hook")
        for name in re.findall(r"`(\w+)", cell)
    ]
    assert len(names) >= 25, names
    for name in names:
        assert name in dir(cluster), f"docs/TESTING.md names InProcessCluster.{name}"
