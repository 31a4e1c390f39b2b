"""The README's and docs' examples print what the docs say (issue 30 item 8).

Every block marked `<!-- example -->` in README.md and docs/*.md (tests/docs_examples.py says
how they are marked, run and normalised) runs once per session, all in one scratch directory,
README first; each is then compared, `$ ` line by `$ ` line, with what its page shows. An
example marked `slow` (over a minute here) is skipped; one marked `compile` runs (the README's
tour compiles corpus/gb_print.py once, about 20 s on two idle cores). Today: 4 examples
(README.md's tour, docs/caches.md's four cache runs, docs/store.md's two) run, none skipped.

When compdiag's output changes on purpose, regenerate the pages with one command:
`python -m tests.docs_examples --update`.

On main this caught: the tour printed `/work/wt-ux/...` and `/work/wt-docs/...` paths and a
compile-time line the explain header no longer prints; docs/store.md's reindex example said
"reads schema 2"; docs/caches.md ran a `model.py` that does not exist."""

from __future__ import annotations

import pytest

import docs_examples as D

EXAMPLES = D.all_examples()


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, D.Example]:
    root = D.scratch_dir()
    D.run_examples(EXAMPLES, root, include_slow=False)
    return {ex.name: ex for ex in EXAMPLES}


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
