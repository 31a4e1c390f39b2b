"""What counts as compiled code in a stack: the frames (and, for errors raised in C++ with no
Python frame of torch's, the words) that say an exception or a crash came through what
torch.compile made. One definition for capture (an escaping exception) and analyses (a native
crash's Python stack, dumped by faulthandler)."""

from __future__ import annotations

from typing import Any, Iterable


from compdiag.formats import lazy_re
from compdiag.formats.user_code import is_user_file

# The code object Dynamo makes to run the rest of a function after a graph break is named
# torch_dynamo_resume_in_<function>_at_<line>, its first line the line of the break; the
# values on the stack at the break (what the code there computed) are its arguments
# ___stack0, ___stack1, ...
RESUME_PREFIX = "torch_dynamo_resume_in_"
# (torch 2.11 guards a float from the stack as `___as_tensor(___stack0).item()`: set27/gpu
# fp8_amax_item_break, a recompile per value ranked above the break that caused it)
_STACK_VALUE = lazy_re.compile(
    r"""^(?:___as_tensor\()?(?:L\[['"])?___stack\d+(?:['"]\])?(?:[.\[)]|$)""")


def is_resume_function(name: str | None) -> bool:
    """Whether a code object is one Dynamo made to resume a function after a graph break."""
    return bool(name) and name.startswith(RESUME_PREFIX)


_RESUMED = lazy_re.compile(r"^torch_dynamo_resume_in_(.+)_at_\d+$")


def resumed_function(name: str | None) -> str | None:
    """The user's function a resume function resumes (`torch_dynamo_resume_in_fn_at_18` is
    `fn` after its break at line 18; a resume of a resume is unwrapped too): the name a user
    can decorate, search for or pass to a setting. Any other name is returned as it is."""
    while name and name.startswith(RESUME_PREFIX):
        m = _RESUMED.match(name)
        if not m:
            break
        name = m.group(1)
    return name


def is_stack_value(source: str | None) -> bool:
    """Whether a guarded source is a value a resume function was passed from the stack at
    its graph break (`___stack0`, `L['___stack0']`, or its size `L['___stack0'].size()[0]`),
    not one of the function's own inputs."""
    return bool(source) and bool(_STACK_VALUE.match(source))

# A frame of one of these files means the stack came through compiled code (its name is
# what explain says it came through). Inductor's output modules live in its cache dir
# (TORCHINDUCTOR_CACHE_DIR, default /tmp/torchinductor_USER): the trace names them, the
# 'torchinductor_' prefix finds them in a store without that record.
COMPILED_FRAMES: tuple[tuple[str, str], ...] = (
    ("torch/_inductor/cudagraph_trees.py", "cudagraph trees"),
    ("torch/_inductor/output_code.py", "an Inductor compiled module"),
    ("torchinductor_", "an Inductor output module"),
    ("torch/_functorch/_aot_autograd/", "AOTAutograd's runtime wrappers (CompiledFunction)"),
    ("torch/_dynamo/convert_frame.py", "Dynamo's convert_frame (a compile)"),
    ("torch/_inductor/compile_fx.py", "Inductor's compile_fx (a compile)"),
    ("torch/_dynamo/eval_frame.py", "Dynamo's eval frame (a compiled function's call)"),
)
# Errors of compiled code raised in C++ with no Python frame of torch's: autograd's checks on
# compiled outputs name the compiled autograd node, cudagraph trees the CUDA graph.
COMPILED_WORDS: tuple[tuple[str, str], ...] = (
    ("CompiledFunction", "AOTAutograd's CompiledFunction (autograd on a compiled output)"),
    # A CUDA graph's output poisoned by a later replay raises from C++ at the user's own line.
    ("overwritten by a subsequent run", "cudagraph trees (a CUDA graph's reused output)"),
    ("CUDAGraphs", "cudagraph trees"),
)
# Frames of a compile in progress (Dynamo tracing, AOTAutograd, Inductor lowering/codegen):
# an exception whose stack passed through them escaped a compile, never the program's own.
# (Not AOTAutograd's module: its `forward` is on the path of every compiled call at run time.)
COMPILE_FRAMES = ("torch/_dynamo/convert_frame.py", "torch/_inductor/compile_fx.py",
                  "torch/_dynamo/symbolic_convert.py", "torch/_inductor/graph.py",
                  "torch/_inductor/lowering.py",
                  # torch.export tracing the program (non-strict runs its Python under
                  # make_fx, inside eval_frame's `disable` wrapper: never a compiled call;
                  # probes44c export_peak_norm_data_branch was "failed while running")
                  "torch/export/_trace.py")


