"""Parsers of Dynamo's records: graph-break reasons (the break's type, explanation, hints,
debug context, user frames), recompile reasons and the guards they name, guard trees, the
user's call stack at a compile. Pure text, no torch, no store (re-exported by
ingest/parsers.py)."""

from __future__ import annotations

import json
import re
from typing import Any

from compdiag.formats import lazy_re
from compdiag.formats.guard_source import rooted
from compdiag.formats.user_code import frames_in, is_user_file
from compdiag.ingest.parse_text import TB_FRAME


# -- graph breaks -----------------------------------------------------------------------------
_GB_AT = lazy_re.compile(r"Graph break in user code at (.+?):(\d+)\s*$", re.M)
_GB_URL = lazy_re.compile(r"/gb/(gb\d{4})\.html", re.I)
_GB_CODE = lazy_re.compile(r"\b(GB\d{4})\b")


def parse_graph_break(text: str) -> dict[str, Any]:
    """Split a dynamo_graph_break_reason payload into type, code, hints and user frame."""
    out: dict[str, Any] = {"reason": text.strip(), "gb_type": None, "gb_code": None,
                           "explanation": None, "hints": [], "filename": None, "lineno": None,
                           "line": None}
    at = _GB_AT.search(text)
    if at:
        out["filename"], out["lineno"] = at.group(1), int(at.group(2))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Graph Break Reason:"):
            rest = line.split(":", 1)[1].strip()
            # New-style: a header line, a blank, then the gb_type on its own line.
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and not lines[j].startswith(" ") and rest.startswith("Encountered"):
                out["gb_type"] = lines[j].strip()
            else:
                out["gb_type"] = rest
            break
    head = text.split("User code traceback:", 1)[0]
    indent = None  # the Explanation line's indent while its deeper-indented lines continue it
    for line in head.splitlines():
        s = line.strip()
        if indent is not None and s and len(line) - len(line.lstrip()) > indent:
            # a list under the explanation (GB0149's "one of the following reasons:")
            out["explanation"] = f"{out['explanation']} {s}"
            continue
        indent = None
        if s.startswith("Explanation:") and out["explanation"] is None:
            out["explanation"] = s.split(":", 1)[1].strip()
            indent = len(line) - len(line.lstrip())
        elif s.startswith("Hint:"):
            hint = s.split(":", 1)[1].strip()
            if hint not in out["hints"]:
                out["hints"].append(hint)
    code = _GB_URL.search(text) or _GB_CODE.search(text)
    if code:
        out["gb_code"] = code.group(1).upper()
    # The user frame is the last frame of the "User code traceback" section.
    if "User code traceback:" in text:
        section = text.split("User code traceback:", 1)[1]
        section = section.split("Traceback (most recent call last)", 1)[0]
        tb = section.splitlines()
        for k, line in enumerate(tb):
            m = TB_FRAME.match(line)
            if m:
                out["filename"], out["lineno"] = m.group(1), int(m.group(2))
                nxt = tb[k + 1].strip() if k + 1 < len(tb) else ""
                out["line"] = nxt if nxt and not nxt.startswith("File ") else None
    # The node a backend failed on names its own stack ("While executing %getitem ...
    # Original traceback:"): the op's line, where the traceback above ends at the call
    # (probes32a ddpm_schedule_index: `betas[t]` at 28, not `p_sample(x, t)` at 36).
    node = [f for f in frames_in(head.split("Original traceback:", 1)[1].split(
        "Use tlparse", 1)[0]) if is_user_file(f["filename"])] \
        if "Original traceback:" in head else []
    if node:
        out.update({k: node[-1][k] for k in ("filename", "lineno", "line")})
    if out["gb_type"] is None:
        out["gb_type"] = lines[0].strip() if lines else None
    return out


