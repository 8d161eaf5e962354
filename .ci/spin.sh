#!/usr/bin/env bash
# Model-checks the project's Promela models with spin. A model passes when
# pan, exploring every interleaving, reports 0 errors (assertions, invalid
# end states such as a deadlock, and, where checked, non-progress cycles).
set -euo pipefail
cd "$(dirname "$0")/.."

# model | gcc flags | pan flags | spin flags | expected: pass, or fail for a
# variant with a seeded bug that the model must catch
models=(
  "steal/deque.pml|-DSAFETY -DMEMLIM=3000|-m100000||pass"
  "partition/range.pml|-DSAFETY|-m1000000||pass"
  "runtime/sleep.pml|-DSAFETY|-m1000000||pass"
  "runtime/sleep.pml|-DSAFETY|-m1000000|-DBUG_OWNER_STORE|fail"
  "runtime/waiting.pml|-DSAFETY|-m100000||pass"
  "runtime/waiting.pml|-DSAFETY|-m100000|-DBUG_OLD_RULE|fail"
  "runtime/scopetasks.pml|-DSAFETY|-m100000||pass"
  "runtime/scopetasks.pml|-DSAFETY|-m100000|-DONE|pass"
  "runtime/scopetasks.pml|-DSAFETY|-m100000|-DONE -DBUG_PARENT_RECYCLED|fail"
  "runtime/spare.pml|-DSAFETY|-m100000||pass"
  "runtime/spare.pml|-DSAFETY|-m100000|-DBUG_DRAIN_AFTER_RELEASE|fail"
  "runtime/spare.pml|-DSAFETY|-m100000|-DBUG_NO_HANDOFF|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000||pass"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DW=1 -DNPUB=2|pass"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DSTUCK_TIMER -DW=1|pass"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DSTUCK_TIMER -DW=1 -DNO_WORKER_TICK|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_TICK_NO_RECHECK|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_TICK_NO_SKIP|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_TICK_NO_LOCK|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DW=1 -DNPUB=2 -DBUG_HB_NO_LAST_LOOK|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_PARK_NO_BOARD|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_TAKE_NO_CAS|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_NIL_BEFORE_WAIT|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_MARK_NO_CAS|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_RECLAIM_UNMARKED|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_POKE_TICK_ANY_AGE|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DW=1 -DNPUB=2 -DBUG_NO_GEN|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_FN_AFTER_PUBLISH|fail"
  "runtime/promotion.pml|-DNP -DNFAIR=4 -DCOLLAPSE|-l -f -m200000|-DBUG_RECLAIM_KEEPS_FN|fail"
  "runtime/leapfrog.pml|-DSAFETY|-m100000||pass"
  "runtime/leapfrog.pml|-DSAFETY|-m100000|-DBUG_NO_RECHECK|fail"
  "runtime/leapfrog.pml|-DSAFETY|-m100000|-DBUG_NO_MARK|fail"
  "internal/pipe/helpers.pml|-DSAFETY|-m100000||pass"
  "internal/pipe/helpers.pml|-DSAFETY|-m100000|-DH=2|pass"
  "internal/pipe/helpers.pml|-DSAFETY|-m100000|-DBUG_NO_RECHECK|fail"
  "internal/pipe/helpers.pml|-DSAFETY|-m100000|-DBUG_RECHECK_FIRST|fail"
  "internal/pipe/helpers.pml|-DSAFETY|-m100000|-DBUG_FEEDER_NO_OFFER|fail"
)

# check ENTRY OUT: model-checks one entry in a folder of its own and writes
# its one-line verdict (and, on a failure, spin's and pan's output) to OUT;
# it exits 1 when the verdict is not the one expected.
check() {
  local entry=$1 out=$2 model cflags runflags spinflags expect work start errors states name
  IFS='|' read -r model cflags runflags spinflags expect <<< "$entry"
  name="$model${spinflags:+ $spinflags}"
  if [ ! -f "$model" ]; then
    echo "spin: $model is missing" > "$out"; return 1
  fi
  work=$(mktemp -d)
  cp "$model" "$work/"
  start=$(date +%s)
  ( cd "$work" && spin $spinflags -a "$(basename "$model")" > spin.out 2>&1 \
      && gcc -O2 $cflags -o pan pan.c >> spin.out 2>&1 \
      && ./pan $runflags > pan.out 2>&1 ) || true
  errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$work/pan.out" 2>/dev/null | head -1)
  states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$work/pan.out" 2>/dev/null | head -1)
  local ok=0
  if [ "$expect" = fail ]; then
    # The seeded bug must be found: errors reported, and pan ran to a count.
    if [ -n "${errors:-}" ] && [ "$errors" != 0 ]; then
      echo "spin: $name: the seeded bug is caught ($errors error), $states states stored, $(( $(date +%s) - start )) s" > "$out"
    else
      { echo "spin: $name: the seeded bug was NOT caught"; cat "$work/spin.out" "$work/pan.out" 2>/dev/null; } > "$out"; ok=1
    fi
  elif [ "${errors:-x}" = 0 ]; then
    echo "spin: $name: 0 errors, $states states stored, $(( $(date +%s) - start )) s" > "$out"
  else
    { echo "spin: $name FAILED"; cat "$work/spin.out" "$work/pan.out" 2>/dev/null; } > "$out"; ok=1
  fi
  rm -rf "$work"
  return $ok
}

# The entries are independent: they run as many at a time as there are
# cores, each verdict printed in the table's order once all have ended.
jobs=$(nproc 2>/dev/null || echo 2)
results=$(mktemp -d)
status=0
for k in "${!models[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  { check "${models[$k]}" "$results/$k"; echo $? > "$results/$k.rc"; } &
done
wait
for k in "${!models[@]}"; do
  cat "$results/$k"
  [ "$(cat "$results/$k.rc")" = 0 ] || status=1
done
rm -rf "$results"
exit $status
