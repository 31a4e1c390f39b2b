#!/bin/bash
cd /work/wt41c
export PYTHONPATH=/work/wt41c:/tmp/p41c/site TORCHINDUCTOR_COMPILE_THREADS=1
P=benchmarks/probes41c; R=$P/results
for n in "$@"; do
  rm -f /tmp/p41c/$n.db
  nice -n 10 /work/main/.venv/bin/python $P/$n.py > $R/$n.plain.out 2> /tmp/p41c/$n.plain.err; echo $? > $R/$n.plain.rc
  nice -n 10 /work/main/.venv/bin/python -m compdiag run --store /tmp/p41c/$n.db $P/$n.py > $R/$n.run.out 2> /tmp/p41c/$n.run.err; echo $? > $R/$n.run.rc
  nice -n 10 /work/main/.venv/bin/python -m compdiag explain --store /tmp/p41c/$n.db > $R/$n.explain.txt 2>&1
  nice -n 10 /work/main/.venv/bin/python -m compdiag explain --store /tmp/p41c/$n.db --json > $R/$n.explain.json 2>&1
  echo "$n plain=$(cat $R/$n.plain.rc) run=$(cat $R/$n.run.rc) same=$(cmp -s $R/$n.plain.out $R/$n.run.out && echo yes || echo NO)" >> /tmp/p41c/progress.txt
done
