#!/usr/bin/env python3
"""Tabulates the `ab` step of bench/gpu_run.sh (or any concatenation of `dmlops bench`
outputs under "== NAME" headers): one line per case, one column per run, each the case's
ratio to the best copy timed beside it ("vs best", the 4th column from the end of a Vulkan
run's table; 6: "vs comp", the plain compute copy; 2: "vs torch").

usage: bench/ab_table.py ab.txt [COLUMN]   COLUMN: a column index from the end (default 4)
"""
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    col = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    runs, cases = [], {}
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith("== "):
                runs.append(line[3:].strip())
                continue
            # Case lines: the name in the first 50 columns, then path, timer, numbers.
            fields = line[50:].split()
            if not runs or len(fields) < 4 or fields[0] not in ("kernel", "copy-regions", "cpu", "mixed"):
                continue
            try:
                value = float(fields[-col])
            except ValueError:
                continue
            cases.setdefault(line[:50].strip(), {})[len(runs) - 1] = value
    for i, name in enumerate(runs):
        print(f"run {i}: {name}")
    print(f"{'case':50s} " + " ".join(f"{i:>6d}" for i in range(len(runs))))
    for name, values in cases.items():
        print(f"{name:50s} " + " ".join(f"{values[i]:6.2f}" if i in values else "     -" for i in range(len(runs))))


if __name__ == "__main__":
    main()
