cd /work/wt43b
P=benchmarks/probes43b; R=$P/results
PY=/work/main/.venv/bin/python
export TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt43b
for n in pilot_tone_unfold_gain pilot_tone_slice_gain_ok autocontrast_uint8_amin autocontrast_int32_amin_ok history_window_flatten_alias kv_prefix_offset_row_alias; do
  args=$($PY -c "import json;print(' '.join(json.load(open('$P/$n.expected.json')).get('run_args',[])))")
  rm -f /tmp/p43b/$n.db
  nice -n 10 $PY $P/$n.py > $R/$n.plain.out 2> $R/$n.plain.err; pe=$?
  nice -n 10 $PY -m compdiag run --store /tmp/p43b/$n.db $args $P/$n.py > $R/$n.run.out 2> $R/$n.run.err; re=$?
  $PY -m compdiag explain --store /tmp/p43b/$n.db > $R/$n.explain.txt 2>&1
  $PY -m compdiag explain --store /tmp/p43b/$n.db --json > $R/$n.explain.json 2>&1
  cmp -s $R/$n.plain.out $R/$n.run.out && same=identical || same=DIFFERENT
  echo "$n plain_exit=$pe run_exit=$re stdout=$same args=[$args]"
done
