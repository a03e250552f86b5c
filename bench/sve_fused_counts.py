#!/usr/bin/python3
"""SVE instruction counts of softmax, RMSNorm and LayerNorm (bench/kernels/).

For a ptoas binary (run it on an old and a new build to compare):
  * static: the element loops of the kernel's -O2 listing (`ptoas
    -target=sve --emit=asm`) that run: every innermost loop (a backward
    branch with no other inside) holding a vector instruction, whose first
    instruction qemu executed. Each iteration of such a loop handles VL/32
    elements (a vector of columns, or a column of VL/32 rows for the
    op-by-op row reductions), so the sum of their lengths over VL/32 is the
    static count per element; `vec` counts only the instructions with a z
    register.
  * dynamic: the instructions qemu-aarch64 executed inside the kernel
    (-singlestep -d exec,nochain: one trace line per guest instruction,
    counted where the pc is within the kernel's symbol), one block over
    all M rows, per element. The kernel's object is linked with a C main
    (aarch64-linux-gnu-gcc -static) that calls it once, so only PTOAS
    matters (not the ptorun it was built with).

usage: bench/sve_fused_counts.py PTOAS [--rows M] [--vl BITS]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# kernel: (C parameters before block_idx / block_num, columns). Inputs are
# M x columns (gamma / beta: 1 x columns) of pseudo-random normal values.
KERNELS = {
    "softmax": ("float* x, float* y, long m", 128),
    "rmsnorm": ("uint16_t* x, float* gamma, uint16_t* y, long m, float eps", 256),
    "layernorm": ("float* x, float* gamma, float* beta, float* y, long m, float eps", 128),
}

MAIN = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
void KERNEL(PARAMS, long block_idx, long block_num);
static uint64_t s = 88172645463325252ull;
static float rnd(void) {  /* about normal: a sum of 4 uniforms, centred */
  float t = 0;
  for (int i = 0; i < 4; ++i) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; t += (float)(s >> 40) / (1 << 24); }
  return (t - 2.0f) * 1.7f;
}
static void* buf(long n, int bf16) {
  void* p = aligned_alloc(64, (size_t)n * 4);
  for (long i = 0; i < n; ++i) {
    float v = rnd();
    if (bf16) { uint32_t b; memcpy(&b, &v, 4); ((uint16_t*)p)[i] = (uint16_t)(b >> 16); }
    else ((float*)p)[i] = v;
  }
  return p;
}
int main(void) {
  long m = ROWS, n = (long)ROWS * COLS, c = COLS;
  (void)c;
  CALL;
  return 0;
}
"""

CALLS = {
    "softmax": "softmax(buf(n, 0), buf(n, 0), m, 0, 1)",
    "rmsnorm": "rmsnorm(buf(n, 1), buf(c, 0), buf(n, 1), m, 1e-5f, 0, 1)",
    "layernorm": "layernorm(buf(n, 0), buf(c, 0), buf(c, 0), buf(n, 0), m, 1e-5f, 0, 1)",
}

INSN = re.compile(r"^\t([a-z][a-z0-9.]*)\s*(.*)$")
BRANCH = re.compile(r"^(b(\.[a-z]+)?|cbz|cbnz|tbz|tbnz)$")


def listing(ptoas, pto):
    """[(offset, mnemonic, operands)] of the kernel's -O2 listing."""
    out = subprocess.run([ptoas, "-target=sve", "-O2", "--emit=asm", pto, "-o", "-"], check=True,
                         capture_output=True, text=True).stdout
    insns, off = [], 0
    for line in out.splitlines():
        m = INSN.match(line)
        if not m or m.group(1).startswith("."):
            continue
        insns.append((off, m.group(1), m.group(2)))
        off += 4
    return insns


def innermost_loops(insns):
    """(first, last) offsets of each innermost loop with a vector instruction."""
    loops = []
    for off, mn, ops in insns:
        if not BRANCH.match(mn):
            continue
        target = ops.split(",")[-1].strip()
        if not target.startswith("0x"):
            continue
        t = int(target, 16)
        if t <= off:
            loops.append((t, off))
    inner = [l for l in loops if not any(o != l and l[0] <= o[0] and o[1] <= l[1] for o in loops)]
    by_off = {off: (mn, ops) for off, mn, ops in insns}
    res = []
    for a, b in inner:
        body = [by_off[o] for o in range(a, b + 4, 4) if o in by_off]
        vec = sum(1 for mn, ops in body if re.search(r"\bz\d+\.", ops))
        if vec:
            res.append((a, b, len(body), vec))
    return res


def build(ptoas, pto, kernel, rows, d):
    """A static AArch64 executable: the kernel's -O2 object and a main that calls it once."""
    params, cols = KERNELS[kernel]
    obj, c, exe = (os.path.join(d, kernel + e) for e in (".o", ".c", ""))
    subprocess.run([ptoas, "-target=sve", "-O2", pto, "-o", obj], check=True)
    src = MAIN.replace("KERNEL", kernel).replace("PARAMS", params).replace("ROWS", str(rows))
    with open(c, "w") as f:
        f.write(src.replace("COLS", str(cols)).replace("CALL", CALLS[kernel]))
    subprocess.run(["aarch64-linux-gnu-gcc", "-O1", "-static", c, obj, "-o", exe], check=True)
    return exe, rows * cols


def trace(exe, kernel, vl, d):
    """{offset in the kernel: times executed} under qemu-aarch64 at vl bits."""
    nm = subprocess.run(["aarch64-linux-gnu-nm", "-S", exe], check=True, capture_output=True, text=True).stdout
    addr = size = None
    for line in nm.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == kernel:
            addr, size = int(f[0], 16), int(f[1], 16)
    log = os.path.join(d, "trace.log")
    cpu = f"max,sve{vl}=on,sve-default-vector-length={vl // 8}"
    subprocess.run(["qemu-aarch64", "-cpu", cpu, "-singlestep", "-d", "exec,nochain", "-D", log, exe], check=True)
    counts = {}
    with open(log) as f:
        for line in f:
            if line.startswith("Trace"):
                off = int(line.split("/")[1], 16) - addr
                if 0 <= off < size:
                    counts[off] = counts.get(off, 0) + 1
    os.remove(log)
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ptoas")
    ap.add_argument("--rows", type=int, default=128, help="M (a multiple of 64)")
    ap.add_argument("--vl", type=int, default=256, help="SVE vector length in bits under qemu")
    a = ap.parse_args()
    lanes = a.vl // 32
    print(f"# {a.ptoas}: -O2, {a.rows} rows, one block, qemu-aarch64 at {a.vl}-bit SVE ({lanes} f32 lanes)")
    print(f"{'kernel':<10} {'loops':>5} {'insn/VL':>8} {'vec/VL':>7} {'vec/elem':>9} {'dyn insn':>10} {'dyn/elem':>9}")
    for k in KERNELS:
        pto = os.path.join(ROOT, "bench", "kernels", k + ".pto")
        with tempfile.TemporaryDirectory() as d:
            exe, elems = build(a.ptoas, pto, k, a.rows, d)
            counts = trace(exe, k, a.vl, d)
        loops = [l for l in innermost_loops(listing(a.ptoas, pto)) if l[0] in counts]
        n = sum(l[2] for l in loops)
        v = sum(l[3] for l in loops)
        dyn = sum(counts.values())
        print(f"{k:<10} {len(loops):>5} {n:>8} {v:>7} {v / lanes:>9.3f} {dyn:>10} {dyn / elems:>9.3f}")


if __name__ == "__main__":
    sys.exit(main())