def library_frame(text: str | None) -> dict[str, Any] | None:
    """The library code a graph break is inside (issue 29 §1, set4's gaussian_nll_break): the
    innermost frame of the break's "User code traceback" when it is not the user's (Dynamo
    inlined a library function), else the frame a graph node's target ran when Dynamo ran
    it on fake tensors (the frame after `run_node` in the exception's traceback: an
    `F.gaussian_nll_loss` node whose `torch.any(var < 0)` check needs a value). None when
    the break is the user's own code."""
    if not text or "User code traceback:" not in text:
        return None
    section, _, rest = text.split("User code traceback:", 1)[1].partition(
        "Traceback (most recent call last)")
    own = _frames_of(section)
    if own and not is_user_file(own[-1]["filename"]):
        # Dynamo's own stand-ins (torch/_dynamo/polyfills: how it traces `cls(...)`, a
        # builtin) are not the library statement: the frame that called into them is
        # (set20: `opts = BroadcastOptions()` in c10d's broadcast, not the polyfill's
        # `cls.__new__`)
        lib = [f for f in own if not _is_dynamo_file(f["filename"])]
        if lib and not is_user_file(lib[-1]["filename"]):
            return lib[-1]
        return own[-1]
    ran = _frames_of(rest)
    at = next((i for i, f in enumerate(ran) if f["name"] == "run_node"
               and "_dynamo" in f["filename"]), None)
    lib: dict[str, Any] | None = None
    # the library's frames from the node's target in, to torch's machinery (fake tensors,
    # _ops): the innermost is the statement that needed the value, past a subclass's generic
    # dispatch (probes33g njt_unbind_pool: nested_tensor.py's `__torch_function__` ->
    # ops.py's `unbind_int`, `lengths_scalars = offsets.diff().tolist()`)
    for f in ran[at + 1:] if at is not None else ():
        if is_user_file(f["filename"]) or "/torch/_" in f["filename"].replace("\\", "/"):
            break
        lib = f
    return lib


def _is_dynamo_file(filename: str | None) -> bool:
    return "/torch/_dynamo/" in (filename or "").replace("\\", "/")


def _frames_of(section: str) -> list[dict[str, Any]]:
    """The frames of a traceback's text, each with its code line, outermost first."""
    lines = section.splitlines()
    out = []
    for k, line in enumerate(lines):
        m = _TB_NAMED.match(line)
        if m:
            nxt = lines[k + 1].strip() if k + 1 < len(lines) else ""
            out.append({"filename": m.group(1), "lineno": int(m.group(2)), "name": m.group(3),
                        "line": nxt if nxt and not nxt.startswith("File ") else None})
    return out


_TB_NAMED = lazy_re.compile(r'^\s*File "([^"]+)", line (\d+), in (.+?)\s*$')


# -- recompiles -------------------------------------------------------------------------------
_SIZE_MISMATCH = lazy_re.compile(r"tensor '(.+?)' (size|stride) mismatch at index (\d+)")
_CID_PREFIX = lazy_re.compile(r"^\s*\d+/\d+:\s*")


def parse_recompile_reasons(payload: str | None) -> list[str]:
    """The recompile_reasons artifact as one string per failed guard.

    Torch logs a list as JSON but a single reason as its raw text, which since torch 2.13
    carries the guard's 'User stack trace:' block on the lines after it: those lines (the
    header and the indented frames) belong to the reason above them, not reasons of their
    own (one BERT recompile was 7 recompiles, issue 32's zoo)."""
    if not payload:
        return []
    try:
        value = json.loads(payload)
    except ValueError:
        return _reasons_in_text(payload)
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def _reasons_in_text(text: str) -> list[str]:
    reasons: list[str] = []
    in_stack = False
    for line in text.splitlines():
        if not line.strip():
            in_stack = False
            continue
        cont = reasons and (line.startswith((" ", "\t")) or line.strip() == "User stack trace:"
                            or (in_stack and line.lstrip().startswith("File ")))
        if cont:
            reasons[-1] += "\n" + line
            in_stack = in_stack or line.strip() == "User stack trace:"
        else:
            reasons.append(line)
            in_stack = False
    return reasons


