"""Fixes for a graph break inside library code the user's line calls (issue 29 §1): the
library function named with what works for a call the user cannot edit, and the libraries
whose breaks have a fix of their own (torch.distributed's c10d collectives, eager-mode
quantized modules). Split from analyses/fixes.py, which matches the break's words."""

from __future__ import annotations

import os
import re
from typing import Any, Mapping

from compdiag.analyses.raised_by import package_path
from compdiag.formats.code_text import called


def first_hint(hints: list[str] | tuple[str, ...]) -> str | None:
    """torch's first hint that is not "report an issue"."""
    return next((h for h in hints if "report an issue" not in h.lower()
                 and "file an issue" not in h.lower()), None)


# eager-mode quantized modules (quantize_dynamic, convert) hold packed weights as TorchScript
# objects Dynamo cannot put in a graph (probes29b qdyn_ranker_serve)
QUANTIZED_MODULES = "torch/ao/nn/quantized/"
QUANTIZED_FIX = ("The model's quantized layers (torch.ao.quantization's eager-mode "
                 "quantize_dynamic or convert) keep packed int8 weights as TorchScript objects, "
                 "which Dynamo cannot put in a graph: compile the float model, or quantize it "
                 "with torchao (`torchao.quantization.quantize_`), whose quantized tensors "
                 "torch.compile traces.")
# torch.distributed's c10d collectives work in place and return a Work handle, which Dynamo
# does not trace (it rewrites only all_reduce, all_gather_into_tensor, reduce_scatter_tensor);
# the functional collectives of the same name return their result and trace into the graph.
C10D_FILE = "torch/distributed/distributed_c10d.py"
FUNCTIONAL_COLLECTIVES = frozenset({"all_reduce", "broadcast", "all_to_all_single",
                                    "all_gather_tensor", "reduce_scatter_tensor",
                                    "all_reduce_coalesced", "permute_tensor"})


def c10d_fix(lib_frame: Mapping[str, Any]) -> str:
    """A break inside torch.distributed's c10d function the user's line calls (set20's
    `dist.broadcast` in a compiled helper): the functional collective that traces."""
    name = str(lib_frame.get("name") or "")
    if name in P2P_OPS:
        return P2P_FIX.format(name=name)
    head = (f"`dist.{name}` is" if name else "This torch.distributed call is")
    alt = (f"use the functional collective, which returns its result instead of writing in "
           f"place and traces into the graph: `t = torch.distributed._functional_collectives."
           f"{name}(t, ...)` (the group is an argument of its own)"
           if name in FUNCTIONAL_COLLECTIVES else
           "use a functional collective (torch.distributed._functional_collectives), which "
           "returns its result and traces into the graph, where one exists")
    return (f"{head} c10d's in-place collective, which Dynamo does not trace here (it "
            "rewrites some collectives into functional ones, this call not), so the graph "
            f"splits at it on every rank. Inside the compiled function {alt}; or make the call "
            "in the eager code around the compiled function.")


# Point-to-point ops: Dynamo traces them only behind TORCHDYNAMO_ENABLE_P2P_COMPILATION=1
# (experimental; on torch 2.13 `dist.send` then fails to bind isend_inplace's arguments), so a
# pipeline stage's send/recv splits the graph (probes40d pp_stage_send_recv: the words called
# send "in-place collective" and said only three collectives are rewritten).
P2P_OPS = frozenset({"send", "recv", "isend", "irecv", "batch_isend_irecv"})
P2P_FIX = ("`dist.{name}` is a point-to-point op, which Dynamo traces only behind "
           "TORCHDYNAMO_ENABLE_P2P_COMPILATION=1 (experimental), so the graph splits at it. "
           "Compile the stage's computation alone and call `dist.{name}` in the eager code "
           "around it (`h = compiled_stage(x); dist.send(h, dst=1)`).")


