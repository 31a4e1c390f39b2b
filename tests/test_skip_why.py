"""Why Dynamo gave up on a whole frame at a graph break (issue 29 §2: the cause above its
consequence). torch chains a second break for it ("*** While handling this graph break,
another graph break occurred: *** graph break in loop"); before this test explain said only
"Dynamo could not resume after this break, so the whole function ran in eager", never that
the break sat in a loop (set10's print_in_accumulation_loop, pytorch#112824)."""

from compdiag.ingest.parse_dynamo import graph_break_details, skip_why

CHAINED = """Graph break in user code at /u/train.py:21
Graph Break Reason: Failed to handle graph break gracefully. Skipping the function and falling back to eager. Graph break encountered:

Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print`

*** While handling this graph break, another graph break occurred: ***

graph break in loop
  Explanation: torch.compile detected a graph break in a for/while loop. Skipping the frame and falling back to eager, as graph breaks in loops are not supported.
  Hint: This graph break may have been caused by an earlier graph break.
"""


def test_the_chained_break_says_why_the_frame_was_skipped():
    assert skip_why(CHAINED) == ("graph break in loop: torch.compile detected a graph break "
                                 "in a for/while loop. Skipping the frame and falling back to "
                                 "eager, as graph breaks in loops are not supported.")
    more = graph_break_details(CHAINED)
    assert more["frame_skipped"] and more["skip_why"].startswith("graph break in loop")


def test_a_break_without_a_chained_one_has_no_reason_to_invent():
    plain = CHAINED.split("*** While")[0]
    assert skip_why(plain) is None and graph_break_details(plain)["skip_why"] is None
    assert skip_why(None) is None


def test_a_skipped_frame_says_it_stays_skipped_for_every_later_call(tmp_path):
    """set12 first_step_skip_until_reset (pytorch#144820): a break Dynamo could not resume from
    (a print inside a try block, on step 0 only) made torch skip the function's code object, so
    every later call ran in eager too until torch._dynamo.reset(). On main the explanation said
    only that "the whole function in step_loss() ran in eager", as if for that call alone."""
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0", co_name="step_loss")
    s.graph_break("0/0", 19, skipped=True)
    s.done()
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert "Dynamo skipped the whole function step_loss()" in d["explanation"], d
    assert "every later call of it runs in eager" in d["explanation"]
    assert "torch._dynamo.reset()" in d["explanation"]
