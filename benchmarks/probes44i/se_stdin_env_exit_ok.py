"""A small CLI power-iteration solver: reads the number of iterations from stdin
(`echo 3 | python se_stdin_env_exit_ok.py`), the matrix size from $PROBE_DIM, runs
a compiled iteration step, appends a line to a results file and exits with status 3
("not converged") on purpose when the residual is still above tolerance.
Correct program: the non-zero exit is the program's own choice; nothing to flag."""
import os, sys, json
import torch

OUT = os.environ.get("PROBE_OUT", "probe_out")
os.makedirs(OUT, exist_ok=True)
DIM = int(os.environ.get("PROBE_DIM", "24"))
TOL = 1e-6


@torch.compile
def power_step(A, v):
    w = A @ v
    lam = torch.dot(v, w)
    w = w / w.norm()
    res = (A @ w - lam * w).norm()
    return w, lam, res


def main():
    line = sys.stdin.readline()
    iters = int(line.strip() or "5")
    print(f"read iters={iters} dim={DIM}")
    g = torch.Generator().manual_seed(7)
    M = torch.randn(DIM, DIM, generator=g)
    A = M @ M.T / DIM
    v = torch.ones(DIM) / DIM ** 0.5
    for i in range(iters):
        v, lam, res = power_step(A, v)
        print(f"iter {i} lambda={lam.item():.5f} residual={res.item():.5f}")
    with open(os.path.join(OUT, "results.jsonl"), "a") as f:
        f.write(json.dumps({"iters": iters, "lambda": round(lam.item(), 5),
                            "residual": round(res.item(), 5)}) + "\n")
    if res.item() > TOL:
        print("not converged", file=sys.stderr)
        sys.exit(3)
    print("converged")


if __name__ == "__main__":
    main()