def guard_of(reason: str) -> str:
    """The guard expression a recompile reason names, e.g. L['x'].size()[0]."""
    text = _CID_PREFIX.sub("", reason).strip()
    m = _SIZE_MISMATCH.search(text)
    if m:
        name, what, idx = m.groups()
        return f"{rooted(name)}.{'size' if what == 'size' else 'stride'}()[{idx}]"
    return text


# -- graph-break details, guards, call stacks: facts explain reads, stored at ingest -------------
_GB_WRAPPER = "Failed to handle graph break gracefully"
_DEBUG_CTX = lazy_re.compile(r"Developer debug context:[ \t]*(.*)")  # its own line only


def graph_break_details(payload: str) -> dict[str, Any]:
    """What a dynamo_graph_break_reason payload says beyond type, code and hints: the inner
    graph-break type under Dynamo's 'failed gracefully' wrapper, the developer debug context,
    the user traceback's frames, and whether Dynamo skipped the whole frame."""
    inner = None
    lines = payload.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Graph Break Reason:") and _GB_WRAPPER in line:
            for nxt in lines[i + 1:]:
                if nxt.strip():
                    inner = nxt.strip()
                    break
            break
    m = _DEBUG_CTX.search(payload.split("User code traceback:", 1)[0])
    user_tb = ""
    if "User code traceback:" in payload:
        user_tb = payload.split("User code traceback:", 1)[1]
        user_tb = user_tb.split("Traceback (most recent call last)", 1)[0]
    debug = m.group(1).strip() if m else ""
    root = root_cause(payload)
    jump = _JUMP_WITH.search(debug)
    if jump and not root["root_value"]:   # what a data-dependent `if` tested
        root["root_value"] = _snake(jump.group(1))
    return {"gb_type_inner": inner, "debug_context": debug,
            "user_stack": frames_in(user_tb),
            "frame_skipped": _GB_WRAPPER in payload or "Skipping frame" in payload,
            "skip_why": skip_why(payload), **root}


_JUMP_WITH = lazy_re.compile(r"attempted to jump with (\w+?)Variable\b")


_CHAINED_BREAK = lazy_re.compile(r"\*\*\* While handling this graph break, another graph break "
                                 r"occurred: \*\*\*\s*\n\s*(?P<type>[^\n]+)\n\s*Explanation: "
                                 r"(?P<why>[^\n]+)")


def skip_why(text: str | None) -> str | None:
    """Why Dynamo gave up on the whole frame at a break, where torch chained a second break for
    it ("*** While handling this graph break, another graph break occurred: ***", e.g. `graph
    break in loop`): 'TYPE: explanation', else None."""
    m = _CHAINED_BREAK.search(text or "")
    return f"{m.group('type').strip()}: {m.group('why').strip()}"[:400] if m else None


_DIRECT_CAUSE = "The above exception was the direct cause of the following exception:"
_EXC_LINE = lazy_re.compile(r"^(?P<type>[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)"
                            r"|NotImplementedError)(?::\s*(?P<message>.*))?$")


_TRACKER = lazy_re.compile(r"\b([A-Z]\w*?)Variable(?:Tracker)?\b")


def root_cause(text: str | None) -> dict[str, str | None]:
    """The innermost exception of a chained traceback in torch's message: `root_cause`,
    'Type: message', what torch itself could not handle under the graph break or error it
    raised for it (`NotImplementedError: DataPtrVariable()` under 'Failed to convert
    args/kwargs to proxy'); and `root_value`, the kind of value a VariableTracker there names,
    in snake case ('data_ptr'), or the class of a user-defined object ('Generator'). Both None
    when the message chains no cause."""
    found = None
    if text and _DIRECT_CAUSE in text:
        for line in text.split(_DIRECT_CAUSE, 1)[0].splitlines():
            if _EXC_LINE.match(line):
                found = line.strip()[:300]
    m = _TRACKER.search(found) if found else None
    value = None
    if m and m.group(1) not in ("Lazy", "Base"):
        value = _snake(m.group(1))
        # an object of the program's or a library's class: the class is what it is
        # ('UserDefinedObjectVariable(Generator)': a torch.Generator, not any object)
        of = _OBJECT_OF.search(found or "")
        if value == "user_defined_object" and of:
            value = of.group(1)
    return {"root_cause": found, "root_value": value}


