"""Changes compiled code ignores are never silent: a hook added to a compiled module after its
first compiled call, and an Inductor setting made after every compile (below). The hook never
runs in compiled code, and this is never silent (issue 29 §4: where bugs hide). Dynamo skips guards on a module's hooks
that were empty when it traced the module (torch._dynamo.config.skip_nnmodule_hook_guards);
on torch 2.13 a forward hook registered on `model[1]` after one call of
`torch.compile(model)` never ran, with no recompile and no log line, and explain said "no
problems found" (the lead's probe: the program printed 0 collected activations). Capture now
keeps the registering line (capture/module_hooks.py), and the `unguarded` kind says it."""

from __future__ import annotations

import importlib
import inspect

import pytest
import torch

from compdiag.analyses.explain import explain
from compdiag.analyses import late_changes
from compdiag.capture import config_sets, module_hooks
from compdiag.capture.graph_count import graphs_so_far
from compdiag.ingest.ingestor import Ingestor
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer
from cdtest import FakeCapture


def _store(tmp_path):
    """(the run's Ingestor, done(): end the run and return its `unguarded` diagnoses)."""
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    ing = Ingestor(w, rid)

    def done():
        ing.flush()
        w.end_run(rid, exit_code=0, status="done")
        w.close()
        with Reader(tmp_path / "s.db") as r:
            return [d for d in explain(r, rid) if d.kind == "unguarded"]

    return ing, done


class _User(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.lin(x))


@pytest.fixture
def captured(tmp_path, monkeypatch):
    """A store whose capture has module_hooks installed; torch's classes restored after."""
    from torch._dynamo import eval_frame

    for name in [*module_hooks.METHODS, "requires_grad_"]:
        monkeypatch.setattr(torch.nn.Module, name, getattr(torch.nn.Module, name))
    from torch.nn.modules import module as module_py
    for name in module_hooks.GLOBALS:
        monkeypatch.setattr(module_py, name, getattr(module_py, name))
    monkeypatch.setattr(eval_frame.OptimizedModule, "__init__",
                        eval_frame.OptimizedModule.__init__)
    ing, done = _store(tmp_path)
    lines: list[int] = []

    def here():  # the test's own frame: the registering line
        frame = inspect.currentframe()
        while not frame.f_code.co_name.startswith("test_"):
            frame = frame.f_back
        lines.append(frame.f_lineno)
        return {"filename": __file__, "lineno": frame.f_lineno, "name": "test", "line": None}

    module_hooks.install(FakeCapture(ing), here, graphs_so_far())
    torch._dynamo.reset()
    yield ing, done, lines
    torch._dynamo.reset()


def test_a_hook_added_after_the_first_compiled_call_is_said_at_its_line(captured):
    ing, done, lines = captured
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    seen: list[int] = []
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(2, 4)
    compiled(x)
    model[1].register_forward_hook(lambda *a: seen.append(1))
    at = inspect.currentframe().f_lineno - 1
    compiled(x)
    assert seen == []  # torch's behaviour this diagnoses (if it changes, so must the rule)
    (d,) = done()
    assert d.user_frame.lineno == at and d.user_frame.evidence == "source", d
    assert "forward hook" in d.reason and "ReLU [1] of the compiled Sequential" in d.reason
    assert "never runs it" in d.reason and "skip_nnmodule_hook_guards" in d.fix
    assert d.severity == "problem"


def test_parameters_unfrozen_after_the_compile_are_said_unless_a_compile_follows(captured):
    """set31/gpu timm_vit_unfreeze_recompile, checked on the device: torch 2.11 does not
    recompile after `model[0].requires_grad_(True)` on a module compiled with it frozen, and
    the unfrozen weight's `.grad` stays None (eager computes it). torch 2.13 recompiles (a
    compile after the change: not said). The unfreeze with no compile after it is said at
    its line; a call that changes nothing is not recorded."""
    ing, done, lines = captured
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    model[0].requires_grad_(False)
    compiled = torch.compile(model, backend="eager")
    compiled(torch.randn(2, 4)).sum().backward()
    model[2].requires_grad_(True)  # already trainable: no change, nothing recorded
    model[0].requires_grad_(True)
    at = inspect.currentframe().f_lineno - 1
    (d,) = done()
    assert d.user_frame.lineno == at and "requires_grad_() changed on Linear [0]" in d.reason, d
    assert "keeps the gradients it was traced with" in d.reason and "reset()" in d.fix


