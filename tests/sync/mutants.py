#!/usr/bin/env python3
"""Mutants of inserted sync (docs/cce_backend.md §4): the checker must reject each.

Each mutant takes a shape's inserted IR (`ptoas -target=cce
--enable-insert-sync --emit=ir`), breaks its sync in one way, and runs
`--verify-sync` on the result: exit 1, no output file, a located
`file:line:col: error:` and the expected message. The first error line of
each is printed.
Usage: mutants.py PTOAS SHAPES_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

LOCATED = re.compile(r"^[^:\s]+:\d+:\d+: error: .*$", re.M)


def find(lines, text, start=0):
    for i in range(start, len(lines)):
        if text in lines[i]:
            return i
    raise LookupError(text)


def drop_first(text):
    def f(lines):
        del lines[find(lines, text)]
    return f


def drop_wait_after_loop(lines):
    # The wait on the zero-trip path: the first MTE2 -> V wait after the loop.
    loop_end = find(lines, "    }", find(lines, "scf.for"))
    del lines[find(lines, "pto.wait_flag[<PIPE_MTE2>, <PIPE_V>", loop_end)]


def move_set_before_producer(lines):
    s = find(lines, "pto.set_flag[<PIPE_MTE2>, <PIPE_V>")
    p = max(i for i in range(s) if "pto.tload" in lines[i])
    lines.insert(p, lines.pop(s))


def reuse_pending_id(lines):
    # The B-load pair (MTE2 -> MTE1, EVENT_ID1) takes EVENT_ID0 while the
    # A-load pair's EVENT_ID0 is still pending.
    for i, l in enumerate(lines):
        if "<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID1>" in l:
            lines[i] = l.replace("EVENT_ID1", "EVENT_ID0")


def drop_pre_loop_set(lines):
    loop = find(lines, "scf.for")
    s = max(i for i in range(loop) if "pto.set_flag[<PIPE_M>, <PIPE_MTE1>" in lines[i])
    del lines[s]


def drop_loop_compensation(lines):
    # Both halves: the set before the loop and the wait after it.
    loop = find(lines, "scf.for")
    s = max(i for i in range(loop) if "pto.set_flag[<PIPE_M>, <PIPE_MTE1>" in lines[i])
    del lines[s]
    end = find(lines, "    }", loop)
    del lines[find(lines, "pto.wait_flag[<PIPE_M>, <PIPE_MTE1>", end)]


def hoist_wait_out_of_if(lines):
    # PTOAS #1149 / #233: the post-loop wait moved past the end of the if.
    loop_end = find(lines, "      }", find(lines, "scf.for"))
    w = find(lines, "pto.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>", loop_end)
    line = lines.pop(w)
    if_end = find(lines, "    }", w)
    lines.insert(if_end + 1, line)


MUTANTS = [
    ("drop_wait", "zero_trip_loop", drop_first("pto.wait_flag[<PIPE_MTE2>, <PIPE_V>"),
     r"error: sync: pto\.trowsum on PIPE_V: RAW on UB .* with pto\.tload on PIPE_MTE2"),
    ("drop_zero_trip_wait", "zero_trip_loop", drop_wait_after_loop,
     r"error: sync: pto\.trowexpanddiv on PIPE_V: RAW on UB .* with pto\.tload on PIPE_MTE2"),
    ("set_before_producer", "zero_trip_loop", move_set_before_producer,
     r"error: sync: pto\.trowsum on PIPE_V: RAW on UB .* with pto\.tload on PIPE_MTE2"),
    ("reuse_pending_id", "split_k_first_iter", reuse_pending_id,
     r"error: sync: set_flag\(PIPE_MTE2, PIPE_MTE1, EVENT_ID0\) while the flag is already set"),
    ("drop_pre_loop_set", "cube_k_loop", drop_pre_loop_set,
     r"error: sync: flag \(PIPE_M, PIPE_MTE1, EVENT_ID\d\) is pending on one path around the loop"),
    ("drop_loop_compensation", "cube_k_loop", drop_loop_compensation,
     r"error: sync: flag \(PIPE_M, PIPE_MTE1, EVENT_ID\d\) is pending on one path around the loop"),
    ("hoist_wait_out_of_if", "loop_in_if_carried", hoist_wait_out_of_if,
     r"error: sync: flag \(PIPE_MTE3, PIPE_MTE2, EVENT_ID\d\) is pending on one path through the scf\.if"),
    ("drop_pipe_v_barrier", "reshape_else_chain", drop_first("pto.barrier<PIPE_V>"),
     r"error: sync: pto\.tsub on PIPE_V: WA[RW] on UB .* with pto\.tmax on PIPE_V needs pipe_barrier\(PIPE_V\)"),
]


def main():
    ptoas, shapes = sys.argv[1], sys.argv[2]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape, mutate, want in MUTANTS:
            src = os.path.join(tmp, shape + ".sync.pto")
            r = subprocess.run([ptoas, "-target=cce", "--enable-insert-sync", "--emit=ir",
                                os.path.join(shapes, shape + ".pto"), "-o", src],
                               capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                print("FAIL  %s: insertion failed\n%s" % (name, r.stderr))
                bad += 1
                continue
            lines = open(src).read().split("\n")
            try:
                mutate(lines)
            except (LookupError, ValueError) as e:
                print("FAIL  %s: the mutation found nothing to change (%s)" % (name, e))
                bad += 1
                continue
            mut = os.path.join(tmp, name + ".pto")
            open(mut, "w").write("\n".join(lines))
            out = os.path.join(tmp, name + ".out")
            v = subprocess.run([ptoas, "-target=cce", "--verify-sync", "--emit=ir", mut, "-o", out],
                               capture_output=True, text=True, timeout=60)
            first = LOCATED.search(v.stderr)
            why = None
            if v.returncode != 1:
                why = "exit %d, expected 1" % v.returncode
            elif os.path.exists(out):
                why = "an output file was left behind"
            elif not first:
                why = "no located error"
            elif not re.search(want, v.stderr):
                why = "expected %r" % want
            if why:
                bad += 1
                print("FAIL  %s (%s): %s\n%s" % (name, shape, why, v.stderr))
            else:
                print("ok    %s (%s): %s" % (name, shape, first.group(0).replace(tmp + "/", "")))
    print("%d mutants, %d not caught" % (len(MUTANTS), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
