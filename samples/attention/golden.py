"""attention: single-head causal attention, f32, Q/K/V [S=72, 32],
scale = 1/sqrt(32); outputs O [S, 32] and the probabilities P [S, S]
(query blocks of 32: the last has 8 rows)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

S, D = 72, 32
SCALE = 0.17677669529663687   # 1/sqrt(32); must match run.env


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(11)
    q = g.uniform(-1.0, 1.0, (S, D)).astype(np.float32)
    k = g.uniform(-1.0, 1.0, (S, D)).astype(np.float32)
    v = g.uniform(-1.0, 1.0, (S, D)).astype(np.float32)
    scores = pto_np.matmul_f64(q, k.T) * float(np.float32(SCALE))
    causal = np.tril(np.ones((S, S), dtype=bool))
    scores = np.where(causal, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    # O from P as the kernel sees it (f32 probabilities)
    o = pto_np.matmul_f64(p.astype(np.float32), v)
    pto_np.save(d, "q", q)
    pto_np.save(d, "k", k)
    pto_np.save(d, "v", v)
    pto_np.save(d, "golden_p", p.astype(np.float32))
    pto_np.save(d, "golden_o", o.astype(np.float32))


main()