def test_an_unfreeze_a_recompile_traced_in_is_not_said(captured):
    ing, done, lines = captured
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    model[0].requires_grad_(False)
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(2, 4)
    compiled(x).sum().backward()
    model[0].requires_grad_(True)
    compiled(x).sum().backward()
    if model[0].weight.grad is not None:  # torch 2.13 recompiled: its dynamo_start record,
        ing.record({"dynamo_start": {"stack": []}, "frame_id": 0,  # as capture keeps it
                    "frame_compile_id": 1, "attempt": 0}, None)
        assert done() == []
    else:  # a torch that does not recompile (2.11): said
        assert [d.details.what for d in done()] == ["requires_grad_"]


def test_a_global_hook_added_after_the_first_compiled_call_is_said_at_its_line(captured):
    """probes30d layer_profiler_global_hook: `register_module_forward_hook(probe)` after the
    model compiled; the compiled graph never ran it for the model's layers ("profiled 0 ReLU
    layers"), with no recompile, and explain said "no problems found". Registered before the
    first call, Dynamo traces it in (not said)."""
    from torch.nn.modules import module as module_py

    ing, done, lines = captured
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    seen: list[type] = []
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(2, 4)
    compiled(x)
    handle = module_py.register_module_forward_hook(lambda m, i, o: seen.append(type(m)))
    at = inspect.currentframe().f_lineno - 1
    try:
        compiled(x)
    finally:
        handle.remove()
    assert torch.nn.ReLU not in seen  # torch's behaviour this diagnoses
    (d,) = done()
    assert d.user_frame.lineno == at and "global forward hook" in d.reason, d
    assert "every module of the compiled Sequential" in d.reason and "never runs it" in d.reason
    # skip_nnmodule_hook_guards = False did not help a global hook (checked on the probe)
    assert "skip_nnmodule_hook_guards" not in d.fix and "torch.compiler.reset()" in d.fix


def test_a_global_hook_a_library_registers_is_not_the_programs(captured):
    """set23/gpu channels_last_warmup_recompile on torch 2.11: a forward pre-hook registered
    by library code during a compiled call was said as the program's ignored change, at the
    call's line, above the real recompile. Only the program's own call is recorded."""
    from torch.nn.modules import module as module_py

    ing, done, _ = captured
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    compiled = torch.compile(model, backend="eager")
    compiled(torch.randn(2, 4))
    library = {"register": module_py.register_module_forward_pre_hook}
    exec(compile("handle = register(lambda m, i: None)",
                 "/usr/lib/python3/site-packages/somelib/hooks.py", "exec"), library)
    library["handle"].remove()
    assert done() == []


def test_hooks_that_run_are_not_said(captured):
    """Registered before the first compiled call; on a user class's own top module (its hooks
    run in eager, before Dynamo's frame); on a module never compiled; on the wrapper."""
    ing, done, _ = captured
    user = _User()
    user.act.register_forward_hook(lambda *a: None)  # before the compile
    compiled = torch.compile(user, backend="eager")
    compiled(torch.randn(2, 4))
    ran: list[int] = []
    user.register_forward_hook(lambda *a: ran.append(1))
    torch.nn.Linear(2, 2).register_forward_hook(lambda *a: None)
    compiled.register_forward_hook(lambda *a: None)
    compiled(torch.randn(2, 4))
    assert ran == [1]
    assert done() == []


def test_a_hook_dict_that_was_not_empty_is_guarded_and_not_said(captured):
    """Dynamo guards a module's hooks it saw non-empty: adding one more recompiles, and the
    new graph runs both. Not recorded."""
    ing, done, _ = captured
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    seen: list[int] = []
    model[1].register_forward_hook(lambda *a: seen.append(0))
    compiled = torch.compile(model, backend="eager")
    compiled(torch.randn(2, 4))
    model[1].register_forward_hook(lambda *a: seen.append(1))
    compiled(torch.randn(2, 4))
    assert seen == [0, 0, 1]
    assert done() == []


