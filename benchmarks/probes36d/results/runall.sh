#!/bin/bash
cd /work/wt36d
P=/work/main/.venv/bin/python
for n in determinism_check_recompile feature_set_cache_miss inference_flag_branch compiled_eval_determinism_dropped cpu_autotune_triton_options settings_sweep_reset_ok train_stance_guarded_ok; do
  args=""; case $n in settings_sweep_reset_ok|train_stance_guarded_ok) args="--check-accuracy";; esac
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P benchmarks/probes36d/$n.py > /tmp/p36d/$n.plain.out 2>/tmp/p36d/$n.plain.err; echo "$n plain rc=$?" >> /tmp/p36d/rc.log
  rm -f /tmp/p36d/$n.db
  reps=1; [ $n = feature_set_cache_miss ] && reps=2
  for r in $(seq $reps); do
    PYTHONPATH=/work/wt36d nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $P -m compdiag run --store /tmp/p36d/$n.db $args benchmarks/probes36d/$n.py > /tmp/p36d/$n.cd$r.out 2>/tmp/p36d/$n.cd$r.err; echo "$n cd$r rc=$?" >> /tmp/p36d/rc.log
  done
  cp /tmp/p36d/$n.cd$reps.out /tmp/p36d/$n.cd.out
  PYTHONPATH=/work/wt36d $P -m compdiag explain --store /tmp/p36d/$n.db > /tmp/p36d/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt36d $P -m compdiag explain --store /tmp/p36d/$n.db --json > benchmarks/probes36d/results/$n.explain.json 2>/tmp/p36d/$n.explainjson.err
  diff /tmp/p36d/$n.plain.out /tmp/p36d/$n.cd.out > benchmarks/probes36d/results/$n.stdout.diff
  echo "$n done" >> /tmp/p36d/rc.log
done
