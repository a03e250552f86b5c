"""vadd: z = x + y, f32, n = 10000 (39 full chunks of 256 and one of 16)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

N = 10000


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(1)
    x = g.standard_normal((1, N)).astype(np.float32)
    y = g.standard_normal((1, N)).astype(np.float32)
    # A few special values: the sum of two f32 values is one IEEE op.
    x[0, :6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 3.0e38]
    y[0, :6] = [1.0, 2.0, 1.0, -0.0, -0.0, 3.0e38]
    pto_np.save(d, "x", x)
    pto_np.save(d, "y", y)
    with np.errstate(over="ignore"):
        pto_np.save(d, "golden_z", x + y)


main()
