"""A repr's memory address never reaches a headline or a fix (formats/addresses.py): it
differs in every process, so the same diagnosis read differently in every run."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compdiag.analyses.diagnosis import Diagnosis, UserFrame
from compdiag.formats.addresses import without_addresses

REASON = ("aotautograd cache bypassed: Unsupported call_function target "
          "<function _enter_autocast at 0x7f553a9d7a60>. Function module: torch.amp")


def test_a_diagnosis_drops_the_address_and_keeps_the_object():
    """On main the headline kept `at 0x7f553a9d7a60` (set4's autocast_cache_bypass), and a
    fix naming a call target its own."""
    d = Diagnosis("cache", "cache", "0/0", REASON, UserFrame(None, None, None), None,
                  "name the call target <function lazy_load_decompositions at 0x7f7cc70d5580>.",
                  1.0, torch_message=REASON)
    assert "<function _enter_autocast>. Function module" in d.reason
    assert d.fix.endswith("<function lazy_load_decompositions>.")
    assert d.torch_message == REASON  # torch's own words stay verbatim


def test_nested_reprs_and_torchs_id_form():
    assert without_addresses("<bound method A.f of <A object at 0x7f01aa>>") == \
        "<bound method A.f of <A object>>"
    assert without_addresses("backend <function b at 0x7f01> (id=0x7f01). New") == \
        "backend <function b>. New"


@given(st.text(alphabet="<>ab x0123456789fat ()=.", max_size=60),
       st.integers(min_value=0x1000, max_value=2 ** 48))
def test_two_processes_read_the_same(text, address):
    """The same text with two different addresses reads the same once stripped, and text
    without a repr address is left as it was."""
    one = without_addresses(f"{text}<function f at {hex(address)}>")
    two = without_addresses(f"{text}<function f at {hex(address + 16)}>")
    assert one == two
    if "0x" not in text:
        assert without_addresses(text) == text


def test_the_explanation_drops_the_address_too():
    """On main the explanation of a fullgraph failure kept torch's `<function
    label_smoothing_loss at 0x7f16d13880e0>` (probes27's fullgraph_disabled_helper) while the
    headline and fix had theirs removed."""
    d = Diagnosis("failure", "failure", "0/0", "Unsupported", UserFrame(None, None, None),
                  "Skip calling function `<function loss at 0x7f16d13880e0>`", "", 1.0)
    assert d.explanation == "Skip calling function `<function loss>`"