def test_a_compile_after_the_hook_traces_it_in(captured):
    """A later compile (here after torch._dynamo.reset()) traces the module with its hook: then
    nothing is ignored, and nothing is said."""
    ing, done, _ = captured
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    compiled = torch.compile(model, backend="eager")
    compiled(torch.randn(2, 4))
    model[1].register_forward_hook(lambda *a: None)
    ing.record({"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0,
                "attempt": 0}, None)
    assert done() == []


@pytest.fixture
def config_store(tmp_path, monkeypatch):
    """A store whose capture has config_sets installed (graphs: as the test says); torch's
    ConfigModule restored after."""
    from torch.utils import _config_module

    monkeypatch.setattr(_config_module.ConfigModule, "__setattr__",
                        _config_module.ConfigModule.__setattr__)
    import os
    for name in ("__setitem__", "__delitem__"):  # os.environ's, wrapped too
        monkeypatch.setattr(type(os.environ), name, getattr(type(os.environ), name))
    for dotted in config_sets.SETTERS:  # the setters it wraps, restored after
        module, name = dotted.rsplit(".", 1)
        owner = importlib.import_module(module)
        monkeypatch.setattr(owner, name, getattr(owner, name))
    ing, done = _store(tmp_path)
    compiled = [1]
    config_sets.install(FakeCapture(ing), lambda: compiled[0],
                        lambda f: f == __file__)
    return ing, done, compiled


def test_an_inductor_setting_made_after_every_compile_is_said_at_its_line(config_store):
    """The lead's probe: `torch._inductor.config.fallback_random = True` after the first
    compiled call, then the compiled dropout compared with eager's under the same seed: False,
    and explain said "no problems found". Inductor reads its config only when it compiles."""
    from torch._inductor import config

    ing, done, _ = config_store
    was = config.fallback_random
    try:
        config.fallback_random = not was
        at = inspect.currentframe().f_lineno - 1
        with config.patch(freezing=True):  # set and restored on one line: said once
            pass
        patched = inspect.currentframe().f_lineno - 2
    finally:
        config.fallback_random = was
    got = {d.user_frame.lineno: d for d in done()}
    assert at in got and patched in got, got
    assert f"fallback_random = {not was}" in got[at].reason
    assert "no compiled code uses it" in got[at].reason
    assert f"patch(fallback_random={not was})" in got[at].fix
    assert len(got) == 3  # the restore in `finally` is a set of its own line, after every compile


def test_settings_before_any_compile_or_followed_by_one_are_not_said(config_store):
    from torch._inductor import config

    ing, done, compiled = config_store
    was = config.fallback_random
    compiled[0] = 0
    config.fallback_random = not was  # before any compile: torch will use it
    compiled[0] = 1
    config.fallback_random = was  # a compile comes after it
    ing.record({"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0,
                "attempt": 0}, None)
    assert done() == []


def test_a_hook_on_a_global_module_a_compiled_function_reads_is_said(tmp_path):
    """pytorch#117265 / #115750: `f` compiled with `layer` a global it calls, then
    `layer.register_full_backward_pre_hook(hook)`: the gradient stayed unhooked (torch 2.13:
    tensor([1., 1., 1.]) where eager doubles it). No OptimizedModule holds `layer`; the compile
    guarded on `G['layer']`, and the registering line calls the hook on `layer`."""
    from test_explain import Store, _ids

    def run(folder, line):
        folder.mkdir()
        s = Store(folder)
        s.ing.record({**_ids("0/0"), "dynamo_start": {"stack": []}}, None)
        s.ing.record({**_ids("0/0"), "dynamo_cpp_guards_str": {}},
                     "TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
                     "| +- GuardManager: source=G['layer'], accessed_by=DictGetItemGuardAccessor"
                     "('layer')\n| | +- TYPE_MATCH: ___check_type_id(G['layer'], 1)\n")
        s.compile("0/0", co_name="f")
        s.ing.event(module_hooks.MODULE_HOOK, None, {
            "method": "register_full_backward_pre_hook", "module": "Linear", "path": None,
            "compiled": None, "call": {"filename": str(s.user), "lineno": 19, "line": line}})
        return [d for d in s.explain() if d["kind"] == "unguarded"]

    (d,) = run(tmp_path / "a", "layer.register_full_backward_pre_hook(hook)")
    assert d["reason"].startswith("backward pre-hook registered on Linear `layer` after f() "
                                  "compiled it"), d
    assert d["user_frame"]["lineno"] == 19
    assert run(tmp_path / "b", "other.register_full_backward_pre_hook(hook)") == []
    assert late_changes.receiver_root(
        "h = model.blocks[0].attn.register_forward_hook(f)", "register_forward_hook") == "model"


