"""rope: rotate-half RoPE of x [S=37, H=4 heads x 64] f32 with cos/sin
tables [S, 32] (theta = 10000; 8-row tiles: the last has 5 valid rows)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

S, H, DH = 37, 4, 64


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(6)
    x = g.standard_normal((S, H * DH)).astype(np.float32)
    half = DH // 2
    inv_freq = 1.0 / (10000.0 ** (np.arange(half, dtype=np.float64) / half))
    ang = np.arange(S, dtype=np.float64)[:, None] * inv_freq[None, :]
    cos = np.cos(ang).astype(np.float32)
    sin = np.sin(ang).astype(np.float32)
    y = np.empty_like(x)
    for h in range(H):
        x1 = x[:, h * DH:h * DH + half]
        x2 = x[:, h * DH + half:(h + 1) * DH]
        # f32 products and one f32 add/sub, as the kernel computes them
        y[:, h * DH:h * DH + half] = x1 * cos - x2 * sin
        y[:, h * DH + half:(h + 1) * DH] = x2 * cos + x1 * sin
    pto_np.save(d, "x", x)
    pto_np.save(d, "cos", cos)
    pto_np.save(d, "sin", sin)
    pto_np.save(d, "golden_y", y)


main()
