#!/bin/bash
# usage: harness.sh NAME MODE   (MODE: plain run runacc check perf)
# runs the program from the worktree root with stdin "3", PROBE_OUT=/tmp/p44i/out/NAME/MODE,
# saves stdout/stderr/rc under benchmarks/probes44i/results/NAME.MODE.{out,err,rc}
N=$1; M=$2; R=benchmarks/probes44i/results; O=/tmp/p44i/out/$N/$M
rm -rf $O; mkdir -p $O
PY=/work/main/.venv/bin/python
CD="$PY -m compdiag"
S=benchmarks/probes44i/$N.py
case $M in
 plain)  CMD="$PY $S";;
 run)    CMD="$CD run --store /tmp/p44i/$N.db $S";;
 runacc) CMD="$CD run --store /tmp/p44i/$N.acc.db --check-accuracy $S";;
 check)  CMD="$CD check --store /tmp/p44i/$N.check.db $S";;
 perf)   CMD="$CD perf --store /tmp/p44i/$N.perf.db $S";;
esac
rm -f /tmp/p44i/$N*.db.$M 2>/dev/null
t0=$(date +%s)
echo 3 | PROBE_OUT=$O PYTHONPATH=/work/wt44i nice -n 10 env TORCHINDUCTOR_COMPILE_THREADS=1 $CMD > $R/$N.$M.out 2> $R/$N.$M.err
echo $? > $R/$N.$M.rc
echo "$N $M rc=$(cat $R/$N.$M.rc) $(( $(date +%s)-t0 ))s"
