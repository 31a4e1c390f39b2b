"""A compiled helper called from several lines in turn (analyses/recompile_sites.py).
probes34d mps_contract_eq, blind: a one-op `contract(eq, a, b)` compiled alone and called from
three lines of a loop, each with another einsum string and rank; it hit the recompile limit,
said as "a's rank changed" with a fix to call it with one rank, which the program cannot do.
The cause is the call sites: compile the caller, or one function per site."""

from __future__ import annotations

from test_explain import Store, _call


def _source(s: Store) -> None:
    lines = s.user.read_text().splitlines()
    lines[15:18] = ["def contract(eq, a, b):", "    return torch.einsum(eq, a, b)", ""]
    lines[20:27] = ["def sandwich(ops):", "    for op in ops:",
                    "        ket = contract('st,t->s', op, op[0])",
                    "        env = contract('s,s->', ket, ket)",
                    "        env = contract('st,s->t', op, ket)", "    return env", ""]
    s.user.write_text("\n".join(lines) + "\n")


def test_a_helper_called_from_lines_in_turn_is_said_by_its_call_sites(tmp_path):
    s = Store(tmp_path)
    _source(s)
    order = [23, 24, 25, 23, 24, 25]
    for i, line in enumerate(order):
        cid = f"0/{i}"
        reason = None if i == 0 else (f"0/{i - 1}: tensor 'a' rank mismatch. expected "
                                      f"{1 + (i - 1) % 2}, actual {1 + i % 2}")
        s.compile(cid, co_name="contract", lineno=16,
                  **({"recompile_reason": reason} if reason else {}))
        _call(s, cid, [30, line])
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "called from lines 23, 24, 25" in d["explanation"], d["explanation"]
    assert "Compile the function that makes these calls (`sandwich`)" in d["fix"]
    assert "one rank" not in d["fix"]


def test_one_call_site_or_a_size_is_not_said_as_call_sites(tmp_path):
    s = Store(tmp_path)
    _source(s)
    for i in range(4):
        cid = f"0/{i}"
        reason = None if i == 0 else (f"0/{i - 1}: tensor 'a' rank mismatch. expected "
                                      f"{1 + (i - 1) % 2}, actual {1 + i % 2}")
        s.compile(cid, co_name="contract", lineno=16,
                  **({"recompile_reason": reason} if reason else {}))
        _call(s, cid, [30, 23])
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "Compile the function that makes these calls" not in d["fix"]
