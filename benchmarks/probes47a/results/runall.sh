#!/bin/bash
# usage: runall.sh NAME...
cd /work/wt47a/benchmarks/probes47a
PY=/work/main/.venv/bin/python
N="nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1"
CD="$N PYTHONPATH=/work/wt47a $PY -m compdiag"
for NAME in "$@"; do
  echo "== $NAME $(date +%T)"
  $N $PY $NAME.py > results/$NAME.plain.out 2> results/$NAME.plain.err; echo $? > results/$NAME.plain.rc
  rm -f /tmp/p47a/$NAME.db
  $CD run --store /tmp/p47a/$NAME.db $NAME.py > results/$NAME.run.out 2> results/$NAME.run.err; echo $? > results/$NAME.run.rc
  $CD explain --store /tmp/p47a/$NAME.db > results/$NAME.explain.txt 2>&1
  $CD explain --store /tmp/p47a/$NAME.db --json > results/$NAME.explain.json 2>/dev/null
  echo "   plain rc $(cat results/$NAME.plain.rc) run rc $(cat results/$NAME.run.rc) stdout-identical: $(cmp -s results/$NAME.plain.out results/$NAME.run.out && echo yes || echo NO) $(date +%T)"
done
