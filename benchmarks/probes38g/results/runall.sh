#!/bin/bash
cd /work/wt38g
PY=/work/main/.venv/bin/python
D=benchmarks/probes38g
for n in gcn_add_remaining_self_loops graph_readout_split_sizes tgn_memory_last_write readout_segment_reduce_max sgc_sparse_propagate_fullgraph gcn_batched_isolated_degnorm_ok edge_attn_segment_softmax_dyn_ok; do
  args=""; grep -q check-accuracy $D/$n.expected.json && args="--check-accuracy"
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY $D/$n.py > /tmp/p38g/$n.plain.out 2>/tmp/p38g/$n.plain.err; echo "plain_rc=$?" > /tmp/p38g/$n.rc
  rm -f /tmp/p38g/$n.db
  PYTHONPATH=/work/wt38g nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY -m compdiag run --store /tmp/p38g/$n.db $args $D/$n.py > /tmp/p38g/$n.cd.out 2>/tmp/p38g/$n.cd.err; echo "cd_rc=$?" >> /tmp/p38g/$n.rc
  diff /tmp/p38g/$n.plain.out /tmp/p38g/$n.cd.out > $D/results/$n.stdout.diff
  PYTHONPATH=/work/wt38g $PY -m compdiag explain --store /tmp/p38g/$n.db > /tmp/p38g/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt38g $PY -m compdiag explain --store /tmp/p38g/$n.db --json > $D/results/$n.explain.json 2>/tmp/p38g/$n.explainjson.err
  echo "done $n $(date +%T)"
done