# torch's library paths the caller's own argument chooses, where the break is (file, the
# function's name or None, words of the statement or None, what to pass): the fix that
# removes the break, before the generic ways around library code (probes46a
# causal_lm_encoder_mask_detect: `capture_scalar_outputs` moved the break into
# MultiheadAttention; bn_cumavg_momentum_none: it left a guard error)
ARGUMENT_PATHS: tuple[tuple[str, str | None, str | None, str], ...] = (
    ("torch/nn/modules/transformer.py", "_detect_is_causal_mask", None,
     "torch reads the mask's values here only because the call did not say whether it is "
     "causal: pass `is_causal=True` (a causal mask) or `is_causal=False` with the mask, and "
     "the check is skipped."),
    # probes47a asr_decoder_float_causal_mask: a float causal mask beside a bool padding
    # mask; torch's own hint (reorderable logging) keeps the warning out of the graph only
    ("torch/nn/functional.py", "_canonical_mask", "warnings.warn(",
     "torch warns here, a graph break inside the attention call, because the two masks the "
     "call passes have different dtypes (a float `attn_mask` beside a bool "
     "`key_padding_mask`, or the other way round): give both the same dtype (a bool causal "
     "mask, `torch.ones(L, L, dtype=torch.bool).triu(1)`), and the warning and the break go."),
    ("torch/nn/modules/batchnorm.py", None, "float(self.num_batches_tracked)",
     "A BatchNorm built with `momentum=None` (a cumulative moving average) reads its batch "
     "count as a Python number on every training call: give it a numeric momentum "
     "(`momentum=0.1`, torch's default, or the value you want), and the break goes."),
)


def argument_path(lib_frame: Mapping[str, Any]) -> str | None:
    """ARGUMENT_PATHS' fix for the library statement a break is at, or None."""
    where = str(lib_frame.get("filename") or "").replace("\\", "/")
    for path, name, words, fix in ARGUMENT_PATHS:
        if where.endswith(path) and (name is None or lib_frame.get("name") == name) and \
                (words is None or words in str(lib_frame.get("line") or "")):
            return fix
    return None


def library_fix(lib_frame: Mapping[str, Any], hints: list[str] | tuple[str, ...],
                line: str | None = None) -> str:
    """The fix for a break inside library code the user's line calls: it names the user's call
    (from `line`) and the library function it broke in, and what works for a call the user
    cannot edit (issue 29 §1)."""
    name = lib_frame.get("name") or "a library function"
    where = f"{os.path.basename(str(lib_frame.get('filename') or '?'))}:{lib_frame.get('lineno')}"
    code = f": `{lib_frame['line']}`" if lib_frame.get("line") else ""
    # a hint to edit or avoid the statement that broke is about the library's code, not the
    # user's (probes32a vae_kl_dist: "Avoid calling builtin `min`" inside kl_divergence)
    hint = first_hint([h for h in hints if not h.lower().startswith(_LIBRARY_STATEMENT)])
    call = called(line, lib_frame.get("name"))
    yours = f"Your call `{call}(...)` breaks" if call else "The break is"
    chosen = argument_path(lib_frame)
    if chosen:  # the caller's argument chooses the path: that is the fix
        return f"{yours} inside `{name}` ({where}{code}). {chosen}"
    return (f"{yours} inside `{name}` ({where}{code}), library code your line calls, "
            "not in your own code. " + (f"torch's way through it: {hint.rstrip('.')}. "
                                        if hint else "")
            + ("Otherwise keep" if hint else "Keep")
            + " that call out of the compiled region (compute it before the compiled call and "
            "pass the result in, or call it from a small function decorated with "
            "`@torch.compiler.disable`), write what it computes with tensor ops (a closed "
            "form), or wrap it in a custom op (`torch.library.custom_op`) so it stays one node "
            "of the graph.")


# torch's hints that tell the reader to change the statement that broke
_LIBRARY_STATEMENT = ("remove ", "avoid calling", "avoid using",
                      "consider using an equivalent",
                      "if you are attempting to call a logging function")


# torch's own mark on a function it does not support in compiled code (torch.func.linearize
# calls `torch._dynamo.disallow_in_graph` on itself; probes33b tangent_linearize_sensitivity,
# whose fix told the user to keep `disallow_in_graph` out of the compiled function)
DISALLOWED_FIX = (
    "torch marks `{call}` as not supported inside torch.compile (it calls "
    "`torch._dynamo.disallow_in_graph` on itself), so the call splits the graph: keep "
    "`{call}(...)` outside the compiled function and compile what it calls, or use a traceable "
    "equivalent inside (for `torch.func.linearize`, `torch.func.jvp` once per tangent).")


# probes33d beam_search_sorted: torch's hint ("Use something else as the key") led to
# `key=lambda c: float(c[0])`, which still broke and recompiled
SORT_FIX = ("Python's `sorted`/`list.sort` cannot order by a tensor's value while tracing (a "
            "`float(t)` key reads it out: still a break). Keep the candidates in tensors and "
            "rank them with torch ops: `torch.stack` the scores, take `torch.topk(scores, k)` "
            "(or `argsort`), and index the other fields with the indices it returns.")
