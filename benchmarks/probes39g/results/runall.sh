#!/bin/bash
# usage: run from /work/wt39g; one program at a time
cd /work/wt39g
P=benchmarks/probes39g; R=$P/results; PY=/work/main/.venv/bin/python
for n in "$@"; do
  args=$($PY -c "import json;print(' '.join(json.load(open('$P/$n.expected.json')).get('run_args',[])))")
  (cd $P && nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY $n.py > /tmp/p39g/$n.plain.out 2>/tmp/p39g/$n.plain.err); prc=$?
  PYTHONPATH=/work/wt39g nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY -m compdiag run --store /tmp/p39g/$n.db $args $P/$n.py > /tmp/p39g/$n.cd.out 2>/tmp/p39g/$n.cd.err; crc=$?
  echo "plain $prc compdiag $crc" > $R/$n.rc.txt
  diff /tmp/p39g/$n.plain.out /tmp/p39g/$n.cd.out > $R/$n.stdout.diff
  PYTHONPATH=/work/wt39g $PY -m compdiag explain --store /tmp/p39g/$n.db > $R/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt39g $PY -m compdiag explain --store /tmp/p39g/$n.db --json > $R/$n.explain.json 2>/dev/null
done
