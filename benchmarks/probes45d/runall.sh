#!/bin/bash
cd /work/wt45d
PY="nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt45d /work/main/.venv/bin/python"
D=benchmarks/probes45d; R=$D/results
for n in "$@"; do
  rm -f /tmp/p45d/$n.db
  s=$(date +%s); $PY -m torch.distributed.run --nproc-per-node 2 $D/$n.py > $R/$n.plain.out 2> /tmp/p45d/$n.plain.err; echo $? > $R/$n.plain.rc; e=$(date +%s)
  $PY -m compdiag run --store /tmp/p45d/$n.db -m torch.distributed.run --nproc-per-node 2 $D/$n.py > $R/$n.run.out 2> $R/$n.run.err; echo $? > $R/$n.run.rc; f=$(date +%s)
  $PY -m compdiag explain --store /tmp/p45d/$n.db > $R/$n.explain.txt 2>&1
  $PY -m compdiag explain --store /tmp/p45d/$n.db --json > $R/$n.explain.json 2>/dev/null
  $PY -m compdiag explain --store /tmp/p45d/$n.db --job > $R/$n.explain_job.txt 2>&1
  echo "$n plain_rc=$(cat $R/$n.plain.rc) run_rc=$(cat $R/$n.run.rc) plain_s=$((e-s)) run_s=$((f-e)) same_stdout=$(cmp -s $R/$n.plain.out $R/$n.run.out && echo yes || echo no)"
done
