#!/usr/bin/env python3
"""The lavapipe table of docs/performance.md ("The tuner"): a tuning file made from one
device class's plan, set against the other class's defaults and its own.

Usage: bench/tuning_table.py CPU_CSV GPU_CSV
  CPU_CSV: DMLOPS_VK_TUNING=cpu dmlops bench --backend vulkan --tuning FILE --csv CPU_CSV
           (the defaults column: the device's CPU plan; the tuned column: the file)
  GPU_CSV: DMLOPS_VK_TUNING=gpu dmlops bench --backend vulkan --tuning FILE --csv GPU_CSV
           (the defaults column: a discrete GPU's plan, which FILE was tuned from)
Prints a Markdown table per case: the CPU defaults' and the file's time in the first run and
the file's speed over them (tuned / CPU >= 0.9 is issue 49's proof), the GPU plan's and the
file's time in the second and the speed-up tuning bought there, and the configuration the
file holds against the GPU plan; then the lowest ratio and the cases below 0.9."""
import csv
import sys


def rows(path):
    with open(path, newline="") as f:
        out = {}
        for r in csv.DictReader(f):
            size = int(r["tensor_bytes"])
            unit = "MiB" if size >= 1 << 20 else "KiB"
            label = "%s %s %s %d %s" % (r["operator"], r["variant"], r["data_type"],
                                        size >> (20 if unit == "MiB" else 10), unit)
            out[label] = r
        return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cpu, gpu = rows(sys.argv[1]), rows(sys.argv[2])
    print("| case | CPU defaults µs | tuned µs | tuned speed / CPU defaults | GPU plan µs | tuned µs | "
          "speed-up over the GPU plan | configuration (beside the GPU plan) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    worst, below = None, []
    for label, c in cpu.items():
        g = gpu.get(label, {})
        fmt = lambda v: "%.1f" % float(v) if v else "-"
        ratio = float(c["ratio_tuned"]) if c.get("ratio_tuned") else None
        if ratio is not None:
            worst = ratio if worst is None else min(worst, ratio)
            if ratio < 0.9:
                below.append(label)
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, fmt(c["median_us"]), fmt(c.get("tuned_us")), "%.2f" % ratio if ratio is not None else "-",
            fmt(g.get("median_us")), fmt(g.get("tuned_us")),
            "%.2f" % float(g["ratio_tuned"]) if g.get("ratio_tuned") else "-",
            "`%s`" % g["tuned_config"] if g.get("tuned_config") else "(the GPU plan)"))
    print()
    print("lowest tuned speed over the CPU defaults: %s; below 0.9: %s" % (
        "%.2f" % worst if worst is not None else "-", ", ".join(below) if below else "none"))


main()
