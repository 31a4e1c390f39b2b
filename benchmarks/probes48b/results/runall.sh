#!/bin/bash
cd /work/wt48b/benchmarks/probes48b
PY="nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt48b:/tmp/p48b/site /work/main/.venv/bin/python"
for N in "$@"; do
  $PY $N.py > results/$N.plain.out 2> results/$N.plain.err; echo $? > results/$N.plain.rc
  rm -f /tmp/p48b/$N.db
  $PY -m compdiag run --store /tmp/p48b/$N.db $N.py > results/$N.run.out 2> results/$N.run.err; echo $? > results/$N.run.rc
  $PY -m compdiag explain --store /tmp/p48b/$N.db > results/$N.explain.txt 2>results/$N.explain.err
  $PY -m compdiag explain --store /tmp/p48b/$N.db --json > results/$N.explain.json 2>>results/$N.explain.err
  echo "$N plain=$(cat results/$N.plain.rc) run=$(cat results/$N.run.rc) same_stdout=$(cmp -s results/$N.plain.out results/$N.run.out && echo yes || echo NO)"
done
