#!/bin/bash
cd /work/wt37c
P=/work/main/.venv/bin/python
for n in "$@"; do
  args=""
  grep -q check-accuracy benchmarks/probes37c/$n.expected.json && args="--check-accuracy"
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P benchmarks/probes37c/$n.py > /tmp/p37c/$n.plain.out 2>/tmp/p37c/$n.plain.err; echo "$n plain rc=$?"
  rm -f /tmp/p37c/$n.db
  PYTHONPATH=/work/wt37c nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P -m compdiag run --store /tmp/p37c/$n.db $args benchmarks/probes37c/$n.py > /tmp/p37c/$n.cd.out 2>/tmp/p37c/$n.cd.err; echo "$n compdiag rc=$?"
  diff /tmp/p37c/$n.plain.out /tmp/p37c/$n.cd.out > benchmarks/probes37c/results/$n.stdout.diff
  PYTHONPATH=/work/wt37c $P -m compdiag explain --store /tmp/p37c/$n.db > /tmp/p37c/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt37c $P -m compdiag explain --store /tmp/p37c/$n.db --json > benchmarks/probes37c/results/$n.explain.json 2>/tmp/p37c/$n.explainjson.err
done
