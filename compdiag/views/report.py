"""report.md of `compdiag report`: the run's top diagnoses in plain markdown, ready to paste
into a PyTorch issue, and the list of what the archive holds (so nothing is shared by
surprise)."""

from __future__ import annotations

from typing import Any, Sequence

from compdiag.formats.words import plural
from compdiag.views.explain import diagnosis_title

MESSAGE_LINES = 25        # torch's own message is often a whole compiler log: its head only


def report_markdown(doc: dict[str, Any], env: dict[str, Any], *, repro: dict[str, Any] | None,
                    repro_note: str | None, listing: Sequence[tuple[str, int, str]],
                    left_out: Sequence[str], bound: int, limit: int = 5) -> str:
    """`doc` is explain's document, `env` env.json's, `repro` minify's JSON document (None
    when there is no repro, `repro_note` then says why), `listing` (name, bytes, what) for
    every other file of the archive."""
    run = doc["run"]
    c = run.get("counts") or {}
    argv = " ".join(run.get("argv") or [])
    m = env.get("machine") or {}
    exited = (f"exited {run['exit_code']}" if run.get("exit_code") is not None
              else "did not finish")
    status = f" ({run['status']})" if run.get("status") else ""
    counts = ", ".join(plural(c.get(key) or 0, word) for key, word in (
        ("compiles", "compile"), ("graph_breaks", "graph break"),
        ("recompiles", "recompile"), ("failures", "failure")))
    out = [f"# compdiag report: run {run['id']}", "",
           f"`{argv}` {exited}{status} with torch {_known(run.get('torch_version'))} on "
           f"{run.get('device') or 'an unknown device'}: {counts}.", ""]
    out += _top_diagnoses(doc.get("diagnoses") or [], limit, "No problems found: no graph "
                          "breaks, recompiles, failures, CUDA-graph skips or missed fusions "
                          "were recorded.")
    out += ["## Minimal repro", ""]
    if repro is not None and repro.get("given"):
        out += ["`python repro.py`: the repro given to `compdiag report --repro`.", ""]
    elif repro is not None:
        f = repro.get("failure") or {}
        ops = ", ".join(f"`{o}`" for o in repro.get("ops") or []) or "none"
        what = ", ".join(str(x) for x in (f.get("stage"), f.get("exc_type")) if x)
        out += [f"`python repro.py` reproduces the {f.get('kind') or 'failure'}"
                f"{f' ({what})' if what else ''} with torch alone: it fails with torch's error while "
                "the bug is present and exits 0 once it is fixed; `python repro_check.py` is "
                "the full check (exit 1 bug present, 0 fixed, 2 fails differently). "
                f"Ops left in the minimal graph: {ops}.", ""]
    else:
        out += [repro_note or "No repro: the run has no failure to minify.", ""]
    out += ["## Environment", "", *_machine_lines(m)]
    config = env.get("config") or {}
    for field, values in sorted(config.items()):
        if values:
            items = ", ".join(f"`{k}={_short(v)}`" for k, v in sorted(values.items()))
            out.append(f"- non-default {field.replace('_', ' ')}: {items}")
    out += [""] + _archive(f"Made by `compdiag report`; its size is kept under "
                           f"{bound / 1e6:.0f} MB. Paths under the home directory are shown "
                           "relative to it (`~`). Tensors are left out unless the repro needs "
                           "them.", listing, left_out)
    return "\n".join(out)


def _top_diagnoses(diags: list[dict[str, Any]], limit: int, none: str,
                   ranks: bool = False) -> list[str]:
    """The top diagnoses section (`ranks`: each says the ranks it concerns, a job's)."""
    out = [f"## Top diagnoses ({min(limit, len(diags))} of {len(diags)}, "
           "most important first)", ""]
    if not diags:
        out += [none, ""]
    for i, d in enumerate(diags[:limit], 1):
        said = _diagnosis(i, d)
        if ranks:
            said[2:2] = [f"ranks: {', '.join(str(r) for r in d.get('ranks') or []) or 'all'}",
                         ""]
        out += said
    if len(diags) > limit:
        out += [f"{len(diags) - limit} more in `report.json`.", ""]
    return out


def _machine_lines(m: dict[str, Any]) -> list[str]:
    """The machine env.json describes: torch, triton and Python; CUDA; the OS."""
    triton = f"triton {m['triton_version']}" if m.get("triton_version") else "no triton"
    return [f"- torch {_known(m.get('torch_version'))}, {triton}, "
            f"Python {_known(m.get('python'))}", "- " + _cuda_line(m),
            f"- {m.get('os') or m.get('platform') or 'unknown OS'}"]


