#!/bin/bash
# usage: results/runall.sh NAME [twice]   (from benchmarks/probes48e)
# plain run(s), then compdiag run(s) into /tmp/p48e/NAME.db, explain (latest run), explain --json.
set -u
N=$1; TWICE=${2:-}
PY=/work/main/.venv/bin/python
CD="env PYTHONPATH=/work/wt48e $PY -m compdiag"
NI="nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1"
R=results
rm -f /tmp/p48e/$N.db
[ -n "$TWICE" ] && rm -rf /tmp/p48e_shared_storage
$NI $PY $N.py > $R/$N.plain.out 2> $R/$N.plain.err; echo $? > $R/$N.plain.rc
if [ -n "$TWICE" ]; then
  $NI $PY $N.py > $R/$N.plain2.out 2> $R/$N.plain2.err; echo $? > $R/$N.plain2.rc
  rm -rf /tmp/p48e_shared_storage
fi
$NI $CD run --store /tmp/p48e/$N.db $N.py > $R/$N.run.out 2> $R/$N.run.err; echo $? > $R/$N.run.rc
if [ -n "$TWICE" ]; then
  $NI $CD explain --store /tmp/p48e/$N.db > $R/$N.explain_run1.txt
  $NI $CD run --store /tmp/p48e/$N.db $N.py > $R/$N.run2.out 2> $R/$N.run2.err; echo $? > $R/$N.run2.rc
fi
$NI $CD explain --store /tmp/p48e/$N.db > $R/$N.explain.txt
$NI $CD explain --json --store /tmp/p48e/$N.db > $R/$N.explain.json
{ echo "plain rc $(cat $R/$N.plain.rc) run rc $(cat $R/$N.run.rc)"
  cmp -s $R/$N.plain.out $R/$N.run.out && echo "stdout run1 identical" || echo "stdout run1 DIFFERS"
  if [ -n "$TWICE" ]; then echo "plain2 rc $(cat $R/$N.plain2.rc) run2 rc $(cat $R/$N.run2.rc)"
    cmp -s $R/$N.plain2.out $R/$N.run2.out && echo "stdout run2 identical" || echo "stdout run2 DIFFERS"; fi
} > $R/$N.transparency.txt
cat $R/$N.transparency.txt
