"""gemm_i8: C = A @ B with i8 A [M=48, K=160], B [K, N=40], exact i32 C
(32x32 output tiles with ragged edges; K steps of 64, the last 32)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

M, N, K = 48, 40, 160


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(10)
    a = g.integers(-128, 128, (M, K), dtype=np.int64).astype(np.int8)
    b = g.integers(-128, 128, (K, N), dtype=np.int64).astype(np.int8)
    a[0, :] = -128             # extreme products: 160 * 128 * 128 fits in i32
    b[:, 0] = -128
    c = a.astype(np.int64) @ b.astype(np.int64)
    assert np.abs(c).max() < 2 ** 31
    pto_np.save(d, "a", a)
    pto_np.save(d, "b", b)
    pto_np.save(d, "golden_c", c.astype(np.int32))


main()