def _archive(made_by: str, listing: Sequence[tuple[str, int, str]],
             left_out: Sequence[str]) -> list[str]:
    """"What this archive contains": how it was made, every file, what was left out."""
    out = ["## What this archive contains", "", made_by, "",
           "| file | size | what |", "| --- | --- | --- |", "| report.md | | this summary |"]
    out += [f"| {name} | {_size(n)} | {what} |" for name, n, what in listing]
    out.append("")
    if left_out:
        out += ["Left out:", ""] + [f"- {x}" for x in left_out] + [""]
    return out


def job_report_markdown(doc: dict[str, Any], env: dict[str, Any], *, repro: str | None,
                        listing: Sequence[tuple[str, int, str]], left_out: Sequence[str],
                        bound: int, launched: str = "", limit: int = 5) -> str:
    """report.md of `compdiag report --job`: `doc` is `explain --job --json`'s document, `env`
    env.json's, `repro` the `compdiag report` command of the rank the top diagnosis concerns
    (its repro is one rank's), `listing` (name, bytes, what) for every other file,
    `launched` the launcher's command line when the store holds it."""
    job = doc["job"]
    ranks = job.get("ranks") or []
    m = env.get("machine") or {}
    out = [f"# compdiag report: job {job['id']} ({plural(len(ranks), 'rank')})", ""]
    if launched:
        out += [f"Launched as `{launched}`.", ""]
    out += ["| rank | run | exit | compiles | graph breaks | recompile reasons | failures |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in ranks:
        c = r.get("counts") or {}
        out.append(f"| {r['rank']} | {r['run']} | {_known(r.get('exit_code'))} | "
                   f"{c.get('compiles', 0)} | {c.get('graph_breaks', 0)} | "
                   f"{c.get('recompiles', 0)} | {c.get('failures', 0)} |")
    out += [""] + _top_diagnoses(doc.get("diagnoses") or [], limit,
                                 "No problems found on any rank.", ranks=True)
    out += ["## Minimal repro", "",
            (f"A job's archive holds no repro (a repro is one rank's graph): `{repro}` writes "
             "that rank's report with its minified repro." if repro else
             "No repro: nothing was diagnosed to minify."), ""]
    out += ["## Environment", "", *_machine_lines(m), ""]
    out += _archive(f"Made by `compdiag report --job`; its size is kept under "
                    f"{bound / 1e6:.0f} MB. Paths under the home directory are shown relative "
                    "to it (`~`). `compdiag import ranks/` reads the ranks' logs back as one "
                    "job.", listing, left_out)
    return "\n".join(out)


def _known(value: Any) -> str:
    """A value a person reads: 'unknown' for none, never 'None'."""
    return "unknown" if value is None or value == "" else str(value)


def _cuda_line(m: dict[str, Any]) -> str:
    """'torch built with CUDA 12.8; CUDA runtime 12.8, driver 570.1, GPU H100', what is
    known of it ('torch built without CUDA; no GPU' on a CPU build)."""
    built = m.get("cuda_compiled_version")
    head = f"torch built with CUDA {built}" if built else "torch built without CUDA"
    parts = [f"{label} {m[key]}" for key, label in (
        ("cuda_runtime_version", "CUDA runtime"), ("nvidia_driver_version", "driver"),
        ("nvidia_gpu_models", "GPU")) if m.get(key)]
    if not m.get("nvidia_gpu_models"):
        parts.append("no GPU")
    return f"{head}; {', '.join(parts)}"


def _diagnosis(i: int, d: dict[str, Any]) -> list[str]:
    out = [f"### {diagnosis_title(i, d)}", "", f"**{d['reason']}**", ""]
    uf = d.get("user_frame") or {}
    if uf.get("filename"):
        line = f":{uf['lineno']}" if uf.get("lineno") is not None else ""
        out.append(f"at `{uf['filename']}{line}`")
        if uf.get("line"):
            out += ["", "```python", uf["line"], "```"]
        out.append("")
    if d.get("explanation"):
        out += [d["explanation"], ""]
    for h in [h for h in d.get("hints") or [] if "report an issue" not in h.lower()][:2]:
        out += [f"torch hint: {h}", ""]
    out += [f"**Fix:** {d['fix']}", ""]
    message = (d.get("details") or {}).get("torch_message")
    if message:
        lines = str(message).splitlines()
        more = len(lines) - MESSAGE_LINES
        out += ["<details><summary>torch's message</summary>", "", "```",
                *lines[:MESSAGE_LINES], *([f"... ({more} more lines in report.json)"]
                                          if more > 0 else []), "```", "", "</details>", ""]
    return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB" if n < 1 << 20 \
        else f"{n / (1 << 20):.1f} MiB"
