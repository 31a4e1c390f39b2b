"""The docs say what the code does (issue 35 section 4, issue 30 item 8): the store's tables
and version numbers that docs/ and README.md state are the ones compdiag/store/schema.py
defines, and no page shows a path of the machine it was written on.

Caught on main: docs/store.md's reindex example said "this compdiag reads schema 2" and
"upgraded from store schema 1 to 2" (STORE_VERSION is 3), docs/architecture.md gave the store
version as 2, and README.md, capture.md, corpus.md, explain.md and ranks.md printed work-tree
paths (`/work/wt-ux/corpus/gb_print.py`, `/work/main/...`, `/work/wt-ranks/...`).

Machine paths: a home or work-tree path (/home/, /root/, /Users/, /work/, /mnt/) is refused;
/tmp/ is allowed, as a scratch location every POSIX machine has (a store at /tmp/x.db pastes
and runs anywhere), though the examples use paths relative to the checkout."""

from __future__ import annotations

import re
from pathlib import Path

from cdtest import REPO
from compdiag.store import schema

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:home|root|Users|work|mnt)/[\w.-]+")


def _tables_in_code() -> set[str]:
    return set(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", schema.DDL))


def test_store_md_lists_every_table_of_the_schema_and_no_other():
    text = (REPO / "docs/store.md").read_text()
    rows = re.findall(r"^\| (`\w+`(?:, `\w+`)*) \|", text, re.M)
    documented = {t for row in rows for t in re.findall(r"`(\w+)`", row)}
    code = _tables_in_code() - {"meta"}  # meta: the version, described above the table
    assert documented - code == set(), f"documented tables the schema lacks: {documented - code}"
    assert code - documented == set(), f"tables docs/store.md does not list: {code - documented}"


def test_documented_version_numbers_are_the_codes():
    """Every `STORE_VERSION = N` / `SCHEMA_VERSION = N` a page states, and every schema
    number in a reindex example's output, is the code's."""
    said = []
    for page in PAGES:
        text = page.read_text()
        for name, value in re.findall(r"\b(STORE_VERSION|SCHEMA_VERSION)`? (?:= |is |\()?(\d+)",
                                      text):
            said.append((page.name, name, int(value)))
        for value in re.findall(r"this compdiag reads schema (\d+)|upgraded from store schema "
                                r"\d+ to (\d+)", text):
            said.append((page.name, "STORE_VERSION", int(next(v for v in value if v))))
    assert any(name == "STORE_VERSION" for _, name, _ in said), said
    wrong = [(p, n, v) for p, n, v in said if v != getattr(schema, n)]
    assert not wrong, f"stale version numbers (code: STORE_VERSION={schema.STORE_VERSION}, " \
                      f"SCHEMA_VERSION={schema.SCHEMA_VERSION}): {wrong}"


def test_no_page_shows_a_path_of_the_machine_it_was_written_on():
    found = [f"{page.relative_to(REPO)}:{i}: {m.group(0)}"
             for page in PAGES
             for i, line in enumerate(page.read_text().splitlines(), 1)
             for m in MACHINE_PATH.finditer(line)]
    assert not found, "machine paths in the docs (use a relative path or $PWD):\n" + \
        "\n".join(found)


def test_corpus_md_counts_the_scripts_in_the_folder():
    """docs/corpus.md said "106 small scripts (96 CPU, 10 in corpus/gpu/)" while the folder
    held more (issue 29): the counts it states are the folder's."""
    text = (REPO / "docs/corpus.md").read_text()
    m = re.search(r"holds (\d+) small scripts \((\d+) CPU, (\d+) in `corpus/gpu/`\)", text)
    assert m, "docs/corpus.md no longer states the corpus' script counts"
    cpu = len(list((REPO / "corpus").glob("*.py")))
    gpu = len(list((REPO / "corpus/gpu").glob("*.py")))
    assert tuple(map(int, m.groups())) == (cpu + gpu, cpu, gpu)
