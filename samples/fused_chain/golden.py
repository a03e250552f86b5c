"""fused_chain: y = relu(x * a + b) * c, f32, M=70 x N=200 (16x64 tiles:
the last tile row has 6 valid rows, the last tile column 8 valid columns)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

M, N = 70, 200
A, B = np.float32(1.75), np.float32(-0.25)   # must match run.env


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(2)
    x = g.standard_normal((M, N)).astype(np.float32)
    c = g.uniform(-2.0, 2.0, (M, N)).astype(np.float32)
    # Each step is one f32 op rounded once, in the kernel's order.
    t = x * A
    t = t + B
    t = np.maximum(t, np.float32(0))
    y = t * c
    pto_np.save(d, "x", x)
    pto_np.save(d, "c", c)
    pto_np.save(d, "golden_y", y.astype(np.float32))


main()
