"""One cause, one row in `compdiag perf`'s table, and no fix there that sends the user back to
`compdiag perf`. probes39c cosine_lr_math_cos_step_break, blind: the same benign fusion
refusal at line 20, in graphs 1/0 and 1/1 (a recompile of one function), was causes 3 and 5
with one text, and each fix said "Nothing to change unless `compdiag perf ...` measures this
graph's fusions to matter", printed by that very command. Both tests fail on the code before
(two rows; the perf command in the fix)."""

from __future__ import annotations

from compdiag.analyses.diagnoses import fusion
from compdiag.analyses.diagnosis import Diagnosis, UserFrame
from compdiag.analyses.limiter import Limiter, merged


def _lim(cid: str, impact: float, line: int = 20, reason: str = "fusion refused") -> Limiter:
    return Limiter("fusion_miss", impact, "structural", reason, "12 refused", (cid,),
                   "nothing", UserFrame(filename="/u/cos.py", lineno=line))


def test_the_same_cause_in_two_graphs_is_one_row_with_both():
    out = merged([_lim("1/0", 0.02), _lim("1/1", 0.01), _lim("1/1", 0.01, line=17)])
    assert len(out) == 2, out
    both = next(lim for lim in out if lim.user_frame.lineno == 20)
    assert both.compile_ids == ("1/0", "1/1") and abs(both.impact - 0.03) < 1e-9
    assert "1/0, 1/1" in both.evidence


def test_another_reason_or_line_stays_apart():
    out = merged([_lim("1/0", 0.02), _lim("1/1", 0.02, reason="other")])
    assert len(out) == 2


class _Timings:
    def graphs_of(self, cids):
        return [{"compile_id": c, "kernels": {"cpp": 1}} for c in cids]

    def share(self, graphs):
        return 0.5


def _refusal(reason_class: str, fix: str) -> Diagnosis:
    return Diagnosis(fusion.KIND, stage="inductor_scheduling", compile_id="1/0",
                     reason="fusion refused to save peak memory: cannot fuse op1 with op3",
                     user_frame=UserFrame(filename="/u/cos.py", lineno=20), fix=fix,
                     count=12, compile_ids=("1/0",), explanation="", score=1.0,
                     details=fusion.FusionDetails(pairs=(("op1", "op3", "x"),),
                                                  reason_class=reason_class))


def test_perfs_own_fix_for_a_refusal_made_on_purpose_names_no_perf_command():
    said = fusion.UNLESS_MEASURED.format(perf="`compdiag perf --store s.db 1`")
    lim = fusion.compdiag_limiter(diagnosis=_refusal("peak_memory", said), timings=_Timings())
    assert "compdiag perf" not in lim.fix and lim.fix == fusion.PERF_BENIGN_FIX
    own = fusion.compdiag_limiter(diagnosis=_refusal("layout", "Make the layouts agree"),
                                  timings=_Timings())
    assert own.fix == "Make the layouts agree"
