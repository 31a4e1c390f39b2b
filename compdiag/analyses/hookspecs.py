"""The hooks a diagnosis kind implements (pluggy, as pytest's and sqlite-utils' hookspecs).

A kind is one module with `@hookimpl` functions. The built-in kinds are listed in
analyses/diagnoses/__init__.py; a plugin package adds one through the entry-point group
`compdiag.diagnoses` without the core knowing it."""

from __future__ import annotations

from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("compdiag")
hookimpl = pluggy.HookimplMarker("compdiag")


@hookspec
def compdiag_kinds() -> list[Any]:
    """The kinds this plugin diagnoses: analyses.kind_spec.KindSpec values (title, words,
    style, cost classes, tie order, details types), which ranking, the views and the TUI read;
    a kind without one is shown by its name and ranked last on a tie."""


@hookspec
def compdiag_diagnose(ctx: Any) -> list[Any]:
    """The diagnoses of one run (analyses.context.RunContext), in the kind's own order."""


@hookspec
def compdiag_diagnose_job(job: Any) -> list[Any]:
    """The diagnoses of a job's ranks taken together (analyses.job_context.JobContext): what
    no single rank's run shows, e.g. the `divergence` kind."""


@hookspec(firstresult=True)
def compdiag_limiter(diagnosis: Any, timings: Any) -> Any:
    """What the diagnosis costs a timed run (`compdiag perf`): an analyses.limiter.Limiter,
    or None when the diagnosis is not this kind's or costs nothing measurable.
    `timings` is analyses.limiter.TimedRun."""
