#!/usr/bin/env python3
"""ncu_source.py - where a kernel's warps wait, instruction by instruction.

Reads the per-instruction table Nsight Compute exports for one kernel
(`ncu -i REPORT --page source --csv --print-source sass`, from a report
taken with `--section SourceCounters`; tools/device-ncu.sh --source writes
it, gzipped) and prints:
  - the stall reasons' shares of all warp samples;
  - the samples per opcode (the SASS mnemonic before its first '.'), with
    the top reason's share on that opcode;
  - for each of the top reasons, the instructions that hold most of it.

    tools/ncu_source.py [--top N] [--reasons R] FILE.csv[.gz]

Why: the warp-state section says what the warps wait for, not where.
Session 41 found quad8's long-scoreboard stalls (25% of its samples) on the
branches of its output code, where each waits for the registers of the
8-byte stores before it -- the stores, not the loads they were taken for.
Exit status 0, or 2 for a file it cannot read (missing, not this table).
"""
import csv
import gzip
import io
import sys

TOTAL = "Warp Stall Sampling (All Samples)"


def num(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def read_rows(path):
    """The table's header and rows; the export's first line names the kernel."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        lines = list(csv.reader(io.StringIO(f.read())))
    for i, line in enumerate(lines):
        if TOTAL in line and "Source" in line:
            if "Address" not in line or not any(h.startswith("stall_") for h in line):
                raise ValueError("the per-instruction table lacks 'Address' or the stall_ columns")
            kernel = lines[0][1] if i > 0 and len(lines[0]) > 1 else ""
            return kernel, line, lines[i + 1:]
    raise ValueError("no per-instruction table (column '%s')" % TOTAL)


def opcode(source):
    words = [w for w in source.split() if not w.startswith("@")]
    return words[0].split(".")[0] if words else "?"


def summary(kernel, header, rows, top, nreasons):
    col = {name: i for i, name in enumerate(header)}
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    rows = [r for r in rows if len(r) == len(header)]
    total = sum(num(r[col[TOTAL]]) for r in rows)
    if total <= 0:
        return "no samples\n"
    share = {s: sum(num(r[col[s]]) for r in rows) / total for s in reasons}
    ranked = sorted(reasons, key=lambda s: -share[s])
    out = ["kernel: %s" % kernel, "samples: %d over %d instructions" % (total, len(rows)), "", "reason  share"]
    out += ["%-20s %5.1f%%" % (s[len("stall_"):], 100 * share[s]) for s in ranked if share[s] > 0]
    first = ranked[0]
    by_op = {}
    for r in rows:
        o = by_op.setdefault(opcode(r[col["Source"]]), [0.0, 0.0])
        o[0] += num(r[col[TOTAL]])
        o[1] += num(r[col[first]])
    out += ["", "opcode  share  (%s)" % first[len("stall_"):]]
    for op, (t, f) in sorted(by_op.items(), key=lambda kv: -kv[1][0])[:top]:
        out.append("%-10s %5.1f%%  %5.1f%%" % (op, 100 * t / total, 100 * f / total))
    for s in ranked[:nreasons]:
        if share[s] <= 0:
            break
        out += ["", "%s: the instructions that hold most of it" % s[len("stall_"):]]
        for r in sorted(rows, key=lambda r: -num(r[col[s]]))[:top]:
            if num(r[col[s]]) <= 0:
                break
            out.append("  %5.2f%%  %s  %s" % (100 * num(r[col[s]]) / total, r[col["Address"]][-6:],
                                             " ".join(r[col["Source"]].split())[:72]))
    return "\n".join(out) + "\n"


def main(argv):
    top, nreasons, args = 6, 4, list(argv)
    try:
        while args and args[0].startswith("--"):
            if args[0] == "--top":
                top = int(args[1])
            elif args[0] == "--reasons":
                nreasons = int(args[1])
            else:
                raise ValueError(args[0])
            del args[:2]
        if len(args) != 1 or top < 1 or nreasons < 0:
            raise ValueError("arguments")
    except (ValueError, IndexError):
        sys.stderr.write("usage: ncu_source.py [--top N] [--reasons R] FILE.csv[.gz]\n")
        return 2
    try:
        kernel, header, rows = read_rows(args[0])
    except (OSError, ValueError, EOFError, csv.Error) as e:
        sys.stderr.write("ncu_source.py: %s: %s\n" % (args[0], e))
        return 2
    sys.stdout.write(summary(kernel, header, rows, top, nreasons))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