def test_a_default_autocast_dtype_set_after_the_compile_is_said_and_names_the_failed_check(
        config_store, tmp_path):
    """set14/gpu autocast_default_dtype_stale (PR pytorch#191110's review), first H200 run: a
    compiled `torch.autocast("cuda")` without a dtype kept bfloat16 after
    `torch.set_autocast_dtype("cuda", torch.float16)` (Dynamo's global-state guard compares the
    dtype only while autocast is on), the program's own assert_close failed on the dtype, and
    the check named no cause. The call is kept (capture/config_sets.py's setters) and names
    itself where AOTAutograd baked the dtype in; with Dynamo's graph alone (backend "eager",
    checked on torch 2.13: it re-reads the default and follows) it says nothing."""
    ing, done, _ = config_store
    was = torch.get_autocast_dtype("cpu")
    try:
        ing.record({"frame_id": 0, "frame_compile_id": 0, "aot_inference_graph": {}}, "g")
        torch.set_autocast_dtype("cpu", torch.float16)
        at = inspect.currentframe().f_lineno - 1
        with torch.autocast("cpu"):  # torch's own calls from autocast_mode.py: not kept
            pass
    finally:
        torch.set_autocast_dtype("cpu", was)
    got = {d.user_frame.lineno: d for d in done()}
    assert "torch.set_autocast_dtype('cpu', torch.float16) called after every compile" in \
        got[at].reason, got
    assert "dtype=" in got[at].fix
    assert len(got) == 2, got  # the call, and the restore in `finally` (its own line)

    from compdiag.analyses.check_causes import late_words
    words = late_words({"call": {"line": "torch.set_autocast_dtype('cuda', torch.float16)",
                                 "lineno": 28}})
    assert words.startswith("`torch.set_autocast_dtype('cuda', torch.float16)` (line 28)")


def test_a_setter_with_dynamos_graph_alone_is_not_said(config_store):
    ing, done, _ = config_store
    was = torch.get_autocast_dtype("cpu")
    try:
        torch.set_autocast_dtype("cpu", torch.float16)
    finally:
        torch.set_autocast_dtype("cpu", was)
    assert done() == []


def test_a_setting_changed_inside_compiled_code_is_said_never_applied(tmp_path):
    """probes36d compiled_eval_determinism_dropped, blind: `torch.use_deterministic_algorithms(
    True)` as the first line of a compiled evaluation routine; the process still had it off
    afterwards (Dynamo applies it while tracing and puts it back; the compiled graph keeps
    only tensor ops), with no break, recompile or warning, and explain said "no problems
    found". Dynamo's graph holds the setter's node: said at the program's line. Under an
    eager backend (no AOTAutograd or Inductor) the graph's node runs, and nothing is said."""
    from test_explain import Store

    for lowered in (True, False):
        (tmp_path / str(lowered)).mkdir()
        s = Store(tmp_path / str(lowered))
        lines = s.user.read_text().splitlines()
        lines[3:5] = ["def evaluate(model, xs):", "    torch.use_deterministic_algorithms(True)"]
        s.user.write_text("\n".join(lines) + "\n")
        s.compile("0/0", co_name="evaluate", lineno=4)
        s.ing.record({"frame_id": 0, "frame_compile_id": 0, "dynamo_output_graph": {}},
                     "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, L_x_: \"f32[4]\"):\n"
                     "        l_x_ = L_x_\n"
                     "        _set_deterministic_algorithms = torch._C._set_deterministic_"
                     "algorithms(True, warn_only = False);  _set_deterministic_algorithms = "
                     "None\n"
                     "        return (l_x_,)\n")
        if lowered:
            s.ing.record({"frame_id": 0, "frame_compile_id": 0, "artifact": {
                "name": "fx_graph_cache_hit", "encoding": "json"}},
                '{"key": "k", "cache_state": "hit", "components": []}')
        said = [d for d in s.explain() if d["kind"] == "unguarded"]
        if not lowered:
            assert said == []
            continue
        (d,) = said
        assert d["reason"].startswith("torch.use_deterministic_algorithms(True) inside "
                                      "compiled code is never applied")
        assert d["user_frame"]["lineno"] == 5 and "outside compiled code" in d["fix"]


