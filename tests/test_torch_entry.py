"""torch.compile wrapped a callable of torch's own and compiled nothing. probes32a
dcgan_sequential_compile: `nn.Sequential(...).compile()` wraps the Sequential's `_call_impl`,
a frame Dynamo skips as torch's, and so is every layer's forward under it: 0 compiles, and
explain said "no problems found". The skip of the compiled entry itself is kept; it is a
problem only where no compile ran under that call (a module of the user's own starts at
`_call_impl` too, then compiles its forward), said at the `.compile()` line."""

from __future__ import annotations


from compdiag.ingest.own_records import FRAME_SKIP, SKIPFILES
from cdtest import base_env, compdiag_args, run_cmd, shared_cache
from test_explain import Store, _call

SOURCE = ("import torch\nfrom torch import nn\n\n"
          "gen = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))\n"
          "gen.compile()\n"
          "for step in range(3):\n"
          "    out = gen(torch.randn(2, 8))\n"
          "print(out.shape)\n")


def _skip(s: Store) -> None:
    s.user.write_text(SOURCE)
    call = {"filename": str(s.user), "lineno": 7, "line": "out = gen(torch.randn(2, 8))"}
    s.ing.event(FRAME_SKIP, None, {"name": "_call_impl", "filename": "/x/torch/nn/modules/"
                                   "module.py", "firstlineno": 1771, "call": call},
                 f"{SKIPFILES} (Sequential._call_impl)")


def test_an_entry_of_torchs_own_that_compiled_nothing_is_said_at_its_compile_line(tmp_path):
    s = Store(tmp_path)
    _skip(s)
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert d["user_frame"]["lineno"] == 5 and d["severity"] == "problem", d["user_frame"]
    assert "torch.compile was given torch's own code" in d["reason"], d["reason"]
    assert "torch.compile(model)" in d["fix"], d["fix"]


def test_a_compile_under_the_same_call_means_the_users_own_frame_compiled(tmp_path):
    s = Store(tmp_path)
    _skip(s)
    s.compile("0/0", co_name="forward", lineno=7)
    _call(s, "0/0", [7])
    assert [d for d in s.explain() if d["kind"] == "graph_break"] == []


def test_a_sequential_compiled_with_its_compile_method_is_not_silent(tmp_path):
    script = tmp_path / "seq.py"
    script.write_text(SOURCE)
    db = tmp_path / "s.db"
    p = run_cmd(compdiag_args("run", "--store", db, script), env=base_env(shared_cache()),
                cwd=tmp_path)
    assert p.returncode == 0 and "torch.Size([2, 4])" in p.stdout, p.stderr
    e = run_cmd(compdiag_args("explain", "--store", db, "--json"), env=base_env(), cwd=tmp_path)
    import json
    top = json.loads(e.stdout)["diagnoses"][0]
    assert top["user_frame"]["lineno"] == 5 and "torch's own code" in top["reason"], top


def test_a_later_call_of_a_compiled_user_module_from_another_line_is_no_problem(tmp_path):
    """The same class's entry compiled at its first call (line 7); a call from line 8 reuses
    that code and compiles nothing: not a silent end either."""
    s = Store(tmp_path)
    _skip(s)
    call = {"filename": str(s.user), "lineno": 8, "line": "print(out.shape)"}
    s.ing.event(FRAME_SKIP, None, {"name": "_call_impl", "filename": "/x/torch/nn/modules/"
                                   "module.py", "firstlineno": 1771, "call": call},
                f"{SKIPFILES} (Sequential._call_impl)")
    s.compile("0/0", co_name="forward", lineno=7)
    _call(s, "0/0", [7])
    assert [d for d in s.explain() if d["kind"] == "graph_break"] == []


def test_only_the_wrapped_callable_of_torchs_own_is_recorded(tmp_path):
    """The wrapper runs torch's helpers first (DisableContext.__init__, innermost_backend)
    and a user's `.compile()`d module starts at `_call_impl` too: none of them is recorded, so
    no run counts them as graph breaks (the first version of this recorded three a call and
    the README tour's run said "5 graph breaks" for 2)."""
    script = tmp_path / "mine.py"
    script.write_text(
        "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(8, 4)\n\n"
        "    def forward(self, x):\n        return self.fc(x).relu()\n\n\n"
        "net = Net()\nnet.compile(backend='eager')\n"
        "f = torch.compile(lambda x: x.sin(), backend='eager')\n"
        "for i in range(2):\n    y = net(torch.randn(2, 8)) + f(torch.randn(2, 4))\n"
        "print(y.shape)\n")
    db = tmp_path / "s.db"
    p = run_cmd(compdiag_args("run", "--store", db, script), env=base_env(shared_cache()),
                cwd=tmp_path)
    assert p.returncode == 0 and "0 graph breaks" in p.stderr, p.stderr
