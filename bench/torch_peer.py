#!/usr/bin/env python3
"""PyTorch doing what each case of `dmlops bench` does, on a CUDA device or on CPU tensors,
written as a PyTorch user writes it: the peer the benchmark's figures stand beside ("vs
PyTorch", ratio_torch). Usage:

    torch_peer.py CASES.json [--device cuda|cpu] [--warmup S] [--min-time S] [--samples N]
                  [--budget S] [--threads N] [--dry-run]

CASES.json is written by dmlops bench (one object per case: index, label, op, dtype,
rows, cols, and the operator's fields). The output, one line each:

    torch VERSION cuda CUDA_VERSION on DEVICE      (--device cuda, the default)
    torch VERSION cpu, N threads                   (--device cpu)
    INDEX SECONDS ITERATIONS CALL         per case: seconds per call, and the call
    unavailable REASON                    instead, with exit status 3, when python3 has no
                                          torch or (cuda) torch sees no CUDA device

On a CUDA device timing follows the bench's GPU method (docs/performance.md): per case, at
least --warmup seconds of back-to-back calls (0.3), then --samples runs (7) of back-to-back
calls lasting at least --min-time seconds (0.002) between two CUDA events; the median time
per call. On the CPU (the bench's CPU backend) it follows the CPU method, as the numpy
peer does: calls for --warmup seconds (at least two), whose last decides the count (3 to
50, about --budget seconds, 0.25), then that many calls, each timed alone on the host's
clock; the median. torch runs on its own default count of intra-op threads, as a user's
call would (1 on the project's 2-core VM: its count of physical cores as torch sees them);
--threads N sets another (`dmlops bench --torch-peer "python3 bench/torch_peer.py
--threads 2"`). The first line names the count used.
--dry-run needs no torch: it prints each case's call with zero times (which dmlops bench
ignores), so that tests can check the reading of the cases and the calls without a GPU.

The calls (gpu.md, "PyTorch 2.11 on the same GPU"), with inputs as dmlops bench builds them:
  REVERSE_SUBSEQUENCES along axis 1      torch.gather(x, 1, idx), idx int64 built once
  REVERSE_SUBSEQUENCES along axis 0      torch.flip(x, [0]) (every sequence whole)
    ragged (a length per column)         torch.gather(x, 0, idx), idx int64 built once
  SLICE1                                 x[a:b:s, c:d:t] with .flip() for negative strides,
                                         else .contiguous(): x[:, 1024:3072].contiguous(),
                                         x[:, ::2].flip(0), x.flip(1)
  ONE_HOT                                torch.zeros(R, D).scatter_(1, idx, 1), idx int64 [R, 1]
"""
import argparse
import json
import statistics
import sys
import time

UNAVAILABLE = 3
DTYPES = ("uint8", "float16", "float32", "float64")


def window(offset, size, stride, extent):
    """The elements a SLICE1 window picks along one dimension, as a positive slice and
    whether they are read backwards: a negative stride reads the same elements as a
    positive one started from the other end."""
    step = abs(stride) or 1
    count = (size + step - 1) // step
    lowest = offset + size - 1 - (count - 1) * step if stride < 0 else offset
    return lowest, min(lowest + count * step, extent), step, stride < 0


def slice_text(lo, hi, step, extent):
    text = ("" if lo == 0 else str(lo)) + ":" + ("" if hi >= extent else str(hi))
    return text + (":" + str(step) if step != 1 else "")


def slice_call(case):
    """The slices and flips of a SLICE1 case, and the call as a user writes it."""
    extents = (case["rows"], case["cols"])
    parts, flips, text = [], [], []
    for d, (o, s, t) in enumerate(zip(case["offsets"], case["sizes"], case["strides"])):
        lo, hi, step, back = window(o, s, t, extents[d])
        parts.append(slice(lo, hi, step))
        text.append(slice_text(lo, hi, step, extents[d]))
        if back:
            flips.append(d)
    whole = all(t == ":" for t in text)
    view = "x" if whole else "x[" + ", ".join(text) + "]"
    if flips:
        call = view + ".flip(" + ", ".join(map(str, flips)) + ")"
    else:
        call = view + ".contiguous()"
    return tuple(parts), flips, call


def describe(case):
    """The call a case times, without torch."""
    op = case["op"]
    if op == "ONE_HOT":
        return "torch.zeros(%d, %d).scatter_(1, idx, 1)" % (case["rows"], case["cols"])
    if op == "REVERSE_SUBSEQUENCES":
        if case.get("ragged"):
            return "torch.gather(x, 0, idx)"
        return "torch.gather(x, 1, idx)" if case["axis"] == 1 else "torch.flip(x, [0])"
    if op == "SLICE1":
        return slice_call(case)[2]
    raise ValueError("unknown operator %r" % op)


def build(torch, case, dev):
    """A function that runs the case's call once, and the call."""
    dtype = getattr(torch, case["dtype"])
    rows, cols = case["rows"], case["cols"]
    op = case["op"]
    call = describe(case)
    if op == "ONE_HOT":
        k = torch.arange(rows, device=dev, dtype=torch.int64)
        idx = ((k * 7 + 3) % cols).reshape(rows, 1)
        return (lambda: torch.zeros((rows, cols), dtype=dtype, device=dev).scatter_(1, idx, 1)), call
    # The data as a pattern that every type can hold exactly (values do not change the time).
    x = (torch.arange(rows * cols, device=dev, dtype=torch.int64) % 251).to(dtype).reshape(rows, cols)
    if op == "REVERSE_SUBSEQUENCES":
        i = torch.arange(rows, device=dev, dtype=torch.int64)[:, None]
        j = torch.arange(cols, device=dev, dtype=torch.int64)[None, :]
        if case.get("ragged"):  # a length per column: 7c mod (rows + 1), as bench_input
            lengths = (j * 7) % (rows + 1)
            idx = torch.where(i < lengths, lengths - 1 - i, i).expand(rows, cols).contiguous()
            return (lambda: torch.gather(x, 0, idx)), call
        if case["axis"] == 1:  # a length per row: cols - r mod 7
            lengths = cols - i % 7
            idx = torch.where(j < lengths, lengths - 1 - j, j).expand(rows, cols).contiguous()
            return (lambda: torch.gather(x, 1, idx)), call
        return (lambda: torch.flip(x, [0])), call
    parts, flips, _ = slice_call(case)
    if flips:
        return (lambda: x[parts].flip(flips)), call
    return (lambda: x[parts].contiguous()), call


