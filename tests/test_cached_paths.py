"""A graph served from a compile cache carries the paths of the process that compiled it first
(ingest/cached_paths.py). probes32a r1_penalty_gan: the failure was shown at a draft copy's
path, a file the run never executed, because the cache-served post-grad graphs named it; on
the code before this module the store's graph_nodes held the draft's path."""

from __future__ import annotations

from compdiag.ingest.cached_paths import fresh_frames, fresh_paths
from compdiag.store.reader import Reader

from test_backend_nodes import _dynamo_graph
from test_explain import Store, _ids

_FRESH = fresh_frames([{"filename": "/run/train.py", "lineno": 5, "line": "line_5 = 5"},
                       {"filename": "/run/train.py", "lineno": 6, "line": "line_6 = 6"}])


def _post_grad(path: str) -> str:
    return (f"        # File: {path}:5 in f, code: line_5 = 5\n"
            '        index: "f32[2, 3, 10]" = torch.ops.aten.index.Tensor(arg0_1, [arg1_1])\n'
            f"        # File: {path}:6 in f, code: line_6 = 6\n"
            '        sum_1: "f32[2, 10]" = torch.ops.aten.sum.dim_IntList(index, [1])\n')


def test_a_stale_user_path_becomes_the_one_dynamo_traced():
    out = fresh_paths(_post_grad("/old/copy/train_draft.py"), _FRESH)
    assert "/old/copy" not in out and out.count("File: /run/train.py:") == 2


def test_a_drafts_other_line_moves_to_the_line_that_holds_its_code():
    """probes31b rand_flip_branch: the draft had the statement at line 8, the program at 27."""
    fresh = fresh_frames([{"filename": "/run/aug.py", "lineno": 27,
                           "line": "if torch.rand(()) < 0.5:"}])
    out = fresh_paths("# File: /tmp/drafts/rflip.py:8 in augment, code: if torch.rand(()) < 0.5:"
                      "\n", fresh)
    assert out == "# File: /run/aug.py:27 in augment, code: if torch.rand(()) < 0.5:\n", out


def test_paths_nothing_vouches_for_are_left_as_torch_wrote_them():
    # another line's code: no frame of Dynamo's agrees, so no swap
    text = "# File: /old/model.py:9 in g, code: y = x.relu()\n"
    assert fresh_paths(text, _FRESH) == text
    # a library's path is never a user's stale one
    lib = "# File: /venv/lib/python3.11/site-packages/torch/nn/functional.py:5 in f, code: line_5 = 5\n"
    assert fresh_paths(lib, _FRESH) == lib
    # the same line and code in two of Dynamo's files: ambiguous, left alone
    two = fresh_frames([{"filename": "/run/a.py", "lineno": 5, "line": "line_5 = 5"},
                        {"filename": "/run/b.py", "lineno": 5, "line": "line_5 = 5"}])
    stale = _post_grad("/old/a.py")
    assert fresh_paths(stale, two) == stale
    assert fresh_paths(stale, {}) == stale and fresh_paths(None, _FRESH) is None


def test_a_cache_served_post_grad_graph_is_stored_at_the_runs_own_file(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}}, _dynamo_graph(str(s.user)))
    draft = tmp_path / "drafts" / "user_script.py"
    s.ing.record({**_ids("0/0"), "inductor_post_grad_graph": {}}, _post_grad(str(draft)))
    s.done()
    with Reader(s.path) as r:
        files = {n["filename"] for n in r.graph_nodes(s.run_id, "0/0")}
    assert files == {str(s.user)}


def test_the_property_holds_the_store_to_its_own_files(tmp_path, monkeypatch):
    """principles_check.foreign_file_problems rejects the store the code before
    ingest/cached_paths.py made (the cache-served graph at the draft's path) and passes
    today's."""
    import compdiag.ingest.ingestor as ingestor
    from principles_check import foreign_file_problems

    def store(path):
        s = Store(path)
        s.compile("0/0")
        s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}}, _dynamo_graph(str(s.user)))
        s.ing.record({**_ids("0/0"), "inductor_post_grad_graph": {}},
                     _post_grad(str(path / "drafts" / "user_script.py")))
        s.done()
        with Reader(s.path) as r:
            return foreign_file_problems(r, s.run_id, [])

    (tmp_path / "now").mkdir()
    assert store(tmp_path / "now") == []
    monkeypatch.setattr(ingestor, "fresh_paths", lambda payload, fresh: payload)
    (tmp_path / "before").mkdir()
    assert store(tmp_path / "before"), "the stale path was not caught"


def test_a_kept_file_the_run_never_ran_is_foreign(tmp_path):
    """probes42d ca_optim_in_backward_hook, blind: compiled autograd's cache-served graphs
    named a draft copy still on disk; the run kept it (a record named it), so it passed for a
    file of the run and four accuracy panels pointed there. A file is the run's when it ran
    code of it: traced by Dynamo, in a live call capture saw, or the script."""
    from compdiag.analyses.context import RunContext

    draft = tmp_path / "drafts" / "ca1.py"
    draft.parent.mkdir()
    draft.write_text("x = 1\n" * 30)
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}}, _dynamo_graph(str(s.user)))
    # a cached graph's node of the draft, with code the run's graph does not have
    s.ing.record({**_ids("0/0"), "inductor_post_grad_graph": {}},
                 f"        # File: {draft}:26 in forward, code: return self.net(x)\n"
                 '        mm: "f32[2, 3]" = torch.ops.aten.mm.default(arg0_1, arg1_1)\n')
    s.done()
    with Reader(s.path) as r:
        ctx = RunContext(r, s.run_id)
        assert ctx.source_lines(str(draft)) is not None  # kept: a record named it
        assert ctx.foreign(str(draft)) and not ctx.foreign(str(s.user))
