#!/usr/bin/env python3
"""Compile time and peak memory of ptoas against program size (docs/bench.md).

usage: compile_scaling.py [--build DIR] [--quick] [--sizes 1000,10000,100000]

Kernels of N tile ops from bench/gen_tile_ops.py (load-add-store chains in
one function; the full run also times them inside scf.for loops) are
compiled by `ptoas -target=T -O<L> K.pto -o K.o` for avx2 and sve at -O0 and
-O2. Each compile is one process, timed by its own CPU time (user + system,
from wait4: on a shared machine the wall time measures the neighbours) and
its peak RSS; the median of the repeats (3 full, 1 quick) is kept. Printed:
a table, `figure compile_scaling <config>_<N> cpu_s=<x> rss_mb=<y>` lines,
and the growth ratios `ratio compile_scaling <config>_<big>_vs_<small>=<t>`
(time at 10x the ops over time at 1x: 10 is linear; the 1k figure is mostly
process start-up, so its ratio is lower), each checked as a `target` line
against 15 (linear, with room for noise and n log n sorts).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LINEAR_CEILING = 15.0


def label(n):
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def compile_once(ptoas, target, level, src, out):
    """(cpu seconds, peak RSS in MB, wall seconds, exit status, stderr head)"""
    t0 = time.monotonic()
    p = subprocess.Popen([ptoas, f"-target={target}", level, src, "-o", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, wall, p.returncode, err[:300].decode(errors="replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sizes", default="1000,10000,100000")
    a = ap.parse_args()
    ptoas = os.path.join(a.build, "ptoas")
    if not os.access(ptoas, os.X_OK):
        print(f"compile_scaling: {ptoas} not built", file=sys.stderr)
        return 2
    sizes = [int(s) for s in a.sizes.split(",")]
    repeats = 1 if a.quick else 3
    variants = [("", [])] if a.quick else [("", []), ("loops_", ["--loops"])]
    failed = False
    with tempfile.TemporaryDirectory(prefix="ptoas-scaling.") as tmp:
        results = {}  # (config, n) -> (cpu, rss, wall)
        print(f"{'config':<16} {'ops':>7} {'cpu s':>8} {'wall s':>8} {'peak MB':>8} {'us/op':>7}")
        for vname, vargs in variants:
            for n in sizes:
                src = os.path.join(tmp, f"k{vname}{n}.pto")
                subprocess.run([sys.executable, os.path.join(HERE, "gen_tile_ops.py"), str(n), "-o", src] + vargs,
                               check=True)
                for target in ("avx2", "sve"):
                    for level in ("-O0", "-O2"):
                        cfg = f"{vname}{target}_{level[1:]}"
                        runs = []
                        for _ in range(repeats):
                            cpu, rss, wall, rc, err = compile_once(ptoas, target, level, src,
                                                                   os.path.join(tmp, "k.o"))
                            if rc != 0:
                                print(f"compile_scaling: {cfg} {n} ops: ptoas exit {rc}: {err}", file=sys.stderr)
                                failed = True
                                break
                            runs.append((cpu, rss, wall))
                        if not runs:
                            continue
                        cpu = statistics.median(r[0] for r in runs)
                        rss = max(r[1] for r in runs)
                        wall = statistics.median(r[2] for r in runs)
                        results[(cfg, n)] = (cpu, rss, wall)
                        print(f"{cfg:<16} {n:>7} {cpu:>8.3f} {wall:>8.3f} {rss:>8.1f} {1e6 * cpu / n:>7.1f}",
                              flush=True)
        configs = []
        for key in results:
            if key[0] not in configs:
                configs.append(key[0])
        for cfg in configs:
            for n in sizes:
                if (cfg, n) in results:
                    cpu, rss, _ = results[(cfg, n)]
                    print(f"figure compile_scaling {cfg}_{label(n)} cpu_s={cpu:.3f} rss_mb={rss:.1f}")
        for cfg in configs:
            for small, big in zip(sizes, sizes[1:]):
                if (cfg, small) in results and (cfg, big) in results:
                    r = results[(cfg, big)][0] / max(results[(cfg, small)][0], 1e-6)
                    name = f"{cfg}_{label(big)}_vs_{label(small)}"
                    print(f"ratio compile_scaling {name}={r:.2f}")
                    if big == 10 * small and small >= 10000:
                        ok = r <= LINEAR_CEILING
                        print(f"target compile_scaling {name} <= {LINEAR_CEILING:g}: {'met' if ok else 'NOT MET'} ({r:.2f})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
