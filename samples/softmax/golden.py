"""softmax: row softmax of an M=77 x N=50 f32 matrix (16-row tiles: the last
has 13 rows; 50 of the tile's 64 columns are valid)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

M, N = 77, 50


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(3)
    x = (g.standard_normal((M, N)) * 3.0).astype(np.float32)
    x[5, :] += 100.0          # exp would overflow without the max subtraction
    x[6, :] -= 120.0          # ... and underflow to 0/0
    x[7, 10] = 60.0           # one dominant element
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(axis=1, keepdims=True))
    y = e / e.sum(axis=1, keepdims=True)
    pto_np.save(d, "x", x)
    pto_np.save(d, "golden_y", y.astype(np.float32))


main()
