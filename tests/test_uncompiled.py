"""A run that asked torch.compile for compiled code and ran none (analyses/uncompiled.py;
capture/config_sets.py keeps each torch.compile and nn.Module.compile call of the user's).
probes34c two_tower_index: `model.compile()`, then only `model.encode_doc(...)` and
`model.encode_query(...)` were called, so nothing compiled, and explain said "0 compiles; no
problems found". Real runs (nothing compiles, so they are quick); the program's output and
exit status are its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cdtest import base_env, compdiag_args

TOWERS = '''import torch


class Towers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q = torch.nn.Linear(8, 4)

    def encode(self, x):
        return self.q(x)

    def forward(self, x):
        return self.encode(x)


model = Towers().eval()
model.compile()
with torch.no_grad():
    print(model.encode(torch.ones(2, 8)).shape)
'''
NEVER_CALLED = '''import torch


def step(x):
    return x * 2


fast = torch.compile(step)
print(step(torch.ones(3)).sum().item())
'''


def _run(tmp_path: Path, source: str) -> tuple[subprocess.CompletedProcess, dict]:
    script = tmp_path / "prog.py"
    script.write_text(source)
    env = base_env()
    plain = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=300)
    ran = subprocess.run(compdiag_args("run", "--store", tmp_path / "s.db", script),
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert (ran.returncode, ran.stdout) == (plain.returncode, plain.stdout), ran.stderr
    doc = subprocess.run(compdiag_args("explain", "--store", tmp_path / "s.db", "--json"),
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    return ran, json.loads(doc.stdout)


def test_a_compiled_module_whose_methods_are_called_directly_says_nothing_compiled(tmp_path):
    _, doc = _run(tmp_path, TOWERS)
    (top,) = [d for d in doc["diagnoses"] if d["severity"] == "problem"]
    assert top["kind"] == "perf" and top["user_frame"]["lineno"] == 19, top
    assert top["reason"].startswith("nothing was compiled: `model.compile()` (line 17)")
    assert "`model.encode(...)` (line 19)" in top["reason"]
    assert "model.encode = torch.compile(model.encode)" in top["fix"]


def test_a_compiled_function_never_called_says_so_at_its_line(tmp_path):
    _, doc = _run(tmp_path, NEVER_CALLED)
    (top,) = [d for d in doc["diagnoses"] if d["severity"] == "problem"]
    assert top["user_frame"]["lineno"] == 8, top
    assert top["reason"] == ("nothing was compiled: the program never ran what `fast = "
                             "torch.compile(step)` (line 8) compiled")


def test_a_program_that_raised_before_any_compiled_call_is_not_also_uncompiled(tmp_path):
    """probes34f finetune_load_pretrained: `model.load_state_dict(...)` on the compiled
    wrapper raised before the first compiled call; the program error was the top, and a
    "nothing was compiled" perf problem came third, a consequence of that crash."""
    crash = "model.compile()\nraise RuntimeError('bad checkpoint')\n"
    ran, doc = _run(tmp_path, TOWERS.replace("model.compile()\n", crash))
    assert ran.returncode == 1
    assert not [d for d in doc["diagnoses"] if d["reason"].startswith("nothing was compiled")]


def test_a_method_called_on_the_compiled_wrapper_is_the_original_modules(tmp_path):
    """probes36b gpt2_generate_on_wrapper, blind: `model = torch.compile(model)`, then only
    `model.generate(...)`: the wrapper hands `generate` to the original module, whose calls
    of itself run uncompiled, and nothing compiled. The fix said to call what torch.compile
    returned, which the program did. Now: the wrapper's method at its line, and the fix that
    compiles the module in place."""
    wrapped = TOWERS.replace("model.compile()\n", "model = torch.compile(model)\n")
    _, doc = _run(tmp_path, wrapped)
    (top,) = [d for d in doc["diagnoses"] if d["severity"] == "problem"]
    assert top["user_frame"]["lineno"] == 19, top
    assert "the wrapper passes them to the original module" in top["reason"]
    assert "`model.compile()` in place of line 17" in top["fix"]


def test_a_forward_called_directly_goes_around_the_compiled_call(tmp_path):
    """probes38c module_compile_forward_bypass, blind: `model.compile()`, then the training
    loop calls `model.forward(x)`; explain said the program never ran what line 23 compiled,
    with a fix about torch.compile's return value. `forward` counted as nn.Module's own API.
    Now: at the `.forward(...)` call, with the fix to call the module."""
    _, doc = _run(tmp_path, TOWERS.replace("model.encode(", "model.forward("))
    (top,) = [d for d in doc["diagnoses"] if d["severity"] == "problem"]
    assert top["user_frame"]["lineno"] == 19, top
    assert "calls `model.forward(...)` directly (line 19)" in top["reason"], top["reason"]
    assert "`model(x)` in place of `model.forward(x)`" in top["fix"], top["fix"]


def test_every_compiled_result_left_unused_is_named(tmp_path):
    """probes38j focal_compile_result_unused, blind: `torch.compile(model)` (line 19) and
    `torch.compile(focal_loss)` (line 20), neither result kept; explain named line 19 only."""
    two = NEVER_CALLED.replace("fast = torch.compile(step)\n",
                               "fast = torch.compile(step)\nslow = torch.compile(step)\n")
    _, doc = _run(tmp_path, two)
    (top,) = [d for d in doc["diagnoses"] if d["severity"] == "problem"]
    assert top["reason"].endswith("(nor line 9's `slow = torch.compile(step)`)"), top["reason"]


POOLED = '''import multiprocessing as mp

import torch


@torch.compile(backend="eager")
def score(x):
    return (x * 2).sum()


if __name__ == "__main__":
    with mp.get_context("spawn").Pool(1) as pool:
        print(pool.map(score, [torch.ones(3), torch.ones(4)]))
'''


def test_a_function_compiled_in_worker_processes_is_information_at_the_pool(tmp_path):
    """probes41d pool_map_compiled_scorer_ok, blind: an `@torch.compile` function a spawned
    Pool ran compiled in its workers was "nothing was compiled: the program never ran what
    `@torch.compile` (line 22) compiled", a problem on a correct program. Capture keeps the
    worker's start (capture/processes.py): this process compiled nothing, the workers did."""
    _, doc = _run(tmp_path, POOLED)
    assert not [d for d in doc["diagnoses"] if d["severity"] == "problem"], doc["diagnoses"]
    (info,) = [d for d in doc["diagnoses"] if d["kind"] == "perf"]
    assert info["user_frame"]["lineno"] == 12, info
    assert info["reason"].startswith("nothing was compiled in this process: the program "
                                     "started worker processes (line 12")


