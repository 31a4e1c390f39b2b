"""Inputs of a compile that share one storage while its graph mutates one of them, from what
torch logs: Dynamo describes each input tensor (`describe_tensor`: its storage, whether it
is a view, its offset) and names it (`describe_source`: `L['hist']`), and AOTAutograd logs a
`synthetic_base_wrapper` artifact when it must rebuild aliased inputs from one base because
the graph mutates one of them. That path is where torch has open bugs (pytorch#198095:
a wrong row returned, or an AssertionError in gen_alias_from_base), and nothing else in the
logs names the aliasing (probes43b kv_prefix_offset_row_alias, history_window_flatten_alias:
`f(cache, cache[1:])` with `cache.mul_()` inside, said as a mismatch or an AssertionError
with no cause). A mixin of the Ingestor: the `aliased_inputs` rows of store/schema.py."""

from __future__ import annotations

import json
from typing import Any


class AliasedInputs:
    """The Ingestor's handlers for the three records (its `_on_<kind>` dispatch)."""

    w: Any
    run_id: int
    # the compile whose inputs are being described: {(describer, id): tensor}, {...: source}
    _described: tuple[str | None, dict[tuple[Any, Any], dict[str, Any]],
                      dict[tuple[Any, Any], str]] | None = None

    def _descriptions(self, cid: str | None) -> tuple[dict, dict]:
        if self._described is None or self._described[0] != cid:
            self._described = (cid, {}, {})  # only the compile being described is kept
        return self._described[1], self._described[2]

    def _on_describe_tensor(self, value: Any, cid: str | None, payload: str | None,
                            md: dict) -> None:
        if isinstance(value, dict) and "id" in value:
            self._descriptions(cid)[0][(value.get("describer_id"), value["id"])] = value

    def _on_describe_source(self, value: Any, cid: str | None, payload: str | None,
                            md: dict) -> None:
        if isinstance(value, dict) and "id" in value and isinstance(value.get("source"), str):
            self._descriptions(cid)[1][(value.get("describer_id"), value["id"])] = \
                value["source"]

    def _on_artifact_synthetic_base_wrapper(self, value: Any, cid: str | None,
                                            payload: str | None, md: dict) -> None:
        tensors, sources = self._descriptions(cid)
        by_storage: dict[tuple[Any, Any], list[tuple[Any, Any]]] = {}
        for key, t in tensors.items():
            if key in sources and t.get("storage") is not None:
                by_storage.setdefault((key[0], t["storage"]), []).append(key)
        for (_, storage), keys in by_storage.items():
            if len(keys) < 2:
                continue
            for key in keys:
                t = tensors[key]
                self.w.insert("aliased_inputs", run_id=self.run_id, compile_id=cid,
                              storage=storage, source=sources[key],
                              is_view=bool(t.get("is_view")),
                              storage_offset=t.get("storage_offset"),
                              size=json.dumps(t.get("size")) if t.get("size") is not None
                              else None)
