"""The README's and docs' examples print what the docs say (issue 30 item 8).

Every block marked `<!-- example -->` in README.md and docs/*.md (tests/docs_examples.py says
how they are marked, run and normalised) runs once per session, all in one scratch directory,
README first; each is then compared, `$ ` line by `$ ` line, with what its page shows. An
example marked `slow` (over a minute on two idle cores) is skipped; one marked `compile` runs.
Today 10 examples run and none is skipped: README.md's tour (compiles corpus/gb_print.py),
docs/capture.md's `show`, docs/caches.md's four cache runs (compiles tests/scripts/
cache_tiny.py, cold then warm) and its Perfetto export, docs/explain.md's text, JSON and
failure (compiles corpus/fail_runtime.py), docs/store.md's sqlite3 queries and reindex. The
pages after the README run side by side; under a load of 19 on two cores the module took
5.5 minutes of wall time and 1.5 of CPU.

When compdiag's output changes on purpose, regenerate the pages with one command:
`python -m tests.docs_examples --update`.

On main (with these pages marked) this caught: the tour's `/work/wt-ux/...` and
`/work/wt-docs/...` paths and its recompile at `gb_print.py:5` (today's output names the
call at line 13); docs/store.md's reindex example saying "reads schema 2"; docs/caches.md
running a `model.py` that does not exist, under an explain header of an older format
(`run 3 model.py  exit=0  1 compiles, ...`)."""

from __future__ import annotations

import shutil
from typing import Iterator

import pytest

import docs_examples as D

EXAMPLES = D.all_examples()


@pytest.fixture(scope="module")
def ran() -> Iterator[dict[str, D.Example]]:
    """Every example run once. The scratch directory is D.scratch_dir()'s, not pytest's: its
    path's length is fixed, so what wraps in a panel wraps as on the page."""
    root = D.scratch_dir()
    try:
        D.run_examples(EXAMPLES, root, include_slow=False)
        yield {ex.name: ex for ex in EXAMPLES}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_the_docs_have_runnable_examples():
    assert len(EXAMPLES) >= 3 and any(ex.page.name == "README.md" for ex in EXAMPLES)
    assert all(ex.steps for ex in EXAMPLES), [ex.name for ex in EXAMPLES if not ex.steps]


@pytest.mark.parametrize("name", [ex.name for ex in EXAMPLES])
def test_example_prints_what_the_page_shows(name, ran):
    ex = ran[name]
    if ex.slow:
        pytest.skip("marked slow (over a minute): `python -m tests.docs_examples` runs it")
    diff = D.differences(ex)
    assert not diff, (f"{name} prints something else now (regenerate: python -m "
                      "tests.docs_examples --update):\n" + "\n".join(diff))


def test_a_bare_n_matches_a_machine_dependent_count():
    """docs/caches.md's Perfetto export printed 62 events on one machine and 66 on a fresh
    clone's (torch times 8 or 12 C++ compile regions, as its ISA probes left the temp folder):
    the page writes the count as `N`, which matches a whole number and nothing else."""
    want = ["compdiag: wrote N events of run 1 (1 compile ids) to run1.json"]
    assert D.with_counts(want, ["compdiag: wrote 66 events of run 1 (1 compile ids) to run1.json"]) == want
    assert D.with_counts(want, ["compdiag: wrote 6.6 events of run 1 (1 compile ids) to run1.json"]) != want
    assert D.with_counts(["N.N s"], ["N.N s"]) == ["N.N s"]  # a normalised timing is no count
