"""silu_swiglu: silu = g*sigmoid(g), out = silu*u, f32 [M=33, N=200]
(8x64 tiles: the last tile row has 1 valid row, the last column 8)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

M, N = 33, 200


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(7)
    gate = (g.standard_normal((M, N)) * 3.0).astype(np.float32)
    up = g.standard_normal((M, N)).astype(np.float32)
    gate[0, :6] = [30.0, -30.0, 87.0, -87.0, 0.0, -0.0]
    gd = gate.astype(np.float64)
    silu = gd / (1.0 + np.exp(-gd))
    out = silu * up.astype(np.float64)
    pto_np.save(d, "g", gate)
    pto_np.save(d, "u", up)
    pto_np.save(d, "golden_silu", silu.astype(np.float32))
    pto_np.save(d, "golden_out", out.astype(np.float32))


main()
