#!/bin/bash
# plain torchrun of each fix/check copy; one at a time
cd "$(dirname "$0")"
export TORCHINDUCTOR_COMPILE_THREADS=1 TORCH_LOGS=graph_breaks,recompiles
for f in "$@"; do
  s=$(date +%s)
  timeout 200 nice -n 10 /work/main/.venv/bin/python -m torch.distributed.run --standalone --nproc-per-node 2 $f > ${f%.py}.out 2> ${f%.py}.err; rc=$?
  echo "$f: exit $rc, $(( $(date +%s) - s ))s, graph breaks logged: $(grep -c 'Graph break in user code' ${f%.py}.err), recompiles logged: $(grep -c 'Recompiling function' ${f%.py}.err), last error: $(grep -h '^\[rank.\]: [A-Za-z._]*\(Error\|Exception\|Failed\)' ${f%.py}.err | tail -1 | cut -c1-160)" >> fixes_run.log
done
