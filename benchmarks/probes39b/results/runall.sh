#!/bin/bash
# run from /work/wt39b
cd /work/wt39b
P=/work/main/.venv/bin/python
for NAME in "$@"; do
  ARGS=""
  grep -q -- "--check-accuracy" benchmarks/probes39b/$NAME.expected.json && ARGS="--check-accuracy"
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P benchmarks/probes39b/$NAME.py > /tmp/p39b/$NAME.plain.out 2>/tmp/p39b/$NAME.plain.err; echo $? > /tmp/p39b/$NAME.plain.rc
  rm -f /tmp/p39b/$NAME.db
  PYTHONPATH=/work/wt39b nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P -m compdiag run --store /tmp/p39b/$NAME.db $ARGS benchmarks/probes39b/$NAME.py > /tmp/p39b/$NAME.cd.out 2>/tmp/p39b/$NAME.cd.err; echo $? > /tmp/p39b/$NAME.cd.rc
  echo "plain $(cat /tmp/p39b/$NAME.plain.rc) compdiag $(cat /tmp/p39b/$NAME.cd.rc)" > benchmarks/probes39b/results/$NAME.rc.txt
  diff /tmp/p39b/$NAME.plain.out /tmp/p39b/$NAME.cd.out > benchmarks/probes39b/results/$NAME.stdout.diff
  PYTHONPATH=/work/wt39b $P -m compdiag explain --store /tmp/p39b/$NAME.db > benchmarks/probes39b/results/$NAME.explain.txt 2>&1
  PYTHONPATH=/work/wt39b $P -m compdiag explain --store /tmp/p39b/$NAME.db --json > benchmarks/probes39b/results/$NAME.explain.json 2>&1
  echo "done $NAME"
done