def in_a_compile(files: Iterable[str]) -> bool:
    """Whether a stack (its frames' files) passes through a compile in progress."""
    return any(m in f for f in files for m in COMPILE_FRAMES)


# torch's compile API itself: `torch.compile(...)` (which `nn.Module.compile()` calls) checks
# what it is given and wraps it; it compiles nothing and runs nothing compiled. An exception
# raised below its frame is torch.compile() refusing its argument (a TorchScript module, an
# unknown backend or mode) at the user's call, before any compile: never compiled code
# failing while it ran, and nothing bisect or minify could narrow (issue 29 §3).
COMPILE_API_FRAMES: tuple[tuple[str, str], ...] = (("torch/__init__.py", "compile"),)


def compile_api_refusal(frames: list[tuple[str, str]]) -> bool:
    """Whether a stack's (filename, function name) frames, outermost first, pass through
    torch's compile API call itself (COMPILE_API_FRAMES)."""
    return any(file.replace("\\", "/").endswith(api) and name == fn
               for file, name in frames for api, fn in COMPILE_API_FRAMES)


def compiled_marker(files: list[str], message: str, generated: set[str]) -> str | None:
    """What compiled code the stack came through (None: none of it), innermost first.
    An exception the user's own code raised (its innermost frame is the user's `raise` or
    `assert`) is the program's, even inside a compiled function's call."""
    raised_by_user = bool(files) and is_user_file(files[-1]) and files[-1] not in generated
    for f in reversed(files if not raised_by_user else []):
        if f in generated:
            return "an Inductor output module"
        for marker, what in COMPILED_FRAMES:
            if marker in f:
                return what
    return next((what for word, what in COMPILED_WORDS if word in message), None)


def first_compiled(files: list[str], generated: frozenset[str] = frozenset()) -> int | None:
    """The index of the outermost frame (files outermost first) that is compiled code: the
    frames before it are the program's, the last user one of them the compiled call's site."""
    for i, f in enumerate(files):
        if f in generated or any(marker in f for marker, _ in COMPILED_FRAMES):
            return i
    return None


def compiled_in(files: list[str]) -> str | None:
    """What compiled code a stack was running, the most specific COMPILED_FRAMES names
    (an Inductor module over the eval frame that called it, or over torch's own
    `disable` wrappers deeper in), whoever raised: for a native crash, whose innermost Python
    frame says nothing of who crashed."""
    return next((what for marker, what in COMPILED_FRAMES if any(marker in f for f in files)),
                None)


# An error a GPU kernel raised asynchronously: CUDA reports it at the next call that waits for
# the device, so the line a traceback ends at says where it surfaced, not where it happened.
ASYNC_DEVICE_WORDS = ("device-side assert triggered", "asynchronously reported",
                      "illegal memory access", "misaligned address")


def async_device_error(text: str | None) -> bool:
    """Whether `text` (an exception's message, the end of stderr) is such an error's."""
    low = (text or "").lower()
    return any(w in low for w in ASYNC_DEVICE_WORDS)


def stack_files(frames: list[dict[str, Any]]) -> list[str]:
    """The files of a stack's frames (outermost first) for the markers above, with "" for
    frames that are neither compiled code nor a compile: a library module's `<module>` frame
    (its import: a first torch.compile() importing Inductor's compile_fx) and every frame
    below torch's compile API call (COMPILE_API_FRAMES: torch.compile() wrapping its argument,
    which runs and compiles nothing)."""
    out: list[str] = []
    api = False
    for f in frames:
        file = (f.get("filename") or "").replace("\\", "/")
        api = api or any(file.endswith(a) and f.get("name") == n for a, n in COMPILE_API_FRAMES)
        out.append("" if api or (f.get("name") == "<module>" and not is_user_file(file))
                   else f.get("filename") or "")
    return out


# The code objects torch compiles in place of the user's function: torch.compile(module) of a
# module of torch.nn's own compiles torch/_dynamo/external_utils.py's `inner` around the
# module's call, and nn.Module's call machinery (analyses/compile_names.py names them).
TORCH_WRAPPERS = frozenset({"inner", "_call_impl", "_wrapped_call_impl", "__call__"})
