"""compdiag/formats: the leaf every layer imports. It imports nothing of compdiag above it,
loads without torch, and its one definition of user code is the union of the old three."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from compdiag.formats.tolerances import default_tol, user_tol
from compdiag.formats.user_code import is_user_file

FORMATS = Path(__file__).resolve().parents[1] / "compdiag" / "formats"


def test_formats_imports_nothing_of_compdiag_outside_formats():
    for path in FORMATS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                if name.split(".")[0] == "compdiag":
                    assert name.startswith("compdiag.formats"), f"{path.name} imports {name}"


def test_formats_load_without_torch():
    code = """
import sys
class NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("no torch here")
sys.meta_path.insert(0, NoTorch())
import compdiag.formats.failure_graph as fg, compdiag.formats.signature as sig
import compdiag.formats.tolerances as tol, compdiag.formats.user_code as uc
assert fg.RECORD_KIND == "failure_graph" and fg.FORMAT_VERSION == 1
assert sig.signature(ValueError("x 12 at /a/b.py")) == ("ValueError", "x N at <path>")
assert tol.default_tol("float16") == 1e-2 and uc.is_user_file("/home/me/train.py")
assert "torch" not in sys.modules
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("path", [
    "/home/me/pytorch/torch/_refs/__init__.py",        # a torch checkout (ingest's rule)
    "/home/me/pytorch/torch/_dynamo/eval_frame.py",
    "/other/box/compdiag/capture/child.py",            # compdiag's capture, in a foreign log
    "compdiag/capture/failure_graphs.py",              # the same, its checkout's root taken off
    "/tmp/torchinductor_root/ab/cabc.py",              # Inductor's generated code (capture's)
    "/usr/lib/python3.13t/runpy.py",                   # a free-threaded build's stdlib
    "/usr/lib/python3/dist-packages/numpy/core.py",
    "C:\\Users\\me\\env\\Lib\\site-packages\\torch\\nn\\modules\\module.py",
    sys.prefix + "/bin/tool.py",                       # this python's prefix (capture's)
    str(FORMATS.parent / "cli.py"),                    # compdiag itself
    "<frozen runpy>", "", None, 7,
])
def test_not_user_code(path):
    assert not is_user_file(path)


@pytest.mark.parametrize("path", ["/home/me/project/train.py", "/tmp/pytest-7/test_x0/model.py",
                                  "relative/script.py", "C:\\work\\proj\\train.py"])
def test_user_code(path):
    assert is_user_file(path)


def test_tolerances_are_same_defaults_and_user_overrides():
    torch = pytest.importorskip("torch")
    assert [default_tol(d) for d in (torch.float16, torch.bfloat16, torch.float32,
                                     torch.float64, torch.int64)] == [1e-2, 1e-2, 1e-4, 1e-7, 1e-4]
    assert user_tol(None, None) is None
    assert user_tol(1e-3, None) == 1e-3 and user_tol(None, 1e-5) == 1e-5
    assert user_tol(1e-3, 1e-2) == 1e-2


def test_repro_oracle_is_self_contained():
    """The blocks the repro copies run on their own and name nothing of compdiag."""
    from compdiag.minify.checker import oracle_source

    text = oracle_source()
    assert "compdiag" not in text.replace("compdiag oracle", "")
    ns: dict = {}
    exec(compile(text, "<oracle>", "exec"), ns)
    assert {"signature", "innermost", "default_tol", "mismatch", "run_case",
            "run_dynamo_case"} <= set(ns)
    assert ns["signature"](RuntimeError("bad 3 in /a/b.py")) == ("RuntimeError", "bad N in <path>")


def test_a_torch_outside_the_tested_range_gets_a_note_not_a_refusal():
    from compdiag.formats import torch_versions as V

    assert V.note("2.13.0+cpu") is None and V.note("2.15.0+cu132") is None
    newer = V.note("2.16.0.dev20261201+cu132")
    assert newer.startswith("torch 2.16.0.dev20261201+cu132 is newer") and "2.15" in newer
    assert "older" in V.note("2.10.0") and V.note("not a version") is None


def test_pyproject_caps_no_torch_release():
    """pip must never downgrade the user's torch for compdiag (issue: 2.15 planned 2.14.1)."""
    import re

    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    (torch_req,) = re.findall(r'"(torch[^"]*)"', text.split("dependencies = [", 1)[1]
                              .split("]", 1)[0])
    assert torch_req == "torch>=2.11"


def test_a_target_this_process_lacks_is_an_unsupported_graph() -> None:
    """A kept graph's custom op that only the program registers (torch.ops.demo.x) cannot be
    resolved in minify's process: UnsupportedGraph (minify's one line), never the
    AttributeError torch.ops raised (a traceback from `compdiag minify`)."""
    import pytest

    from compdiag.formats.failure_graph import UnsupportedGraph, resolve_target
    with pytest.raises(UnsupportedGraph, match="not defined in this process"):
        resolve_target("torch.ops.compdiag_nowhere.col_major_scale.default")
    assert callable(resolve_target("torch.ops.aten.relu.default"))


def test_a_prim_torch_defines_on_import_resolves_in_a_fresh_process():
    """Inductor's prims (prims.fma, prims.inductor_random) exist only once torch's module that
    makes them is imported: minify, in a fresh process, said "torch.ops.prims.fma.default is not
    defined in this process (a custom op only the program registers)" for a graph with
    dropout. torch's own namespaces now import torch's fixed modules for them; an op torch does
    not define says so, never that a program registered it. Found by a probe."""
    import subprocess
    import sys

    code = ("from compdiag.formats.failure_graph import resolve_target, UnsupportedGraph\n"
            "print(resolve_target('torch.ops.prims.fma.default').__name__)\n"
            "try:\n    resolve_target('torch.ops.prims.no_such_prim.default')\n"
            "except UnsupportedGraph as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0].startswith("fma")
    assert "is not defined by this torch" in out[1] and "custom op" not in out[1]


def test_a_compound_statements_header_names_its_call():
    """set23/gpu sdp_kernel_deprecated_ctx: "Unsupported context manager" at
    `with torch.backends.cuda.sdp_kernel(...):` named no manager: the header did not parse
    alone. Parsed with an empty body, it names the call, as any other line does."""
    from compdiag.formats.code_text import called

    assert called("with torch.backends.cuda.sdp_kernel(enable_flash=True):") == \
        "torch.backends.cuda.sdp_kernel"
    assert called("if torch.isfinite(x).all():") == "torch.isfinite"
    assert called("dist.broadcast_object_list(flag, src=0)") == "dist.broadcast_object_list"
    assert called("else:") is None and called("x = (") is None
