#!/bin/bash
# usage: runall.sh NAME... ; run from /work/wt39d
PY=/work/main/.venv/bin/python
for n in "$@"; do
  args=$($PY -c "import json;print(' '.join(json.load(open('benchmarks/probes39d/$n.expected.json')).get('run_args',[])))")
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY benchmarks/probes39d/$n.py > /tmp/p39d/$n.plain.out 2>/tmp/p39d/$n.plain.err; prc=$?
  PYTHONPATH=/work/wt39d nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY -m compdiag run --store /tmp/p39d/$n.db $args benchmarks/probes39d/$n.py > /tmp/p39d/$n.cd.out 2>/tmp/p39d/$n.cd.err; crc=$?
  echo "plain $prc compdiag $crc" > benchmarks/probes39d/results/$n.rc.txt
  diff /tmp/p39d/$n.plain.out /tmp/p39d/$n.cd.out > benchmarks/probes39d/results/$n.stdout.diff
  PYTHONPATH=/work/wt39d $PY -m compdiag explain --store /tmp/p39d/$n.db > benchmarks/probes39d/results/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt39d $PY -m compdiag explain --store /tmp/p39d/$n.db --json > benchmarks/probes39d/results/$n.explain.json 2>/dev/null
done
