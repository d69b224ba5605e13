#!/bin/sh
# device-ab.sh - a before/after timing in one call of the GPU machine: two
# kronblas tarballs (old, new) built side by side, then the same
# kronblas-bench rows run with each, interleaved (old, new, old, new, ...),
# so that both see the same card, clocks and neighbours.
#
#   tools/device-ab.sh OLD.tar.gz NEW.tar.gz ROUNDS BENCH-ARG...
#
# e.g. tools/device-ab.sh .carry/old.tar.gz .carry/new.tar.gz 2 --backend cuda \
#        --type s,d --reps 100 --verify --no-ceilings 50_32x8,64x128 10_52x50,65x20
#
# The bench runs with KRONBLAS_TUNE=0 (model plans) unless the caller's
# environment sets it.  The trees stay built in $KB_AB_DIR/kb-ab-old and
# $KB_AB_DIR/kb-ab-new (KB_AB_DIR default /tmp) for later steps of the
# same call, or of a later call on the same (still warm) machine:
# KB_AB_REUSE=1 skips unpacking and building and times the trees already
# there (tools/t-device-ab.sh runs it so on made-up trees).  Logs and the CSVs
# (ab-old-R.csv, ab-new-R.csv) go to $OUT (or /tmp/kb-out).  Only the
# library and the bench are built.  KB_AB_CONFIGURE adds arguments to both
# trees' ./configure: "--disable-static" spares libtool's second, non-PIC
# compile of each file (on the 2-core development machine: 84 s against
# 159), but the programs linked statically (tools/jit-time, t-cuda-gemm,
# t-cuda-geom) cannot be built then, so not where the call runs `make
# check` in a tree afterwards.  The last lines printed are one row per shape and type: the
# old and new times (ms) of every round, the new mean's change against the
# old mean (negative: faster) and the range of the faster baseline's.
set -u
if [ $# -lt 4 ]; then
  echo "usage: $0 OLD.tar.gz NEW.tar.gz ROUNDS BENCH-ARG..." >&2
  exit 2
fi
old=$(readlink -f "$1")
new=$(readlink -f "$2")
rounds=$3
shift 3
out=${OUT:-/tmp/kb-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
: "${KRONBLAS_TUNE:=0}"
export KRONBLAS_TUNE
dir=${KB_AB_DIR:-/tmp}

build() {   # build TAG TARBALL
  w=$dir/kb-ab-$1
  rm -rf "$w" && mkdir -p "$w" && tar -C "$w" -xzf "$2" || return 1
  cd "$w"/kronblas-* || return 1
  # shellcheck disable=SC2086 # KB_AB_CONFIGURE: words
  ./configure --with-cuda-arch=90 ${KB_AB_CONFIGURE:-} > "$out/$1-configure.log" 2>&1 &&
    make -j8 tools/kronblas-bench > "$out/$1-make.log" 2>&1
}
if [ "${KB_AB_REUSE:-0}" = 1 ]; then
  for v in old new; do
    [ -x "$dir"/kb-ab-$v/kronblas-*/tools/kronblas-bench ] || { echo "KB_AB_REUSE=1: no built tree $dir/kb-ab-$v"; exit 1; }
  done
  echo "build: reusing $dir/kb-ab-old and $dir/kb-ab-new"
else
  t0=$(date +%s)
  (build old "$old") & pid=$!
  (build new "$new"); rn=$?
  wait $pid; ro=$?
  echo "build: old rc $ro, new rc $rn, $(( $(date +%s) - t0 )) s"
  [ $ro -eq 0 ] && [ $rn -eq 0 ] || { tail -n 20 "$out/old-make.log" "$out/new-make.log"; exit 1; }
fi

r=1
while [ $r -le "$rounds" ]; do
  for v in old new; do
    (cd "$dir"/kb-ab-$v/kronblas-* && ./tools/kronblas-bench --csv "$out/ab-$v-$r.csv" "$@" > "$out/ab-$v-$r.txt" 2>&1) ||
      echo "round $r, $v: kronblas-bench failed (see ab-$v-$r.txt)"
  done
  r=$((r + 1))
done

python3 - "$out" "$rounds" <<'PY'
import csv, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for r in range(1, rounds + 1):
    for v in ("old", "new"):
        try:
            f = open("%s/ab-%s-%d.csv" % (out, v, r))
        except OSError:
            continue
        for row in csv.DictReader(f):
            d = rows.setdefault((row["shape"], row["type"]), {"old": [], "new": [], "base": [], "verify": set()})
            d[v].append(row["ms"] or "nan")
            b = [float(row[k]) for k in ("baseline_gemm_ms", "baseline_shuffle_ms") if row.get(k)]
            if b:
                d["base"].append(min(b))
            d["verify"].add(row.get("verify", "-"))
def mean(v):
    v = [float(x) for x in v]
    return sum(v) / len(v) if v else float("nan")
for (shape, t), d in rows.items():
    base = "faster baseline %.4f-%.4f" % (min(d["base"]), max(d["base"])) if d["base"] else ""
    o, n = mean(d["old"]), mean(d["new"])
    change = "%+.1f%%" % ((n / o - 1) * 100) if o > 0 and n == n else "-"
    print("%-24s %s old %s new %s %s %s %s" % (shape, t, "/".join(d["old"]), "/".join(d["new"]), change, base,
                                                ",".join(sorted(d["verify"]))))
PY
