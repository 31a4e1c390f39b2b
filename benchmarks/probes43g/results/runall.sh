cd /work/wt43g
P=benchmarks/probes43g; R=$P/results
for n in focal_gamma_partial_recompile focal_gamma_tensor_partial_ok ema_foreach_lerp_warmup_recompile ema_foreach_mul_tensor_decay_ok gradual_prune_kthvalue_sparsity_recompile dynamic_rcnn_smoothl1_beta_recompile; do
  rm -f /tmp/p43g/$n.db
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 /work/main/.venv/bin/python $P/$n.py > $R/$n.plain.out 2>/tmp/p43g/$n.plain.err; echo "$n plain rc=$?" >> $R/exit_status.txt
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt43g /work/main/.venv/bin/python -m compdiag run --store /tmp/p43g/$n.db $P/$n.py > $R/$n.run.out 2>$R/$n.run.err; echo "$n run rc=$?" >> $R/exit_status.txt
  PYTHONPATH=/work/wt43g /work/main/.venv/bin/python -m compdiag explain --store /tmp/p43g/$n.db > $R/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt43g /work/main/.venv/bin/python -m compdiag explain --json --store /tmp/p43g/$n.db > $R/$n.explain.json 2>&1
  cmp -s $R/$n.plain.out $R/$n.run.out && echo "$n stdout identical" >> $R/exit_status.txt || echo "$n stdout DIFFERS" >> $R/exit_status.txt
done
echo done >> $R/exit_status.txt
