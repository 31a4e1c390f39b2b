"""`compdiag bisect`'s terminal view: a progress bar and a step log on stderr, a summary on
stdout."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.text import Text
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from compdiag.bisect.search import Plan, Probe

_STYLE = {"good": "green", "bad": "red", "cancelled": "dim", "skipped": "cyan",
          "inferred": "cyan"}


class ProgressView:
    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                 TextColumn("{task.completed}/{task.total} probes"),
                                 TimeElapsedColumn(), console=console, transient=True)
        self.task = self.progress.add_task("bisect", total=1)
        self.done = 0
        self.running: list[str] = []

    def __enter__(self) -> "ProgressView":
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def event(self, kind: str, payload: object) -> None:
        if kind == "start" and isinstance(payload, Probe):
            self.running.append(payload.label())
        elif kind == "plan" and isinstance(payload, Plan):
            self.progress.update(self.task, total=self.done + len(self.running) +
                                 max(payload.remaining - len(self.running), 0) or 1)
        elif kind == "step":
            step = payload
            label = step.probe.label()  # type: ignore[attr-defined]
            if label in self.running:
                self.running.remove(label)
            if step.result in ("good", "bad"):  # type: ignore[attr-defined]
                self.done += 1
            print_step(self.console, step)
        running = ", ".join(self.running) or "…"
        self.progress.update(self.task, completed=self.done, description=f"running {running}")


def _step_line(step) -> str:
    style = _STYLE.get(step.result, "")
    text = f"[{style}]{step.result:>9}[/{style}]  {step.probe.label()}"
    if step.wall_s is not None:
        text += f"  ({step.wall_s:.1f}s{', speculative' if step.speculative else ''})"
    if step.reason:
        text += f"  [dim]{escape(step.reason)}[/dim]"
    elif step.result == "good" and step.rc not in (0, None):
        text += f"  [dim]another error than the run's (exit status {step.rc})[/dim]"
    return f"[dim]{step.n:>3}[/dim] {text}"


def other_errors(steps) -> list[int]:
    """The exit statuses of probes counted as passing though they failed: another error than
    the run's (the run's command could not run as it did: a torchrun rank without its
    launcher, a missing file), which says nothing of the compiler."""
    return sorted({s.rc for s in steps if s.result == "good" and s.rc not in (0, None)})


def print_step(console: Console, step) -> None:
    console.print(_step_line(step), soft_wrap=True)


def print_report(report, doc: dict, console: Console) -> None:
    r = report.result
    if r is None:
        if report.error:
            console.print(f"[red]bisect stopped:[/red] {report.error}")
        elif (failed := other_errors(report.steps)):
            statuses = ", ".join(map(str, failed))
            console.print(f"The run's failure did not come back: the probes ended with exit "
                          f"status {statuses}, another error than the run's (the last one's "
                          "output below), so there is nothing to bisect this way. Give "
                          "compdiag bisect the command as the run was started, its launcher "
                          "and environment included (torchrun's for a rank), after `--`.")
        else:
            console.print("No failure: the command passes with every backend "
                          "(eager … inductor); nothing to bisect.")
        if not report.error and report.baseline_tail:
            console.print(Text(report.baseline_tail[-600:], style="dim"))
    else:
        head = f"[bold]{r.backend}[/bold]"
        if r.subsystem is not None:
            head += f" · [bold]{r.subsystem.name}[/bold]"
            if r.subsystem.is_config:
                head += (f" (setting {r.subsystem.config_name}.{r.subsystem.config_field}="
                         f"{r.subsystem.config_value} fixes it)")
            elif r.application is not None:
                head += f" · application {r.application} of {r.count}"
        else:
            head += " (no subsystem of it identified)" if r.backend != "eager" else \
                " (it fails without any compiler: the program itself, or Dynamo)"
        console.print(f"culprit: {head}")
        if r.debug_info:
            console.print(f"  debug info: {r.debug_info}", markup=False)
        c = doc.get("culprit") or {}
        if c.get("graphs"):
            console.print("  graphs it reaches: " + ", ".join(c["graphs"]), markup=False)
        elif c:
            where = [f"compile {c['compile_id']}" if c.get("compile_id") else None,
                     c.get("graph") and f"{c['graph']} graph".replace("graph graph", "graph"),
                     c.get("target") and f"target {c['target']}"]
            console.print("  in: " + ", ".join(w for w in where if w), markup=False)
            if c.get("source"):
                console.print(f"  source: {c['source']}", markup=False, soft_wrap=True)
        if doc.get("replay"):
            console.print(f"  replay (fails):  {doc['replay']}", markup=False, soft_wrap=True)
        if doc.get("replay_off") and doc.get("replay_off_status") is not None:
            # it failed too, otherwise: say so, never "passes" (benchmarks/probes25
            # custom_op_fake_shape: crossref's MetadataMismatchError named the real cause)
            console.print(f"  replay (does not fail the run's way; exit status "
                          f"{doc['replay_off_status']}, another error): {doc['replay_off']}",
                          markup=False, soft_wrap=True)
            console.print(f"  note: the program fails without {r.backend} too, with another "
                          "error: read that replay's output, it may name the cause.",
                          markup=False, soft_wrap=True)
        elif doc.get("replay_off"):
            console.print(f"  replay (passes): {doc['replay_off']}", markup=False,
                          soft_wrap=True)
    cause = doc.get("explained")
    if cause:
        at = f" (line {cause['lineno']})" if cause.get("lineno") else ""
        console.print(f"  explain's diagnosis of run {doc.get('run')}{at}: {cause['reason']}",
                      markup=False, soft_wrap=True)
        if r is not None:
            console.print("  (bisect names the step where the failure appears; explain names "
                          "its cause)", markup=False, style="dim")
    ran = sum(1 for s in report.steps if s.result in ("good", "bad"))
    free = sum(1 for s in report.steps if s.result in ("skipped", "inferred"))
    warm = f", {report.warm_probes} forked warm" if report.warm_probes else ""
    console.print(f"[dim]{ran} probes run ({report.cancelled} cancelled{warm}), {free} answered "
                  f"from evidence, {report.wall_s:.1f}s[/dim]")
