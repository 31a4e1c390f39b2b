"""Compare each compdiag command's run of a program with the plain `python` run:
stdout (run/runacc: byte-identical; check/perf: plain stdout must be an exact prefix,
compdiag's report may follow), the program's own stderr lines (torch warning blocks
dropped), files written under PROBE_OUT, exit status."""
import filecmp, os, re, sys
R = os.path.join(os.path.dirname(__file__), "results")
NAMES = sys.argv[1:] or sorted({f.split(".")[0] for f in os.listdir(R) if f.endswith(".plain.rc")})

def prog_err(path, plain_lines=None):
    keep = []
    for ln in open(path, errors="replace").read().splitlines():
        if re.search(r"warn|^\s*$|^compdiag|^  graph |torch/_dynamo|torch/_inductor", ln, re.I):
            continue
        keep.append(ln)
    return keep

def tree(d):
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            out[os.path.relpath(p, d)] = open(p, "rb").read()
    return out

for n in NAMES:
    p_out = open(f"{R}/{n}.plain.out", "rb").read()
    p_err = prog_err(f"{R}/{n}.plain.err")
    p_rc = open(f"{R}/{n}.plain.rc").read().strip()
    p_files = tree(f"/tmp/p44i/out/{n}/plain")
    for m in ["run", "runacc", "check", "perf"]:
        if not os.path.exists(f"{R}/{n}.{m}.rc"):
            continue
        o = open(f"{R}/{n}.{m}.out", "rb").read()
        rc = open(f"{R}/{n}.{m}.rc").read().strip()
        so = "same" if o == p_out else ("prefix+report" if m in ("check", "perf") and o.startswith(p_out) else "DIFF")
        e = prog_err(f"{R}/{n}.{m}.err")
        # program's stderr lines must appear, in order, exactly once each
        it = iter(e); missing = [l for l in p_err if not any(l == x for x in it)]
        extra = [l for l in e if l not in p_err]
        se = "same" if e == p_err else ("contains" if not missing else "DIFF")
        f = tree(f"/tmp/p44i/out/{n}/{m}")
        fs = "same" if f == p_files else "DIFF " + ",".join(k for k in set(f) | set(p_files) if f.get(k) != p_files.get(k))
        print(f"{n:34s} {m:7s} stdout={so:13s} stderr={se:8s} files={fs:6s} rc plain={p_rc} cmd={rc}"
              + (f"  missing_err={missing[:3]}" if missing else "") + (f"  extra_err={extra[:4]}" if extra and se != 'same' else ""))