def test_an_environment_variable_set_after_the_compile_is_said_at_the_compiled_read(
        tmp_path, monkeypatch):
    """probes44i se_env_tta_flag_stale, blind: a compiled forward read
    `os.environ.get("USE_TTA", "0")` while the variable was unset, the program set it after
    training, and the compiled evaluation kept running without the augmentation (torch 2.13:
    Dynamo guards a variable that was set, not the absence of one); explain said "no problems
    found", with --check-accuracy too. Capture keeps the set (capture/environ_sets.py), and
    the kind says it at the compiled read, naming the set's line."""
    import os

    from compdiag.capture import environ_sets
    from test_explain import Store

    cls = type(os.environ)
    for name in ("__setitem__", "__delitem__"):
        monkeypatch.setattr(cls, name, getattr(cls, name))
    monkeypatch.delenv("COMPDIAG_T_FLAG", raising=False)
    s = Store(tmp_path)
    s.user.write_text("import os\n\n\ndef f(x):\n    if use():\n        return x + 1\n"
                      "    return x\n\n\ndef use():\n"
                      "    return os.environ.get('COMPDIAG_T_FLAG', '0') == '1'\n")
    compiled = [0]
    environ_sets.install(FakeCapture(s.ing), lambda: compiled[0], lambda f: f == __file__)
    os.environ["COMPDIAG_T_FLAG"] = "2"  # before any compile: torch traces it in
    s.compile("0/0", co_name="f", lineno=4)
    compiled[0] = 1
    os.environ.update({"COMPDIAG_T_FLAG": "1"})  # through os.environ's own update
    at = inspect.currentframe().f_lineno - 1
    os.environ["COMPDIAG_T_OTHER"] = "1"  # a variable no compiled code reads
    del os.environ["COMPDIAG_T_OTHER"]
    got = [d for d in s.explain() if d["kind"] == "unguarded"]
    assert len(got) == 1, got
    (d,) = got
    assert d["reason"] == (f"environment variable COMPDIAG_T_FLAG set to '1' at line {at} "
                           "after the compile: the compiled code keeps the value it read at "
                           "line 11"), d["reason"]
    assert (d["user_frame"]["lineno"], d["user_frame"]["evidence"]) == (11, "source")
    assert "torch.compiler.reset()" in d["fix"] and "argument" in d["fix"]


def test_an_environment_variable_a_compile_followed_is_not_said(tmp_path):
    """A compile after the set traced the new value in (a variable that was set and changes
    recompiles on torch 2.13): nothing to say; without it, the read (`os.getenv`) is said."""
    from compdiag.capture.environ_sets import ENVIRON_SET
    from test_explain import Store, _ids

    def run(folder, recompiled):
        folder.mkdir()
        s = Store(folder)
        s.user.write_text("import os\n\n\ndef f(x):\n    return x * int(os.getenv('N', '1'))\n")
        s.ing.record({**_ids("0/0"), "dynamo_start": {"stack": []}}, None)
        s.compile("0/0", co_name="f", lineno=4)
        s.ing.event(ENVIRON_SET, None, {"module": "os.environ", "key": "N", "value": "'2'",
                                        "call": {"filename": str(s.user), "lineno": 9}})
        if recompiled:
            s.ing.record({**_ids("0/1"), "dynamo_start": {"stack": []}}, None)
        return [d for d in s.explain() if d["kind"] == "unguarded"]

    said = run(tmp_path / "a", False)
    assert len(said) == 1 and said[0]["user_frame"]["lineno"] == 5, said
    assert run(tmp_path / "b", True) == []
