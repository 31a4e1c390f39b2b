#!/bin/bash
cd /work/wt46b
R=benchmarks/probes46b/results
CD="nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt46b /work/main/.venv/bin/python -m compdiag"
for n in "$@"; do
  s=benchmarks/probes46b/$n.py
  rm -f /tmp/p46b/$n.db
  /usr/bin/time -f "%e s wall %U s user" -o $R/$n.plain.time nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 /work/main/.venv/bin/python $s > $R/$n.plain.out 2> $R/$n.plain.err; echo $? > $R/$n.plain.rc
  $CD run --store /tmp/p46b/$n.db $s > $R/$n.run.out 2> $R/$n.run.err; echo $? > $R/$n.run.rc
  case $n in *cache*) $CD run --store /tmp/p46b/$n.db $s > $R/$n.run2.out 2> $R/$n.run2.err; echo $? > $R/$n.run2.rc;; esac
  $CD explain --store /tmp/p46b/$n.db > $R/$n.explain.txt 2>&1
  $CD explain --store /tmp/p46b/$n.db --json > $R/$n.explain.json 2>/dev/null
  echo "done $n"
done