def time_cpu(fn, warmup, budget):
    """Seconds per call on the CPU, the median of calls each timed alone, after warm-up
    calls for `warmup` seconds (at least two); and the calls timed."""
    t0, calls, last = time.perf_counter(), 0, 0.0
    while calls < 2 or time.perf_counter() - t0 < warmup:
        t1 = time.perf_counter()
        fn()
        last = time.perf_counter() - t1
        calls += 1
    n = max(3, min(50, int(budget / last))) if last > 0 else 50
    times = []
    for _ in range(n):
        t1 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t1)
    return statistics.median(times), n


def time_call(torch, fn, warmup, min_time, samples):
    """Seconds per call, median of `samples` runs of back-to-back calls between CUDA
    events, after `warmup` seconds of back-to-back calls; and the calls timed."""
    torch.cuda.synchronize()
    t0, calls = time.perf_counter(), 0
    while True:
        for _ in range(8):
            fn()
        torch.cuda.synchronize()
        calls += 8
        if time.perf_counter() - t0 >= warmup:
            break
    per_call = (time.perf_counter() - t0) / calls
    reps = max(1, min(100000, int(min_time * 1.25 / per_call) + 1))
    times = []
    for _ in range(samples):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e-3 / reps)
    return statistics.median(times), reps * samples


def parse(argv):
    p = argparse.ArgumentParser(prog="torch_peer.py", description=__doc__.split("\n\n")[0])
    p.add_argument("cases", help="the cases, as dmlops bench writes them")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda", help="where the tensors live")
    p.add_argument("--warmup", type=float, default=0.3, help="seconds of calls before each case is timed")
    p.add_argument("--min-time", type=float, default=0.002, help="seconds each timed run lasts at least")
    p.add_argument("--samples", type=int, default=7, help="timed runs per case")
    p.add_argument("--budget", type=float, default=0.25, help="cpu: about the seconds of timed calls per case")
    p.add_argument("--threads", type=int, default=0, help="cpu: torch's intra-op threads (0: torch's default)")
    p.add_argument("--dry-run", action="store_true", help="print the calls; needs no torch")
    a = p.parse_args(argv)
    if a.warmup < 0 or a.min_time <= 0 or a.samples < 1 or a.budget <= 0 or a.threads < 0:
        p.error("--warmup >= 0, --min-time > 0, --samples >= 1, --budget > 0 and --threads >= 0")
    return a


def load(path):
    with open(path) as f:
        cases = json.load(f)
    if not isinstance(cases, list):
        raise ValueError("%s: expected a list of cases" % path)
    for c in cases:
        for key in ("index", "op", "dtype", "rows", "cols"):
            if key not in c:
                raise ValueError("%s: a case without %r: %r" % (path, key, c))
        if c["dtype"] not in DTYPES:
            raise ValueError("%s: case %d: dtype %r" % (path, c["index"], c["dtype"]))
    return cases


def main(argv):
    a = parse(argv[1:])
    try:
        cases = load(a.cases)
    except (OSError, ValueError) as e:
        print("torch_peer.py: %s" % e, file=sys.stderr)
        return 2
    if a.dry_run:
        print("torch dry-run", flush=True)
        for c in cases:
            print(c["index"], 0, 0, describe(c), flush=True)
        return 0
    try:
        import torch
    except Exception as e:  # ImportError, or a torch that fails to load its libraries
        print("unavailable python3 cannot import torch (%s: %s)" % (type(e).__name__, e), flush=True)
        return UNAVAILABLE
    cpu = a.device == "cpu"
    if cpu:
        dev = torch.device("cpu")
        if a.threads:
            torch.set_num_threads(a.threads)
        threads = torch.get_num_threads()
        print("torch %s cpu, %d thread%s" % (torch.__version__, threads, "" if threads == 1 else "s"), flush=True)
    elif not torch.cuda.is_available():
        print("unavailable torch %s sees no CUDA device" % torch.__version__, flush=True)
        return UNAVAILABLE
    else:
        dev = torch.device("cuda")
        print("torch %s cuda %s on %s" % (torch.__version__, torch.version.cuda, torch.cuda.get_device_name(dev)),
              flush=True)
    for c in cases:
        try:
            fn, call = build(torch, c, dev)
            if cpu:
                seconds, n = time_cpu(fn, a.warmup, a.budget)
            else:
                seconds, n = time_call(torch, fn, a.warmup, a.min_time, a.samples)
        except (RuntimeError, MemoryError) as e:  # out of memory, or a type the device lacks: left out, the bench says so
            print("torch_peer.py: case %d (%s): %s" % (c["index"], c.get("label", ""), e), file=sys.stderr)
            fn = None
            if not cpu:
                torch.cuda.empty_cache()
            continue
        fn = None
        print(c["index"], "%.9g" % seconds, n, call, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
