#!/usr/bin/env bash
# A benchmark run longer than one device call (the device tool stops a command at 600 s, and
# a machine idle for 30 s is given back): `start` launches it detached (setsid), `poll` waits
# for it up to LIMIT seconds and prints where it is; call `poll` again at once until it says
# done. resnet50's max-autotune cold compile alone took more than 10 minutes on an H200.
#
#   bash benchmarks/perf_gpu/background.sh start "resnet50 --batch 32 --plain-runs 3"
#   LIMIT=570 bash benchmarks/perf_gpu/background.sh poll
#
# Everything lands in ${BPM_OUT:-/tmp/bpm}: MODEL/summary.json, MODEL/compdiag_perf.json and
# logs; `poll` copies the summaries to $OUT when the tool sets it. PYTHON picks the interpreter
# (default python3).
set -u
out=${BPM_OUT:-/tmp/bpm}
case "${1:-}" in
start)
    mkdir -p "$out"
    rm -f "$out/done"
    # shellcheck disable=SC2086  # the argument string is split on purpose
    setsid nohup bash -c "PYTHONUNBUFFERED=1 ${PYTHON:-python3} benchmarks/bench_perf_modes.py --out '$out' \
        --model ${2:?model and options, e.g. \"bert --batch 1\"} > '$out/bench.txt' 2>&1; \
        echo \"rc=\$?\" >> '$out/bench.txt'; touch '$out/done'" < /dev/null > /dev/null 2>&1 &
    echo "started; output in $out"
    ;;
poll)
    limit=${LIMIT:-570}
    while [ "$SECONDS" -lt "$limit" ] && [ ! -f "$out/done" ]; do sleep 5; done
    if [ -f "$out/done" ]; then echo "done"; cat "$out/bench.txt"; else echo "still running"; fi
    for log in "$out"/*/compdiag_perf.log; do
        [ -f "$log" ] && echo "== $log: $(grep -c 'AUTOTUNE benchmarking' "$log") autotune(s)" \
            && tail -c 600 "$log"
    done
    if [ -n "${OUT:-}" ]; then
        for f in "$out"/*/summary.json "$out"/*/compdiag_perf.json; do
            [ -f "$f" ] && cp "$f" "$OUT/$(basename "$(dirname "$f")")_$(basename "$f")"
        done
    fi
    ;;
*)
    echo "usage: background.sh start \"MODEL [OPTIONS]\" | poll" >&2
    exit 2
    ;;
esac
