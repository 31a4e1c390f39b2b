"""The statistics `compdiag perf` reports, pure Python (no torch), from raw samples.

A speed-up is never taken from one timing: both sides need MIN_SAMPLES samples; the estimate
is the ratio of medians, and its 95% confidence interval comes from a percentile bootstrap
(paired when the samples were taken in alternating pairs, which cancels slow drift of a loaded
machine). The verdict says "within noise" whenever that interval contains 1.0 (or the ratio's
own threshold), so a difference smaller than the noise is never reported as a speed-up.

fmt_time and autotune_share stay here because analyses/perf.py words its limiters with them; the
report's other formatters are compdiag/views/perf.py's.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass
from typing import Any, Sequence

MIN_SAMPLES = 5
BOOTSTRAP = 1000
CONFIDENCE = 0.95
SEED = 20261130  # fixed: the same samples always give the same interval


def median(xs: Sequence[float]) -> float:
    if not xs:
        raise ValueError("median of no samples")
    s = sorted(xs)
    n = len(s)
    mid = n // 2
    return float(s[mid]) if n % 2 else (s[mid - 1] + s[mid]) / 2.0


def quantile(xs: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default), q in [0, 1]."""
    if not xs:
        raise ValueError("quantile of no samples")
    s = sorted(xs)
    pos = (len(s) - 1) * min(max(q, 0.0), 1.0)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return float(s[lo] + (s[hi] - s[lo]) * (pos - lo))


@dataclass
class Summary:
    n: int
    median: float
    q1: float
    q3: float
    min: float
    rel_spread: float  # IQR / median: how noisy this side's samples are

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def summarize(xs: Sequence[float]) -> Summary:
    m = median(xs)
    q1, q3 = quantile(xs, 0.25), quantile(xs, 0.75)
    return Summary(len(xs), m, q1, q3, float(min(xs)), (q3 - q1) / m if m > 0 else math.inf)


@dataclass
class SpeedUp:
    """eager / compiled: > 1 means compiled is faster."""
    ratio: float | None
    lo: float | None
    hi: float | None
    verdict: str          # faster | slower | within noise | too few samples
    paired: bool
    noise: float | None   # the interval's half-width relative to the ratio

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _ratio_of_medians(a: Sequence[float], b: Sequence[float]) -> float:
    mb = median(b)
    return median(a) / mb if mb > 0 else math.inf


def speedup(eager: Sequence[float], compiled: Sequence[float], *, paired: bool | None = None,
            resamples: int = BOOTSTRAP, seed: int = SEED) -> SpeedUp:
    """Speed-up of `compiled` over `eager` with a bootstrap confidence interval.

    `paired` (default: equal lengths) resamples pair indices together, keeping each eager
    sample with the compiled one taken next to it."""
    if len(eager) < MIN_SAMPLES or len(compiled) < MIN_SAMPLES:
        return SpeedUp(None, None, None, "too few samples", False, None)
    if paired is None:
        paired = len(eager) == len(compiled)
    ratio = _ratio_of_medians(eager, compiled)
    rng = random.Random(seed)
    stats = []
    n_e, n_c = len(eager), len(compiled)
    for _ in range(resamples):
        if paired:
            idx = [rng.randrange(n_e) for _ in range(n_e)]
            e = [eager[i] for i in idx]
            c = [compiled[i] for i in idx]
        else:
            e = [eager[rng.randrange(n_e)] for _ in range(n_e)]
            c = [compiled[rng.randrange(n_c)] for _ in range(n_c)]
        stats.append(_ratio_of_medians(e, c))
    alpha = (1 - CONFIDENCE) / 2
    lo, hi = quantile(stats, alpha), quantile(stats, 1 - alpha)
    return SpeedUp(ratio, lo, hi, verdict(lo, hi), paired,
                   (hi - lo) / 2 / ratio if ratio and math.isfinite(ratio) else None)


def verdict(lo: float, hi: float, threshold: float = 1.0) -> str:
    """faster when the whole interval lies above `threshold`, slower when below, else the
    difference is within the noise."""
    if lo > threshold:
        return "faster"
    if hi < threshold:
        return "slower"
    return "within noise"


def payback_calls(compile_s: float | None, eager_s: float | None, compiled_s: float | None
                  ) -> float | None:
    """Calls of the graph it takes for the time saved per call to repay the compile time;
    None when compiled is not faster (it never pays back) or a figure is missing."""
    if compile_s is None or eager_s is None or compiled_s is None:
        return None
    saved = eager_s - compiled_s
    if saved <= 0:
        return None
    return math.ceil(compile_s / saved)


def fmt_time(s: float | None) -> str:
    """Three significant digits: '1.44 s', '678 ms', '62.8 ms', '9.12 us'."""
    if s is None or not math.isfinite(s):
        return "-"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if abs(s) >= scale or unit == "ns":
            return f"{sig3(s / scale)} {unit}"
    return "-"


def sig3(v: float) -> str:
    """Three significant digits (fmt_time's, and the speed-ups' of compdiag/views/perf.py)."""
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def autotune_share(r: dict[str, Any]) -> float | None:
    """Seconds of a mode's compile spent autotuning, when that is at least a tenth of it (below
    that it would only clutter the compile column)."""
    tuned, total = r.get("autotune_s"), r.get("compile_s")
    return tuned if tuned and total and tuned >= 0.1 * total else None
