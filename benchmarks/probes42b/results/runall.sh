#!/bin/bash
cd /work/wt42b
P=benchmarks/probes42b
PY=/work/main/.venv/bin/python
for n in "$@"; do
  args=$($PY -c "import json;print(' '.join(json.load(open('$P/$n.expected.json')).get('run_args',[])))")
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY $P/$n.py > $P/results/$n.plain.out 2> /tmp/p42b/$n.plain.err; echo $? > $P/results/$n.plain.rc
  rm -f /tmp/p42b/$n.db
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt42b $PY -m compdiag run --store /tmp/p42b/$n.db $args $P/$n.py > $P/results/$n.run.out 2> /tmp/p42b/$n.run.err; echo $? > $P/results/$n.run.rc
  PYTHONPATH=/work/wt42b $PY -m compdiag explain --store /tmp/p42b/$n.db > $P/results/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt42b $PY -m compdiag explain --store /tmp/p42b/$n.db --json > $P/results/$n.explain.json 2>/tmp/p42b/$n.explainjson.err
  echo "$n plain=$(cat $P/results/$n.plain.rc) run=$(cat $P/results/$n.run.rc) same_stdout=$(cmp -s $P/results/$n.plain.out $P/results/$n.run.out && echo yes || echo NO)"
done