_OBJECT_OF = lazy_re.compile(r"UserDefinedObjectVariable\((\w+)\)")


def cause_user_frame(text: str | None) -> dict[str, Any] | None:
    """The deepest user frame in the traceback of the exception a break's message chains as
    its cause: user code that ran while torch compiled (a custom op's registered backward
    traced by AOTAutograd, a fake implementation), deeper than the break's own user stack
    (probes39d cop_backward_item_fallback: `g.norm().item()` in the backward, line 22, said
    at the compiled call's line). None when the cause ran no user code."""
    if not text or _DIRECT_CAUSE not in text:
        return None
    frames = [f for f in frames_in(text.split(_DIRECT_CAUSE, 1)[0])
              if is_user_file(f["filename"])]
    return frames[-1] if frames else None


def _snake(tracker: str) -> str:
    """A VariableTracker's kind in snake case: `NumpyNdarray` -> `numpy_ndarray`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", tracker).lower()


def debug_context(text: str | None) -> str:
    """The 'Developer debug context:' of a graph-break or Unsupported error text."""
    m = _DEBUG_CTX.search(text or "")
    return m.group(1) if m else ""


_EXPECTED = lazy_re.compile(r"expected (?P<before>[^,]+?), actual (?P<after>\S+)")
_EQ_GUARD = lazy_re.compile(r"^(?P<lhs>.+?)\s*==\s*(?P<value>.+?)\s*(?:#.*)?$")
# torch 2.13 words some failed guards as what failed, `len(feats) != 1`: the guard was
# `len(feats) == 1`, the value the compile saw is on the right.
_NE_GUARD = lazy_re.compile(r"^(?P<lhs>[^=!<>]+?)\s*!=\s*(?P<value>[^=!<>]+?)\s*(?:#.*)?$")
_GUARD_LOC = lazy_re.compile(
    r"#\s*(?P<code>.*?)\s+#\s*(?P<file>[^#:]+):(?P<line>\d+) in (?P<fn>\S+)"
    r"(?:\s+\([^()]*:\d+ in \w+\))?\s*$")  # (torch's own frame that evaluated it, 2.13)


def split_recompile(text: str) -> tuple[str, list[dict[str, Any]]]:
    """'0/0: guard  # code  # file:line in fn\\nUser stack trace: ...' -> (guard, frames)."""
    text = _CID_PREFIX.sub("", text).strip()
    head, _, stack = text.partition("User stack trace:")
    return head.strip().splitlines()[0].strip() if head.strip() else text, frames_in(stack)


def guard_location(guard_text: str) -> dict[str, Any] | None:
    """Where the failed guard's value is read: the '# code  # file:line in fn' torch appends."""
    loc = _GUARD_LOC.search(guard_text)
    if not loc:
        return None
    return {"filename": loc.group("file"), "lineno": int(loc.group("line")),
            "line": loc.group("code")}


_TYPE_MISMATCH = lazy_re.compile(r"expected type of '(.+?)' to be a tensor type,\s*'?\s*but found "
                            r"(?:<class '([\w.]+)'>|a different type)")
_ALIASED = lazy_re.compile(r"Duplicate tensor found where not expected!\s*(.+?)\s*should not alias"
                           r"|Duplicate tensors found: \[(.+?)\]")  # (torch 2.13's words)
_OBJECT_ALIASING = lazy_re.compile(r"^(?P<a>[LG]\[.+?)\s+is\s+(?P<b>[LG]\[.+)$")
_MARKED = lazy_re.compile(r"^hasattr\((?P<src>.+?), '_dynamo_(?P<how>\w+?)_indices'\)$")
_DISPATCH_KEYS = lazy_re.compile(r"tensor '(.+?)' dispatch key set mismatch\. expected "
                            r"(DispatchKeySet\([^)]*\)), actual (DispatchKeySet\([^)]*\))")
