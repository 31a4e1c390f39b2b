"""compdiag bisect.

- The search gives CompilerBisector's own answer: hypothesis drives torch's real
  CompilerBisector.do_bisect (in-process, no compile) and compdiag's Search over the same
  made-up programs (no torch compile, a few seconds).
- The command line, the probes' environment, cleanup and Ctrl-C run against
  bisect_scripts/fake_compiler.py, a torch-free stand-in (seconds).
- One real bisect of an Inductor bug (the C++ relu accuracy injector) checks the hook, the
  evidence and that no file outside the run's temp dir changes (minutes).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdtest import shared_cache, torch_test_env
from json_doc import assert_documented

from compdiag.bisect.search import (CROSSREF, DECOMP, Evidence, Probe, Search, Subsystem,
                                    load_backends, parse_backends)

REPO = Path(__file__).resolve().parent.parent
BISECT_SCRIPTS = Path(__file__).parent / "bisect_scripts"
FAKE = BISECT_SCRIPTS / "fake_compiler.py"
BACKENDS = load_backends()
ORDER = list(BACKENDS)


# -- the search against torch's CompilerBisector ---------------------------------------------
@dataclass
class World:
    """A made-up program: which backends fail, and what inside the first failing one."""
    bad: frozenset[str]
    counts: dict[tuple[str, str], int]
    culprit: tuple[str, str, int | None] | None   # backend, subsystem, application
    random: bool
    lowp: bool
    layout: bool
    padded: bool

    def good(self, backend: str, disabled: set[tuple[str, int]], config: set[str]) -> bool:
        if backend not in self.bad:
            return True
        if self.culprit is None or self.culprit[0] != backend:
            return False
        _, sub, k = self.culprit
        return sub in config if k is None else (sub, k) in disabled

    def evidence(self, backend: str) -> Evidence:
        ev = Evidence(compiles=1, layout_opt=[self.layout], padded=self.padded)
        ev.graphs = [{"where": "dynamo", "random": self.random, "custom": [],
                      "dtypes": ["float32"] + (["bfloat16"] if self.lowp else [])}]
        for (b, s), n in self.counts.items():
            if b == backend or (backend == CROSSREF and b == DECOMP):
                ev.apps[(b, s)] = [{"i": i, "info": f"{s}#{i}"} for i in range(n)]
        return ev


def _can_matter(w_flags: dict, sub: Subsystem) -> bool:
    return {"fallback_random": w_flags["random"], "emulate_precision_casts": w_flags["lowp"],
            "layout_optimization": w_flags["layout"],
            "comprehensive_padding": w_flags["padded"]}.get(sub.config_field, True)


@st.composite
def worlds(draw) -> World:
    flags = {k: draw(st.booleans()) for k in ("random", "lowp", "layout", "padded")}
    counts = {(b, s.name): draw(st.integers(0, 9)) for b, subs in BACKENDS.items()
              for s in subs if not s.is_config}
    first = draw(st.sampled_from(ORDER + [None]))
    bad = set() if first is None else set(ORDER[ORDER.index(first):])
    bad |= {b for b in ORDER if draw(st.integers(0, 5)) == 0}  # not always monotone
    # crossref is aot_eager_decomp_partition plus checks that only fail on custom ops
    if DECOMP in bad:
        bad.add(CROSSREF)
    else:
        bad.discard(CROSSREF)
    culprit = None
    failing = next((b for b in ORDER if b in bad), None)
    if failing is not None and BACKENDS[failing] and draw(st.booleans()):
        sub = draw(st.sampled_from(BACKENDS[failing]))
        if sub.is_config:
            if _can_matter(flags, sub):
                culprit = (failing, sub.name, None)
        else:
            n = counts[(failing, sub.name)] = max(1, counts[(failing, sub.name)])
            culprit = (failing, sub.name, draw(st.integers(0, n - 1)))
    return World(frozenset(bad), counts, culprit, **flags)


def _compiler_bisector(world: World):
    from torch._inductor.compiler_bisector import CompilerBisector

    def fn() -> bool:
        backend = CompilerBisector.get_backend()
        disabled: set[tuple[str, int]] = set()
        for (b, s), n in world.counts.items():
            for i in range(n):
                if CompilerBisector.disable_subsystem(b, s, lambda s=s, i=i: f"{s}#{i}"):
                    disabled.add((s, i))
        config = set()
        sub = CompilerBisector.get_subsystem()
        if sub and backend and CompilerBisector.get_config_change(backend):
            config.add(sub)
        return world.good(backend, disabled, config)

    return CompilerBisector.do_bisect(fn)


def _ours(world: World):
    search = Search(BACKENDS)
    results: dict[Probe, bool] = {}
    evidence: dict[Probe, Evidence] = {}
    for _ in range(200):
        plan = search.plan(results, evidence)
        assert plan.error is None, plan.error
        if plan.done:
            return plan.result, len(results)
        probe = plan.probes[0]
        disabled: set[tuple[str, int]] = set()
        config: set[str] = set()
        if probe.config:
            config.add(probe.subsystem)
        elif probe.subsystem is not None:
            n = world.counts[(probe.backend, probe.subsystem)]
            disabled = {(probe.subsystem, i) for i in range(n) if i > probe.max}
        results[probe] = world.good(probe.backend, disabled, config)
        if probe.subsystem is None:
            evidence[probe] = world.evidence(probe.backend)
    raise AssertionError("the search did not end")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world=worlds())
def test_search_gives_compiler_bisectors_answer(world: World) -> None:
    theirs = _compiler_bisector(world)  # (it prints its progress; pytest captures it)
    ours, probes = _ours(world)
    if theirs is None:
        assert ours is None
        return
    assert ours is not None
    assert ours.backend == theirs.backend
    assert (ours.subsystem.name if ours.subsystem else None) == theirs.subsystem
    if ours.subsystem is not None and not ours.subsystem.is_config:
        assert ours.application == theirs.bisect_number
    assert ours.debug_info == theirs.debug_info


def test_backend_table_is_read_from_torch() -> None:
    from torch._inductor.compiler_bisector import BACKENDS as TORCH_BACKENDS

    assert list(BACKENDS) == list(TORCH_BACKENDS)
    for name, subs in TORCH_BACKENDS.items():
        assert [s.name for s in BACKENDS[name]] == [s.name for s in subs]
    with pytest.raises(ValueError):
        parse_backends("BACKENDS = {'eager': [Weird('x')]}")


def test_the_runs_error_is_found_above_pages_of_compiler_output(tmp_path: Path) -> None:
    """probes36f bfp_frexp_quant: a probe failed with the run's own `InductorError:
    CppCompileError`, but g++'s output after the exception's first line filled the last 8000
    characters, and the probe was counted as passing ("another error than the run's")."""
    from compdiag.bisect.runner import Oracle

    out = tmp_path / "probe.out"
    head = "torch._inductor.exc.InductorError: CppCompileError: C++ compile error\n"
    out.write_text("warning\n" * 10 + head + "main.cpp:87: error: no matching\n" * 3000)
    tail = out.read_text()[-8000:]
    oracle = Oracle(bad_rc=1, bad_text="InductorError")
    assert oracle.good(1, tail) and not oracle.good(1, tail, out)  # the file holds it
    other = tmp_path / "other.out"
    other.write_text("RuntimeError: something else\n" * 2000)
    assert oracle.good(1, other.read_text()[-8000:], other)    # another error: passes
    assert not oracle.good(1, head, other) and oracle.good(0, "", out)


def test_plan_skips_what_the_evidence_rules_out() -> None:
    search = Search(BACKENDS)
    world = World(frozenset({"inductor"}), {("inductor", "lowerings"): 3,
                                            ("inductor", "pre_grad_passes"): 2},
                  ("inductor", "lowerings", 2), False, False, False, False)
    ours, probes = _ours(world)
    assert (ours.backend, ours.subsystem.name, ours.application) == ("inductor", "lowerings", 2)
    # eager, aot_eager, crossref, inductor, pre_grad off, lowerings off, lowerings <=1:
    # no decomp_partition run, no config, cudagraphs, joint/post-grad or find-max probe
    assert probes == 7
    plan = search.plan({p: True for p in (Probe("eager"), Probe("aot_eager"),
                                          Probe(CROSSREF))} | {Probe("inductor"): False},
                       {Probe("inductor"): world.evidence("inductor")})
    assert plan.probes[0] == Probe("inductor", "pre_grad_passes", -1)
    assert Probe("inductor", "inductor_fallback_random", -1,
                 (("inductor", "fallback_random", True),)) not in plan.probes


# -- the command line against the torch-free stand-in ----------------------------------------
def _env(tmp: Path, **extra: str) -> dict[str, str]:
    """The user's environment for a test that checks what a bisect leaves behind: TMPDIR is a
    fresh folder, tmp/tmp, which the test finds empty at the end. None of the session's
    TORCH_BISECT_*, COMPDIAG_* or TORCHINDUCTOR_* settings but the suite's torch settings
    (cdtest.TORCH_TEST_ENV: the vector ISA from cpuinfo, not three g++ probe kernels built in
    every fresh Inductor cache dir, the warm interpreter's and the probes' included)."""
    env = _user_env(**extra)
    (tmp / "tmp").mkdir(exist_ok=True)
    env["TMPDIR"] = str(tmp / "tmp")
    return env


def _user_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TORCH_BISECT_", "COMPDIAG_", "TORCHINDUCTOR_"))}
    env.update({k: v for k, v in torch_test_env().items() if k not in extra})
    env.update(extra)
    return env


def _warm_env(**extra: str) -> dict[str, str]:
    """For a test that compiles and does not check the temp dir: the session's own TMPDIR,
    where Inductor keeps the precompiled C++ header the rest of the suite built (a fresh
    TMPDIR builds it again in every process, 5-9 CPU s), and the session's shared Inductor
    cache (cdtest.shared_cache) as the user's cache, whose compiled kernels bisect links into
    its probes' own cache (never the graph caches: runner.seed_kernel_cache)."""
    return _user_env(TORCHINDUCTOR_CACHE_DIR=str(shared_cache()), **extra)


def _bisect(tmp: Path, *args: str, env: dict | None = None, timeout: int = 120):
    return subprocess.run([sys.executable, "-m", "compdiag", "bisect", *args],
                          cwd=tmp, env=env or _env(tmp), capture_output=True, text=True,
                          timeout=timeout)


def _snapshot(root: Path, skip: str = "tmp") -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.relative_to(root).parts[0] != skip}


def test_cli_finds_the_application_and_its_replay_pair_reproduces_it(tmp_path: Path) -> None:
    before = _snapshot(tmp_path)
    p = _bisect(tmp_path, "--json", "--", sys.executable, str(FAKE), "lowerings:4:6")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert {"schema_version", "backend", "subsystem", "application", "debug_info", "steps",
            "replay"} <= set(doc)
    assert_documented(doc, "bisect")  # docs/json.md's keys
    assert (doc["backend"], doc["subsystem"], doc["application"], doc["debug_info"]) == \
        ("inductor", "lowerings", 4, "lowerings-4")
    assert doc["culprit"] == {"compile_id": "0/0", "graph": "forward",
                              "target": "aten.op4.default", "applications": 6,
                              "source": 'File "model.py", line 14, in forward: y = op4(x)'}
    results = {s["probe"]: s["result"] for s in doc["steps"]}
    assert results["inductor · cudagraphs off"] == "skipped"
    assert results["inductor · fallback_random=True"] == "skipped"
    assert results[DECOMP] == "inferred"
    assert "inductor · lowerings off" in results
    # the pair differs in the culprit only, and reproduces it without compdiag
    assert "TORCH_BISECT_MAX=4" in doc["replay"] and "TORCH_BISECT_MAX=3" in doc["replay_off"]
    assert doc["replay_verified"] == {"replay": True, "replay_off": True}
    env = _env(tmp_path)
    # pasted into a shell anywhere: the line changes into the bisect's folder itself
    on = subprocess.run(["bash", "-c", doc["replay"]], env=env, cwd="/")
    off = subprocess.run(["bash", "-c", doc["replay_off"]], env=env, cwd="/")
    assert (on.returncode, off.returncode) == (1, 0)
    assert "lowerings" in p.stderr and "bad" in p.stderr  # the step log
    assert _snapshot(tmp_path) == before  # cwd untouched (TMPDIR is tmp/)
    assert list((tmp_path / "tmp").iterdir()) == []  # the temp dir is gone


def test_cli_config_culprit_and_its_replay(tmp_path: Path) -> None:
    p = _bisect(tmp_path, "--json", "-j", "1", "--", sys.executable, str(FAKE),
                "fallback_random")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert (doc["backend"], doc["subsystem"], doc["debug_info"]) == \
        ("inductor", "inductor_fallback_random", "inductor_fallback_random")
    assert doc["config"] == {"inductor.fallback_random": True}
    assert doc["culprit"] == {"graphs": ["0/0 dynamo"]}  # the graph with random ops
    env = _env(tmp_path)
    # pasted into a shell anywhere: the line changes into the bisect's folder itself
    on = subprocess.run(["bash", "-c", doc["replay"]], env=env, cwd="/")
    off = subprocess.run(["bash", "-c", doc["replay_off"]], env=env, cwd="/")
    assert (on.returncode, off.returncode) == (1, 0)


def test_replays_keep_the_pythonpath_the_program_ran_with(tmp_path: Path) -> None:
    """probes48b timm_mambaout: the program imported timm from the user's PYTHONPATH; the
    replay lines set PYTHONPATH to compdiag's hook alone (or left it out), and failed with
    an ImportError when pasted."""
    site = tmp_path / "site"
    site.mkdir()
    p = _bisect(tmp_path, "--json", "-j", "1", "--", sys.executable, str(FAKE),
                "fallback_random", env=_env(tmp_path, PYTHONPATH=str(site)))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert str(site) in doc["replay"] and str(site) in doc["replay_off"], doc["replay"]


def test_cli_always_failing_program_blames_eager_and_human_output(tmp_path: Path) -> None:
    # a status file CompilerBisector left in the user's cache dir (pytorch issue #143453)
    status = tmp_path / "cache" / "bisect" / "bisect_status.txt"
    status.parent.mkdir(parents=True)
    status.write_text("backend=aot_eager\nsubsystem=\n")
    env = _env(tmp_path, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"))
    p = _bisect(tmp_path, "--", sys.executable, str(FAKE), "eager", env=env)
    assert "bisect_status.txt was left by torch's CompilerBisector" in p.stderr
    assert status.read_text() == "backend=aot_eager\nsubsystem=\n"  # warned, not touched
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("culprit: eager"), p.stdout
    assert "TORCH_BISECT_BACKEND=eager" in p.stdout


def test_hook_is_inert_without_its_env_and_runs_the_sitecustomize_it_shadows(
        tmp_path: Path) -> None:
    from compdiag.bisect.runner import HOOK_DIR

    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import sys; sys.stderr.write('chained\\n')\n")
    code = "import sys; print(any(type(f).__name__ == '_Finder' for f in sys.meta_path))"
    for extra, finder in (({}, "False"), ({"COMPDIAG_BISECT_LOG": str(tmp_path / "l")}, "True")):
        env = _env(tmp_path, PYTHONPATH=f"{HOOK_DIR}{os.pathsep}{other}",
                   PYTHONDONTWRITEBYTECODE="1", **extra)
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True)
        assert (p.stdout.strip(), p.stderr) == (finder, "chained\n")


def test_timeout_counts_as_bad(tmp_path: Path) -> None:
    p = _bisect(tmp_path, "--json", "-j", "1", "--timeout", "2", "--", sys.executable,
                str(FAKE), "sleep", str(tmp_path / "pids"))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["backend"] == "eager"
    assert (doc["steps"][0]["probe"], doc["steps"][0]["rc"]) == ("eager", 124)
    assert list((tmp_path / "tmp").iterdir()) == []


def test_cli_no_failure_exits_1(tmp_path: Path) -> None:
    p = _bisect(tmp_path, "--json", "--", sys.executable, str(FAKE), "none")
    assert p.returncode == 1
    doc = json.loads(p.stdout)
    assert doc["found"] is False and doc["backend"] is None
    assert {s["probe"] for s in doc["steps"]} >= {"eager", "inductor"}


def test_cli_bad_input_is_one_line(tmp_path: Path) -> None:
    cases = [("--",), ("--", "no-such-command-xyz"), ("--", "missing.py"), ("1", "2"),
             ("--bogus",), ("--store", str(tmp_path / "none.db"))]
    for args in cases:
        p = _bisect(tmp_path, *args)
        assert p.returncode == 2, (args, p.stderr)
        last = p.stderr.strip().splitlines()[-1]
        assert last.startswith("compdiag: error: ") and p.stderr.count("\n") <= 2, \
            (args, p.stderr)  # argparse's own errors add its usage line
        assert "Traceback" not in p.stderr


def test_run_oracle_reruns_the_captured_run(tmp_path: Path) -> None:
    from compdiag.store.writer import Writer

    store = tmp_path / "s.db"
    w = Writer(store)
    failing = w.begin_run(source="run", argv=[str(FAKE), "lowerings:1:6"], cwd=str(tmp_path))
    w.end_run(failing, exit_code=1, status="done")
    passing = w.begin_run(source="run", argv=[str(FAKE), "none"], cwd=str(tmp_path))
    w.end_run(passing, exit_code=0, status="done")
    w.close()
    p = _bisect(tmp_path, "--store", str(store), str(failing), "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert (doc["run"], doc["subsystem"], doc["application"]) == (failing, "lowerings", 1)
    # the run's cause as explain names it, beside the step bisect found (probes25: bisect's
    # aten.mul lowering said nothing of the custom op's schema explain blamed)
    assert doc["explained"]["kind"] == "program" and "1" in doc["explained"]["reason"], doc
    p = _bisect(tmp_path, "--store", str(store), str(failing))
    assert f"explain's diagnosis of run {failing}" in p.stdout, p.stdout
    assert "bisect names the step where the failure appears" in p.stdout
    p = _bisect(tmp_path, "--store", str(store), "latest")
    assert p.returncode == 2 and "no failure to bisect" in p.stderr


@pytest.mark.parametrize("how", ["fresh", "warm"])
def test_ctrl_c_kills_the_probes_and_removes_the_temp_dir(tmp_path: Path, how: str) -> None:
    """fresh: probes are children of compdiag; warm: forked by its warm interpreter."""
    pids = tmp_path / "pids"
    cmd = [sys.executable, str(FAKE), "sleep", str(pids)] if how == "fresh" else \
        [sys.executable, str(BISECT_SCRIPTS / "sleeper.py"), str(pids)]
    # A shell starts background jobs with SIGINT ignored, and an ignored SIGINT is inherited
    # (python then installs no KeyboardInterrupt handler): give compdiag a default one, as a
    # terminal would, whatever runs this suite.
    proc = subprocess.Popen([sys.executable, "-m", "compdiag", "bisect", "-j", "2", "--",
                             *cmd], cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and (not pids.exists() or
                                           len(pids.read_text().split()) < 2):
        time.sleep(0.1)
    started = [int(x) for x in pids.read_text().split()]
    assert len(started) == 2
    assert len(list((tmp_path / "tmp").iterdir())) == 1
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        # Say what was still running, and what compdiag printed, before failing.
        tree = subprocess.run(["ps", "-eo", "pid,ppid,pgid,stat,etime,args", "--forest"],
                              capture_output=True, text=True).stdout
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"compdiag bisect did not exit within 60 s of SIGINT\n--- stderr:\n"
                    f"{err[-3000:]}\n--- processes:\n{tree[-6000:]}")
    assert proc.returncode == 130, err
    time.sleep(0.5)
    for pid in started:
        assert not Path(f"/proc/{pid}").exists() or \
            Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    assert list((tmp_path / "tmp").iterdir()) == []


# -- one real bisect ------------------------------------------------------------------------
def test_real_inductor_bug_and_nothing_left_behind(tmp_path: Path) -> None:
    """The C++ relu accuracy injector: CompilerBisector's answer is inductor / lowerings /
    application 2 / "relu" (its test_bad_lowering); compdiag adds where it is."""
    cache = tmp_path / "user-inductor-cache"      # the cache dir the user's torch would use
    cache.mkdir()
    (cache / "an-entry").write_text("x")
    (cache / "ab").mkdir()                        # a compiled kernel: linked into the probes'
    (cache / "ab" / "cabc.so").write_text("elf")  # cache, never written to
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    (work / "data.txt").write_text("the user's file")
    watched = {d: _snapshot(d) for d in (cache, home, work)}
    env = _env(tmp_path, TORCHINDUCTOR_CACHE_DIR=str(cache), HOME=str(home))
    p = subprocess.run([sys.executable, "-m", "compdiag", "bisect", "--json", "--",
                        sys.executable, str(BISECT_SCRIPTS / "relu_lowering.py")],
                       cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.loads(p.stdout)
    assert (doc["backend"], doc["subsystem"], doc["application"], doc["debug_info"]) == \
        ("inductor", "lowerings", 2, "relu")
    c = doc["culprit"]
    assert (c["compile_id"], c["graph"], c["target"]) == ("0/0", "inference",
                                                          "aten.relu.default")
    assert "relu_lowering.py" in c["source"] and ".relu()" in c["source"]
    assert "TORCH_BISECT_MAX=2" in doc["replay"] and "TORCH_BISECT_MAX=1" in doc["replay_off"]
    skipped = {s["probe"] for s in doc["steps"] if s["result"] == "skipped"}
    assert {"inductor · fallback_random=True", "inductor · cudagraphs off",
            "inductor · layout_optimization=False"} <= skipped
    for d, snap in watched.items():
        assert _snapshot(d) == snap, d
    assert list((tmp_path / "tmp").iterdir()) == []


def test_accuracy_run_is_bisected_under_the_accuracy_checker(tmp_path: Path) -> None:
    """A run that exits 0 with compiled relu returning x + 1 (the corpus' injector), recorded
    with --check-accuracy: `bisect RUN` re-runs it under the accuracy checker and blames the
    relu lowering; the replay pair reproduces it (fails: the marker line, passes: none)."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "acc.py").write_text((REPO / "corpus" / "acc_relu_injected.py").read_text())
    env = _warm_env()
    store = tmp_path / "s.db"
    p = subprocess.run([sys.executable, "-m", "compdiag", "run", "--check-accuracy", "--store",
                        str(store), "acc.py"], cwd=work, env=env, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    p = subprocess.run([sys.executable, "-m", "compdiag", "bisect", "--json", "--store",
                        str(store), "latest"], cwd=work, env=env, capture_output=True,
                       text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.loads(p.stdout)
    assert (doc["backend"], doc["subsystem"], doc["debug_info"]) == \
        ("inductor", "lowerings", "relu")
    assert doc["culprit"]["target"] == "aten.relu.default"
    assert "compdiag.bisect.accuracy_probe acc.py" in doc["replay"]
    from compdiag.bisect.accuracy_probe import MARKER

    # pasted into a shell in another folder (probes27: a relative script path and no `cd`,
    # FileNotFoundError)
    on = subprocess.run(["bash", "-c", doc["replay"]], cwd="/", env=env, capture_output=True,
                        text=True, timeout=300)
    off = subprocess.run(["bash", "-c", doc["replay_off"]], cwd="/", env=env,
                         capture_output=True, text=True, timeout=300)
    assert (on.returncode, off.returncode) == (1, 0), (on.stderr[-2000:], off.stderr[-2000:])
    assert MARKER in on.stderr and MARKER not in off.stderr


def test_probes_reuse_the_users_compiled_kernels_and_never_write_to_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34 (bisect at 0.2x CompilerBisector): the first Inductor probe compiled every C++
    kernel again in a fresh cache dir (17 s of CPU cold against 8 s warm on the relu
    scenario). The user's compiled kernels are hard-linked into the probes' cache dir; the
    graph caches and locks are not; a probe replacing a file (Inductor writes, then renames)
    leaves the user's file as it was."""
    from compdiag.bisect.runner import Runner, seed_kernel_cache

    user = tmp_path / "torchinductor_me"
    for rel, text in {"3g/c3g.cpp": "kernel", "3g/c3g.so": "elf",
                      "precompiled_headers/cab.h.gch": "pch",
                      "fxgraph/ab/graph": "cached graph", "aotautograd/x/entry": "aot",
                      "locks/c3g.lock": "", "bisect/bisect_status.txt": "stale"}.items():
        (user / rel).parent.mkdir(parents=True, exist_ok=True)
        (user / rel).write_text(text)
    dest = tmp_path / "probes-cache"
    dest.mkdir()
    assert seed_kernel_cache(dest, user) == 3
    seeded = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    assert seeded == ["3g/c3g.cpp", "3g/c3g.so", "precompiled_headers/cab.h.gch"]
    assert (dest / "3g/c3g.so").stat().st_ino == (user / "3g/c3g.so").stat().st_ino
    (dest / "3g/new.so").write_text("rebuilt")
    os.replace(dest / "3g/new.so", dest / "3g/c3g.so")
    assert (user / "3g/c3g.so").read_text() == "elf"
    assert seed_kernel_cache(dest, user) == 0          # already there: nothing linked twice
    assert seed_kernel_cache(dest, tmp_path / "none") == 0
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(user))
    with Runner(["true"], tmp_path, warm=False) as runner:
        assert runner.seeded == 3
        assert (runner.tmp / "inductor-cache" / "3g" / "c3g.cpp").read_text() == "kernel"



def test_probes_find_the_users_precompiled_headers_where_their_inductor_looks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34 (bisect at 0.2x CompilerBisector): regression test. The first Inductor probe
    of every scenario took 38-47 s against 3-19 s for later ones: Inductor keeps its
    precompiled C++ headers in its *default* cache dir under TMPDIR whatever
    TORCHINDUCTOR_CACHE_DIR says, the probes' TMPDIR is the bisect's temp dir, so the first
    probe built the header again (9 of its 19 CPU s on the relu scenario). The user's headers
    are now linked where torch computes that dir for the probes' TMPDIR; locks are not. Fails
    before the fix (nothing there)."""
    import tempfile

    from torch._inductor.runtime.cache_dir_utils import default_cache_dir as torch_default

    from compdiag.bisect.runner import Runner

    user_tmp = tmp_path / "user-tmp"
    user_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(user_tmp))
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", None)
    headers = Path(torch_default()) / "precompiled_headers"
    assert headers.parent.parent == user_tmp
    (headers / "locks").mkdir(parents=True)
    for name, text in {"cab.h": "#include <x.h>", "cab.h.gch": "pch",
                       "locks/cab.lock": ""}.items():
        (headers / name).write_text(text)
    with Runner(["true"], tmp_path, warm=False) as runner:
        monkeypatch.setattr(tempfile, "tempdir", None)
        monkeypatch.setenv("TMPDIR", str(runner.tmp))   # as each probe's env() sets it
        probes = Path(torch_default()) / "precompiled_headers"
        assert probes.parent.parent == runner.tmp
        assert sorted(p.name for p in probes.iterdir()) == ["cab.h", "cab.h.gch"]
        assert (probes / "cab.h.gch").stat().st_ino == (headers / "cab.h.gch").stat().st_ino
        assert runner.seeded_headers == 2
    assert (headers / "cab.h.gch").read_text() == "pch"


def test_probes_that_fail_otherwise_are_not_a_passing_command() -> None:
    """probes24 funcol_uneven_eval_gather: `compdiag bisect RUN` of one torchrun rank re-ran
    the rank's script without torchrun's environment; every probe died with "environment
    variable RANK expected, but not set" (exit 1, not the run's 134), counted as passing, and
    the report said "No failure: the command passes with every backend", with the probe's
    output wrapped in literal "[dim]" markup. Another error than the run's is said as such, and
    the output is printed dim, not as markup text."""
    import io

    from rich.console import Console

    from compdiag.bisect.driver import Report, Step
    from compdiag.bisect.search import Probe
    from compdiag.views.bisect import print_report

    tail = "ValueError: environment variable RANK expected, but not set [rank]"
    report = Report(None, [Step(1, Probe("eager"), "good", 1, 0.2),
                           Step(2, Probe("inductor"), "good", 1, 0.2)], 1.0, 2, 0,
                    ["python", "job.py"], baseline_tail=tail)
    out = io.StringIO()
    print_report(report, {}, Console(file=out, width=200))
    text = out.getvalue()
    assert "did not come back" in text and "exit status 1" in text, text
    assert "passes with every backend" not in text
    assert tail in text and "[dim]" not in text


def test_a_passing_half_that_failed_otherwise_is_not_called_passing() -> None:
    """benchmarks/probes25 custom_op_fake_shape: the backend before the culprit (crossref)
    failed too, with another error (a MetadataMismatchError naming the fake kernel's wrong
    shape), so it counts as not failing the run's way; the report printed its command as
    "replay (passes)", which exits 1 when pasted. The document keeps its exit status and the
    report says what it is, never "passes"."""
    import io

    from rich.console import Console

    from compdiag.bisect.driver import Report, Step
    from compdiag.bisect.search import Probe, Result
    from compdiag.views.bisect import print_report

    good, bad = Probe("aot_eager_decomp_partition_crossref"), Probe("inductor")
    report = Report(Result("inductor", bad=bad, good=good),
                    [Step(1, good, "good", 1, 0.2), Step(2, bad, "bad", 1, 0.2)], 1.0, 2, 0,
                    ["python", "job.py"])
    doc = report.document()
    assert doc["replay_off_status"] == 1
    out = io.StringIO()
    print_report(report, doc, Console(file=out, width=300))
    text = out.getvalue()
    assert "replay (passes)" not in text, text
    assert "replay (does not fail the run's way; exit status 1, another error)" in text
    assert "the program fails without inductor too" in text
