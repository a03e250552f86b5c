#!/usr/bin/python3
"""The pto.fuse kernels of x86_fuse_diff (its --dump) on SVE under qemu:
each output bit for bit against the same kernel without its pto.fuse
wrapper (op by op on SVE) at 128 and 512 bits, and against the
interpreter (where a NaN the CPU creates may be either default NaN), and a region the fused lowering must take must make
the object larger than the same kernel without the pto.fuse wrapper
(fused loop nest + the op-by-op fallback); refused_* ones must not.

  sve_fuse_cases.py PTOAS PTORUN X86_FUSE_DIFF
Exit 0 when all agree, 1 on a failure."""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ptoas, ptorun, fdiff = sys.argv[1:4]
dump = subprocess.run([fdiff, "--dump"], check=True, capture_output=True, text=True).stdout
# 48 columns rather than the dump's 40: rows of f16 / bf16 tiles must be 32-byte multiples
kernels = [(k, s.replace("x40x", "x48x")) for k, s in re.findall(r"^==> (\S+)\n(.*?)(?=^==> |\Z)", dump, re.S | re.M)]
SPECIAL = [0x7fc00001, 0x7f800123, 0xffc00042, 0x7f800000, 0xff800000, 0x0, 0x80000000, 0x7, 0x80400000]
DT = {"f32": (np.float32, np.uint32), "f16": (np.float16, np.uint16), "bf16": (np.uint16, np.uint16)}


def unwrap(src):
    """The kernel without its pto.fuse { } lines (the body op by op)."""
    lines = src.split("\n")
    out, close = [], None
    for ln in lines:
        m = re.match(r"^(\s*)pto\.fuse \{$", ln)
        if m:
            close = m.group(1) + "}"
            continue
        if close is not None and ln == close:
            close = None
            continue
        out.append(ln)
    return "\n".join(out)


def values(rng, shape, dt, special):
    a = rng.standard_normal(shape).astype(np.float32) * 2
    bits = a.view(np.uint32).reshape(-1)
    if special:
        for i, k in enumerate(rng.choice(bits.size, size=max(1, bits.size // 25), replace=False)):
            bits[k] = SPECIAL[i % len(SPECIAL)]
    if dt == "f32":
        return a
    if dt == "bf16":
        return (a.view(np.uint32) >> 16).astype(np.uint16)
    b = a.astype(np.float16).view(np.uint16).reshape(-1)
    if special:  # f16 NaNs with payloads, a signalling one
        for i, k in enumerate(rng.choice(b.size, size=max(1, b.size // 25), replace=False)):
            b[k] = [0x7e01, 0x7c03, 0xfe42, 0x7c00, 0x8000][i % 5]
    return b.view(np.float16).reshape(a.shape)


fail = taken = 0
rng = np.random.default_rng(11)
with tempfile.TemporaryDirectory() as d:
    for name, src in kernels:
        sig = re.search(r"func\.func @k\((.*?)\)", src).group(1)
        types = dict(re.findall(r"%(\w+): !pto\.ptr<(\w+)>", sig))
        must = not name.startswith("refused")
        sizes = []
        for tag, text in (("fused", src), ("plain", unwrap(src))):
            p = os.path.join(d, f"{name}.{tag}.pto")
            with open(p, "w") as f:
                f.write(text)
            subprocess.run([ptoas, "-target=sve", "-O0", p, "-o", p + ".o"], check=True)
            sizes.append(os.path.getsize(p + ".o"))
        if (sizes[0] > sizes[1]) != must:
            print(f"FAIL: {name}: the region is {'not ' if must else ''}taken ({sizes[0]} vs {sizes[1]} bytes)")
            fail = 1
        taken += sizes[0] > sizes[1]
        pto = os.path.join(d, f"{name}.fused.pto")
        for m, n, special in ((37, 40, True), (5, 7, True), (16, 33, False)):
            # a row more than m: the overlap cases view one row past m
            shapes = {"x": (m + 1, n), "c": (m + 1, n), "g": (1, n), "y": (m + 1, n), "z": (m + 1, n)}
            for v, shp in shapes.items():
                np.save(os.path.join(d, v + ".npy"), values(rng, shp, types[v], special))
            runs = {}
            for cfg in ("interp", "sve@128", "sve@512", "plain@256"):
                t, _, vl = cfg.partition("@")
                od = os.path.join(d, cfg)
                os.makedirs(od, exist_ok=True)
                k = os.path.join(d, f"{name}.plain.pto") if t == "plain" else pto
                t = "sve" if t == "plain" else t
                args = [ptorun, f"--target={t}", "-O0", k, "--arg", f"m={m}", "--arg", f"n={n}", "--arg", "s=1.5"]
                if vl:
                    args.append(f"--sve-vl={vl}")
                for v in ("x", "c", "g"):
                    args += ["--arg", f"{v}={os.path.join(d, v + '.npy')}"]
                for v in ("y", "z"):
                    dst = os.path.join(od, v + ".npy")
                    np.save(dst, np.load(os.path.join(d, v + ".npy")))
                    args += ["--inout", f"{v}={dst}"]
                r = subprocess.run(args, capture_output=True, text=True)
                if r.returncode:
                    print(f"FAIL: {name} {m}x{n} {cfg}: {r.stderr.strip()}")
                    fail = 1
                    continue
                runs[cfg] = {v: np.load(os.path.join(od, v + ".npy")) for v in ("y", "z")}
            # sve -O0 runs the regions fused; plain (the kernel unwrapped) op by op
            for ref, cfg in (("plain@256", "sve@128"), ("plain@256", "sve@512"), ("interp", "sve@512")):
                for v in ("y", "z") if cfg in runs and ref in runs else ():
                    w = DT[types[v]][1]
                    r, g = runs[ref][v].view(w).reshape(-1), runs[cfg][v].view(w).reshape(-1)
                    dn = (0xffc00000, 0x7fc00000) if w == np.uint32 else \
                         ((0xffc0, 0x7fc0) if types[v] == "bf16" else (0xfe00, 0x7e00))
                    # against the interpreter: a NaN the CPU creates may be either default NaN
                    bad = (r != g) & ~(np.isin(r, dn) & np.isin(g, dn) & (ref == "interp"))
                    if bad.any():
                        i = int(np.flatnonzero(bad)[0])
                        print(f"FAIL: {name} {m}x{n} {cfg} {v}: {int(bad.sum())} elements differ from {ref}, "
                              f"first at {i}: {int(r[i]):#x} vs {int(g[i]):#x}")
                        fail = 1
print(f"sve_fuse_cases: {len(kernels)} kernels, {taken} fused, {'FAILED' if fail else 'all agree'}")
sys.exit(fail)
