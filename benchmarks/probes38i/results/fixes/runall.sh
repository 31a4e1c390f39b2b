#!/bin/bash
cd /work/wt38i
P=/work/main/.venv/bin/python
for N in "$@"; do
  ARGS=""; case $N in *_ok) ARGS="--check-accuracy";; esac
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P benchmarks/probes38i/$N.py > /tmp/p38i/$N.plain.out 2>/tmp/p38i/$N.plain.err; echo "$N plain rc=$?"
  PYTHONPATH=/work/wt38i nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P -m compdiag run --store /tmp/p38i/$N.db $ARGS benchmarks/probes38i/$N.py > /tmp/p38i/$N.cd.out 2>/tmp/p38i/$N.cd.err; echo "$N cd rc=$?"
  PYTHONPATH=/work/wt38i $P -m compdiag explain --store /tmp/p38i/$N.db > /tmp/p38i/$N.explain.txt 2>&1
  PYTHONPATH=/work/wt38i $P -m compdiag explain --store /tmp/p38i/$N.db --json > benchmarks/probes38i/results/$N.explain.json 2>/dev/null
  diff /tmp/p38i/$N.plain.out /tmp/p38i/$N.cd.out > benchmarks/probes38i/results/$N.stdout.diff; echo "$N diff rc=$?"
done
