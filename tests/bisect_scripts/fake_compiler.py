"""A stand-in for a torch program, without torch (milliseconds instead of a compile): it reads
the TORCH_BISECT_* protocol and COMPDIAG_BISECT_CONFIG like torch and compdiag's hook do, logs
what the hook would log, and fails the way SPEC says.

    fake_compiler.py lowerings:K:N   Inductor's K-th of N lowerings is wrong
    fake_compiler.py fallback_random Inductor's random numbers are wrong (a config culprit)
    fake_compiler.py eager           always fails
    fake_compiler.py none            always passes
    fake_compiler.py sleep PIDFILE   writes its pid, then sleeps (for Ctrl-C tests)
"""
import json
import os
import sys
import time

COUNTS = {"pre_grad_passes": 3, "joint_graph_passes": 4, "post_grad_passes": 5,
          "lowerings": 6}

spec = sys.argv[1]
backend = os.environ.get("TORCH_BISECT_BACKEND")
subsystem = os.environ.get("TORCH_BISECT_SUBSYSTEM")
limit = int(os.environ.get("TORCH_BISECT_MAX", "1000000"))
config = json.loads(os.environ.get("COMPDIAG_BISECT_CONFIG") or "{}")

if spec == "sleep":
    with open(sys.argv[2], "a") as f:
        f.write(f"{os.getpid()}\n")
    time.sleep(600)

culprit = None
if spec.startswith("lowerings:"):
    _, k, n = spec.split(":")
    culprit = int(k)
    COUNTS["lowerings"] = int(n)

log_path = os.environ.get("COMPDIAG_BISECT_LOG")
enabled = {}
with open(log_path or os.devnull, "a") as log:
    def rec(**kw):
        log.write(json.dumps(kw) + "\n")

    if backend == "inductor":
        rec(t="compile", cid="0/0")
        rec(t="graph", where="dynamo", cid="0/0", kind=None, nodes=4,
            random=spec == "fallback_random", dtypes=["float32"], custom=[])
        rec(t="layout_opt", value=False, cid="0/0")
        for name, n in COUNTS.items():
            for i in range(n):
                off = name == subsystem and i > limit
                enabled[(name, i)] = not off
                rec(t="app", backend="inductor", active=backend, subsystem=name, i=i,
                    disabled=off, cid="0/0", graph="forward", info=f"{name}-{i}",
                    target=f"aten.op{i}.default" if name == "lowerings" else f"{name}-{i}",
                    src=f'File "model.py", line {10 + i}, in forward: y = op{i}(x)')
    elif backend is not None:
        rec(t="compile", cid="0/0")
        rec(t="graph", where="dynamo", cid="0/0", kind=None, nodes=4, random=False,
            dtypes=["float32"], custom=[])

if spec == "eager":
    sys.exit(1)
if spec == "none" or backend != "inductor":
    sys.exit(0)
if spec == "fallback_random":
    sys.exit(0 if config.get("inductor", {}).get("fallback_random") is True else 1)
sys.exit(1 if enabled.get(("lowerings", culprit), True) else 0)
