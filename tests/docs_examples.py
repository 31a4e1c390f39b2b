"""The README's and docs' runnable examples: find them, run them, compare or rewrite their output.

An example is an indented block right after a `<!-- example -->` comment line (invisible when
the page is rendered). In the block, a line `$ COMMAND` is run by bash, and the lines up to the
next `$ ` line are what it printed (stdout and stderr together, as a terminal shows them). A
marker may say `<!-- example: compile -->` (the block compiles: about 10-60 s here) or
`<!-- example: slow -->` (over a minute: tests/test_docs_examples.py skips it; `--update` runs
it). Every example of every page runs in ONE scratch directory, README.md first, then docs/ in
name order, so a later page may read a store an earlier one wrote; `corpus` and `tests` there
are links to the checkout's, so a page's paths are the project's relative paths.

What is compared is normalised: the scratch directory is `$PWD`, timings (`56.2s`, `20.46`
in a `total s` column, a ratio such as `0.20x`, ...) are `N.N` (the padding around one counts as one space), trailing
spaces go. A documented line may write a count that depends on the machine as a bare `N` (the
number of C++ compile regions torch times depends on what its ISA probes left in the temp
folder): it matches any whole number there, and `--update` keeps it. Rich output is 100
columns wide.

    python -m tests.docs_examples              # run every example, print what differs
    python -m tests.docs_examples --update     # rewrite each example's output from this run
    python -m tests.docs_examples --update docs/store.md   # only these pages (and README)

Regenerating the docs after a change to compdiag's output is that one `--update` command."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- example(?::\s*(\w+))?\s*-->\s*$")
INDENT = "    "
WIDTH = 100
TIMEOUT = 600


@dataclass
class Step:
    command: str
    expected: list[str]
    actual: list[str] | None = None
    seconds: float = 0.0


@dataclass
class Example:
    page: Path
    start: int   # index of the block's first line in the page's lines
    end: int     # index after its last line
    mark: str | None
    steps: list[Step] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.start + 1}"

    @property
    def slow(self) -> bool:
        return self.mark == "slow"


def pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def examples(page: Path) -> list[Example]:
    """The marked example blocks of one page."""
    lines = page.read_text().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        i += 1
        if not m:
            continue
        while i < len(lines) and not lines[i].strip():
            i += 1
        start = i
        while i < len(lines) and (lines[i].startswith(INDENT) or (
                not lines[i].strip() and i + 1 < len(lines) and
                lines[i + 1].startswith(INDENT))):
            i += 1
        ex = Example(page, start, i, m.group(1))
        for line in lines[start:i]:
            body = line[len(INDENT):] if line.startswith(INDENT) else ""
            if body.startswith("$ "):
                ex.steps.append(Step(body[2:], []))
            elif ex.steps:
                ex.steps[-1].expected.append(body)
        out.append(ex)
    return out


def all_examples() -> list[Example]:
    return [ex for page in pages() for ex in examples(page)]


def scratch_dir() -> Path:
    """A new directory to run the examples in, with the checkout's corpus/ and tests/."""
    root = Path(tempfile.mkdtemp(prefix="cd", dir="/tmp" if os.path.isdir("/tmp") else None))
    for name in ("corpus", "tests", "benchmarks"):
        (root / name).symlink_to(REPO / name)
    return root


