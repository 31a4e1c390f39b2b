cd /work/wt45g
P=benchmarks/probes45g; R=$P/results
for n in cond_dynamic_int_attn_bias cond_nonzero_sparse_gate wn_linear_1d_gain cop_default_args_backward opcount_mode_compile_skipped wn_linear_2d_gain_ok cop_required_args_backward_ok; do
  rm -f /tmp/p45g/$n.db
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 /work/main/.venv/bin/python $P/$n.py > $R/$n.plain.out 2>/tmp/p45g/$n.plain.err; pe=$?
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt45g /work/main/.venv/bin/python -m compdiag run --store /tmp/p45g/$n.db $P/$n.py > $R/$n.run.out 2>/tmp/p45g/$n.run.err; re=$?
  cmp -s $R/$n.plain.out $R/$n.run.out && same=identical || same=DIFFER
  echo "$n plain_rc=$pe run_rc=$re stdout=$same" | tee -a $R/transparency.txt
  PYTHONPATH=/work/wt45g /work/main/.venv/bin/python -m compdiag explain --store /tmp/p45g/$n.db > $R/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt45g /work/main/.venv/bin/python -m compdiag explain --store /tmp/p45g/$n.db --json > $R/$n.explain.json 2>&1
done
