"""rmsnorm: bf16 x [M=45, D=256], f32 gamma [1, D], eps = 1e-5 -> bf16 y
(8-row tiles: the last has 5 valid rows)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

M, D = 45, 256
EPS = 1e-5   # must match run.env


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(4)
    xf = g.standard_normal((M, D)).astype(np.float32)
    xf[3, :] *= 1e-3           # mean square ~1e-6: eps matters
    xf[10, :] *= 50.0
    xb = pto_np.f32_to_bf16(xf)
    x = pto_np.bf16_to_f32(xb).astype(np.float64)
    gamma = g.uniform(0.5, 1.5, (1, D)).astype(np.float32)
    eps32 = float(np.float32(EPS))
    rstd = 1.0 / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps32)
    y = x * rstd * gamma.astype(np.float64)
    pto_np.save(d, "x", xb)
    pto_np.save(d, "gamma", gamma)
    pto_np.save(d, "golden_y", pto_np.f32_to_bf16(y.astype(np.float32)))


main()