PARTLY = '''import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)

    def embed(self, x):
        return self.body(x).relu()

    def forward(self, x):
        return self.embed(x).sum(-1)


model = Net().eval()
cmodel = torch.compile(model, backend="eager")
with torch.no_grad():
    print(cmodel(torch.ones(2, 8)).shape)
    for _ in range(3):
        print(cmodel.embed(torch.ones(2, 8)).shape)
'''


def test_methods_called_on_a_compiled_wrapper_run_in_eager_beside_its_compiled_call(tmp_path):
    """probes41c timm_forward_features_wrapper_eager (pytorch#141616), blind: one `cmodel(x)`
    compiled, and the loop's `cmodel.forward_features(x)` / `cmodel.forward_head(...)` ran in
    eager; explain said "no problems found"."""
    _, doc = _run(tmp_path, PARTLY)
    (top,) = [d for d in doc["diagnoses"] if d["severity"] == "problem"]
    assert top["kind"] == "perf" and top["user_frame"]["lineno"] == 21, top
    assert top["reason"].startswith("`cmodel.embed(...)` (line 21) runs in eager: `cmodel = "
                                    "torch.compile(model, backend=\"eager\")` (line 17)")
    assert "model.embed = torch.compile(model.embed)" in top["fix"]


def test_a_reset_method_that_only_sets_state_is_not_said_to_run_in_eager() -> None:
    """probes43e stream_decoder_count_clock_recompile, blind: `dec.reset()` on the compiled
    wrapper was "runs in eager", with the fix `StreamingDecoder().eval().reset =
    torch.compile(StreamingDecoder().eval().reset)`: reset only rebinds attributes (nothing
    to compile), and the fix built two new models. Neither is said now."""
    from compdiag.analyses.uncompiled import _plain, _state_setters

    src = ["class Dec:", "    def reset(self):", '        """Start over."""',
           "        self._clock = iter(range(9))", "        self.h = None",
           "    def step(self, x):", "        self.h = x * 2", "        return self.h"]
    setters = _state_setters(src)
    assert "reset" in setters and "step" not in setters and "missing" not in setters
    assert _plain("StreamingDecoder().eval()", "dec") == "dec"
    assert _plain("self.net", "dec") == "self.net" and _plain("model", "dec") == "model"
