"""Compares a sample's outputs with its goldens and prints one result line.

usage: compare.py NAME SPEC [SPEC ...]
  SPEC = OUT.npy:GOLDEN.npy:CLASS      (paths relative to the cwd)

Prints exactly one line, `NAME<TAB>OK<TAB>max_abs=... max_rel=...` or
`NAME<TAB>FAIL<TAB>reason`, and exits 0 / 1.

Tolerance classes (an element passes when |out - gold| <= atol + rtol*|gold|;
atol is scaled by the largest |gold| of that output so values near zero that
come out of cancellation are judged against the size of the data):
  exact        bit-identical (integers, data movement, single IEEE ops);
               NaN matches NaN
  elem         f32 elementwise chains: rtol 1e-6, atol 1e-6*max|gold|
  transc       with exp/log/sqrt/rsqrt/recip (<= 2 ULP each, a few ops):
               rtol 1e-5, atol 1e-6*max|gold|
  reduce:K     sums of K terms (reductions, matmul, softmax/norm chains):
               rtol = atol/max|gold| = max(1e-5, 2*K*2^-24)
  matmul:K     same bound as reduce:K
  bf16:N       outputs are bf16 bit patterns (uint16): |ULP distance| <= N
  f16:N        f16 bit patterns: |ULP distance| <= N
The classes are fixed here, not per sample: a sample picks the class of the
op it ends with, it never widens a tolerance for itself.
"""
import sys

import numpy as np

EPS32 = 2.0 ** -24


def load(path):
    a = np.load(path, allow_pickle=False)
    return a


def as_u16(a):
    a = np.ascontiguousarray(a)
    if a.dtype.itemsize != 2:
        raise ValueError("expected 2-byte elements, got %s" % a.dtype)
    return a.view(np.uint16)


def ordered16(u, exp_bits):
    """Maps 16-bit float patterns to integers whose difference is the ULP
    distance (sign-magnitude -> two's complement)."""
    u = u.astype(np.int64)
    return np.where(u & 0x8000, 0x8000 - u, u)


def is_nan16(u, kind):
    u = u.astype(np.int64)
    if kind == "bf16":
        return ((u & 0x7F80) == 0x7F80) & ((u & 0x7F) != 0)
    return ((u & 0x7C00) == 0x7C00) & ((u & 0x3FF) != 0)


