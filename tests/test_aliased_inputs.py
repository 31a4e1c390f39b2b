"""A compiled call whose inputs overlap in memory while the graph mutates one of them (kind
`aliasing`, probes43b after pytorch#198095): the facts from Dynamo's tensor descriptions and
AOTAutograd's synthetic_base_wrapper artifact, as torch 2.13 writes them, fed through the
Ingestor; the diagnosis only where that compile's check differed or its call failed, the
consequence folded under it, at the call."""

from __future__ import annotations

from pathlib import Path

from test_explain import Store, _ids

SYNTHETIC_BASE = ("def _synthetic_base_wrapper(args):\n    _bases = [None] * 1\n"
                  "    _outs = _compiled_fn_(_new_args)\n    return _outs\n")


def _aliased(s: Store, cid: str = "0/0", wrapper: bool = True) -> None:
    """Dynamo's descriptions of inputs cache [7, 16] and generated = cache[1:] (one storage),
    then, with `wrapper`, AOTAutograd's synthetic base for them."""
    ids = {**_ids(cid), "attempt": 0}
    s.ing.record({**ids, "describe_storage": {"id": 0, "describer_id": 0, "size": 448}}, None)
    s.ing.record({**ids, "describe_tensor": {"id": 0, "ndim": 2, "dtype": "torch.float32",
                                             "size": [7, 16], "stride": [16, 1], "storage": 0,
                                             "describer_id": 0}}, None)
    s.ing.record({**ids, "describe_source": {"describer_id": 0, "id": 0,
                                             "source": "L['cache']"}}, None)
    s.ing.record({**ids, "describe_tensor": {"id": 1, "ndim": 2, "dtype": "torch.float32",
                                             "size": [6, 16], "stride": [16, 1], "storage": 0,
                                             "is_view": True, "storage_offset": 16, "base": 0,
                                             "describer_id": 0}}, None)
    s.ing.record({**ids, "describe_source": {"describer_id": 0, "id": 1,
                                             "source": "L['generated']"}}, None)
    if wrapper:
        s.ing.record({**ids, "artifact": {"name": "synthetic_base_wrapper",
                                          "encoding": "string"}}, SYNTHETIC_BASE)


def test_a_mismatch_of_a_compile_with_overlapping_mutated_inputs_is_the_overlaps(
        tmp_path: Path) -> None:
    """probes43b kv_prefix_offset_row_alias, blind: the mismatch was said at `return
    generated[0]`, "not localised", with a bisect; the overlap was never named."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="rescale_and_anchor", lineno=27)
    _aliased(s)
    s.accuracy("0/0", [("output 0", False, 1.4, 1.46, {"verdict": "miscompile"})])
    top = s.explain()[0]
    assert top["kind"] == "aliasing" and "cache and generated" in top["reason"], top
    assert "generated is a view of cache at offset 16" in top["reason"]
    assert "differed from eager" in top["reason"] and ".clone()" in top["fix"]
    assert "accuracy" in [c["kind"] for c in top["consequences"]]


def test_overlapping_inputs_that_caused_nothing_are_not_said(tmp_path: Path) -> None:
    """The synthetic-base path usually works: a compile whose check agreed gets nothing, and
    inputs that share a storage without AOTAutograd's wrapper (no mutation) are no fact."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="f", lineno=3)
    _aliased(s)
    s.accuracy("0/0", [("output 0", True, 0.0, 0.0, {})])
    assert [d for d in s.explain() if d["kind"] == "aliasing"] == []
    t = Store(tmp_path / "t") if (tmp_path / "t").mkdir() is None else None
    t.compile("0/0", co_name="f", lineno=3)
    _aliased(t, wrapper=False)
    t.accuracy("0/0", [("output 0", False, 1.0, 1.0, {})])
    t.done()
    from compdiag.store.reader import Reader

    with Reader(t.path) as r:
        assert r.aliased_inputs(t.run_id) == {}
