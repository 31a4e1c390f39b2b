#!/bin/bash
cd /work/wt41d
D=benchmarks/probes41d; R=$D/results
PY=/work/main/.venv/bin/python
for n in "$@"; do
  args=$($PY -c "import json;d=json.load(open('$D/$n.expected.json'));print(' '.join(d.get('run_args',[])))")
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY $D/$n.py > $R/$n.plain.out 2> /tmp/p41d/$n.plain.err; prc=$?
  rm -f /tmp/p41d/$n.db
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt41d $PY -m compdiag run --store /tmp/p41d/$n.db $args $D/$n.py > $R/$n.run.out 2> $R/$n.run.err; rrc=$?
  if cmp -s $R/$n.plain.out $R/$n.run.out; then same=identical; else same=DIFFERENT; fi
  PYTHONPATH=/work/wt41d $PY -m compdiag explain --store /tmp/p41d/$n.db > $R/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt41d $PY -m compdiag explain --store /tmp/p41d/$n.db --json > $R/$n.explain.json 2>/dev/null
  echo "$n plain_rc=$prc run_rc=$rrc stdout=$same" | tee -a $R/summary.txt
done
