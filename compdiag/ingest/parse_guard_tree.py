"""A compile's guard tree (torch's dynamo_cpp_guards_str record) as facts: the value each
`X == V` guard holds (and each argument's type, each static size a TENSOR_MATCH holds), how
many leaf guards each source has, and the source each tensor subclass metadata guard hangs
under. Pure text to rows, for the Ingestor (live, at import and at reindex)."""

from __future__ import annotations

from compdiag.formats import lazy_re
from compdiag.ingest.parse_dynamo import _METADATA_GUARD

# a guard tree's manager line: its depth (where "+-" is) and its source
_MANAGER = lazy_re.compile(r"^(?P<pad>[\s|]*)\+- GuardManager: source=(?P<src>.+?), accessed_by=")
_GUARD_TREE = lazy_re.compile(r"^[\s|+\-]*(?:[A-Z_]+:\s*)?(?P<lhs>.+?)\s*==\s*(?P<value>.+)$")


_ROOT_MANAGER = lazy_re.compile(r"GuardManager: source=(?P<src>[LG]\['[^']+'\]), .*?"
                           r"type=<class '(?P<type>[\w.]+)'>")


def metadata_guard_sources(guards_text: str | None) -> dict[str, str]:
    """`___check_metadata_<id>_c<cid>` -> the source it guards (`L['wq']`): the GuardManager
    the guard hangs under in a dynamo_cpp_guards_str tree (its name says nothing of it)."""
    out: dict[str, str] = {}
    managers: list[tuple[int, str]] = []
    for line in (guards_text or "").splitlines():
        if "GuardManager: source=" in line:
            m = _MANAGER.match(line)
            if m:
                depth = len(m.group("pad"))
                managers = [(d, src) for d, src in managers if d < depth]
                managers.append((depth, m.group("src")))
            continue
        if "___check_metadata_" not in line:
            continue
        g = _METADATA_GUARD.search(line)
        depth = line.find("+-")
        owner = [src for d, src in managers if d < depth]
        if g and owner:
            out[g.group(0)] = owner[-1]
    return out


_TYPE_MATCH = lazy_re.compile(r"___check_type_id\((?P<src>.+?), \d+\), "
                              r"type=<class '(?P<type>[\w.]+)'>")
_TENSOR_MATCH = lazy_re.compile(r"check_tensor\((?P<src>[^,]+),\s*(?P<cls>\w+),"
                                r".*?\bsize=\[(?P<size>[^\]]*)\]")
# the class a TENSOR_MATCH checks, as `type(...)` values name it elsewhere
_TENSOR_CLASSES = {"Tensor": "torch.Tensor", "Parameter": "torch.nn.parameter.Parameter"}


def guard_values(guards_text: str | None) -> list[tuple[str, str]]:
    """(expression, value) of every `X == V` guard in a dynamo_cpp_guards_str tree: the value
    a recompiled entry holds for the guard that failed against the previous one. The type of
    each argument and global the tree guards (`type(L['x'])`, its GuardManager's type=) is
    kept too: a type or identity guard's failure names no type, and a Parameter that became a
    Tensor, or a dict that gained a key, is said in those types' terms; and each static size
    and the class of a tensor the tree matches (`L['x'].size()[0]`: `size=[1, 16]`;
    `type(L['p']['w'])`: Parameter)."""
    out: list[tuple[str, str]] = []
    for line in (guards_text or "").splitlines():
        if "GuardManager: source=" in line and "type=<class" in line:
            root = _ROOT_MANAGER.search(line)
            # torch names an attribute's manager by its object's source (`source=L['cache'],
            # accessed_by=GetAttrGuardAccessor(is_compileable), type=<class 'bool'>`): that
            # type is the attribute's (probes43c: "type(past_key_values) NoneType -> bool")
            if root and "accessed_by=GetAttrGuardAccessor" not in line:
                out.append((f"type({root.group('src')})", root.group("type")))
            continue
        if "TYPE_MATCH:" in line and "type=<class" in line:
            # the exact class a nested source had (a submodule swapped for another class
            # after compiling: probes41c timm_frozen_bn_after_warmup, BatchNorm2d ->
            # FrozenBatchNorm2d, said as "one type -> another type"); a module's own dicts
            # (`_modules`, `_buffers`) are left out, most of a tree's TYPE_MATCH lines
            t = _TYPE_MATCH.search(line)
            if t and t.group("type") != "dict":
                out.append((f"type({t.group('src')})", t.group("type")))
            continue
        if "TENSOR_MATCH:" in line:
            # a static size the entry holds (`size=[1, 16]`): the value a dynamic size's
            # range guard failed on (a last batch of one, below the range 2..N)
            t = _TENSOR_MATCH.search(line)
            if t:
                out += [(f"{t.group('src')}.size()[{d}]", v.strip())
                        for d, v in enumerate(t.group("size").split(",")) if v.strip().isdigit()]
                # and its exact class (a Parameter that became a Tensor inside a dict)
                out.append((f"type({t.group('src')})",
                            _TENSOR_CLASSES.get(t.group("cls"), t.group("cls"))))
            continue
        if "==" not in line:
            continue  # most of a guard tree; the regex would scan each such line lazily
        body = line.split("  #", 1)[0].rstrip()
        m = _GUARD_TREE.match(body)
        if m and "==" not in m.group("lhs"):
            out.append((m.group("lhs").strip(), m.group("value").strip()))
    return out


_GUARD_LINE = lazy_re.compile(r"^(?P<indent>(?:\| )*)\+- (?P<body>.*)$")
_GUARD_MANAGER = lazy_re.compile(
    r"^\w*GuardManager: source=(?P<source>.+?)(?:, accessed_by=|, type=|$)")
_LEAF_GUARD = lazy_re.compile(r"^[A-Z][A-Z0-9_]+:")


def guard_sources(guards_text: str | None) -> dict[str, int]:
    """Source -> how many leaf guards check it, in a dynamo_cpp_guards_str tree: each guard
    counts for the innermost GuardManager around it ('(global)' for the root's own: global
    state, torch function mode). Where a guard count explodes, the sources with the most
    guards say which inputs or module attributes cause it."""
    counts: dict[str, int] = {}
    managers: list[tuple[int, str]] = []  # (depth, source) of the enclosing managers
    for line in (guards_text or "").splitlines():
        m = _GUARD_LINE.match(line.strip())
        if not m:
            continue
        depth = len(m.group("indent")) // 2
        body = m.group("body")
        while managers and managers[-1][0] >= depth:
            managers.pop()
        manager = _GUARD_MANAGER.match(body)
        if manager:
            managers.append((depth, manager.group("source").strip()))
        elif _LEAF_GUARD.match(body):
            source = managers[-1][1] if managers else "(global)"
            counts[source] = counts.get(source, 0) + 1
    return counts


# -- the facts analyses read of compilation_metrics (stored with the compile) ----------------
