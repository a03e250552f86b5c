"""gemm_bf16_bias: C = A @ B + bias with bf16 A [M=40, K=96], B [K, N=80],
f32 bias [1, N] and f32 C (32x64 output tiles: ragged 8-row and 16-column
edges; K in 3 steps of 32)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

M, N, K = 40, 80, 96


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(9)
    ab, af = pto_np.rand_bf16(g, (M, K))
    bb, bf = pto_np.rand_bf16(g, (K, N))
    bias = g.uniform(-2.0, 2.0, (1, N)).astype(np.float32)
    c = pto_np.matmul_f64(af, bf) + bias.astype(np.float64)
    pto_np.save(d, "a", ab)
    pto_np.save(d, "b", bb)
    pto_np.save(d, "bias", bias)
    pto_np.save(d, "golden_c", c.astype(np.float32))


main()
