"""A number that picks an item of an nn container in a compiled function is diagnosed at the
lookup, with a fix for the container's kind (analyses/container_pick.py); a dict item's type
change is said in the item's classes (guard trees' TENSOR_MATCH class). probes33b
mamlpp_per_step_lr: `step_lrs[step]` (a ParameterList) at line 22 recompiled per step; before
this test it was put on the call at line 35 with a fix about modules, and the Parameter ->
Tensor change of `p['0.weight']` read "dict -> torch.Tensor"."""

from __future__ import annotations

from compdiag.ingest.parse_guard_tree import guard_values
from test_explain import Store, _ids

GUARD = ("step == {n}  # idx = operator.index(idx)  # nn/modules/container.py:684 in "
         "_get_abs_string_index (_dynamo/variables/tensor.py:2606 in evaluate_expr)")
TREE = ("TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
        "| +- GuardManager: source=G['step_lrs'], accessed_by=DictGetItemGuardAccessor("
        "'step_lrs'), type=<class 'torch.nn.modules.container.{kind}'>, tag_safe=(True, False)\n"
        "| +- GuardManager: source=L['p'], accessed_by=FrameLocalsGuardAccessor(key='p'), "
        "type=<class 'dict'>\n"
        "| | +- TENSOR_MATCH: check_tensor(L['p']['w'], {cls}, DispatchKeySet(CPU), "
        "torch.float32, device=None, requires_grad=True, size=[4, 1], stride=[1, 1])\n")
SOURCE = ("import torch\n" * 18 + "@torch.compile\ndef inner_step(p, g, step):\n"
          "    lr = 2.0\n    return {k: p[k] - step_lrs[step] * g[k] for k in p}\n"
          + "x = 1\n" * 20)


def _store(tmp_path, kind: str) -> Store:
    s = Store(tmp_path)
    s.user.write_text(SOURCE)
    for n in range(4):
        s.compile(f"0/{n}", co_name="inner_step", lineno=19,
                  **({"recompile_reason": f"0/{n - 1}: " + GUARD.format(n=n)} if n else {}))
        s.ing.record({**_ids(f"0/{n}"), "dynamo_cpp_guards_str": {}},
                     TREE.format(kind=kind, cls="Parameter"))
    return s


def test_a_parameter_picked_by_a_number_is_said_at_its_lookup(tmp_path):
    (d,) = [d for d in _store(tmp_path, "ParameterList").explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 22, d["user_frame"]
    assert "picks an item of `step_lrs` (ParameterList)" in d["reason"], d["reason"]
    assert "nn.Parameter(torch.stack(list(step_lrs)))" in d["fix"], d["fix"]


def test_a_module_picked_by_a_number_keeps_the_module_fix(tmp_path):
    (d,) = [d for d in _store(tmp_path, "ModuleList").explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 22 and "run the picked module in eager" in d["fix"], d


def test_a_tensor_match_gives_the_tensors_class():
    values = dict(guard_values(TREE.format(kind="ParameterList", cls="Parameter")))
    assert values["type(L['p']['w'])"] == "torch.nn.parameter.Parameter"
    assert values["type(L['p'])"] == "dict"
    assert dict(guard_values(TREE.format(kind="X", cls="Tensor")))["type(L['p']['w'])"] == \
        "torch.Tensor"


def test_a_dict_items_class_change_names_the_items_classes(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", co_name="inner_step", lineno=19)
    s.ing.record({**_ids("0/0"), "dynamo_cpp_guards_str": {}},
                 TREE.format(kind="ParameterList", cls="Parameter"))
    s.compile("0/1", co_name="inner_step", lineno=19,
              recompile_reason="0/0: expected type of 'p['w']' to be a tensor type, ' but "
                               "found <class 'torch.Tensor'>")
    s.ing.record({**_ids("0/1"), "dynamo_cpp_guards_str": {}},
                 TREE.format(kind="ParameterList", cls="Tensor"))
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "(nn.Parameter -> torch.Tensor)" in d["reason"], d["reason"]