def environment(root: Path) -> dict[str, str]:
    """The examples' environment: torch's defaults, without the suite's TORCHINDUCTOR_*
    settings (cdtest.TORCH_TEST_ENV), so a page shows what a user's cold run prints (with
    TORCHINDUCTOR_VEC_ISA_OK=1 a cold run has fewer compile events: docs/caches.md's export)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COMPDIAG_", "TORCH_LOGS", "TORCH_TRACE", "TORCHINDUCTOR_",
                                "TORCHDYNAMO_", "PYTHONPATH"))}
    env.update(COLUMNS=str(WIDTH), LINES="50", PYTHONUNBUFFERED="1", PYTHONHASHSEED="0",
               TORCHINDUCTOR_CACHE_DIR=str(root / "inductor-cache"), TERM="dumb",
               NO_COLOR="1")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_step(step: Step, root: Path, env: dict[str, str], env_file: Path) -> None:
    """Run one `$ ` line in the scratch directory; a page's `export X=Y` lines carry over to
    its later lines (through `env_file`, one per page)."""
    t0 = time.monotonic()
    script = f"{step.command}\nexport -p > {env_file}"
    pre = f". {env_file} 2>/dev/null\n" if env_file.exists() else ""
    p = subprocess.run(["bash", "-c", pre + script], cwd=root, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=TIMEOUT)
    step.seconds = time.monotonic() - t0
    text = p.stdout.rstrip("\n")
    step.actual = [as_pwd(as_pwd(line, str(root)), str(REPO)).rstrip()
                   for line in text.split("\n")] if text.strip() else []


def as_pwd(line: str, path: str) -> str:
    """`path` in a line of output written as `$PWD`, the table cell or panel it is in padded
    back to its width (the next border moves back to where it was)."""
    while path in line:
        i = line.index(path)
        line = line[:i] + "$PWD" + line[i + len(path):]
        border = min((j for j in (line.find(c, i) for c in "│┃|") if j >= 0), default=-1)
        if border >= 0:
            line = line[:border] + " " * (len(path) - 4) + line[border:]
    return line


_TIMING = re.compile(r"(?<![\w.])\d+\.\d+(?=s\b|\s|\)|%|x\b|$)")


def normalise(lines: list[str]) -> list[str]:
    """Output as compared: timings as N.N, no trailing spaces, no blank lines at the end (a
    page may leave one between two commands)."""
    # A timing's width varies: the spaces around it (a column's padding) count as one.
    out = [re.sub(r" +(?=N\.N)|(?<=N\.N) +", " ", _TIMING.sub("N.N", line)).rstrip()
           for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


_ANY_COUNT = re.compile(r"(?<![\w.])N(?![\w.])")


def with_counts(want: list[str], got: list[str]) -> list[str]:
    """`got` with each line that matches its documented line's bare `N` counts written as
    the page writes it."""
    out = list(got)
    for i, (w, g) in enumerate(zip(want, got)):
        if _ANY_COUNT.search(w):
            pattern = r"\d+".join(re.escape(part) for part in _ANY_COUNT.split(w))
            if re.fullmatch(pattern, g):
                out[i] = w
    return out


def differences(ex: Example) -> list[str]:
    out = []
    for step in ex.steps:
        want, got = normalise(step.expected), normalise(step.actual or [])
        got = with_counts(want, got)
        if want != got:
            out += [f"$ {step.command}", *difflib.unified_diff(
                want, got, "documented", "printed now", lineterm="", n=1)]
    return out


def run_examples(todo: list[Example], root: Path, *, include_slow: bool) -> None:
    """README.md's examples first (later pages read its store), then the other pages side by
    side, each page's examples in order (a page's steps may depend on its earlier ones)."""
    from concurrent.futures import ThreadPoolExecutor

    env = environment(root)
    by_page: dict[Path, list[Example]] = {}
    for ex in todo:
        if include_slow or not ex.slow:
            by_page.setdefault(ex.page, []).append(ex)

    def run_page(page: Path) -> None:
        for ex in by_page[page]:
            for step in ex.steps:
                run_step(step, root, env, root / f".env-{page.stem}.sh")

    first = [p for p in by_page if p.name == "README.md"]
    for page in first:
        run_page(page)
    rest = [p for p in by_page if p not in first]
    with ThreadPoolExecutor(max_workers=max(1, min(4, len(rest)))) as pool:
        list(pool.map(run_page, rest))


def update(ex: Example) -> None:
    """Rewrite the page's block with this run's output (later blocks' line numbers move, so
    a page's examples are rewritten last to first)."""
    lines = ex.page.read_text().split("\n")
    block = []
    for step in ex.steps:
        block.append(f"{INDENT}$ {step.command}")
        kept = with_counts([line.rstrip() for line in step.expected],
                           [line.rstrip() for line in step.actual or []])
        block += [f"{INDENT}{line}".rstrip() for line in kept]
        if step is not ex.steps[-1] and step.expected and not step.expected[-1].strip():
            block.append("")  # the page's blank line between two commands stays
    lines[ex.start:ex.end] = block
    ex.page.write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.docs_examples", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="rewrite the examples' output")
    ap.add_argument("--skip-slow", action="store_true", help="leave `slow` examples out")
    ap.add_argument("pages", nargs="*", help="only these pages (README.md always runs first)")
    args = ap.parse_args(argv)
    chosen = {(REPO / p).resolve() for p in args.pages}
    todo = [ex for ex in all_examples()
            if not chosen or ex.page.resolve() in chosen or ex.page.name == "README.md"]
    root = scratch_dir()
    run_examples(todo, root, include_slow=not args.skip_slow)
    bad = 0
    for ex in reversed(todo):
        if ex.slow and args.skip_slow:
            continue
        took = sum(s.seconds for s in ex.steps)
        diff = differences(ex)
        print(f"{ex.name}: {len(ex.steps)} commands, {took:.1f}s, "
              f"{'differs' if diff else 'same'}", file=sys.stderr)
        if diff and args.update:
            update(ex)
        elif diff:
            bad += 1
            print("\n".join(diff), file=sys.stderr)
    print(f"scratch directory: {root}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
