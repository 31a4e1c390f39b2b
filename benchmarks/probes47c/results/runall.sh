#!/bin/bash
# usage: runall.sh NAME [run-args]
cd /work/wt47c/benchmarks/probes47c
N=$1; shift
PY=/work/main/.venv/bin/python
export PYTHONPATH=/work/wt47c
R=results
nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY $N.py > $R/$N.plain.out 2> $R/$N.plain.err; echo $? > $R/$N.plain.rc
nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY -m compdiag run --store /tmp/p47c/$N.db "$@" $N.py > $R/$N.run.out 2> $R/$N.run.err; echo $? > $R/$N.run.rc
$PY -m compdiag explain --store /tmp/p47c/$N.db > $R/$N.explain.txt 2>&1
$PY -m compdiag explain --store /tmp/p47c/$N.db --json > $R/$N.explain.json 2>$R/$N.explain.json.err
if cmp -s $R/$N.plain.out $R/$N.run.out; then same=identical; else same=DIFFERENT; fi
echo "$N plain_rc=$(cat $R/$N.plain.rc) run_rc=$(cat $R/$N.run.rc) stdout=$same" >> $R/status.txt
tail -1 $R/$N.status 2>/dev/null
echo "$N plain_rc=$(cat $R/$N.plain.rc) run_rc=$(cat $R/$N.run.rc) stdout=$same"
