"""gemm_f32: C = A @ B, f32, M=72 N=88 K=120 (32x32 output tiles, 32-deep K
steps: ragged last tile row (8), column (24) and K step (24))."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

M, N, K = 72, 88, 120


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(8)
    a = g.uniform(-1.0, 1.0, (M, K)).astype(np.float32)
    b = g.uniform(-1.0, 1.0, (K, N)).astype(np.float32)
    c = pto_np.matmul_f64(a, b)
    pto_np.save(d, "a", a)
    pto_np.save(d, "b", b)
    pto_np.save(d, "golden_c", c.astype(np.float32))


main()
