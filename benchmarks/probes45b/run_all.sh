#!/bin/bash
# usage: bash benchmarks/probes45b/run_all.sh NAME [NAME...]   (from the worktree root)
cd /work/wt45b
PY=/work/main/.venv/bin/python
R=benchmarks/probes45b/results
for n in "$@"; do
  f=benchmarks/probes45b/$n.py
  args=$($PY -c "import json;print(' '.join(json.load(open('benchmarks/probes45b/$n.expected.json')).get('run_args',[])))")
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY $f > $R/$n.plain.out 2> $R/$n.plain.err; echo $? > $R/$n.plain.rc
  rm -f /tmp/p45b/$n.db
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt45b $PY -m compdiag run --store /tmp/p45b/$n.db $args $f > $R/$n.run.out 2> $R/$n.run.err; echo $? > $R/$n.run.rc
  PYTHONPATH=/work/wt45b $PY -m compdiag explain --store /tmp/p45b/$n.db > $R/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt45b $PY -m compdiag explain --store /tmp/p45b/$n.db --json > $R/$n.explain.json 2>&1
  if cmp -s $R/$n.plain.out $R/$n.run.out; then same=identical; else same=DIFFERENT; fi
  echo "$n plain_rc=$(cat $R/$n.plain.rc) run_rc=$(cat $R/$n.run.rc) stdout=$same"
done
