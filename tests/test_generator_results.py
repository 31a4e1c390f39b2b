"""capture/generator_results.py: a generator the compiled function returns, judged by what it
returns (pytorch/pytorch#198190); the end-to-end case is corpus/acc_generator_return.py."""

import torch

from compdiag.capture import generator_results as gr


def _gen(n, value):
    def run():
        for i in range(n):
            yield i
        return value
    return run()


def test_drain_keeps_what_the_generator_returns():
    drained = gr.drain(_gen(3, torch.tensor(2.0)))
    assert isinstance(drained, gr.Drained)
    assert drained.items == 3 and float(drained.value) == 2.0
    assert gr.drain([1, 2]) == [1, 2]  # not a generator: untouched


def test_return_frame_is_the_return_with_a_value():
    frame = gr.return_frame(_gen(1, 5).gi_code)
    assert frame is not None and frame["line"] == "return value"
    assert frame["lineno"] == _gen.__code__.co_firstlineno + 4

    def no_value():
        yield 1
    assert gr.return_frame(no_value().gi_code) is None


def test_verdict_only_when_eager_returned_a_value_and_compiled_lost_it():
    lost = gr.lost_return(gr.drain(_gen(2, torch.tensor(545.0))), iter((0, 1)), [], "f", 1)
    assert lost is not None
    detail = lost.outputs[0].detail
    assert detail["verdict"] == "lost_generator_return" and detail["eager"] == "tensor(545.)"
    assert detail["returned_as"] == "tuple_iterator" and detail["items"] == 2
    assert not lost.outputs[0].ok
    # nothing returned in eager either: the two agree on it
    assert gr.lost_return(gr.drain(_gen(2, None)), iter((0, 1)), [], "f", 1) is None
    # a generator the compiled call returned is the program's to run: never judged here
    assert gr.lost_return(gr.drain(_gen(2, 1)), _gen(2, 1), [], "f", 1) is None
