set -u
cd /work/wt44j
P=benchmarks/probes44j
R=$P/results
PY=/work/main/.venv/bin/python
for n in saliency_grad_probe_bw_mutation dann_grad_reverse_data_noise int8_tagger_max_logit_gate serve_microbatch_split_chunks saliency_grad_probe_input_ok serve_full_batch_mark_dynamic_ok; do
  args=""
  [ "$n" = int8_tagger_max_logit_gate ] && args="--check-accuracy"
  rm -f /tmp/p44j/$n.db
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY $P/$n.py > $R/$n.plain.out 2> $R/$n.plain.err; pe=$?
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt44j $PY -m compdiag run --store /tmp/p44j/$n.db $args $P/$n.py > $R/$n.run.out 2> $R/$n.run.err; re=$?
  if cmp -s $R/$n.plain.out $R/$n.run.out; then same=identical; else same=DIFFER; fi
  echo "$n plain_rc=$pe run_rc=$re stdout=$same" | tee -a $R/transparency.txt
  PYTHONPATH=/work/wt44j $PY -m compdiag explain --store /tmp/p44j/$n.db > $R/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt44j $PY -m compdiag explain --store /tmp/p44j/$n.db --json > $R/$n.explain.json 2>/dev/null
done
