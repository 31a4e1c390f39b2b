#!/bin/bash
# usage: runall.sh NAME [--check-accuracy]
set -u
N=$1; shift
PY=/work/main/.venv/bin/python
export PYTHONPATH=/work/wt47e
R="nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1"
rm -f /tmp/p47e/$N.db*
$R $PY $N.py > results/$N.plain.out 2> results/$N.plain.err; echo $? > results/$N.plain.rc
$R $PY -m compdiag run --store /tmp/p47e/$N.db "$@" $N.py > results/$N.run.out 2> results/$N.run.err; echo $? > results/$N.run.rc
$R $PY -m compdiag explain --store /tmp/p47e/$N.db > results/$N.explain.txt 2>&1
$R $PY -m compdiag explain --store /tmp/p47e/$N.db --json > results/$N.explain.json 2>&1
cmp -s results/$N.plain.out results/$N.run.out && echo "stdout identical" || echo "STDOUT DIFFERS"
echo "rc plain $(cat results/$N.plain.rc) run $(cat results/$N.run.rc)"
