"""HelpScreen (`?`): the keys, and the two names every screen shows that torch never
explains: compile ids (`0/0_1`) and resume functions (`torch_dynamo_resume_in_…`). The same
words are in docs/explain.md ("Reading compile ids and resume functions")."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# compdiag tui

## Keys

| key | where | what |
| --- | --- | --- |
| `enter` | everywhere | open the highlighted compile, diagnosis, run or hit |
| `escape` | everywhere | back (the runs list is behind the compile tree) |
| `1`-`0` `[` `]` `r` | a compile | its stage tabs |
| `v` | Bytecode tab | original / transformed / decompiled |
| `o` | compile tree | your source at the highlighted compile |
| `/` | everywhere | search graphs, code, guards and reasons |
| `p` | run, runs list | the perf report (`compdiag perf`) |
| `space`, `d` | runs list | mark a run; what the highlighted one did differently |
| `m`, `b` | everywhere | copy the minify / bisect command |
| `ctrl+p` | everywhere | the command palette |
| `?` | everywhere | this help |
| `q` | everywhere | quit |

## Compile ids: `0/0`, `0/1`, `1/0_1`

`F/N`: the **N-th compile of frame F**. Dynamo numbers each Python function
(code object) it compiles, from 0 in the order it first meets them: that
is F. N counts that function's compiles: `0/0` is its first, `0/1` a
**recompile** (a guard of every earlier compile failed, e.g. a new input
shape). `_A` is an **attempt**: `1/0_1` is the second try at compile `1/0`,
after Dynamo restarted its analysis (it does so at a graph break, to
compile the code before the break). A leading `!` marks compiled autograd.

## Resume functions: `torch_dynamo_resume_in_f_at_12`

At a graph break in `f` on line 12, Dynamo compiles the code before the
break, runs the breaking line in plain Python, and goes on in a new
function made of the rest of `f`, from line 12: that function is named
`torch_dynamo_resume_in_f_at_12`. It gets a frame number of its own, so
its compiles are `F/N` of another F; its graphs and recompiles are `f`'s
(perf shows it as `f @12+`, explain folds its recompiles into `f`'s).
Each further break in it adds another resume function.

Press `escape`, `q` or `?` to close.
"""


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 100; height: 90%;
                                  border: round $accent; background: $surface; }
    """

    BINDINGS = [("escape", "dismiss", "Close"), ("q", "dismiss", "Close"),
                ("question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(HELP)

    def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)