_DEALLOCATED = lazy_re.compile(r"Cache line invalidated because (.+?) got deallocated")
# `not hasattr(self.norm, 'running_mean')` (probes41h lazy_running_mean_hasattr)
_HASATTR = lazy_re.compile(r"^(not\s+)?hasattr\((.+?),\s*['\"](\w+)['\"]\)$")
_DICT_CONTAINS = lazy_re.compile(r"^(not\s+)?___dict_contains\((.+?),\s*(.+)\)$")




# a size or stride read inside an expression (`(x.size()[0] % 2)`, `L['x'].size()[1] // 8`)
_SIZE_EXPR = lazy_re.compile(r"\.(?:size|stride)\(\)\[\d+\]\s*\)?\s*(?:[-+*/%]|//)|"
                             r"(?:[-+*/%]|//)\s*\(?[\w\[\]'.]*\.(?:size|stride)\(\)\[\d+\]")
_NUMBER_EXPR = lazy_re.compile(r"^\(?\s*[A-Za-z_][\w\[\]'.]*\s*(?:[-+*%]|//|/)\s*[\w.]+\s*\)?$")
# TENSOR_SUBCLASS_METADATA_MATCH: a traceable tensor subclass's __tensor_flatten__ context
# compared by ==, a lambda named after the context's id and the compile it was built for
_METADATA_GUARD = lazy_re.compile(r"___check_metadata_\d+_c[\w/]+")
# a dynamic size bounded by a range (`2 <= L['x'].size()[2] <= 320`, `L['x'].size()[0] <= 64`):
# the graph holds for the sizes in the range only
# `L['xs'][2].size()[0] > L['xs'][0].size()[0]`: a comparison of two sizes (pad_sequence's
# longest item, a max over a list's lengths), probes32d pad_sequence_sensor_batches
_SIZE_ORDER = lazy_re.compile(r"^(?P<a>[^<>=!]+?\.size\(\)\[\d+\])\s*(?P<op><=|>=|<|>)\s*"
                              r"(?P<b>[^<>=!]+?\.size\(\)\[\d+\])\s*$")
_ITEM_SIZE = lazy_re.compile(r"(?:\[\d+\])?\.size\(\)\[\d+\]$")
_SIZE_RANGE = lazy_re.compile(
    r"^(?:(?P<lo>-?\d+)\s*(?P<lop><=?)\s*)?(?P<src>(?:[LG]\[[^\]]+\]|[A-Za-z_]\w*)"
    r"(?:\.\w+|\[[^\]]+\])*"
    r"\.(?:size|stride)\(\)\[\d+\])(?:\s*(?P<hop><=?)\s*(?P<hi>-?\d+))?$")
_NONE_GUARD = lazy_re.compile(r"^(?:not\s+)?\(?(?P<src>[^()]+?) is (?P<neg>not )?None\)?$")


_CACHED_BACKEND = lazy_re.compile(
    r"Cached backend: (?P<b>.+?)(?: \(id=0x[0-9a-f]+\))?\. New backend")
_NEW_BACKEND = lazy_re.compile(r"New backend: (?P<b>.+?)(?: \(id=0x[0-9a-f]+\))?\.(?: |$)")
_COMPILER = lazy_re.compile(r"compiler='(?P<name>[^']+)'")


def _backend_name(m: re.Match[str] | None) -> str | None:
    """`eager` of "_TorchCompileWrapper(compiler='eager', dynamic=None)"; another callable's
    repr as torch printed it."""
    if m is None:
        return None
    named = _COMPILER.search(m.group("b"))
    return named.group("name") if named else m.group("b")[:80]


# An attribute read Dynamo spells as a call (a class with its own __getattr__, a config
# object): `object.__getattribute__(self.config, 'problem_type')` is `self.config.problem_type`.
_ATTR_CALL = lazy_re.compile(r"\b(?:object\.__getattribute__|getattr)\(\s*(?P<obj>[\w.\[\]'\"]+)"
                             r"\s*,\s*['\"](?P<attr>\w+)['\"]\s*\)")


