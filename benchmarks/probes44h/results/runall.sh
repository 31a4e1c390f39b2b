cd /work/wt44h
R=benchmarks/probes44h/results
for n in export_pos_table_seq_max export_pos_table_seq_max_ok export_compile_reverse_upsample export_compile_reverse_upsample_ok export_topk_confident_count export_save_namedtuple_output; do
  args=""; case $n in export_compile_reverse_upsample*) args="--check-accuracy";; esac
  rm -f /tmp/p44h/$n.db
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 /work/main/.venv/bin/python benchmarks/probes44h/$n.py > $R/$n.plain.out 2>/tmp/p44h/$n.plain.err; echo "plain rc=$?" > $R/$n.rc
  nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 PYTHONPATH=/work/wt44h /work/main/.venv/bin/python -m compdiag run --store /tmp/p44h/$n.db $args benchmarks/probes44h/$n.py > $R/$n.run.out 2>/tmp/p44h/$n.run.err; echo "run rc=$?" >> $R/$n.rc
  tail -1 /tmp/p44h/$n.run.err > $R/$n.run.stderr_tail
  cmp -s $R/$n.plain.out $R/$n.run.out && echo "stdout identical" >> $R/$n.rc || echo "stdout DIFFERS" >> $R/$n.rc
  PYTHONPATH=/work/wt44h /work/main/.venv/bin/python -m compdiag explain --store /tmp/p44h/$n.db > $R/$n.explain.txt 2>&1
  PYTHONPATH=/work/wt44h /work/main/.venv/bin/python -m compdiag explain --json --store /tmp/p44h/$n.db > $R/$n.explain.json 2>&1
  echo done $n
done
