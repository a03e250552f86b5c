"""layernorm: f32 x [M=50, D=128], gamma/beta [1, D], eps = 1e-5 -> f32 y
(16-row tiles: the last has 2 valid rows)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

M, D = 50, 128
EPS = 1e-5   # must match run.env


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(5)
    x = (g.standard_normal((M, D)) * 2.0 + 0.5).astype(np.float32)
    x[1, :] += 40.0            # large mean: the centring must happen first
    x[2, :] *= 1e-3            # variance near eps
    gamma = g.uniform(0.5, 1.5, (1, D)).astype(np.float32)
    beta = g.uniform(-0.5, 0.5, (1, D)).astype(np.float32)
    xd = x.astype(np.float64)
    mu = xd.mean(axis=1, keepdims=True)
    xc = xd - mu
    var = (xc * xc).mean(axis=1, keepdims=True)
    y = xc / np.sqrt(var + float(np.float32(EPS))) * gamma + beta
    pto_np.save(d, "x", x)
    pto_np.save(d, "gamma", gamma)
    pto_np.save(d, "beta", beta)
    pto_np.save(d, "golden_y", y.astype(np.float32))


main()
