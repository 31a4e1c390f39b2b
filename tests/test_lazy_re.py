"""compdiag's module-level regular expressions are compiled at their first use (issue 34:
capture's start in the user's program compiled about a hundred of them, ~25 ms of CPU a run,
of which a typical run uses about a third)."""

from __future__ import annotations

import re
import subprocess
import sys

from compdiag.formats import lazy_re


def test_a_lazy_pattern_matches_as_the_compiled_one_does() -> None:
    lazy, real = lazy_re.compile(r"(?P<a>\d+)-(\w+)", re.I), re.compile(r"(?P<a>\d+)-(\w+)", re.I)
    text = "x 12-ab 3-C"
    assert lazy.search(text).group("a") == real.search(text).group("a")
    assert lazy.match(text) is None and real.match(text) is None
    assert lazy.findall(text) == real.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.sub("#", text) == real.sub("#", text)
    assert lazy.split(text) == real.split(text)
    assert (lazy.pattern, lazy.flags, lazy.groups) == (real.pattern, real.flags, real.groups)
    assert lazy.fullmatch("7-z").groups() == ("7", "z")


def test_importing_the_capture_compiles_no_pattern_of_compdiag() -> None:
    """Regression: importing capture's modules (what the child does at its start, counted as
    capture's own time) compiled every module-level pattern of the ingest parsers. Fails on
    the code before the fix: about a hundred compiled patterns in those modules' globals."""
    code = ("import re, sys; import compdiag.capture.hooks, compdiag.ingest.ingestor, "
            "compdiag.store.writer\n"
            "def pats(v):\n"
            "    if isinstance(v, (tuple, list)):\n"
            "        for x in v: yield from pats(x)\n"
            "    elif isinstance(v, re.Pattern): yield v.pattern\n"
            "    elif type(v).__name__ == 'LazyPattern' and 'match' in vars(v): yield v._args[0]\n"
            "print(sum(1 for name, m in list(sys.modules.items()) if name.startswith('compdiag.')"
            " for v in vars(m).values() for _ in pats(v)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "0", out
