#!/bin/bash
# run from /work/wt39f; one program at a time
P=/work/main/.venv/bin/python
cd /work/wt39f
for n in "$@"; do
  f=benchmarks/probes39f/$n.py
  args=$($P -c "import json;print(' '.join(json.load(open('benchmarks/probes39f/$n.expected.json')).get('run_args',[])))")
  rm -f /tmp/p39f/$n.db
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P $f > /tmp/p39f/$n.plain.out 2>/tmp/p39f/$n.plain.err; prc=$?
  PYTHONPATH=/work/wt39f nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P -m compdiag run --store /tmp/p39f/$n.db $args $f > /tmp/p39f/$n.cd.out 2>/tmp/p39f/$n.cd.err; crc=$?
  echo "plain $prc compdiag $crc" > benchmarks/probes39f/results/$n.rc.txt
  diff /tmp/p39f/$n.plain.out /tmp/p39f/$n.cd.out > benchmarks/probes39f/results/$n.stdout.diff
  PYTHONPATH=/work/wt39f $P -m compdiag explain --store /tmp/p39f/$n.db > benchmarks/probes39f/results/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt39f $P -m compdiag explain --store /tmp/p39f/$n.db --json > benchmarks/probes39f/results/$n.explain.json 2>/dev/null
  echo "== $n: plain $prc compdiag $crc diff $(wc -l < benchmarks/probes39f/results/$n.stdout.diff)"
done
