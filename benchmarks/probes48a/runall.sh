#!/bin/bash
# usage: benchmarks/probes48a/runall.sh NAME...   (from anywhere; one program at a time)
cd "$(dirname "$0")"
PY=/work/main/.venv/bin/python
export PYTHONPATH=/work/wt48a TORCHINDUCTOR_COMPILE_THREADS=1
L="-m torch.distributed.run --standalone --nproc-per-node 2"
mkdir -p results /tmp/p48a
for n in "$@"; do
  rm -f /tmp/p48a/$n.db*
  s=$(date +%s)
  timeout 300 nice -n 10 $PY $L $n.py > results/$n.plain.out 2> results/$n.plain.err; echo $? > results/$n.plain.rc
  m=$(date +%s)
  timeout 400 nice -n 10 $PY -m compdiag run --store /tmp/p48a/$n.db $L $n.py > results/$n.run.out 2> results/$n.run.err; echo $? > results/$n.run.rc
  e=$(date +%s)
  echo "$n plain $((m-s))s rc $(cat results/$n.plain.rc) | compdiag run $((e-m))s rc $(cat results/$n.run.rc)" >> results/walls.txt
  $PY -m compdiag explain --store /tmp/p48a/$n.db > results/$n.explain.txt 2>&1
  $PY -m compdiag explain --store /tmp/p48a/$n.db --json > results/$n.explain.json 2>results/$n.explain.json.err
  $PY -m compdiag explain --store /tmp/p48a/$n.db --job > results/$n.explain_job.txt 2>&1
  $PY -m compdiag explain --store /tmp/p48a/$n.db --job --json > results/$n.explain_job.json 2>results/$n.explain_job.json.err
  if cmp -s results/$n.plain.out results/$n.run.out; then echo "$n stdout identical" >> results/transparency.txt; else echo "$n stdout DIFFERS" >> results/transparency.txt; fi
done