def attribute_reads(code: str) -> str:
    """`code` with every attribute read spelled as a call (_ATTR_CALL) written as one."""
    for _ in range(8):  # nested reads, innermost first
        new = _ATTR_CALL.sub(lambda m: f"{m.group('obj')}.{m.group('attr')}", code)
        if new == code:
            break
        code = new
    return code


def classify_guard(text: str, metadata: dict[str, str] | None = None) -> dict[str, Any]:
    """A failed guard as {category, source, tensor, before, after}; `metadata`: the sources
    of the subclass metadata guards seen in the guard trees so far (metadata_guard_sources)."""
    t = text.strip()
    code_part = attribute_reads(t.split("#", 1)[0].strip())
    m = _SIZE_MISMATCH.search(t)
    if m:
        ex = _EXPECTED.search(t)
        return {"category": "size" if m.group(2) == "size" else "stride",
                "source": guard_of(t), "tensor": m.group(1),
                "before": ex.group("before") if ex else None,
                "after": ex.group("after") if ex else None}
    m = _TYPE_MISMATCH.search(t)
    if m:  # TENSOR_MATCH's type check: a Parameter passed where a Tensor was (or the reverse)
        return {"category": "type", "source": rooted(m.group(1)), "tensor": m.group(1),
                "before": None, "after": m.group(2)}
    m = _DISPATCH_KEYS.search(t)
    if m:  # inference tensors, subclasses, conj/neg bits: the tensor's dispatch key set
        return {"category": "dispatch_key_set", "source": rooted(m.group(1)),
                "tensor": m.group(1), "before": m.group(2), "after": m.group(3)}
    m = _ALIASED.search(t)
    if m:  # NO_TENSOR_ALIASING: two inputs are now one tensor (they were distinct)
        one = m.group(1) or " and ".join(x.strip(' "\'') for x in m.group(2).split(","))
        return {"category": "aliasing", "source": rooted(one), "tensor": m.group(1) or None,
                "before": "distinct tensors", "after": "the same tensor"}
    m = _OBJECT_ALIASING.match(code_part)
    if m:  # OBJECT_ALIASING: two inputs were one object and are not now
        return {"category": "aliasing", "source": f"{m.group('a')} is {m.group('b')}",
                "tensor": None, "before": "the same object", "after": "distinct objects"}
    if "___check_torch_function_mode_stack" in t or "TORCH_FUNCTION_MODE_STACK" in t:
        return {"category": "mode_stack", "source": "torch function mode stack",
                "tensor": None, "before": None, "after": None}
    m = _DEALLOCATED.search(t)
    if m:  # an object guarded by identity (ID_MATCH) was freed: replaced by a new object
        return {"category": "identity", "source": m.group(1), "tensor": None,
                "before": None, "after": None}
    m = _HASATTR.search(code_part)
    if m:  # whether an object has an attribute: one the code sets lazily on its first call
        return {"category": "attribute", "source": f"{m.group(2)}.{m.group(3)}",
                "tensor": None,
                "before": "absent" if m.group(1) else "present",
                "after": "present" if m.group(1) else "absent"}
    m = _DICT_CONTAINS.search(code_part)
    if m:  # DICT_CONTAINS: whether a key is in a dict (os.environ, a config dict)
        return {"category": "dict_contains", "source": m.group(3).strip(), "tensor": None,
                "before": f"{m.group(2)} {'absent' if m.group(1) else 'present'}",
                "after": f"{m.group(2)} {'present' if m.group(1) else 'absent'}"}
    m = re.search(r"tensor '(.+?)' (dtype|device|requires_grad|dispatch key set|rank)"
                  r"(?: mismatch)?", t)
    if m:
        ex = _EXPECTED.search(t)
        before = ex.group("before") if ex else None
        after = ex.group("after") if ex else None
        if m.group(2) == "requires_grad":
            rg = re.search(r"requires_grad=(\d)", t)
            if rg:
                before = "requires_grad=" + ("True" if rg.group(1) == "1" else "False")
                after = "requires_grad=" + ("False" if rg.group(1) == "1" else "True")
        return {"category": m.group(2).replace(" ", "_"), "source": rooted(m.group(1)),
                "tensor": m.group(1), "before": before, "after": after}
    if "BACKEND_MATCH" in t or "___check_current_backend" in t:
        # The frame was compiled under one backend and is called under another (torch.compile
        # of the same function with another backend, or a new backend callable per call).
        return {"category": "backend", "source": "backend", "tensor": None,
                "before": _backend_name(_CACHED_BACKEND.search(t)),
                "after": _backend_name(_NEW_BACKEND.search(t))}
    if t.startswith("GLOBAL_STATE"):
        what = t.split(":", 1)[1].strip() if ":" in t else "global state"
        return {"category": "global_state", "source": what, "tensor": None, "before": None,
                "after": None}
    m = _METADATA_GUARD.fullmatch(code_part)
    if m:  # the source is the tree's (metadata_guard_sources)
        return {"category": "subclass_metadata", "source": (metadata or {}).get(
            m.group(0), m.group(0)), "tensor": None, "before": None, "after": None}
    m = _SIZE_ORDER.match(code_part)
    if m:  # two sizes compared: which of them is larger (the longest of a list's tensors)
        src = _ITEM_SIZE.sub("", m.group("a"))  # the container, when both are its items
        return {"category": "size_order", "source": rooted(src), "tensor": None,
                "before": f"{m.group('a')} {m.group('op')} {m.group('b')}", "after": None}
    m = _SIZE_RANGE.match(code_part)
    if m and (m.group("lo") or m.group("hi")):
        lo = int(m.group("lo")) + (m.group("lop") == "<") if m.group("lo") else None
        hi = int(m.group("hi")) - (m.group("hop") == "<") if m.group("hi") else None
        span = (f"{lo}..{hi}" if lo is not None and hi is not None else
                f">= {lo}" if lo is not None else f"<= {hi}")
        return {"category": "size_range", "source": rooted(m.group("src")), "tensor": None,
                "before": span, "after": None}
    m = _EQ_GUARD.match(code_part) or _NE_GUARD.match(code_part)
    if m:
        lhs, value = m.group("lhs").strip(), m.group("value").strip()
        marked = _MARKED.match(lhs)
        if marked:  # mark_dynamic & co. called on the input after the compile (or before)
            return {"category": "dynamic_marking", "source": marked.group("src"),
                    "tensor": None,
                    "before": f"{'' if value == 'True' else 'not '}marked {marked.group('how')}",
                    "after": f"{'not ' if value == 'True' else ''}marked {marked.group('how')}"}
        if lhs.endswith(".training"):
            cat = "training"
        elif lhs.endswith("._version"):
            cat = "version"
        elif lhs.startswith("len("):
            cat = "length"
        elif lhs.startswith("G[") or lhs.startswith("___as_tensor(G"):
            cat = "global"
        elif _SIZE_EXPR.search(lhs) or _NUMBER_EXPR.match(lhs):
            # arithmetic on a dynamic size (or a number made dynamic) a Python branch tested
            # (probes41h: `if step % 4 == 0` was "Python value (step % 4) changed (0 -> 0)")
            cat = "size_branch"
        else:
            cat = "value"
        return {"category": cat, "source": lhs, "tensor": None, "before": value, "after": None}
    m = _NONE_GUARD.match(code_part)
    if m:  # `x is None` / `x is not None`: a value that was None (or not) at the compile
        return {"category": "none", "source": m.group("src").strip(), "tensor": None,
                "before": "None" if m.group("neg") is None else "not None", "after": None}
    if "ID_MATCH" in t or "___check_obj_id" in t or " is " in code_part:
        src = re.search(r"\((.+?),", code_part)
        return {"category": "identity", "source": src.group(1) if src else code_part,
                "tensor": None, "before": None, "after": None}
    if "TYPE_MATCH" in t or "___check_type_id" in t:
        src = re.search(r"\((.+?),", code_part)
        return {"category": "type", "source": src.group(1) if src else code_part,
                "tensor": None, "before": None, "after": None}
    m = _LOOKUP_FAILED.match(code_part)
    if m:  # the guard could not even look its object up where the compile found it: the
        # attribute was replaced or removed (a module assigned where a plain value was moves
        # it from the instance's __dict__ to _modules)
        return {"category": "replaced", "source": m.group("src"), "tensor": None,
                "before": None, "after": None}
    return {"category": "other", "source": code_part[:120], "tensor": None, "before": None,
            "after": None}


