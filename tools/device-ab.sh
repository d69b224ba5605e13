#!/bin/sh
# device-ab.sh - a before/after timing in one call of the GPU machine: two
# kronblas tarballs (old, new) built side by side, then the same
# kronblas-bench rows run with each, interleaved (old, new, old, new, ...),
# so that both see the same card, clocks and neighbours.
#
#   tools/device-ab.sh OLD.tar.gz NEW.tar.gz[,NEW2.tar.gz,...] ROUNDS BENCH-ARG...
#
# e.g. tools/device-ab.sh .carry/old.tar.gz .carry/new.tar.gz 2 --backend cuda \
#        --type s,d --reps 100 --verify --no-ceilings 50_32x8,64x128 10_52x50,65x20
#
# Several new tarballs (a comma list) are built and timed beside the old
# one in the same way, as trees new, new2, ...  The bench runs with
# KRONBLAS_TUNE=0 (model plans) unless the caller's environment sets it.
# The trees stay built in $KB_AB_DIR/kb-ab-old, $KB_AB_DIR/kb-ab-new, ...
# (KB_AB_DIR default /tmp) for later steps of the same call, or of a later
# call on the same (still warm) machine: KB_AB_REUSE=1 skips unpacking and
# building and times the trees already there (tools/t-device-ab.sh runs it
# so on made-up trees).  Logs and the CSVs (ab-old-R.csv, ab-new-R.csv,
# ...) go to $OUT (or /tmp/kb-out).
#
# Only the library and the bench are built.  KB_AB_CONFIGURE adds
# arguments to every tree's ./configure: "--disable-static" spares
# libtool's second, non-PIC compile of each file (on the 2-core
# development machine: 84 s against 159), but the programs linked
# statically (tools/jit-time, t-cuda-gemm, t-cuda-geom) cannot be built
# then, so not where the call runs `make check` in a tree afterwards.
#
# The last lines printed are one row per shape and type: the old times
# (ms) of every round, then each new tree's and its mean's change against
# the old mean (negative: faster), the range of the faster baseline's,
# and the verify results.  Exit status: 0, or 1 where a tree did not
# build or a bench failed in some round, 2 on bad arguments.
set -u
if [ $# -lt 4 ]; then
  echo "usage: $0 OLD.tar.gz NEW.tar.gz[,NEW2.tar.gz...] ROUNDS BENCH-ARG..." >&2
  exit 2
fi
old=$(readlink -f "$1")
news=$2
rounds=$3
shift 3
out=${OUT:-/tmp/kb-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
: "${KRONBLAS_TUNE:=0}"
export KRONBLAS_TUNE
dir=${KB_AB_DIR:-/tmp}

# The trees' tags: old, then new, new2, ... for the tarballs of NEW's list.
tags=old
i=1
for _ in $(echo "$news" | tr "," " "); do
  if [ $i -eq 1 ]; then tags="$tags new"; else tags="$tags new$i"; fi
  i=$((i + 1))
done
tarball() {   # tarball TAG: its tarball
  case $1 in
    old) echo "$old" ;;
    new) readlink -f "$(echo "$news" | cut -d, -f1)" ;;
    *) readlink -f "$(echo "$news" | cut -d, -f"${1#new}")" ;;
  esac
}

build() {   # build TAG TARBALL
  w=$dir/kb-ab-$1
  rm -rf "$w" && mkdir -p "$w" && tar -C "$w" -xzf "$2" || return 1
  cd "$w"/kronblas-* || return 1
  # shellcheck disable=SC2086 # KB_AB_CONFIGURE: words
  ./configure --with-cuda-arch=90 ${KB_AB_CONFIGURE:-} > "$out/$1-configure.log" 2>&1 &&
    make -j8 tools/kronblas-bench > "$out/$1-make.log" 2>&1
}
if [ "${KB_AB_REUSE:-0}" = 1 ]; then
  for v in $tags; do
    [ -x "$dir"/kb-ab-$v/kronblas-*/tools/kronblas-bench ] || { echo "KB_AB_REUSE=1: no built tree $dir/kb-ab-$v"; exit 1; }
  done
  echo "build: reusing $(for v in $tags; do printf '%s ' "$dir/kb-ab-$v"; done | sed 's/ $//; s/ \([^ ]*\)$/ and \1/')"
else
  t0=$(date +%s)
  for v in $tags; do
    (build "$v" "$(tarball "$v")"; echo $? > "$out/$v-build.rc") &
  done
  wait
  msg=build:
  fail=0
  for v in $tags; do
    rc=$(cat "$out/$v-build.rc" 2>/dev/null || echo 1)
    msg="$msg $v rc $rc,"
    [ "$rc" -eq 0 ] || fail=1
  done
  echo "$msg $(( $(date +%s) - t0 )) s"
  [ $fail -eq 0 ] || { for v in $tags; do echo "== $out/$v-make.log"; tail -n 20 "$out/$v-make.log"; done; exit 1; }
fi

r=1
benchfail=0
while [ $r -le "$rounds" ]; do
  for v in $tags; do
    if ! (cd "$dir"/kb-ab-$v/kronblas-* && ./tools/kronblas-bench --csv "$out/ab-$v-$r.csv" "$@" > "$out/ab-$v-$r.txt" 2>&1); then
      echo "round $r, $v: kronblas-bench failed (see ab-$v-$r.txt)"
      benchfail=1
    fi
  done
  r=$((r + 1))
done

# shellcheck disable=SC2086 # the tags: words
python3 - "$out" "$rounds" $tags <<'PY'
import csv, sys
out, rounds, tags = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = {}
for r in range(1, rounds + 1):
    for v in tags:
        try:
            f = open("%s/ab-%s-%d.csv" % (out, v, r))
        except OSError:
            continue
        for row in csv.DictReader(f):
            d = rows.setdefault((row["shape"], row["type"]), {"base": [], "verify": set()})
            d.setdefault(v, []).append(row["ms"] or "nan")
            b = [float(row[k]) for k in ("baseline_gemm_ms", "baseline_shuffle_ms") if row.get(k)]
            if b:
                d["base"].append(min(b))
            d["verify"].add(row.get("verify", "-"))
def mean(v):
    v = [float(x) for x in v]
    return sum(v) / len(v) if v else float("nan")
for (shape, t), d in rows.items():
    base = "faster baseline %.4f-%.4f" % (min(d["base"]), max(d["base"])) if d["base"] else ""
    o = mean(d.get("old", []))
    line = "%-24s %s old %s" % (shape, t, "/".join(d.get("old", [])))
    for v in tags[1:]:
        n = mean(d.get(v, []))
        change = "%+.1f%%" % ((n / o - 1) * 100) if o > 0 and n == n else "-"
        line += " %s %s %s" % (v, "/".join(d.get(v, [])), change)
    print("%s %s %s" % (line, base, ",".join(sorted(d["verify"]))))
PY
# A bench that failed (a verification, a baseline that disagreed, kronblas
# itself) fails the call too, after the rows that did run are shown.
exit $benchfail
