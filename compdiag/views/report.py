"""report.md of `compdiag report`: the run's top diagnoses in plain markdown, ready to paste
into a PyTorch issue, and the list of what the archive holds (so nothing is shared by
surprise)."""

from __future__ import annotations

from typing import Any, Sequence

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
    out = [f"# compdiag report: run {run['id']}", "",
           f"`{argv}` exited {run.get('exit_code')} ({run.get('status')}) with torch "
           f"{run.get('torch_version')} on {run.get('device') or 'an unknown device'}: "
           f"{c.get('compiles', 0)} compiles, {c.get('graph_breaks', 0)} graph breaks, "
           f"{c.get('recompiles', 0)} recompile reasons, {c.get('failures', 0)} failures.", ""]
    diags = doc.get("diagnoses") or []
    out += [f"## Top diagnoses ({min(limit, len(diags))} of {len(diags)}, "
            "most important first)", ""]
    if not diags:
        out += ["No problems found: no graph breaks, recompiles, failures, CUDA-graph skips or "
                "missed fusions were recorded.", ""]
    for i, d in enumerate(diags[:limit], 1):
        out += _diagnosis(i, d)
    if len(diags) > limit:
        out += [f"{len(diags) - limit} more in `report.json`.", ""]
    out += ["## Minimal repro", ""]
    if repro is not None and repro.get("given"):
        out += ["`python repro.py`: the repro given to `compdiag report --repro`.", ""]
    elif repro is not None:
        f = repro.get("failure") or {}
        ops = ", ".join(f"`{o}`" for o in repro.get("ops") or []) or "none"
        out += [f"`python repro.py` reproduces the {f.get('kind')} ({f.get('stage')}, "
                f"{f.get('exc_type')}) with torch alone: it fails with torch's error while "
                "the bug is present and exits 0 once it is fixed; `python repro_check.py` is "
                "the full check (exit 1 bug present, 0 fixed, 2 fails differently). "
                f"Ops left in the minimal graph: {ops}.", ""]
    else:
        out += [repro_note or "No repro: the run has no failure to minify.", ""]
    out += ["## Environment", ""]
    config = env.get("config") or {}
    out += [f"- torch {m.get('torch_version')}, triton {m.get('triton_version')}, "
            f"Python {m.get('python')}",
            f"- torch built with CUDA {m.get('cuda_compiled_version')}; CUDA runtime "
            f"{m.get('cuda_runtime_version')}, driver {m.get('nvidia_driver_version')}, "
            f"GPU {m.get('nvidia_gpu_models')}",
            f"- {m.get('os') or m.get('platform')}"]
    for field, values in sorted(config.items()):
        if values:
            items = ", ".join(f"`{k}={_short(v)}`" for k, v in sorted(values.items()))
            out.append(f"- non-default {field.replace('_', ' ')}: {items}")
    out += ["", "## What this archive contains", "",
            f"Made by `compdiag report`; its size is kept under {bound / 1e6:.0f} MB. Paths "
            "under the home directory are shown relative to it (`~`). Tensors are left out "
            "unless the repro needs them.", "",
            "| file | size | what |", "| --- | --- | --- |",
            "| report.md | | this summary |"]
    out += [f"| {name} | {_size(n)} | {what} |" for name, n, what in listing]
    out.append("")
    if left_out:
        out += ["Left out:", ""] + [f"- {x}" for x in left_out] + [""]
    return "\n".join(out)


def _diagnosis(i: int, d: dict[str, Any]) -> list[str]:
    out = [f"### {diagnosis_title(i, d)}", "", f"**{d['reason']}**", ""]
    uf = d.get("user_frame") or {}
    if uf.get("filename"):
        out.append(f"at `{uf['filename']}:{uf['lineno']}`")
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
