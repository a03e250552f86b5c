"""flash_merge: merge two partial softmax-attention states, f32, R=36 rows of
head dim 128 (8-row tiles: the last has 4 rows). The partials come from a
real split: each row attends to 2 x 40 keys; the merged result must equal
attention over all 80 keys."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import numpy as np  # noqa: E402
import pto_np  # noqa: E402

R, D, KV = 36, 128, 40


def partial(s, v):
    m = s.max(axis=1, keepdims=True)
    p = np.exp(s - m)
    return (p @ v).astype(np.float32), m.astype(np.float32), p.sum(axis=1, keepdims=True).astype(np.float32)


def main():
    d = pto_np.out_dir()
    g = pto_np.rng(12)
    s1 = g.standard_normal((R, KV)) * 2.0
    s2 = g.standard_normal((R, KV)) * 2.0
    s2[3, :] += 30.0          # second half dominates: a1 ~ 1e-13
    s1[4, :] += 30.0          # first half dominates
    v1 = g.uniform(-1.0, 1.0, (KV, D))
    v2 = g.uniform(-1.0, 1.0, (KV, D))
    o1, m1, l1 = partial(s1, v1)
    o2, m2, l2 = partial(s2, v2)

    # The merge, in float64 from the f32 partial states.
    m = np.maximum(m1, m2).astype(np.float64)
    a1 = np.exp(m1 - m)
    a2 = np.exp(m2 - m)
    l = a1 * l1 + a2 * l2
    o = (o1 * a1 + o2 * a2) / l

    # Sanity: the merge is attention over the concatenated keys.
    s = np.concatenate([s1, s2], axis=1)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    full = (p / p.sum(axis=1, keepdims=True)) @ np.concatenate([v1, v2], axis=0)
    assert np.allclose(o, full, rtol=1e-5, atol=1e-6), "merge does not reproduce full attention"

    for name, arr in (("o1", o1), ("m1", m1), ("l1", l1), ("o2", o2), ("m2", m2), ("l2", l2)):
        pto_np.save(d, name, arr)
    pto_np.save(d, "golden_o", o.astype(np.float32))
    pto_np.save(d, "golden_m", m.astype(np.float32))
    pto_np.save(d, "golden_l", l.astype(np.float32))


main()