# probes38d feats_sorted_items_break: `sorted(z.items())` of a dict of tensors orders its
# (key, tensor) pairs, a tuple key Dynamo cannot sort, though the string keys decide it
ITEMS_SORT_FIX = ("`sorted(...)` orders (key, value) pairs: the pairs are the sort key, and "
                  "one holds a tensor, which Dynamo cannot compare while tracing, though the "
                  "dict's keys alone decide the order. Sort the keys: `[d[k] for k in "
                  "sorted(d)]`.")


def sort_fix(gb_type: str, expl: str, ctx: str, line: str) -> str:
    """The fix for Dynamo's sort with a non-constant key: a dict's items sorted as pairs,
    else values ranked by a tensor."""
    pairs = "<class 'tuple'>" in f"{expl} {ctx}" or "TupleVariable" in (ctx or "")
    return ITEMS_SORT_FIX if pairs and ".items()" in (line or "") else SORT_FIX


# probes29a gcn_sparse_adj and probes33g bow_sparse_docs: Dynamo skips the whole function on
# any sparse tensor, made inside (its constructor's break) or passed in
SPARSE_FIX = ("Dynamo does not trace sparse tensors, made inside or passed in (the function "
              "then runs in eager). Pass a dense tensor instead (`adj.to_dense()` before the "
              "call, `adj @ h` inside; counts with `index_add_` or `nn.EmbeddingBag` for a "
              "bag of words), or keep the sparse op in a small `@torch.compiler.disable` "
              "helper and compile the dense code around it.")


# torch.distributions checks its arguments and samples with Python code (constraints,
# `_validate_sample`) on by default (`Distribution._validate_args = __debug__`), which Dynamo
# breaks on; probes33e hetero_nll_validate: the fix told the user to keep `is_dependent`, a
# function of torch's they never call, out of the compiled function
DISTRIBUTIONS = "torch/distributions/"
VALIDATE_FIX = ("The break is torch.distributions checking its arguments or a sample "
                "(argument validation is on by default): pass `validate_args=False` where the "
                "distribution is built, or turn it off once at start-up with "
                "`torch.distributions.Distribution.set_default_validate_args(False)` (check "
                "the values yourself outside the compiled code if they need it).")


def validating(lib_frame: dict[str, Any], line: str | None) -> bool:
    """Whether a break inside torch.distributions is in its validation: the user's line asks
    for it, or the library frame is a constructor's or a sample's check."""
    name = str(lib_frame.get("name") or "")
    return "validate_args" in (line or "") or name in ("__init__", "_validate_sample") or \
        "validate" in name or "constraint" in str(lib_frame.get("line") or "")


# torch.ao.quantization's eager-mode QAT: `prepare_qat` runs observers as forward hooks and
# FakeQuantize modules, code under torch/ao, which Dynamo skips (MOD_SKIPLIST); probes33f
# qat_prepare_compiled_train: the fix told the user to keep `_observer_forward_hook`, a hook
# prepare_qat registered, out of the compiled function
AO_CODE = "torch/ao/"
EAGER_QAT_FIX = ("torch.ao.quantization's eager-mode quantization (prepare_qat's observer "
                 "hooks and FakeQuantize modules) is code Dynamo skips (torch/ao is on its "
                 "skip list), so every quantized layer breaks the graph. Fake-quantize in your "
                 "own module with `torch.fake_quantize_per_tensor_affine` (traceable; tensor "
                 "scale and int32 zero point), use the PT2E flow (`prepare_qat_pt2e` on an "
                 "exported model), or compile only the float parts.")


# probes33g masked_tensor_pool: the fix moved `masked_tensor(...)` out, and MaskedTensor's
# `.mean` and `.to_tensor` broke the graph in its place
MASKED_FIX = ("torch.masked's MaskedTensor is code Dynamo does not trace (its constructor, "
              "reductions and `.to_tensor` each break the graph): compute with the boolean mask "
              "itself, `(x * mask).sum(dim) / mask.sum(dim).clamp(min=1)` for a masked mean, "
              "`x.masked_fill(~mask, float('-inf')).amax(dim)` for a masked max.")