def to_f64_16(u, kind):
    if kind == "bf16":
        return (u.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return u.view(np.float16).astype(np.float64)


def tol_for(cls, scale):
    if cls == "elem":
        return 1e-6, 1e-6 * scale
    if cls == "transc":
        return 1e-5, 1e-6 * scale
    if cls.startswith("reduce:") or cls.startswith("matmul:"):
        k = int(cls.split(":", 1)[1])
        r = max(1e-5, 2.0 * k * EPS32)
        return r, r * scale
    raise ValueError("unknown tolerance class '%s'" % cls)


def check(out_path, gold_path, cls):
    """Returns (ok, max_abs, max_rel, reason)."""
    out = load(out_path)
    gold = load(gold_path)
    if out.size != gold.size:
        return False, 0, 0, "%s has %d elements, golden %d" % (out_path, out.size, gold.size)
    out = out.reshape(-1)
    gold = gold.reshape(-1)

    if cls.startswith("bf16:") or cls.startswith("f16:"):
        kind, n = cls.split(":")
        n = int(n)
        uo, ug = as_u16(out), as_u16(gold)
        no, ng = is_nan16(uo, kind), is_nan16(ug, kind)
        d = np.abs(ordered16(uo, 0) - ordered16(ug, 0))
        d = np.where(no & ng, 0, d)
        d = np.where(no != ng, 1 << 20, d)
        fo, fg = to_f64_16(uo, kind), to_f64_16(ug, kind)
        fin = np.isfinite(fo) & np.isfinite(fg)
        ad = np.where(fin, np.abs(fo - fg), 0.0)
        rd = np.where(fin & (fg != 0), ad / np.where(fg != 0, np.abs(fg), 1), 0.0)
        max_abs, max_rel = float(ad.max(initial=0)), float(rd.max(initial=0))
        bad = d > n
        if bad.any():
            i = int(np.argmax(d))
            return (False, max_abs, max_rel,
                    "%s: %d of %d elements off by more than %d ULP (worst at %d: got 0x%04x, want 0x%04x, %d ULP)"
                    % (out_path, int(bad.sum()), d.size, n, i, int(uo[i]), int(ug[i]), int(d[i])))
        return True, max_abs, max_rel, ""

    if cls == "exact":
        if out.dtype != gold.dtype and out.dtype.itemsize == gold.dtype.itemsize:
            out = out.view(gold.dtype)
        if out.dtype != gold.dtype:
            return False, 0, 0, "%s is %s, golden %s" % (out_path, out.dtype, gold.dtype)
        ob = out.view(np.dtype("u%d" % out.dtype.itemsize))
        gb = gold.view(np.dtype("u%d" % gold.dtype.itemsize))
        same = ob == gb
        if gold.dtype.kind == "f":
            same |= np.isnan(out) & np.isnan(gold)
        fo, fg = out.astype(np.float64), gold.astype(np.float64)
        with np.errstate(invalid="ignore"):
            ad = np.where(np.isfinite(fo) & np.isfinite(fg), np.abs(fo - fg), 0.0)
            rd = np.where(fg != 0, ad / np.where(fg != 0, np.abs(fg), 1), 0.0)
        max_abs, max_rel = float(ad.max(initial=0)), float(rd.max(initial=0))
        if not same.all():
            i = int(np.argmin(same))
            return (False, max_abs, max_rel, "%s: %d of %d elements differ (first at %d: got %r, want %r)"
                    % (out_path, int((~same).sum()), same.size, i, out[i].item(), gold[i].item()))
        return True, max_abs, max_rel, ""

    if out.dtype.kind != "f":
        return False, 0, 0, "%s is %s; class %s needs floats" % (out_path, out.dtype, cls)
    fo, fg = out.astype(np.float64), gold.astype(np.float64)
    nan_o, nan_g = np.isnan(fo), np.isnan(fg)
    if (nan_o != nan_g).any():
        i = int(np.argmax(nan_o != nan_g))
        return False, 0, 0, "%s: NaN mismatch at %d (got %r, want %r)" % (out_path, i, fo[i], fg[i])
    inf_bad = (np.isinf(fo) | np.isinf(fg)) & (fo != fg) & ~nan_g
    if inf_bad.any():
        i = int(np.argmax(inf_bad))
        return False, 0, 0, "%s: Inf mismatch at %d (got %r, want %r)" % (out_path, i, fo[i], fg[i])
    fin = np.isfinite(fg) & np.isfinite(fo)
    scale = float(np.abs(fg[fin]).max(initial=0))
    rtol, atol = tol_for(cls, scale)
    ad = np.where(fin, np.abs(fo - fg), 0.0)
    rd = np.where(fin & (fg != 0), ad / np.where(fg != 0, np.abs(fg), 1), 0.0)
    max_abs, max_rel = float(ad.max(initial=0)), float(rd.max(initial=0))
    bad = ad > atol + rtol * np.abs(np.where(fin, fg, 0))
    if bad.any():
        i = int(np.argmax(ad - (atol + rtol * np.abs(np.where(fin, fg, 0)))))
        return (False, max_abs, max_rel,
                "%s: %d of %d elements out of tolerance %s (rtol=%.3g atol=%.3g; worst at %d: got %.9g, want %.9g)"
                % (out_path, int(bad.sum()), bad.size, cls, rtol, atol, i, fo[i], fg[i]))
    return True, max_abs, max_rel, ""


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    name = argv[1]
    worst_abs = worst_rel = 0.0
    for spec in argv[2:]:
        parts = spec.split(":")
        if len(parts) < 3:
            print("%s\tFAIL\tbad compare spec '%s'" % (name, spec))
            return 1
        out_path, gold_path, cls = parts[0], parts[1], ":".join(parts[2:])
        try:
            ok, ma, mr, reason = check(out_path, gold_path, cls)
        except (OSError, ValueError) as e:
            print("%s\tFAIL\t%s" % (name, str(e).replace("\n", " ")))
            return 1
        if not ok:
            print("%s\tFAIL\t%s" % (name, reason))
            return 1
        worst_abs, worst_rel = max(worst_abs, ma), max(worst_rel, mr)
    print("%s\tOK\tmax_abs=%.3g max_rel=%.3g" % (name, worst_abs, worst_rel))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
