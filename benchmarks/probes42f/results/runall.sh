#!/bin/bash
cd /work/wt42f
PY=/work/main/.venv/bin/python
R=benchmarks/probes42f/results
CD="nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt42f $PY -m compdiag"
for n in "$@"; do
  rm -f /tmp/p42f_ranker_megacache*.bin /tmp/p42f/$n.db $R/$n.rc
  for i in 1 2; do
    nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY benchmarks/probes42f/$n.py > $R/$n.plain$i.out 2>$R/$n.plain$i.err; echo "plain$i rc=$?" >> $R/$n.rc
  done
  rm -f /tmp/p42f_ranker_megacache*.bin
  for i in 1 2; do
    $CD run --store /tmp/p42f/$n.db benchmarks/probes42f/$n.py > $R/$n.run$i.out 2>$R/$n.run$i.err; echo "run$i rc=$?" >> $R/$n.rc
  done
  ( for i in 1 2; do cmp $R/$n.plain$i.out $R/$n.run$i.out && echo "stdout$i identical"; done ) >> $R/$n.rc 2>&1
  $CD explain --store /tmp/p42f/$n.db > $R/$n.explain.txt 2>&1
  $CD explain --store /tmp/p42f/$n.db --json > $R/$n.explain.json 2>/dev/null
  $CD explain --store /tmp/p42f/$n.db 1 > $R/$n.explain_run1.txt 2>&1
  echo "== $n"; cat $R/$n.rc
done
