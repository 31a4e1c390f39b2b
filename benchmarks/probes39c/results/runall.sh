#!/bin/bash
# run from /work/wt39c
P=/work/main/.venv/bin/python; D=benchmarks/probes39c; R=$D/results; T=/tmp/p39c
for n in "$@"; do
  args=""; grep -q check-accuracy $D/$n.expected.json && args="--check-accuracy"
  (cd $D && nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P $n.py > $T/$n.plain.out 2>$T/$n.plain.err; echo plain=$? > $T/$n.rc)
  rm -f $T/$n.db
  PYTHONPATH=/work/wt39c nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P -m compdiag run --store $T/$n.db $args $D/$n.py > $T/$n.cd.out 2>$T/$n.cd.err; echo cd=$? >> $T/$n.rc
  cp $T/$n.rc $R/$n.rc.txt
  diff $T/$n.plain.out $T/$n.cd.out > $R/$n.stdout.diff
  PYTHONPATH=/work/wt39c $P -m compdiag explain --store $T/$n.db > $R/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt39c $P -m compdiag explain --store $T/$n.db --json > $R/$n.explain.json 2>/dev/null
  echo "== $n $(cat $T/$n.rc | tr '\n' ' ') diff=$(wc -l < $R/$n.stdout.diff)"
done
