"""docs/json.md's key tables, parsed, and a check that a real `--json` document has every key
they name (shared by test_json_doc.py and the e2e tests that already produce minify and
bisect documents, so no compile is added for them)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parent.parent / "docs" / "json.md"
_SECTION = re.compile(r"<!-- keys: (\w+) -->")
_ROW = re.compile(r"^\| (.+?) \| .* \|$")


def documented_keys(section: str) -> list[tuple[str, bool]]:
    """[(path, conditional)] of one table: `a.{x, y}` expanded, a trailing `?` conditional."""
    keys: list[tuple[str, bool]] = []
    inside = False
    for line in DOC.read_text().splitlines():
        m = _SECTION.match(line)
        if m:
            inside = m.group(1) == section
            continue
        if not inside:
            continue
        if line.startswith("## "):
            break
        row = _ROW.match(line)
        if not row or row.group(1) in ("key", "---"):
            continue
        for cell in re.findall(r"`([^`]+)`", row.group(1)):
            keys.extend(_expand(cell))
    assert keys, f"docs/json.md has no key table for {section!r}"
    return keys


def _expand(cell: str) -> list[tuple[str, bool]]:
    m = re.match(r"^(.*)\{(.+)\}$", cell)
    names = [cell] if not m else [m.group(1) + n.strip() for n in m.group(2).split(",")]
    return [(n.rstrip("?"), n.endswith("?")) for n in names]


def _present(doc: Any, parts: list[str]) -> bool:
    """The path exists in at least one element of every list along it."""
    if not parts:
        return True
    head, rest = parts[0], parts[1:]
    many = head.endswith("[]")
    name = head[:-2] if many else head
    if not isinstance(doc, dict) or name not in doc:
        return False
    value = doc[name]
    if many:
        return isinstance(value, list) and any(_present(v, rest) for v in value)
    return _present(value, rest) if rest else True


def missing_keys(doc: dict[str, Any], section: str, *, prefix: str = "") -> list[str]:
    """The unconditional keys of `section` that `doc` lacks (`prefix`: where the table's keys
    sit in doc, e.g. 'run.')."""
    return [path for path, conditional in documented_keys(section)
            if not conditional and not _present(doc, (prefix + path).split("."))]


def assert_documented(doc: dict[str, Any], section: str, *, prefix: str = "") -> None:
    missing = missing_keys(doc, section, prefix=prefix)
    assert not missing, f"docs/json.md's {section} keys missing from a real document: {missing}"


def undocumented_top_keys(doc: dict[str, Any], section: str) -> list[str]:
    """The document's top-level keys the table does not name: a key added to a command's
    `--json` goes into docs/json.md too."""
    named = {path.split(".")[0].removesuffix("[]") for path, _ in documented_keys(section)}
    return sorted(set(doc) - named)
