cd /work/wt38b
PY=/work/main/.venv/bin/python
D=benchmarks/probes38b
for n in replay_random_sample_break per_beta_anneal_recompile per_np_choice_fullgraph obs_rms_count_stale vec_env_autoreset_any_break td3_polyak_update_ok vec_env_categorical_rollout_ok; do
  ARGS=""; grep -q check-accuracy $D/$n.expected.json && ARGS="--check-accuracy"
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY $D/$n.py > /tmp/p38b/$n.plain.out 2>/tmp/p38b/$n.plain.err; echo "$n plain rc=$?" >> /tmp/p38b/rc.log
  rm -f /tmp/p38b/$n.db
  PYTHONPATH=/work/wt38b nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY -m compdiag run --store /tmp/p38b/$n.db $ARGS $D/$n.py > /tmp/p38b/$n.cd.out 2>/tmp/p38b/$n.cd.err; echo "$n cd rc=$?" >> /tmp/p38b/rc.log
  PYTHONPATH=/work/wt38b $PY -m compdiag explain --store /tmp/p38b/$n.db > /tmp/p38b/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt38b $PY -m compdiag explain --store /tmp/p38b/$n.db --json > $D/results/$n.explain.json 2>/tmp/p38b/$n.explainjson.err
  diff /tmp/p38b/$n.plain.out /tmp/p38b/$n.cd.out > $D/results/$n.stdout.diff
  echo "$n done $(date +%T)" >> /tmp/p38b/rc.log
done
