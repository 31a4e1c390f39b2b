#!/bin/bash
cd /work/wt38a
PY=/work/main/.venv/bin/python
R=benchmarks/probes38a/results
for n in ddpm_tqdm_sample_loop kdiff_bisect_sigma_fullgraph edm_precond_float_sigma temb_fp16_sinusoidal cfg_tensor_scale_branch vae_reparam_eps_input_ok ddim_cfg_tensor_schedule_ok; do
  args=$($PY -c "import json;print(' '.join(json.load(open('benchmarks/probes38a/$n.expected.json')).get('run_args',[])))")
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY benchmarks/probes38a/$n.py > /tmp/p38a/$n.plain.out 2>/tmp/p38a/$n.plain.err; prc=$?
  rm -f /tmp/p38a/$n.db
  PYTHONPATH=/work/wt38a nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $PY -m compdiag run --store /tmp/p38a/$n.db $args benchmarks/probes38a/$n.py > /tmp/p38a/$n.cd.out 2>/tmp/p38a/$n.cd.err; crc=$?
  diff /tmp/p38a/$n.plain.out /tmp/p38a/$n.cd.out > $R/$n.stdout.diff
  echo "$n plain_rc=$prc compdiag_rc=$crc diff_lines=$(wc -l < $R/$n.stdout.diff)" >> /tmp/p38a/rc.log
  PYTHONPATH=/work/wt38a $PY -m compdiag explain --store /tmp/p38a/$n.db > /tmp/p38a/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt38a $PY -m compdiag explain --store /tmp/p38a/$n.db --json > $R/$n.explain.json 2>/tmp/p38a/$n.explainjson.err
done
echo ALLDONE >> /tmp/p38a/rc.log
