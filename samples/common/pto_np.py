"""Shared numpy helpers for the sample golden generators.

Everything here works with Debian's numpy (run with /usr/bin/python3); numpy
has no bfloat16, so bf16 data travels as uint16 bit patterns and is converted
with round-to-nearest-even by bit manipulation (the rounding the ISA's float
narrowing uses, PTO-ISA notes §4.4).
"""
import os
import sys

import numpy as np

SEED = 20240611


def rng(salt=0):
    """A fixed-seed generator; `salt` separates the samples' streams."""
    return np.random.default_rng(SEED + salt)


def out_dir():
    """The output directory given on the command line (created if needed)."""
    if len(sys.argv) != 2:
        sys.stderr.write("usage: %s OUTDIR\n" % os.path.basename(sys.argv[0]))
        sys.exit(2)
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    return d


def save(d, name, arr):
    """Writes arr to d/name.npy (name without the extension)."""
    np.save(os.path.join(d, name + ".npy"), np.ascontiguousarray(arr))


# ---- bf16 (as uint16 bit patterns) -----------------------------------------

def f32_to_bf16(x):
    """float32 (or anything castable) -> bf16 bit patterns (uint16), RNE.

    NaN stays a quiet NaN; overflow rounds to +-Inf as IEEE rounding does."""
    x = np.asarray(x, dtype=np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    nan = np.isnan(x)
    lsb = (u >> 16) & 1
    r = ((u + 0x7FFF + lsb) >> 16).astype(np.uint16)
    r = np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), r)
    return r.astype(np.uint16)


def bf16_to_f32(b):
    """bf16 bit patterns (uint16) -> float32 (exact)."""
    b = np.asarray(b, dtype=np.uint16)
    return (b.astype(np.uint32) << 16).view(np.float32)


def round_bf16(x):
    """x rounded to the nearest bf16 value, returned as float32."""
    return bf16_to_f32(f32_to_bf16(x))


def rand_bf16(g, shape, lo=-1.0, hi=1.0):
    """Uniform random bf16 values: (bits uint16, values float32)."""
    bits = f32_to_bf16(g.uniform(lo, hi, size=shape).astype(np.float32))
    return bits, bf16_to_f32(bits)


# ---- f16 -------------------------------------------------------------------

def f32_to_f16(x):
    """float32 -> f16 bit patterns (uint16), RNE (numpy's cast is RNE)."""
    return np.asarray(x, dtype=np.float32).astype(np.float16).view(np.uint16)


def f16_to_f32(b):
    return np.asarray(b, dtype=np.uint16).view(np.float16).astype(np.float32)


# ---- reference helpers -------------------------------------------------------

def f32(x):
    return np.asarray(x, dtype=np.float32)


def matmul_f64(a, b):
    """Reference matmul in float64 (the kernel accumulates in f32)."""
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)
