"""The installed Python module, for real: no mocks, the library it loads is the
installed libptort.so.

usage: test_ptoas.py SOURCE_DIR PREFIX PTOAS_VERSION_LINE

* the module and its library come from PREFIX, and its version is the one
  `ptoas --version` prints;
* vadd on every target (a target whose tool is missing here says SKIP);
* every sample end to end against its numpy golden (golden.py, compared by
  samples/common/compare.py with the sample's own tolerance class) on avx2
  and on the reference interpreter;
* located errors as exceptions; arguments in place, non-contiguous arrays.
"""
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

import ptoas

src, prefix, version_line = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3]
sys.path.insert(0, os.path.join(src, "samples", "common"))
import compare  # noqa: E402

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL", what)


# Where it comes from, and its version.
check(os.path.realpath(ptoas.__file__).startswith(prefix + os.sep), "ptoas is imported from %s" % ptoas.__file__)
check(version_line.split()[1] == ptoas.__version__,
      "version %s, ptoas --version says %r" % (ptoas.__version__, version_line))
maps = open("/proc/self/maps").read()
check(os.path.join(prefix, "lib", "libptort.so") in maps, "libptort.so is loaded from the prefix")

vadd = os.path.join(src, "samples", "vadd", "vadd.pto")
x = np.linspace(-3, 7, 1000, dtype=np.float32)
y = np.arange(1000, dtype=np.float32) / 7
for target in ["interp", "host", "avx2", "avx512", "sve", "cce", "ptx", "amdgpu"]:
    try:
        k = ptoas.compile(vadd, target=target)
    except ptoas.UnavailableError as e:
        print("SKIP vadd on %s: %s" % (target, e))
        continue
    z = k(x=x, y=y, n=1000, blocks=3)
    check(z.shape == (1, 1000) and z.dtype == np.float32, "vadd on %s: shape %s %s" % (target, z.shape, z.dtype))
    check(np.array_equal(z.reshape(-1), x + y), "vadd on %s: z == x + y" % target)
    check([p.name for p in k.params] == ["x", "y", "z", "n"], "vadd's parameters: %s" % k.params)
    if target != "interp":
        check(len(k.asm()) > 100, "vadd's %s code" % target)
    print("ok vadd on %s%s" % (target, (": " + k.notes.strip()) if k.notes else ""))


def run_sample(name, target):
    """One sample as samples/runop.sh runs it, through the module."""
    d = os.path.join(src, "samples", name)
    env = {}
    for line in open(os.path.join(d, "run.env")):
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, val = line.split("=", 1)
            env[key] = " ".join(shlex.split(val))
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([sys.executable, os.path.join(d, "golden.py"), work], check=True)
        k = ptoas.compile(os.path.join(d, env["KERNEL"]), target=target, arch=env.get("PTO_ARCH", "a3").lower())
        args = {}
        for word in env["ARGS"].split():
            key, val = word.split("=", 1)
            if val.endswith(".npy"):
                args[key] = np.load(os.path.join(work, val))
            else:
                args[key] = int(val) if val.lstrip("-").isdigit() else float(val)
        outs = [w.split("=", 1) for w in env["OUTS"].split()]
        got = k.run(args, blocks=int(env.get("BLOCKS", "1")))
        if len(outs) == 1:
            got = (got,)
        for (oname, ofile), arr in zip(outs, got):
            np.save(os.path.join(work, ofile), arr)
        for spec in env["CHECK"].split():
            out_f, gold_f, cls = spec.split(":", 2)
            ok, max_abs, max_rel, reason = compare.check(os.path.join(work, out_f), os.path.join(work, gold_f), cls)
            check(ok, "sample %s on %s: %s %s" % (name, target, out_f, reason))
    return True


samples = sorted(n for n in os.listdir(os.path.join(src, "samples"))
                 if os.path.exists(os.path.join(src, "samples", n, "run.env")))
for target in ["avx2", "interp"]:
    for name in samples:
        run_sample(name, target)
    print("ok %d samples on %s against their goldens" % (len(samples), target))

# Errors come out as exceptions carrying the located message.
try:
    ptoas.compile_source("module {\n  func.func @f() {\n    %x = arith.constant 1 : bogus\n  }\n}\n", name="bad.pto")
    check(False, "a bad program raises")
except ptoas.ProgramError as e:
    check(str(e).startswith("bad.pto:3:29: error: unknown type 'bogus'") and "^" in str(e), "located: %s" % e)
k = ptoas.compile(vadd, target="avx2")
try:
    k(x=x, y=y.astype(np.int32), n=1000)
    check(False, "a wrong dtype raises")
except ptoas.ArgumentError as e:
    check("parameter %y is !pto.ptr<f32> but the array's dtype is '<i4'" in str(e), "ArgumentError: %s" % e)
try:
    k(x=x[:10], y=y, n=1000)
    check(False, "a short array raises")
except ptoas.ArgumentError as e:
    check("the array for parameter %x is too small" in str(e), "ArgumentError: %s" % e)
try:
    k(x=x, y=y, n=x)
    check(False, "an array for a scalar raises")
except TypeError as e:
    check("argument n" in str(e), "TypeError: %s" % e)
try:
    ptoas.compile(vadd, target="interp").asm()
    check(False, "interp has no code")
except ptoas.Error as e:
    check("interp has no code" in str(e), "asm() on interp: %s" % e)
try:
    ptoas.compile(vadd, target="nosuch")
    check(False, "an unknown target raises")
except ValueError as e:
    check("unknown target 'nosuch'" in str(e), "unknown target: %s" % e)
div = """module {
  func.func @f(%a: !pto.ptr<f32>, %n: index) attributes {pto.entry} {
    %c1 = arith.constant 1 : index
    %q = arith.divui %c1, %n : index
    return
  }
}
"""
try:
    ptoas.compile_source(div, name="div.pto", opt=0)(a=np.zeros(4, np.float32), n=0)
    check(False, "a division by zero raises")
except ptoas.RunError as e:
    check(str(e).startswith("div.pto:4:"), "RunError: %s" % e)

# In place: the kernel writes into the caller's array, also through a
# non-contiguous view (copied in and back).
z = np.full(1000, -1, np.float32)
check(k(x=x, y=y, z=z, n=1000) is None, "no outputs: None")
check(np.array_equal(z, x + y), "z updated in place")
wide = np.zeros((1000, 2), np.float32)
k(x=x, y=y, z=wide[:, 1], n=1000)
check(np.array_equal(wide[:, 1], x + y) and not wide[:, 0].any(), "a strided view updated in place")
check("func.func @vadd" in k.ir(), "ir()")

if fails:
    print("test_ptoas: %d failed" % len(fails))
    sys.exit(1)
print("test_ptoas: ok")
