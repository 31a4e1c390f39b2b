"""An exception the program catches in eager that escapes its handler under torch.compile is
said as that (analyses/caught_exceptions.py). probes33e gp_jitter_retry: `except
torch.linalg.LinAlgError` around `torch.linalg.cholesky` inside the compiled code; probes33e
poisson_counts_assert: a traced `assert` raised RuntimeError past `except AssertionError`.
Before this test both were compiled-code failures with an aot_eager/bisect fix."""

from __future__ import annotations

import pytest
from test_explain import Store, _call, _ids

HELPER = ("import torch\n" * 11 + "def safe_cholesky(K):\n    try:\n"
          "        return torch.linalg.cholesky(K)\n    except torch.linalg.LinAlgError:\n"
          "        return torch.linalg.cholesky(K + 1e-3)\n" + "x = 1\n" * 30)
GRAPH = ("class GraphModule(torch.nn.Module):\n    def forward(self, L_K_):\n"
         "        l_k_ = L_K_\n\n         # File: {f}:14 in safe_cholesky, code: return "
         "torch.linalg.cholesky(K)\n        linalg_cholesky = torch._C._linalg.linalg_cholesky("
         "l_k_)\n        return (linalg_cholesky,)\n")


def test_a_try_inside_compiled_code_is_named_as_what_cannot_catch(tmp_path):
    s = Store(tmp_path, exit_code=1)
    s.user.write_text(HELPER)
    s.compile("0/0", co_name="loss", lineno=20)
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}}, GRAPH.format(f=s.user))
    s.failure("0/0", stage="runtime", exc_type="_LinAlgError",
              message="linalg.cholesky: The factorization could not be completed",
              filename=str(s.user), lineno=38)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 14, d["user_frame"]
    assert "the `try` at line 13 cannot catch it" in d["reason"], d["reason"]
    assert "@torch.compiler.disable" in d["fix"] and "bisect" not in d["fix"], d["fix"]


def test_an_assert_that_raises_runtimeerror_past_except_assertionerror(tmp_path):
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\n" * 16 + "def f(c):\n    assert (c >= 0).all(), 'negative'\n"
                      + "x = 1\n" * 15 + "try:\n    f()\nexcept AssertionError:\n    pass\n")
    s.compile("0/0", co_name="f", lineno=16)
    s.failure("0/0", stage="runtime", exc_type="RuntimeError", message="negative",
              filename=str(s.user), lineno=18, line="assert (c >= 0).all(), 'negative'")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "raises RuntimeError, not AssertionError" in d["reason"], d["reason"]
    assert "except (AssertionError, RuntimeError)" in d["fix"], d["fix"]



def _caught_past(tmp_path, handler: str, stage: str, exc_type: str, message: str,
                 line: str) -> dict:
    """The failure diagnosis of a compiled `f` whose `line` raised, called in a `try` with
    `except handler` (line 36 of the kept source)."""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\n" * 16 + f"def f(x):\n    {line}\n" + "x = 1\n" * 15
                      + f"try:\n    f(x)\nexcept {handler}:\n    pass\n")
    s.compile("0/0", co_name="f", lineno=16)
    _call(s, "0/0", [35])  # the compiled call, in the `try`
    s.failure("0/0", stage=stage, exc_type=exc_type, message=message, filename=str(s.user),
              lineno=18, line=line)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    return d


@pytest.mark.parametrize("handler, stage, exc_type, message, line, wants", [
    # probes35d vocab_oov_fallback: eager's embedding raised IndexError on an id past the
    # vocabulary, which the program's retry catches; the compiled kernel's bounds check raised
    # RuntimeError past `except IndexError` and ended the program. Said as the program's data
    # only ("eager rejects alike"), with no word of the handler.
    ("IndexError", "runtime", "RuntimeError",
     "kernel, /tmp/k.main.cpp:40, index out of bounds: 0 <= tmp19 < 50L", "return emb(x)",
     ("raises RuntimeError where eager raises IndexError", "line 36 no longer catches it",
      "except (IndexError, RuntimeError)")),
    # probes35c serve_validate_fullgraph: a compiled predict() under fullgraph=True raises
    # ValueError for a bad request, which the caller's `except ValueError` answers; Dynamo
    # raised `Unsupported: Observed exception` instead and the service ended. The reason named
    # neither the ValueError nor the handler, and the fix said to fix the error itself.
    ("ValueError", "dynamo", "Unsupported",
     "Observed exception: raised exception ValueError('bad')", "raise ValueError('bad')",
     ("comes out as Unsupported under fullgraph=True", "`except ValueError` at line 36",
      "drop fullgraph=True")),
    # probes37c ce_batch_valueerror_escapes: a training loop skips malformed batches with
    # `except ValueError` around the compiled loss; cross_entropy's ValueError on a short
    # label batch came out of Dynamo's fake-tensor run as TorchRuntimeError, and the program
    # ended, said with a fix to check the line in eager, where the handler catches it.
    ("ValueError", "dynamo", "TorchRuntimeError",
     "Dynamo failed to run FX node with fake tensors: call_function <function cross_entropy>"
     "(...): got ValueError('Expected input batch_size (8) to match target batch_size')",
     "return F.cross_entropy(logits, y)",
     ("as TorchRuntimeError (a RuntimeError)", "`except ValueError` at line 36",
      "except (ValueError, RuntimeError)")),
])
def test_an_exception_of_another_type_than_eagers_is_said_past_its_handler(
        tmp_path, handler, stage, exc_type, message, line, wants):
    """The compiled call raises another type than eager's, past the program's handler."""
    d = _caught_past(tmp_path, handler, stage, exc_type, message, line)
    said = f"{d['reason']} || {d['fix']}"
    assert all(w in said for w in wants), said


def test_a_handler_whose_try_does_not_hold_the_compiled_call_is_not_blamed(tmp_path):
    """(review) the wrapped-ValueError rule took any `except ValueError` of the program's (an
    argv parser's far from the compiled call); only a `try` around the call counts."""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\n" * 16 + "def f(x):\n    return g(x)\n" + "x = 1\n" * 15
                      + "try:\n    int('3')\nexcept ValueError:\n    pass\nf(x)\n")
    s.compile("0/0", co_name="f", lineno=16)
    _call(s, "0/0", [38])  # the compiled call, after the `try`
    message = "Dynamo failed to run FX node with fake tensors: got ValueError('bad batch')"
    s.failure("0/0", stage="dynamo", exc_type="TorchRuntimeError", message=message,
              filename=str(s.user), lineno=18, line="return g(x)")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "no longer catches it" not in d["reason"], d["reason"]