# torch's failed-guard text when looking the guarded object up raised: `KeyError on self.x`
_LOOKUP_FAILED = lazy_re.compile(r"^(?P<exc>KeyError|AttributeError|IndexError) on (?P<src>\S+)$")


def call_stack(payload: str) -> dict[str, Any] | None:
    """capture's call_stack record (JSON: frames, objects, wraps?) as call_stacks columns;
    None for a payload that is not one."""
    try:
        doc = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("frames"), list):
        return None
    frames = [{"filename": f.get("filename"), "lineno": f.get("lineno"),
               "line": f.get("line"), "name": f.get("name")}
              for f in doc["frames"] if isinstance(f, dict)]
    objects = doc.get("objects") if isinstance(doc.get("objects"), dict) else {}
    wraps = doc.get("wraps") if isinstance(doc.get("wraps"), str) else None
    return {"frames": frames, "wraps": wraps, "objects": {
        str(k): v for k, v in objects.items()
        # [class, id], and since session 22 whether it is a module: [class, id, bool]
        if isinstance(v, list) and len(v) in (2, 3) and isinstance(v[1], int)
        and (len(v) == 2 or isinstance(v[2], bool))}}


_AUTOMATIC_DYNAMIC = lazy_re.compile(r'"automatic_dynamic_shapes":\s*(true|false)')
_ASSUME_STATIC = lazy_re.compile(r'"assume_static_by_default":\s*(true|false)')


