#!/bin/bash
cd /work/wt38d
PY=/work/main/.venv/bin/python
R=benchmarks/probes38d/results
for N in "$@"; do
  ARGS=""
  case $N in *_ok) ARGS="--check-accuracy";; esac
  rm -f /tmp/p38d/$N.db*
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY benchmarks/probes38d/$N.py > /tmp/p38d/$N.plain.out 2>/tmp/p38d/$N.plain.err; echo "plain rc=$?" > /tmp/p38d/$N.rc
  PYTHONPATH=/work/wt38d nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY -m compdiag run --store /tmp/p38d/$N.db $ARGS benchmarks/probes38d/$N.py > /tmp/p38d/$N.cd.out 2>/tmp/p38d/$N.cd.err; echo "cd rc=$?" >> /tmp/p38d/$N.rc
  diff /tmp/p38d/$N.plain.out /tmp/p38d/$N.cd.out > $R/$N.stdout.diff
  PYTHONPATH=/work/wt38d $PY -m compdiag explain --store /tmp/p38d/$N.db > $R/$N.explain.txt 2>&1
  PYTHONPATH=/work/wt38d $PY -m compdiag explain --store /tmp/p38d/$N.db --json > $R/$N.explain.json 2>/dev/null
  cp /tmp/p38d/$N.rc $R/$N.rc.txt
done
