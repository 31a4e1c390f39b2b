"""The known errors of compiled code at run time (and the few at compile stages whose words
say what happened), each with its fix and, where torch's words mislead, what it means: the
failure kind's first words of a fix (analyses/fixes.py's failure_fix reads them)."""

from __future__ import annotations

from dataclasses import dataclass

from compdiag.analyses.region_reuse import REUSE_LIMIT
from compdiag.analyses.rules import Words, every, first, one_of


@dataclass(frozen=True)
class RuntimeFix:
    """A known error of compiled code: `when` in torch's message (analyses/rules.py), at one
    of `stages` (run time unless said); `why`, what the message means where torch's words
    mislead (the failure's explanation says it)."""
    when: Words
    fix: str
    stages: tuple[str, ...] = ("runtime",)
    why: str = ""
    eager_fails: bool = False   # eager raises on the same values: no compiler to bisect/minify
    # the circumstance, not the graph, failed (a compile at interpreter shutdown): nothing for
    # bisect or minify to replay, and the stage's own words ("a kernel failed") are wrong
    circumstance: bool = False
    # its fix names the program's change outright (not the generic "fix the data" an
    # input eager rejects already gets): it leads that verdict's fix (function_verdicts)
    names_change: bool = False


# torch's legacy typed constructors (torch.FloatTensor, torch.cuda.HalfTensor, ...)
_LEGACY = tuple(f"torch.{dev}{kind}Tensor(" for dev in ("", "cuda.") for kind in (
    "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool"))

_EVERY_STAGE = ("dynamo", "aot", "inductor_lowering", "inductor_codegen", "kernel_compile",
                "runtime", "backend")