# compilation_metrics field -> stage name; _us / _s variants differ between torch versions.
_STAGE_FIELDS = {
    "dynamo": ("dynamo_cumulative_compile_time_us", "dynamo_time_before_restart_s"),
    "aot": ("aot_autograd_cumulative_compile_time_us",),
    "inductor": ("inductor_cumulative_compile_time_us", "inductor_compile_time_s"),
    "inductor_codegen": ("inductor_code_gen_cumulative_compile_time_us", "code_gen_time_s"),
    "backend": ("backend_compile_time_s",),
    "pre_grad_passes": ("pre_grad_pass_time_us",),
    "joint_graph_passes": ("joint_graph_pass_time_us",),
    "post_grad_passes": ("post_grad_pass_time_us",),
    "kernel_compile": ("triton_compile_time_us",),
    "autotune": ("compile_time_autotune_time_us",),
    "total": ("duration_us", "entire_frame_compile_time_s"),
}


def stage_times(metrics: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for stage, fields in _STAGE_FIELDS.items():
        for field in fields:
            value = metrics.get(field)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[stage] = value / 1e6 if field.endswith("_us") else float(value)
                break
    return out



def metrics_facts(metrics: dict[str, Any]) -> dict[str, Any]:
    """automatic_dynamic: whether automatic dynamic shapes were on (dynamo_config, a JSON
    string; None when the record does not say), assume_static: whether sizes were static
    until they changed (False under torch.compile(dynamic=True)), and guard_count, torch's
    count of the compile's guards."""
    config = str(metrics.get("dynamo_config") or "")
    m = _AUTOMATIC_DYNAMIC.search(config)
    static = _ASSUME_STATIC.search(config)
    count = metrics.get("guard_count")
    return {"automatic_dynamic": None if m is None else m.group(1) == "true",
            "assume_static": None if static is None else static.group(1) == "true",
            "guard_count": count if isinstance(count, int) and not isinstance(count, bool)
            else None}
