# tools/tap.sh - what the tools' TAP scripts (t-bench.sh, t-tune.sh) share;
# sourced after they set $tmp.  ok RC TEXT prints one TAP line (RC 0 is a
# pass) and remembers a failure in $failed; tap_run PROG EXPECTED_RC
# ARGS... runs PROG, leaves its output in $tmp.out, shows it as TAP
# comments, and is true when PROG exited with EXPECTED_RC; tap_need CMD
# skips the whole script (exit 0) where CMD is not on the PATH.
n=0
failed=0

ok() {
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $n - $2"
  else
    echo "not ok $n - $2"
    failed=1
  fi
}

tap_run() {
  prog=$1
  want=$2
  shift 2
  "$prog" "$@" > "$tmp.out" 2>&1
  rc=$?
  sed 's/^/# /' "$tmp.out"
  [ "$rc" -eq "$want" ]
}

tap_need() {
  if ! command -v "$1" > /dev/null 2>&1; then
    echo "1..0 # SKIP $1 not found"
    exit 0
  fi
}
