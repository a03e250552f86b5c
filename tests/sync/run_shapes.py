#!/usr/bin/env python3
"""The sync regression shapes (tests/sync/shapes/*.pto, docs/cce_backend.md §4).

Each file says in `//` comment lines what it expects:
  // ARGS: flags            extra ptoas flags (--pto-arch=a5, --pto-level=level3)
  // MODE: verify           check the file's own (hand-written) sync with
                            --verify-sync instead of inserting
  // MODE: insert-reject    run the insertion on a file whose own sync is
                            wrong: it must be refused like --verify-sync
                            refuses it, never as an internal error
  // VERIFY-ERROR: regex    (verify, insert-reject) exit 1, no output file, a
                            located `file:line:col: error:` line, and the
                            regex in stderr
  // CHECK: text            the inserted IR has a line containing text after
                            the previous CHECK's line (FileCheck order)
  // CHECK-NOT: text        no line containing it between the neighbouring CHECKs
  // STATS: regex           the --stats line of the insertion matches
Insert mode (the default): `ptoas -target=cce --enable-insert-sync --emit=ir`
exits 0, the printed IR passes `--verify-sync` when read back, and the
CHECK / CHECK-NOT / STATS lines hold.
Usage: run_shapes.py PTOAS DIR [NAME...]
"""
import os
import re
import subprocess
import sys
import tempfile

LOCATED = re.compile(r"^[^:\s]+:\d+:\d+: error: ", re.M)


def directives(text):
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*//\s*(ARGS|MODE|VERIFY-ERROR|CHECK|CHECK-NOT|STATS):\s?(.*)$", line)
        if m:
            out.append((m.group(1), m.group(2).rstrip()))
    return out


def filecheck(ir, checks):
    lines = ir.splitlines()
    pos = 0
    pending_not = []
    for kind, pat in checks:
        if kind == "CHECK-NOT":
            pending_not.append(pat)
            continue
        found = None
        for i in range(pos, len(lines)):
            if re.search(re.escape(pat), lines[i]):
                found = i
                break
        if found is None:
            return "CHECK not found after line %d: %s" % (pos, pat)
        for n in pending_not:
            for i in range(pos, found):
                if re.search(re.escape(n), lines[i]):
                    return "CHECK-NOT %r matched line %d: %s" % (n, i + 1, lines[i])
        pending_not = []
        pos = found + 1
    for n in pending_not:
        for i in range(pos, len(lines)):
            if re.search(re.escape(n), lines[i]):
                return "CHECK-NOT %r matched line %d: %s" % (n, i + 1, lines[i])
    return None


def run(ptoas, path, tmp):
    text = open(path).read()
    d = directives(text)
    args = []
    for k, v in d:
        if k == "ARGS":
            args += v.split()
    mode = next((v for k, v in d if k == "MODE"), "insert")
    out = os.path.join(tmp, os.path.basename(path) + ".out")
    if os.path.exists(out):
        os.remove(out)
    if mode in ("verify", "insert-reject"):
        flag = "--verify-sync" if mode == "verify" else "--enable-insert-sync"
        r = subprocess.run([ptoas, "-target=cce", flag, "--emit=ir"] + args + [path, "-o", out],
                           capture_output=True, text=True, timeout=60)
        if "internal error" in r.stderr:
            return "an internal error:\n" + r.stderr
        errs = [v for k, v in d if k == "VERIFY-ERROR"]
        if not errs:
            return None if r.returncode == 0 else flag + " rejected it:\n" + r.stderr
        if r.returncode != 1:
            return "%s exit %d, expected 1\n%s" % (flag, r.returncode, r.stderr)
        if os.path.exists(out):
            return "an output file was left behind"
        if not LOCATED.search(r.stderr):
            return "no located error:\n" + r.stderr
        for e in errs:
            if not re.search(e, r.stderr):
                return "expected %r in:\n%s" % (e, r.stderr)
        return None
    r = subprocess.run([ptoas, "-target=cce", "--enable-insert-sync", "--stats", "--emit=ir"] + args +
                       [path, "-o", out], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return "insertion failed (%d):\n%s" % (r.returncode, r.stderr)
    level = [a for a in args if a.startswith("--pto-level")]
    v = subprocess.run([ptoas, "-target=cce", "--verify-sync", "--emit=ir"] + level + [out, "-o", os.devnull],
                       capture_output=True, text=True, timeout=60)
    if v.returncode != 0:
        return "the inserted IR fails --verify-sync:\n" + v.stderr
    ir = open(out).read()
    for k, pat in d:
        if k == "STATS" and not re.search(pat, r.stderr):
            return "STATS %r not in:\n%s" % (pat, r.stderr)
    err = filecheck(ir, [(k, v) for k, v in d if k in ("CHECK", "CHECK-NOT")])
    return None if err is None else err + "\n--- inserted IR ---\n" + ir


def main():
    ptoas, folder = sys.argv[1], sys.argv[2]
    names = sys.argv[3:]
    files = sorted(f for f in os.listdir(folder) if f.endswith(".pto"))
    if names:
        files = [f for f in files if os.path.splitext(f)[0] in names]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            err = run(ptoas, os.path.join(folder, f), tmp)
            print(("ok    " if err is None else "FAIL  ") + f)
            if err:
                bad += 1
                print("  " + err.replace("\n", "\n  "))
    print("%d shapes, %d failed" % (len(files), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
