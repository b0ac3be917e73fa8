#!/usr/bin/env python3
"""numpy doing what each case of `dmlops bench` does, timed the same way, as the peer
the benchmark reports against ("vs numpy"). Usage: numpy_peer.py CASES.json [--budget S]

CASES.json is written by dmlops bench (one object per case: index, label, op, dtype,
rows, cols, and the operator's fields). For each case this prints
    INDEX MEDIAN_SECONDS ITERATIONS
after a first line "numpy VERSION". Timing follows the benchmark's policy: one warm-up
run decides the count (at least 3, at most 50, about BUDGET seconds in all), and the
median is reported. numpy runs these operations on one thread.

The operations, with arrays built as dmlops bench builds its inputs:
  REVERSE_SUBSEQUENCES axis 1   np.copyto(out, x[:, ::-1])   (every row flipped whole)
  REVERSE_SUBSEQUENCES axis 0   np.copyto(out, x[::-1])
    ragged (a length per column)  np.copyto(out, np.take_along_axis(x, src, 0)), src from the lengths
  SLICE1                        np.copyto(out, x[a:b:s, c:d:t])
  ONE_HOT                       out.fill(off); out[rows, idx] = on
"""
import json
import statistics
import sys
import time

import numpy as np


def window(offset, size, stride):
    if stride > 0:
        return slice(offset, offset + size, stride)
    stop = offset - 1
    return slice(offset + size - 1, stop if stop >= 0 else None, stride)


def build(case):
    dtype = np.dtype(case["dtype"])
    rows, cols = case["rows"], case["cols"]
    op = case["op"]
    if op == "ONE_HOT":
        idx = ((np.arange(rows, dtype=np.uint64) * 7 + 3) % cols).astype(np.intp)
        out = np.empty((rows, cols), dtype=dtype)
        at = np.arange(rows)
        off, on = dtype.type(0), dtype.type(1)

        def run():
            out.fill(off)
            out[at, idx] = on
        return run
    x = (np.arange(rows * cols * dtype.itemsize, dtype=np.uint64) * 131 + 7).astype(np.uint8)
    x = x.view(dtype).reshape(rows, cols)
    if op == "REVERSE_SUBSEQUENCES" and case.get("ragged"):
        # A length per column, read at run time as the operator reads it: each column's
        # source rows, then one gather.
        lengths = (np.arange(cols, dtype=np.int64) * 7) % (rows + 1)
        i = np.arange(rows, dtype=np.int64)[:, None]
        out = np.empty((rows, cols), dtype=dtype)

        def run():
            src = np.where(i < lengths, lengths - 1 - i, i)
            np.copyto(out, np.take_along_axis(x, src, axis=0))
        return run
    if op == "REVERSE_SUBSEQUENCES":
        view = x[:, ::-1] if case["axis"] == 1 else x[::-1]
    else:
        view = x[tuple(window(o, s, t) for o, s, t in zip(case["offsets"], case["sizes"], case["strides"]))]
    out = np.empty(view.shape, dtype=dtype)
    return lambda: np.copyto(out, view)


def time_case(run, budget):
    t0 = time.perf_counter()
    run()
    first = time.perf_counter() - t0
    n = int(budget / first) if first > 0 else 50
    n = max(3, min(50, n))
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), n


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    budget = 0.25
    if "--budget" in argv:
        budget = float(argv[argv.index("--budget") + 1])
    with open(argv[1]) as f:
        cases = json.load(f)
    print("numpy", np.__version__, flush=True)
    for case in cases:
        try:
            run = build(case)
            median, n = time_case(run, budget)
        except MemoryError:
            continue
        print(case["index"], "%.9g" % median, n, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