# A function disabled with a reason (`torch.compiler.disable(fn, reason=...)`, torch's own
# way of keeping a kernel out of graphs), by the reason torch gives: what the user changes
# instead (probes37a adamw_fused_compiled_step: `AdamW(fused=True)` stepped in a compiled
# function broke at torch's own disable of `_fused_adam`, whose fix said to remove it)
DISABLED_FOR: tuple[tuple[str, str], ...] = (
    ("fused optimizer", "The optimizer was built with `fused=True`, whose fused kernel torch "
     "keeps out of compiled code on purpose ({reason}): build it without `fused=True` (the "
     "default foreach implementation compiles into the graph), or call `opt.step()` outside "
     "the compiled function."),
)
DISABLED_FIX = ("The function is kept out of compiled code on purpose by whoever disabled it "
                "({reason}): call it outside the compiled function, or at its start or end so "
                "only one break remains; remove the disable only where it is your own and the "
                "function traces.")
DISABLE_FIX = ("This call is to a function wrapped in torch.compiler.disable, so it always "
               "runs in eager and splits the graph. Remove the disable if the function is "
               "traceable, or move the call to the start or end of the compiled function so "
               "only one break remains.")


def disable_fix(explanation: str) -> str:
    """The fix for a call of a function wrapped in torch.compiler.disable: by the reason the
    disable gave (torch's own, a fused optimizer's), else the generic one."""
    m = re.search(r"\(reason: ([^)]*)\)", explanation or "")
    if m is None or m.group(1).strip() in ("None", ""):  # torch 2.13 writes "(reason: None)"
        return DISABLE_FIX
    reason = f"reason: {m.group(1).strip()}"
    return next((fix for key, fix in DISABLED_FOR if key in m.group(1)),
                DISABLED_FIX).format(reason=reason)


# Whose code a function Dynamo skips is, by its file: torch's, Python's standard library's or
# a third-party package's (probes38a ddpm_tqdm_sample_loop, probes38b replay_random_sample_break:
# tqdm and random.py were "torch code Dynamo skips on purpose"; torch skips them because their
# files are under a skip directory).
_STDLIB = re.compile(r"/python3\.\d+/([\w.]+\.py)$")


def code_owner(filename: str | None) -> str:
    """"torch code", "`tqdm`'s code (a third-party package)", "Python's standard library
    code (`random.py`)", by the file's path; "library code" where it does not say."""
    path = (filename or "").replace("\\", "/")
    m = _STDLIB.search(path)
    if m:
        return f"Python's standard library code (`{m.group(1)}`)"
    rel = package_path(path)  # from its package root (site-packages, torch's own tree)
    if rel == path:
        return "library code"
    pkg = rel.split("/")[0].split(".")[0]
    return "torch code" if pkg == "torch" else f"`{pkg}`'s code (a third-party package)"


# A skipped function whose work torch traces under another API (probes38c
# checkpoint_sequential_break: the printed fix, checkpoint_sequential in eager around compiled
# blocks, traced nothing, since torch.utils.checkpoint is itself kept out of Dynamo in eager).
TRACED_ALTERNATIVES = {
    "checkpoint_sequential": (
        "`checkpoint_sequential` is torch code Dynamo skips, but torch.compile traces "
        "`torch.utils.checkpoint.checkpoint` itself (as a higher-order op): inside the compiled "
        "forward, checkpoint each segment with it, `h = checkpoint(segment, h, "
        "use_reentrant=False)` for `segment = self.blocks[i:i + n]`, instead of "
        "`checkpoint_sequential`. Calling checkpoint_sequential in eager around compiled "
        "blocks compiles nothing: checkpoint runs its function with Dynamo off."),
    # probes42d regional_compile_ckpt_ca: layers compiled one by one, checkpoint around them
    # in eager, compiled autograd on: its graph calls checkpoint's recompute hook (42 breaks),
    # and the fix said to call `unpack_hook` in eager code, which the program never calls
    **dict.fromkeys(("_checkpoint_hook.__init__.<locals>.unpack_hook",
                     "_checkpoint_hook.__init__.<locals>.pack_hook"), (
        "torch.utils.checkpoint runs in eager around the compiled code, so its recompute "
        "hook (`unpack_hook`) sits in the autograd graph, and compiled autograd, tracing the "
        "backward, cannot trace it: a graph break each time. Call checkpoint inside the "
        "compiled region instead (compile the whole model, `model.compile()`, or compile a "
        "function that calls `checkpoint(layer, h, use_reentrant=False)`), where Dynamo turns "
        "it into its own checkpoint op; or run this backward without compiled autograd.")),
}
