cd /tmp/p36d/fixes
for f in ifb_no_grad ifb_grad_enabled cat_aten cat_aot_eager ced_outside fsc_sorted fsc_sorted; do
  TORCH_LOGS=graph_breaks,recompiles,+torch._inductor.codecache nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 /work/main/.venv/bin/python $f.py > $f.log 2>&1; rc=$?
  echo "== $f rc=$rc breaks=$(grep -c 'Graph break in user code' $f.log) recompiles=$(grep -c 'Recompiling function' $f.log) $(grep -o 'fx graph cache [a-z]*' $f.log | sort | uniq -c | tr '\n' ' ')" >> fixes.log
  grep -v '^[VIWD]' $f.log | grep -v '^ ' | tail -4 >> fixes.log
done