RUNTIME_FIXES: tuple[RuntimeFix, ...] = (
    # probes48a qat_amax_allreduce_max: `dist.all_reduce(amax, op=MAX)` in a fake-quant
    # module, said as DDPOptimizer's with `optimize_ddp = False` (which failed the same way)
    RuntimeFix(every("all_reduce backward only supports 'sum' reduction"),
               "Keep the all-reduce out of autograd: reduce a detached value "
               "(`amax = x.detach().abs().amax()` before `dist.all_reduce(amax, op=MAX)`; a "
               "statistic such as a quantisation scale needs no gradient), or reduce with "
               "op=SUM when the gradient must flow through it.",
               stages=_EVERY_STAGE, names_change=True,
               why="Dynamo traces `dist.all_reduce` as a functional all_reduce, which is part "
                   "of the autograd graph; its backward exists for a sum only. Eager's "
                   "in-place all_reduce is invisible to autograd, so the same code runs "
                   "there."),
    # probes48a ddp_small_bucket_cap: `DDP(torch.compile(m), bucket_cap_mb=0.5)` failed at
    # the first forward, said as fake-tensor tracing with a register_fake fix
    RuntimeFix(every("First bucket should be smaller/equal to other buckets"),
               "Pass `bucket_cap_mb=1` or more in the DDP(...) call, or set "
               "`torch._dynamo.config.optimize_ddp = False` before the first call (one "
               "graph; the all-reduces then wait for the whole backward).",
               stages=_EVERY_STAGE, names_change=True,
               why="DDPOptimizer, which splits the compiled graph at DDP's buckets, makes its "
                   "first bucket 1 MiB and asserts that no later bucket is smaller: a "
                   "`bucket_cap_mb` below 1 fails there, before anything is traced, while "
                   "eager DDP runs."),
    # probes44f eval_relu_cap_copy_inplace (pytorch#158561): an evaluation without no_grad
    # caps a ReLU's output in place; AOTAutograd traces the backward while compiling and its
    # version check fails, where eager (no backward ever run) never checks
    RuntimeFix(one_of("modified by an inplace operation"),
               "Write that value out of place (`h = h.clamp(max=cap)` instead of "
               "`h.copy_(...)` or `h.clamp_(...)` on a tensor an earlier op saved for its "
               "backward), or run code that needs no gradients under `torch.no_grad()` or "
               "`torch.inference_mode()`, so no backward is traced.", stages=("aot",),
               why="AOTAutograd traces the backward while it compiles, whether or not the "
                   "program ever calls backward(), and autograd's check that a tensor saved "
                   "for the backward was not overwritten in place fails there; eager makes "
                   "that check only when backward runs, so the same code runs in eager.",
               names_change=True),
    # probes46c adapter_inplace_norm_sysexit (pytorch#185497): a compiled function normalises
    # its input in place (`h.sub_(shift).div_(scale)`); the compiled backward's version check
    # fails at `loss.backward()`, where eager runs. Said with bisect alone.
    RuntimeFix(one_of("modified by an inplace operation"),
               "Write that value out of place at the line shown (`x = (x - mean) / std` "
               "instead of `x.sub_(mean).div_(std)`): an in-place write to a tensor the "
               "compiled graph takes as input, after another op saved it for the backward.",
               why="The compiled graph saves for its backward tensors that eager's ops do not "
                   "need (AOTAutograd's partitioner chooses what to save, and writes a "
                   "mutated input back in place after the forward); an in-place write then "
                   "makes a saved tensor stale, and autograd's version check fails in the "
                   "backward where eager's passes.",
               names_change=True),
    # probes44j dann_grad_reverse_data_noise (pytorch PR #194534): compiled code writes in
    # place (through `.data` too) to a tensor a custom autograd.Function returned as is;
    # AOTAutograd replays the write on the real tensor after the graph, where autograd
    # forbids it, while eager's `.data` write is out of autograd's sight
    RuntimeFix(every("is being modified inplace", "custom Function"),
               "Write that value out of place (`feat = feat + noise` instead of "
               "`feat.add_(noise)` or `feat.data.add_(noise)` on the Function's output), or "
               "have the torch.autograd.Function return a new tensor rather than its input "
               "as is (`return x.clone()` in its forward), as torch's message says.",
               stages=("runtime", "aot"),
               why="A custom torch.autograd.Function returns its input as is (or a view of "
                   "it) and the compiled code writes to that output in place. AOTAutograd "
                   "applies the write to the real tensor after the graph ran, and autograd "
                   "forbids an in-place change of such an output, because it would bypass "
                   "the Function's backward; in eager a write through `.data` is out of "
                   "autograd's sight, so the same code runs there.",
               names_change=True),
    # probes42c ctr_bce_raw_logits: raw scores into binary_cross_entropy, whose range check
    # the compiled decomposition drops; the fix said "drop or mask such entries"
    RuntimeFix(one_of("all elements of input should be between 0 and 1"),
               "binary_cross_entropy takes probabilities in [0, 1]: for raw scores (logits) "
               "use `F.binary_cross_entropy_with_logits` (`nn.BCEWithLogitsLoss`), which is "
               "also the numerically stable form, or apply `torch.sigmoid` first.",
               stages=_EVERY_STAGE, eager_fails=True,
               why="The loss was handed values outside [0, 1]; eager's binary_cross_entropy "
                   "checks the range and raises, and the compiled code computes log() of "
                   "them without the check.", names_change=True),
    # probes42d sac_policy_closure_context_fn: checkpoint(..., context_fn=lambda: ...) inside
    # a compiled forward; said as "a bug in torch", with @torch.compiler.disable on forward
    RuntimeFix(one_of("checkpoint not implemented for"),
               "Pass checkpoint a context_fn Dynamo can read: a function defined at module "
               "level (`def sac_context(): return create_selective_checkpoint_contexts("
               "policy_fn)`, with `policy_fn` at module level too) or a `functools.partial` "
               "of one (`functools.partial(create_selective_checkpoint_contexts, policy_fn)`)"
               "; a lambda or a function defined inside forward is what Dynamo refuses here.",
               stages=("dynamo",),
               why="Dynamo traces torch.utils.checkpoint into its own higher-order op and "
                   "accepts only some kinds of context_fn (a module-level function, a "
                   "functools.partial); a closure or lambda made inside the compiled function "
                   "is one it does not implement. A limit of torch.compile that the program "
                   "can avoid, not an error of the program's own."),
    # probes42a fused_linear_fn_grad_transposed: a custom autograd.Function whose backward
    # returned the weight's gradient transposed; compiling traces the backward at once, so it
    # raised at the forward call, said as "AOTAutograd failed", with bisect as the fix
    RuntimeFix(one_of("returned an invalid gradient at index"),
               "Fix the backward of your torch.autograd.Function: it must return one gradient "
               "per input of forward, in forward's order, each of that input's shape (torch "
               "names the index, the shape returned and the shape expected; a transposed "
               "weight gradient is the usual slip: return `grad_w.t()` or compute it as "
               "`grad_out.t() @ x` for a weight used as `x @ w.t()`). Check it in eager with "
               "`torch.autograd.gradcheck` on small float64 inputs.",
               stages=_EVERY_STAGE, eager_fails=True,
               why="The program's own autograd.Function returns a gradient of the wrong shape "
                   "from its backward. torch.compile traces the backward with the forward, so "
                   "the error comes at the compiled call; eager raises the same error at "
                   "`loss.backward()`. Not a compiler fault: bisect and minify have nothing "
                   "to find."),
    # probes41b cop_relu2_backward_op_no_fake: a custom op's backward calls a second custom op
    # with no fake kernel; torch's message names `relu2_bwd.register_fake`, compdiag's fix
    # was bisect and a minify that refused (the op is only the program's)
    RuntimeFix(one_of("no fake impl registered for", "There was no fake impl"),
               "Register a fake (meta) implementation for the custom op torch names: "
               "`@<op>.register_fake` (or `torch.library.register_fake(\"ns::op\")`) on a "
               "function that takes the op's arguments and returns empty tensors of its "
               "outputs' shapes and dtypes (`torch.empty_like(grad)`), computing nothing; do it "
               "for every custom op the compiled code reaches, its backward's included, then "
               "check the op with `torch.library.opcheck`.",
               stages=("dynamo", "aot", "inductor_lowering", "runtime"), eager_fails=False,
               why="torch.compile runs every op on fake tensors while it traces, a custom op "
                   "included, and needs the op's fake implementation for it: this op has none "
                   "(eager never needs one, so the program runs uncompiled)."),
    # probes43h refine_region_global_state (after pytorch#191821): a nested_compile_region
    # function reading tensors from a global or a closure, not its arguments; the fix was
    # "check the line runs in eager" (it does) or register_fake (no custom op)
    RuntimeFix(one_of("Freevar has no source"),
               "Pass every tensor the compiled region's function reads as an argument: a "
               "function under `torch.compiler.nested_compile_region` (invoke_subgraph) that "
               "reads a tensor from a global, a closure or an object attribute cannot be "
               "traced as its own subgraph (`def block(x, hidden, context)` called as "
               "`block(x, hidden, context)`, not reading `hidden` from outside).",
               stages=_EVERY_STAGE,
               why="Dynamo traces a nested compile region into a subgraph whose inputs are the "
                   "function's arguments; a tensor it reads from outside has no source there "
                   "(an AssertionError inside Dynamo). The program runs uncompiled."),
    # probes41b hop_while_refine_closure_alias (pytorch#191582): `while_loop(cond, body,
    # (i, b))` whose body also reads `b`; the fix was bisect only, `b.clone()` worked
    RuntimeFix(one_of("might be aliasing the input or the output"),
               "Give the higher-order op carries and outputs that are tensors of their own: "
               "pass a copy as the initial value of a carry that is also read from outside "
               "(`(torch.tensor(0), b.clone())` where the branch reads `b` too), and return "
               "`x.clone()` from a branch rather than an operand or a closed-over tensor as it "
               "is.",
               stages=("dynamo", "aot", "inductor_lowering"), eager_fails=True,
               why="torch.cond, while_loop and scan need branches whose outputs alias none of "
                   "their inputs: here a tensor is both an operand (a carry's initial value) "
                   "and read by the branch, or returned as it is, so torch cannot tell the "
                   "carry from its input. The check is torch's own rule for these ops, not a "
                   "compiler bug."),
    # probes41d export_then_compile_tail_batch (pytorch#130152): a torch.export'ed module,
    # exported at batch 8, compiled and called with the last batch of 4: "Guard failed:
    # x.size()[0] == 8", said as a bug in torch with a disable fix that failed alike
    RuntimeFix(every("Guard failed:", "size()", "_guards_fn"),
               "Export with the sizes that vary marked dynamic: `torch.export.export(model, "
               "(example,), dynamic_shapes={\"x\": {0: torch.export.Dim(\"batch\")}})` "
               "(the argument's name and the dimension from the guard), or give every call "
               "the exported size (pad the last batch, or `drop_last=True` in the "
               "DataLoader).",
               stages=("dynamo", "aot", "runtime"), eager_fails=True,
               why="The call runs a torch.export'ed program (`exported.module()`), which "
                   "checks that its inputs have the sizes it was exported with (exported "
                   "without `dynamic_shapes` for that dimension): this input's size differs, "
                   "and the program's own guard raised. Eager running the "
                   "exported module raises the same AssertionError; nothing in torch.compile "
                   "is at fault."),
    # probes41d stance_decorated_debug_helper (pytorch#137504's docstring): a helper
    # decorated with `@torch.compiler.set_stance("force_eager")`, called from a compiled
    # forward; the fix was register_fake advice, `@torch.compiler.disable` worked
    RuntimeFix(one_of("Attempt to trace forbidden callable"),
               "Keep it out of the compiled region: decorate the helper with "
               "`@torch.compiler.disable` instead (it then runs in eager, a graph break at "
               "each call), or call it (and set any stance) outside the compiled function. "
               "`torch.compiler.set_stance` changes how compiled code runs from outside it "
               "and cannot be used inside a compiled region, as a decorator neither.",
               stages=("dynamo",),
               why="Dynamo refuses to trace this function and raises instead of breaking the "
                   "graph: it is one torch forbids inside a compiled region, such as the "
                   "wrapper `torch.compiler.set_stance` puts around a function it decorates, "
                   "or a function marked with `torch._dynamo.forbid_in_graph`."),
    # probes40e atexit_final_eval_compile: the first eval-mode call was in an atexit handler;
    # "InductorError: RuntimeError: cannot schedule new futures after interpreter shutdown"
    # was said as a kernel that failed to compile, with bisect and minify (both refused)
    RuntimeFix(one_of("cannot schedule new futures after interpreter shutdown",
                      "cannot schedule new futures after shutdown"),
               "Run the compiled code before the program ends, not from an `atexit` handler "
               "(or a thread still running at exit): call that step explicitly at the end of "
               "the script, in a `try/finally` if it must run on errors too, or call the model "
               "once on that input (its mode, grad mode and sizes) while the program runs, so "
               "its graph is compiled by the time the program exits.",
               stages=_EVERY_STAGE, circumstance=True,
               why="The compile ran while Python was shutting down (from an `atexit` handler, "
                   "or a thread at exit): Inductor compiles its kernels in a pool of workers, "
                   "and the interpreter had already shut that pool down, so the compile could "
                   "not start. Nothing is wrong with the graph or its kernels. Python prints "
                   "\"Exception ignored in atexit callback\" and the exit status stays 0, so "
                   "the work that handler did is silently lost."),
    # probes45c sampler_cxx_clang_fallback_eager: CXX named a compiler this machine lacks;
    # said as a kernel that failed to compile, with aot_eager, bisect and minify
    RuntimeFix(one_of("InvalidCxxCompiler", "No working C++ compiler"),
               "Point Inductor at a C++ compiler this machine has: unset CXX or set it to an "
               "installed one (`g++`), before torch is imported (Inductor reads it into "
               "`torch._inductor.config.cpp.cxx` when its config is imported), or set "
               "`torch._inductor.config.cpp.cxx = (None, \"g++\")`; or install the compiler "
               "it names.",
               stages=_EVERY_STAGE, circumstance=True,
               why="Inductor compiles its CPU kernels with the C++ compiler that "
                   "torch._inductor.config.cpp.cxx names (the CXX environment variable when "
                   "set, else g++), and none by that name runs here. Nothing is wrong with "
                   "the graph or its kernels."),
    # probes45g cond_dynamic_int_attn_bias (pytorch#188151): torch.cond under dynamic=True,
    # branches that make a tensor of symbolic sizes; said with the fake-kernel fix ("check
    # that the line runs in eager"), which it does
    RuntimeFix(every("cond's output stride is not", "Max(1,"),
               "Compile this function without `dynamic=True` (each size then gets its own "
               "graph), or make the choice outside `torch.cond`. torch's hint `.contiguous()` changes nothing "
               "here: the branches' tensors are dense already, and the check fails on the "
               "stride `Max(1, s)` dynamic shapes give a fresh tensor.",
               stages=("dynamo",),
               why="torch.cond checks that each branch's output strides are the running "
                   "product of its sizes; with the sizes symbolic, a fresh tensor's stride is "
                   "`Max(1, s)`, which the check does not recognise as that product. The code "
                   "is right and runs in eager: a limit of torch.cond under dynamic shapes.",
               names_change=True),
    # probes45g cop_default_args_backward (pytorch#162687): a custom op called with values
    # equal to its schema's defaults; the traced call drops them, and the backward
    # (register_autograd) returned a gradient per written argument; said with bisect alone
    RuntimeFix(one_of("Expected the return from backward to be of the same structure as the "
                      "inputs"),
               "Return one gradient per input of the call as torch traces it: a custom op "
               "called with arguments equal to its schema's defaults is traced without them, "
               "so declare no default values in the op's signature (pass every argument at "
               "each call), or make the backward's return match the inputs it is given.",
               stages=("aot", "runtime", "dynamo"),
               why="A custom autograd rule (`register_autograd` of a custom op, or a "
                   "torch.autograd.Function) returned gradients whose structure differs from "
                   "the inputs of the traced call; when the op has default arguments, torch "
                   "drops arguments equal to their default from the call it traces."),
    # probes44j saliency_grad_probe_bw_mutation (pytorch#172956): a tensor the compiled code
    # creates, saves for the backward and returns is written in place by the backward (a
    # custom Function accumulating gradients into it); the partitioner cannot place it.
    # Said with bisect alone ("aot_eager, no subsystem")
    RuntimeFix(one_of("was invalid, but is output"),
               "Do not write in the backward to a tensor the compiled code created and "
               "returns: allocate it outside the compiled function and pass it in (a graph "
               "input written in the backward is supported), or collect the gradient with a "
               "tensor hook (`x.register_hook(...)`) or by returning it, instead of an "
               "in-place write to a saved tensor.",
               stages=("aot", "runtime"),
               why="AOTAutograd's partitioner found a value that is both an output of the "
                   "forward and written in place by the backward (a tensor saved for the "
                   "backward, created inside the graph, that a custom autograd.Function's "
                   "backward mutates): it cannot decide which graph owns it. Eager has no "
                   "such split; the code runs there.",
               names_change=True),
    # probes40d local_sgd_param_average: `dist.all_reduce(p)` on each parameter in a compiled
    # averaging step; the fix was "check that the line runs in eager" (it raises there too)
    RuntimeFix(every("leaf Variable that requires grad", "in-place operation"),
               "Update parameters (or any leaf that requires grad) in place under `with "
               "torch.no_grad():`, as an optimizer's step does (here around the loop that "
               "writes them), or write into `p.detach()`; autograd forbids the in-place op "
               "on the leaf itself, in eager too.",
               stages=("runtime", "dynamo", "aot"), eager_fails=True,
               why="The line writes in place into a tensor autograd tracks as a leaf (a "
                   "parameter), outside no_grad: eager raises the same error."),
    # set25/gpu legacy_noise_floattensor (pytorch/pytorch#196467): `x + torch.cuda.FloatTensor(
    # x.size()).normal_(0, s)` failed with "Attempting to broadcast a dimension of length 2"
    RuntimeFix(one_of(*_LEGACY),
               "Use the current constructors: `torch.empty(x.size(), device=x.device, "
               "dtype=x.dtype)` (then `.normal_(...)`), or `torch.randn_like(x) * sigma` for "
               "noise; the legacy typed constructors are deprecated.",
               stages=("dynamo",),
               why="The line builds a tensor with a legacy typed constructor "
                   "(`torch.FloatTensor(...)`, `torch.cuda.FloatTensor(...)`). Given a size, "
                   "eager makes an uninitialised tensor of that shape, but Dynamo traces the "
                   "size as data, a tensor of those numbers (pytorch/pytorch#196467), so the op "
                   "that uses it sees the wrong shape."),
    # probes47e voxel_centroid_int_floordiv (#143649): `sums // counts` with empty voxels;
    # the fix read "check aot_eager ... bisect", and bisect answered "culprit: eager"
    RuntimeFix(one_of("ZeroDivisionError", "integer_div_error", "integer division by zero"),
               "An integer division or remainder at this line has a zero divisor on these "
               "values (a count of 0: an empty group, bin or voxel). Keep the divisor at least "
               "1 where it may be zero (`counts.clamp(min=1)`) and mask those entries, or "
               "divide in floating point; eager raises ZeroDivisionError on the same values.",
               why="Inductor's C++ kernel keeps eager's check for an integer division by zero "
                   "(`inductor_cpu_throw_if_integer_div_error`), so this is the program's "
                   "data, which eager rejects alike, not a miscompilation.", eager_fails=True),
    RuntimeFix(one_of("index out of bounds", "Class values must be smaller than num_classes",
                      "is out of bounds for dimension"),
               "Check the values that reach this line (the message gives the index and its "
               "bound): a token id past the vocabulary, a cache position past its length, a "
               "label not below num_classes. Run the same call without torch.compile to see "
               "eager raise on them too; only if eager runs it cleanly is the compiled code at "
               "fault.",
               why="An index reached an op outside the tensor it indexes. Inductor's kernels "
                   "keep eager's index checks (a C++ TORCH_CHECK, a Triton device assert), so "
                   "this is the program's data, which eager rejects alike, not a "
                   "miscompilation; compdiag's minifier cannot shrink a graph that fails in "
                   "eager too.", eager_fails=True),
    # set28/gpu cg_train_step_backward_break: a whole train step under reduce-overhead; SGD's
    # momentum buffers, made by `grad.detach().clone()` inside the graphed step, were
    # overwritten by its next replay, which Dynamo met while tracing the step again (said as
    # "an internal error of torch")
    RuntimeFix(every("overwritten by a subsequent run", "torch/optim/"),
               "Keep the optimizer step out of the CUDA-graphed function: compile the forward "
               "and loss with mode='reduce-overhead' and call `loss.backward()` and "
               "`opt.step()` outside it, or compile the step on its own without CUDA graphs "
               "(`torch.compile(opt.step)`, default mode).",
               stages=("dynamo", "runtime"),
               why="The optimizer's step ran inside a CUDA graph (mode='reduce-overhead'), so "
                   "the state it creates on its first step (SGD's momentum buffers, Adam's "
                   "exp_avg) is an output of that graph, kept in its static memory pool, and "
                   "the next replay overwrote it while the optimizer still holds it."),
    RuntimeFix(every("overwritten by a subsequent run"),
               "A CUDA graph's output was read after a later replay of the same graph reused "
               "its memory (mode='reduce-overhead' keeps outputs in the graph's static pool "
               "until the next step). torch's two fixes: clone the output before the next call "
               "(`out = model(x).clone()`, outside torch.compile) if you keep it across calls, "
               "or call `torch.compiler.cudagraph_mark_step_begin()` before each model "
               "invocation so cudagraph_trees knows a new iteration starts.",
               stages=("dynamo", "runtime")),
    # Guard building (after the graph compiled) met a size no input of the compiled function
    # gives (`symbol_to_source[symbol][0]`, an IndexError): a jagged nested tensor made inside
    # the compiled code (probes33g packed_jagged_encoder, pytorch#183369, #182217), or an
    # `out=` tensor resized inside it (#130066)
    RuntimeFix(every("symbol_to_source", "nested"),
               "Build the jagged tensor outside the compiled function and pass it in "
               "(`torch.nested.nested_tensor(..., layout=torch.jagged)` in the collate step, "
               "or `nested_tensor_from_jagged(values, offsets)` before the call), or pad to a "
               "dense batch before the compiled code; or keep the op on it out of the "
               "compiled code (a `torch.compiler.disable` helper).",
               stages=("dynamo",),
               why="Dynamo traced the graph, then failed building its guards: an op on a "
                   "jagged nested tensor made inside the compiled function (the log names "
                   "torch's nested ops) needs a guard on the tensor's ragged size, which no "
                   "input of the function gives, so torch has no source to check it against "
                   "(pytorch/pytorch#183369, #182217: torch's bug; eager runs it)."),
    RuntimeFix(every("symbol_to_source"),
               "Make the size torch needs to guard come from an input: create the tensor "
               "outside the compiled function and pass it in (not an `out=` tensor resized "
               "inside it), or keep the line that makes it out of the compiled code (a "
               "`torch.compiler.disable` helper); report the repro to PyTorch.",
               stages=("dynamo",),
               why="Dynamo traced the graph, then failed building its guards: a guard needs a "
                   "size that no input of the compiled function gives (a size made inside "
                   "it), and torch has no source to check it against (pytorch/pytorch#130066: "
                   "torch's bug; eager runs it)."),
    # a nested compile region traced anew at every call (probes34c deepnorm_nested_region:
    # a per-layer Python float scale; said as torch's internal error)
    RuntimeFix(every(REUSE_LIMIT),
               "Make the region's arguments the same at every call: pass numbers that change "
               "per call as tensors, and keep shapes, dtypes and Python values of the other "
               "arguments fixed, so one subgraph is reused.",
               stages=("dynamo",),
               why="A function under torch.compiler.nested_compile_region is traced once and "
                   "its subgraph reused while its guards hold; an argument that differs at "
                   "every call (a Python number, another shape) fails them, and torch stops "
                   "after 8 subgraphs of one function."),
    RuntimeFix(every("not allocated in pool"),
               "Unset PYTORCH_NO_CUDA_MEMORY_CACHING for compiled runs, or compile this "
               "function without CUDA graphs (mode='default').",
               why="CUDA graphs (mode='reduce-overhead') keep every output in the graph's "
                   "private pool of the CUDA caching allocator; an output outside it means the "
                   "caching allocator was bypassed (PYTORCH_NO_CUDA_MEMORY_CACHING=1, a "
                   "memory-debugging setting, set in the environment or by the program before "
                   "its first CUDA allocation) or an op allocated it another way (a custom op "
                   "whose fake kernel says it aliases an input)."),
    RuntimeFix(one_of("during CUDA graph capture", "when stream is capturing",
                      "cudaErrorStreamCaptureUnsupported"),
               "Call it once before capturing, outside `torch.cuda.graph`, so it compiles "
               "there and the capture only runs it; or let torch.compile record CUDA graphs "
               "itself (mode='reduce-overhead').",
               stages=("dynamo", "aot", "inductor_lowering", "inductor_codegen",
                       "kernel_compile", "runtime"),
               why="The compiled function ran for the first time, and so compiled, inside a "
                   "CUDA graph capture (`torch.cuda.graph(...)`): compiling does work a capture "
                   "forbids (copies between CPU and GPU, reading the CUDA generator's state)."),
    RuntimeFix(one_of("out of memory", "can't allocate memory", "OutOfMemoryError",
                      "cannot allocate memory"),
               "The compiled code could not allocate the output buffer of the ops at this "
               "line: check the sizes they were called with (the message says how many bytes "
               "were asked for), then run the same call in eager (`backend='eager'`, or "
               "without torch.compile): if eager fails alike, the sizes are the problem, not "
               "torch.compile; if only compiled code runs out, Inductor keeps more buffers "
               "alive at once than eager (try `torch._inductor.config.memory_planning = True`, "
               "a smaller batch, or compile a smaller region).",
               why="Inductor allocates each kernel's output buffer in the generated wrapper "
                   "before the kernel runs; the allocation failed for the buffer of the ops at "
                   "this line."),
    RuntimeFix(every("must match the size", "_copy_inputs_and_remove_from_src"),
               "Give the CUDA graph the sizes it was recorded for: compile with "
               "mode='reduce-overhead' (Inductor's CUDA-graph trees record one graph per "
               "input size) rather than backend='cudagraphs', pad inputs to a few fixed "
               "sizes, or compile with dynamic=False so each size gets a graph, and a "
               "recording, of its own.",
               why="The call replayed a CUDA graph (cudagraph_trees) recorded for other input "
                   "sizes: replay copies each new input into the static input buffer recorded "
                   "at the first sizes, and a batch of another size does not fit it (the "
                   "compiled graph took the sizes as dynamic, so no guard recompiled or "
                   "re-recorded it)."),
    RuntimeFix(every("backward through the graph a second time"),
               "AOTAutograd makes one CompiledFunctionBackward node per compiled graph and frees "
               "its saved tensors after the first backward(), so a second backward() through "
               "another output of the same graph fails where eager keeps one node per op "
               "(pytorch/pytorch#118739): call backward() once on the sum of the outputs, or "
               "pass `retain_graph=True` to the first backward()."),
    RuntimeFix(every("CompiledFunction", "is a view and is being modified inplace"),
               "An output of the compiled function is a view created inside AOTAutograd's "
               "CompiledFunction, and autograd forbids modifying it in place afterwards "
               "(pytorch/pytorch#90507): clone it first (`out = out.clone()`), or do the "
               "in-place op inside the compiled function."),
    RuntimeFix(every("fail_on_recompile"),
               "The call needed a new graph, which `torch.compiler.set_stance("
               "\"fail_on_recompile\")` forbids; the guard in torch's message says what "
               "changed. Call it with inputs like the ones it was compiled for (same dtype, "
               "device, rank), mark the varying dimension dynamic before the first call, or set "
               "the stance only after warming up every variant."),
    # probes30b hessian_potential: vmap(hessian(f)) in a compiled function tripped an
    # assertion in torch's own C++ while Dynamo ran a node on fake tensors; force_eager ran it,
    # and jacrev(jacrev(f)) compiled: nothing in the program to fix
    RuntimeFix(every("INTERNAL ASSERT FAILED"),
               "This is a bug in torch (its own assertion failed: \"please report a bug to "
               "PyTorch\"), met while Dynamo traced this line; the program is not wrong. Work "
               "around it: run this part uncompiled (`torch.compiler.disable` on a helper, or "
               "compile only what comes after it), or write it another way (for torch.func, "
               "`jacrev(jacrev(f))` in place of `hessian(f)`, which uses forward-mode AD); and "
               "report it to PyTorch with the line and torch's message.",
               stages=("dynamo", "aot", "inductor_lowering", "runtime"),
               why="torch's own C++ assertion failed (an internal error of torch, not of the "
                   "program's code)."),
    RuntimeFix(every("Recompiling function", "triggered by the following guard failure"),
               "`torch._dynamo.config.error_on_recompile = True` turned a recompile into an "
               "error; the guard in torch's message says what changed between the calls. Call "
               "the function with inputs like the first ones (same dtype, device, rank), mark "
               "a varying dimension dynamic, or unset error_on_recompile if the recompile is "
               "expected.", stages=("dynamo",)),
    # probes35b mixup_randperm_pairs: `x[torch.randperm(n)]` crashed Inductor's
    # randperm_index_pattern ("Not all inputs to pattern found in match.kwargs") in
    # joint_graph_passes, said as a lowering failure; pattern_matcher=False compiled it
    RuntimeFix(every("_inductor/pattern_matcher.py"),
               "Work around it with `torch._inductor.config.pattern_matcher = False` (Inductor "
               "then skips its pattern rewrites: the compiled code may be slower, not wrong), "
               "or write the ops the pattern matched another way (pass an index computed "
               "outside the compiled function, say); and report it to PyTorch with the repro "
               "`compdiag minify` writes.",
               stages=("aot", "inductor_lowering", "inductor_codegen"),
               why="It was raised inside Inductor's pattern matcher, which rewrites known op "
                   "patterns in the graph before lowering (its fx_passes): one pattern's own "
                   "code failed on this graph, a bug in torch, not in the program."),
    # probes36a allgather_scalar_metric: `dist.all_gather(per_rank, loss)` of a 0-d loss in a
    # compiled eval step failed in gloo ("invalid size of output tensor at index 0 (expected
    # length (), got (1))") while eager ran it; the fix offered aot_eager, which fails alike
    RuntimeFix(Words(all=("_c10d_functional.",), any=("invalid size", "expected length",
                                                       "size of output")),
               "Run the collective outside the compiled function (after the compiled call "
               "returns, or in a helper decorated `@torch.compiler.disable`), or give it the "
               "shape the functional form handles (`t.reshape(1)` for a 0-d tensor, then "
               "`torch.cat` of the gathered pieces); `backend='aot_eager'` fails the same way, "
               "since the rewrite is Dynamo's, not Inductor's.",
               why="Dynamo rewrote the `torch.distributed` call into a functional collective "
                   "(`_c10d_functional.*`), which handles its tensors by other rules than "
                   "the call in eager; the process group refused what the rewrite gave it."),
    # probes39a njt_jagged_embedding_pool_fail: an eval-mode scoring model on a nested jagged
    # tensor failed at compile time on `aten._nested_sum_backward` (the parameters require
    # grad); the fix offered aot_eager, which fails alike, where `torch.no_grad()` ran it
    RuntimeFix(one_of("_backward.default", "derivative for"),
               "If this code needs no gradient (scoring, evaluation), run the compiled call "
               "under `torch.no_grad()` or `torch.inference_mode()`: the backward is then not "
               "traced. To train through it, the op needs another, differentiable form (or a "
               "custom autograd rule). `backend='aot_eager'` fails the same way: AOTAutograd, "
               "not Inductor, traces the backward.",
               stages=("aot",),
               why="AOTAutograd traces the backward together with the forward whenever an "
                   "input or parameter requires grad, and torch has no backward for this op "
                   "on these inputs (a tensor subclass such as a nested tensor, or an op "
                   "without a derivative): eager would fail only when backward() ran, the "
                   "compile fails ahead of it."),
    RuntimeFix(every("expected size", "stride"),
               "The compiled code checked a tensor's size/stride and it differed from what the "
               "graph was traced with: usually a custom op's fake (meta) kernel that returns "
               "another shape or layout than the real kernel; fix its `register_fake` and check "
               "it with `torch.library.opcheck`."),
)


def known_error(message: str | None, stage: str = "runtime") -> RuntimeFix | None:
    """The first rule of RUNTIME_FIXES for `stage` whose words are in `message`."""
    return first(((r.when, r) for r in RUNTIME_FIXES if stage in r.stages), message)


def runtime_fix(message: str | None, stage: str = "runtime") -> str | None:
    rule = known_error(message, stage)
    return rule.fix if rule else None


def eager_fails(message: str | None, stage: str = "runtime") -> bool:
    """Whether the known error is one eager raises on the same values (RuntimeFix.eager_fails)."""
    rule = known_error(message, stage)
    return bool(rule and rule.eager_fails)


def circumstance(message: str | None, stage: str = "runtime") -> bool:
    """Whether the known error is the circumstance's, not the graph's (RuntimeFix.circumstance):
    no bisect or minify, and its `why` replaces the stage's words."""
    rule = known_error(message, stage)
    return bool(rule and rule.circumstance)


def runtime_why(message: str | None, stage: str = "runtime") -> str | None:
    """What a known error means, where its rule says (RuntimeFix.why); None otherwise."""
    rule = known_error(message, stage)
    return (rule.why or None) if rule else None
