#!/usr/bin/env bash
# Model-checks the project's Promela models with spin. A model passes when
# pan, exploring every interleaving, reports 0 errors (assertions, invalid
# end states such as a deadlock, and, where checked, non-progress cycles).
set -euo pipefail
cd "$(dirname "$0")/.."

# model | gcc flags | pan flags
models=(
  "steal/deque.pml|-DSAFETY -DMEMLIM=3000|-m100000"
  "partition/range.pml|-DSAFETY|-m1000000"
  "runtime/sleep.pml|-DSAFETY|-m1000000"
)

status=0
for entry in "${models[@]}"; do
  IFS='|' read -r model cflags runflags <<< "$entry"
  if [ ! -f "$model" ]; then
    echo "spin: $model is missing"; status=1; continue
  fi
  work=$(mktemp -d)
  cp "$model" "$work/"
  start=$(date +%s)
  ( cd "$work" && spin -a "$(basename "$model")" > spin.out 2>&1 \
      && gcc -O2 $cflags -o pan pan.c >> spin.out 2>&1 \
      && ./pan $runflags > pan.out 2>&1 ) || true
  errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$work/pan.out" 2>/dev/null | head -1)
  states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$work/pan.out" 2>/dev/null | head -1)
  if [ "${errors:-x}" = 0 ]; then
    echo "spin: $model: 0 errors, $states states stored, $(( $(date +%s) - start )) s"
  else
    echo "spin: $model FAILED"; cat "$work/spin.out" "$work/pan.out" 2>/dev/null; status=1
  fi
  rm -rf "$work"
done
exit $status
