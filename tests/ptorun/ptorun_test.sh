#!/usr/bin/env bash
# End-to-end test of ptorun: real kernels, .npy inputs made by numpy, outputs
# checked by numpy. Covers multi-block runs with a ragged last block, every
# kind of scalar argument, --out sizing from the kernel's views (shapes that
# depend on scalars and the block count), --inout, bf16 as <u2, targets,
# option spellings, and every error case with its exit status (0 ok, 1 bad
# input or failed run, 2 usage) and message; a failed run leaves no output
# behind and garbage .npy files never crash it.
# Usage: tests/ptorun/ptorun_test.sh PTORUN
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
ptorun_test_init ptorun_cli "${1:-}"
expect_no_file() {  # expect_no_file PATH WHAT
  if [ -e "$1" ]; then fail "$2: $1 exists after a failed run"; fi
  if compgen -G "$1.tmp-*" >/dev/null; then fail "$2: temporary file of $1 left behind"; fi
}
# py CODE WHAT: runs a numpy check (np imported); fails the test on an exception.
py() {
  if ! "$PY" -c "import numpy as np, sys
$1" >py.txt 2>&1; then
    fail "$2: $(tail -n 3 py.txt)"
  fi
  checks=$((checks + 1))
}

# ---- kernels -------------------------------------------------------------------------

# Block b copies elements [64b, 64b+64) of n (the last block ragged).
copy_kernel() {  # copy_kernel EXTRA_PARAMS PROLOGUE COUNT TILE_SUFFIX
  cat <<PTO
module attributes {pto.target_arch = "a3"} {
  func.func @vcopy(%a: !pto.ptr<f32>, %c: !pto.ptr<f32>$1) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
$2
    %bid64 = pto.get_block_idx
    %bid = arith.index_cast %bid64 : i64 to index
    %off = arith.muli %bid, %c64 : index
    %rest = arith.subi $3, %off : index
    %len = arith.minsi %rest, %c64 : index
    %tva = pto.make_tensor_view %a, shape = [%c1, $3], strides = [$3, %c1] : !pto.tensor_view<?x?xf32>
    %tvc = pto.make_tensor_view %c, shape = [%c1, $3], strides = [$3, %c1] : !pto.tensor_view<?x?xf32>
    %pa = pto.partition_view %tva, offsets = [%c0, %off], sizes = [%c1, %len] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x?xf32>
    %pc = pto.partition_view %tvc, offsets = [%c0, %off], sizes = [%c1, %len] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x?xf32>
    %t = pto.alloc_tile $4
    pto.tload ins(%pa : !pto.partition_tensor_view<1x?xf32>) outs(%t : !pto.tile_buf<vec, 1x64xf32$5>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x64xf32$5>) outs(%pc : !pto.partition_tensor_view<1x?xf32>)
    return
  }
}
PTO
}
copy_kernel ", %n: index" "" "%n" "valid_col = %len : !pto.tile_buf<vec, 1x64xf32, valid=1x?>" ", valid=1x?" >vcopy.pto
# The same with a tile of fixed valid shape: the ragged block fails its tload
# (line 17) at run time.
copy_kernel ", %n: index" "" "%n" ": !pto.tile_buf<vec, 1x64xf32>" "" >fixed.pto
# Element count rows (i32) * cols (i64) * block_num.
copy_kernel ", %rows: i32, %cols: i64" "    %rows64 = arith.extsi %rows : i32 to i64
    %rc64 = arith.muli %rows64, %cols : i64
    %nb64 = pto.get_block_num
    %tot64 = arith.muli %rc64, %nb64 : i64
    %tot = arith.index_cast %tot64 : i64 to index" "%tot" \
  "valid_col = %len : !pto.tile_buf<vec, 1x64xf32, valid=1x?>" ", valid=1x?" >shape.pto

# z = x + y, 64 elements per block, the last block ragged.
cat >vadd.pto <<'PTO'
module attributes {pto.target_arch = "a3"} {
  func.func @vadd(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>, %n: index) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %bid64 = pto.get_block_idx
    %bid = arith.index_cast %bid64 : i64 to index
    %off = arith.muli %bid, %c64 : index
    %rest = arith.subi %n, %off : index
    %len = arith.minsi %rest, %c64 : index
    %xv = pto.make_tensor_view %x, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xf32>
    %zv = pto.make_tensor_view %z, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %off], sizes = [%c1, %len] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x?xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %off], sizes = [%c1, %len] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x?xf32>
    %zp = pto.partition_view %zv, offsets = [%c0, %off], sizes = [%c1, %len] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x?xf32>
    %xt = pto.alloc_tile valid_col = %len : !pto.tile_buf<vec, 1x64xf32, valid=1x?>
    %yt = pto.alloc_tile valid_col = %len : !pto.tile_buf<vec, 1x64xf32, valid=1x?>
    %zt = pto.alloc_tile valid_col = %len : !pto.tile_buf<vec, 1x64xf32, valid=1x?>
    pto.tload ins(%xp : !pto.partition_tensor_view<1x?xf32>) outs(%xt : !pto.tile_buf<vec, 1x64xf32, valid=1x?>)
    pto.tload ins(%yp : !pto.partition_tensor_view<1x?xf32>) outs(%yt : !pto.tile_buf<vec, 1x64xf32, valid=1x?>)
    pto.tadd ins(%xt, %yt : !pto.tile_buf<vec, 1x64xf32, valid=1x?>, !pto.tile_buf<vec, 1x64xf32, valid=1x?>) outs(%zt : !pto.tile_buf<vec, 1x64xf32, valid=1x?>)
    pto.tstore ins(%zt : !pto.tile_buf<vec, 1x64xf32, valid=1x?>) outs(%zp : !pto.partition_tensor_view<1x?xf32>)
    return
  }
}
PTO

# Scalars of every kind, observed through the shape of the view on %c
# (ptorun sizes the output from it). Two functions, neither pto.entry.
cat >scalars.pto <<'PTO'
module {
  func.func @ints(%c: !pto.ptr<f32>, %a: i8, %b: i16, %d: i32, %e: i64, %f: ui8, %g: ui16, %h: ui32, %k: index) {
    %c1 = arith.constant 1 : index
    %k128 = arith.constant 128 : i64
    %k32768 = arith.constant 32768 : i64
    %k2g = arith.constant 2147483648 : i64
    %a64 = arith.extsi %a : i8 to i64
    %a1 = arith.addi %a64, %k128 : i64
    %da = arith.index_cast %a1 : i64 to index
    %b64 = arith.extsi %b : i16 to i64
    %b1 = arith.addi %b64, %k32768 : i64
    %db = arith.index_cast %b1 : i64 to index
    %d64 = arith.extsi %d : i32 to i64
    %d1 = arith.addi %d64, %k2g : i64
    %dd = arith.index_cast %d1 : i64 to index
    %de = arith.index_cast %e : i64 to index
    %f64 = arith.extui %f : ui8 to i64
    %df = arith.index_cast %f64 : i64 to index
    %g64 = arith.extui %g : ui16 to i64
    %dg = arith.index_cast %g64 : i64 to index
    %h64 = arith.extui %h : ui32 to i64
    %dh = arith.index_cast %h64 : i64 to index
    %v = pto.make_tensor_view %c, shape = [%da, %db, %dd, %de, %df, %dg, %dh, %k], strides = [%c1, %c1, %c1, %c1, %c1, %c1, %c1, %c1] : !pto.tensor_view<?x?x?x?x?x?x?x?xf32>
    return
  }
  func.func @floats(%c: !pto.ptr<f32>, %x: f32, %y: f16, %z: bf16, %w: f64, %p: i1) {
    %c1 = arith.constant 1 : index
    %x64 = arith.fptosi %x : f32 to i64
    %dx = arith.index_cast %x64 : i64 to index
    %y64 = arith.fptosi %y : f16 to i64
    %dy = arith.index_cast %y64 : i64 to index
    %z64 = arith.fptosi %z : bf16 to i64
    %dz = arith.index_cast %z64 : i64 to index
    %w64 = arith.fptosi %w : f64 to i64
    %dw = arith.index_cast %w64 : i64 to index
    %p64 = arith.extui %p : i1 to i64
    %dp = arith.index_cast %p64 : i64 to index
    %v = pto.make_tensor_view %c, shape = [%dx, %dy, %dz, %dw, %dp], strides = [%c1, %c1, %c1, %c1, %c1] : !pto.tensor_view<?x?x?x?x?xf32>
    return
  }
}
PTO

# A 1x16 copy for element type T.
copy16() {
  cat <<PTO
module {
  func.func @k(%a: !pto.ptr<$1>, %c: !pto.ptr<$1>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %va = pto.make_tensor_view %a, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?x$1>
    %vc = pto.make_tensor_view %c, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?x$1>
    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?x$1> -> !pto.partition_tensor_view<1x16x$1>
    %pc = pto.partition_view %vc, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?x$1> -> !pto.partition_tensor_view<1x16x$1>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16x$1>
    pto.tload ins(%pa : !pto.partition_tensor_view<1x16x$1>) outs(%t : !pto.tile_buf<vec, 1x16x$1>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x16x$1>) outs(%pc : !pto.partition_tensor_view<1x16x$1>)
    return
  }
}
PTO
}
copy16 bf16 >bf16.pto
copy16 f16 >f16.pto
copy16 i32 >i32.pto

printf 'module {\n  func.func @k(%%t: !pto.tile_buf<vec, 16x16xf32>) {\n    return\n  }\n}\n' >tileparam.pto
printf 'module {\n  func.func @k(%%p: !pto.ptr<f32>) {\n    return\n  }\n}\n' >noview.pto
printf 'module {\n  func.func @k(%%p: !pto.ptr<f32>) {\n    %%x = arith.addi %%nope, %%nope : index\n    return\n  }\n}\n' >bad.pto

# ---- inputs ----------------------------------------------------------------------------

"$PY" - <<'EOF'
import numpy as np
rng = np.random.default_rng(7)
np.save("a200.npy", (np.arange(200, dtype=np.float32) + 1) * 0.5)
np.save("a1000.npy", rng.standard_normal(1000).astype(np.float32))
np.save("x1000.npy", rng.standard_normal(1000).astype(np.float32))
np.save("y1000.npy", rng.standard_normal(1000).astype(np.float32))
np.save("sent200.npy", np.full(200, -7.0, dtype=np.float32))
np.save("a600.npy", np.arange(600, dtype=np.float32))
np.save("i32_200.npy", np.arange(200, dtype=np.int32))
np.save("a100.npy", np.arange(100, dtype=np.float32))
np.save("f16.npy", np.linspace(-2, 2, 16).astype(np.float16))
np.save("u2.npy", (np.arange(16, dtype=np.uint16) * 0x111 + 0x3f00).astype(np.uint16))
np.save("i32_16.npy", np.arange(16, dtype=np.int32) * -3)
np.save("fortran.npy", np.asfortranarray(np.arange(200, dtype=np.float32).reshape(10, 20)))
np.save("big.npy", np.arange(200, dtype=">f4"))
np.save("f64_200.npy", np.arange(200, dtype=np.float64))
EOF
head -c 100 a200.npy >trunc_header.npy
head -c 500 a200.npy >trunc_data.npy
printf 'this is not numpy at all' >garbage.npy
: >empty.npy
cp a200.npy trailing.npy && printf 'xx' >>trailing.npy

# ---- runs that work --------------------------------------------------------------------

run vcopy.pto --target=interp --arg a=a200.npy --arg n=200 --out c=c.npy --blocks 4
expect_rc 0 "copy, 4 blocks, ragged last block"
py "c = np.load('c.npy'); a = np.load('a200.npy')
assert c.dtype == np.float32 and c.shape == (1, 200), (c.dtype, c.shape)
assert np.array_equal(c.reshape(-1), a)" "copy output"
if [ -s out.txt ]; then fail "a successful run prints nothing on stdout: $(head -c 200 out.txt)"; fi

# Same bytes with one thread, many threads, and the LLVM-style spelling.
run vcopy.pto --target=interp --arg a=a200.npy --arg n=200 --out c=c1.npy --blocks 4 --threads 1
expect_rc 0 "one thread"
run vcopy.pto -target=interp -arg=a=a200.npy -arg n=200 -out=c=c2.npy -blocks=4 -threads=3
expect_rc 0 "single-dash long options"
cmp -s c.npy c1.npy || fail "output differs with --threads 1"
cmp -s c.npy c2.npy || fail "output differs with --threads 3"

# More blocks than needed: the extra blocks fail in the view probe.
run vcopy.pto --target=interp --arg a=a200.npy --arg n=200 --out c=c3.npy --blocks 5
expect_rc 1 "a block past the end"
expect_err "vcopy.pto:14:" "probe error is located"
expect_err "runtime error" "probe error"
expect_no_file c3.npy "probe error"

# Kernel from stdin, default target host (the widest native target here).
set +e
"$PTORUN" - --arg a=a200.npy --arg n=200 --out c=c4.npy --blocks 4 <vcopy.pto >out.txt 2>err.txt
rc=$?
set -e
checks=$((checks + 1))
expect_rc 0 "stdin kernel, default target"
cmp -s c.npy c4.npy || fail "stdin run differs"

# --inout: two blocks update [0, 128), the rest keeps its values.
cp sent200.npy io.npy
run vcopy.pto --target=interp --arg a=a200.npy --arg n=200 --inout c=io.npy --blocks 2
expect_rc 0 "--inout"
py "c = np.load('io.npy'); a = np.load('a200.npy')
assert c.shape == (200,) and c.dtype == np.float32
assert np.array_equal(c[:128], a[:128]) and np.all(c[128:] == -7.0)" "--inout contents"

# vector add over 16 blocks (1000 = 15*64 + 40), exact in f32.
run vadd.pto --target=interp --arg x=x1000.npy --arg y=y1000.npy --arg n=1000 --out z=z.npy --blocks 16 --pto-arch=a5
expect_rc 0 "vadd"
py "z = np.load('z.npy'); x = np.load('x1000.npy'); y = np.load('y1000.npy')
assert z.shape == (1, 1000) and z.dtype == np.float32
assert np.array_equal(z.reshape(-1), x + y)" "vadd result"

# Output shape from scalars and the block count: 3 * 40 * 5 = 600.
run shape.pto --target=interp --arg rows=3 --arg cols=40 --arg a=a600.npy --out c=s.npy --blocks 5
expect_rc 0 "shape from scalars"
py "c = np.load('s.npy').reshape(-1)
assert np.load('s.npy').shape == (1, 600)
assert np.array_equal(c[:320], np.arange(320, dtype=np.float32)) and np.all(c[320:] == 0)" "sized output"
run shape.pto --target=interp --arg rows=4 --arg cols=50 --arg a=a600.npy --out c=s.npy --blocks 2
expect_rc 0 "shape from scalars (2)"
py "assert np.load('s.npy').shape == (1, 400)" "sized output (2)"

# Integer scalars of every width (values offset into small dims by the kernel).
run scalars.pto --target=interp --function ints --arg a=-126 --arg b=-32766 --arg d=-2147483646 \
  --arg e=3 --arg f=0x2 --arg g=2 --arg h=4294967295 --arg k=1 --out c=si.npy
# ui32 4294967295 would make a huge dim: expect the size refusal, then a small value.
expect_rc 1 "huge ui32 dim"
expect_err "more than this runner allocates" "huge output refused"
run scalars.pto --target=interp --function ints --arg a=-126 --arg b=-32766 --arg d=-2147483646 \
  --arg e=3 --arg f=0x2 --arg g=2 --arg h=2 --arg k=1 --out c=si.npy
expect_rc 0 "integer scalars"
py "assert np.load('si.npy').shape == (2, 2, 2, 3, 2, 2, 2, 1), np.load('si.npy').shape" "integer scalar values"
run scalars.pto --target=interp --function floats --arg x=2.75 --arg y=3.9 --arg z=5 --arg w=7.5 --arg p=true --out c=sf.npy
expect_rc 0 "float and i1 scalars"
py "assert np.load('sf.npy').shape == (2, 3, 5, 7, 1), np.load('sf.npy').shape" "float scalar values"
run scalars.pto --target=interp --function floats --arg x=0x1p1 --arg y=1 --arg z=1 --arg w=1e0 --arg p=0 --out c=sf.npy
expect_rc 0 "hex float, i1 0"
py "assert np.load('sf.npy').shape == (2, 1, 1, 1, 0), np.load('sf.npy').shape" "float scalar values (2)"

# bf16 travels as <u2 bit patterns; f16 as <f2.
run bf16.pto --target=interp --arg a=u2.npy --out c=bf.npy
expect_rc 0 "bf16 copy"
py "c = np.load('bf.npy'); a = np.load('u2.npy')
assert c.dtype == np.dtype('<u2') and np.array_equal(c.reshape(-1), a)" "bf16 bits"
run f16.pto --target=interp --arg a=f16.npy --out c=h.npy
expect_rc 0 "f16 copy"
py "c = np.load('h.npy'); a = np.load('f16.npy')
assert c.dtype == np.float16 and np.array_equal(c.reshape(-1), a)" "f16 values"
run i32.pto --target=interp --arg a=i32_16.npy --out c=i.npy
expect_rc 0 "i32 copy"
py "assert np.array_equal(np.load('i.npy').reshape(-1), np.load('i32_16.npy'))" "i32 values"

run --version
expect_rc 0 "--version"
grep -q '^ptorun .*(standalone; PTOAS 0.60 compatible)$' out.txt || fail "--version text: $(cat out.txt)"
run --help
expect_rc 0 "--help"
grep -qF -- "--inout" out.txt || fail "--help lists --inout"

# ---- bad input: exit 1, the parameter named ------------------------------------------

run vcopy.pto --target=interp --arg a=a200.npy --out c=e.npy --blocks 4
expect_rc 1 "missing argument"
expect_err "ptorun: error: missing argument for parameter %n (index)" "missing argument"
expect_no_file e.npy "missing argument"

run vcopy.pto --target=interp --arg a=a200.npy --arg n=200 --arg q=1 --out c=e.npy --blocks 4
expect_rc 1 "unknown argument"
expect_err "unknown argument 'q': @vcopy has parameters a, c, n" "unknown argument"

run vcopy.pto --target=interp --arg a=a100.npy --arg n=200 --out c=e.npy --blocks 4
expect_rc 1 "buffer too small"
expect_err "the array for parameter %a is too small: the kernel's views reach 200 elements (800 bytes) but it holds 100" "buffer too small"
expect_no_file e.npy "buffer too small"

cp a100.npy small_io.npy
run vcopy.pto --target=interp --arg a=a200.npy --arg n=200 --inout c=small_io.npy --blocks 4
expect_rc 1 "--inout too small"
expect_err "parameter %c is too small" "--inout too small"
cmp -s a100.npy small_io.npy || fail "--inout file changed by a failed run"

run vcopy.pto --target=interp --arg a=i32_200.npy --arg n=200 --out c=e.npy --blocks 4
expect_rc 1 "dtype mismatch"
expect_err "parameter %a is !pto.ptr<f32> but the array's dtype is '<i4' (i32); expected '<f4'" "dtype mismatch"
run vcopy.pto --target=interp --arg a=f64_200.npy --arg n=200 --out c=e.npy --blocks 4
expect_rc 1 "f64 for f32"
expect_err "expected '<f4'" "f64 for f32"
run bf16.pto --target=interp --arg a=f16.npy --out c=e.npy
expect_rc 1 "f16 array for bf16"
expect_err "parameter %a is !pto.ptr<bf16> but the array's dtype is '<f2' (f16); expected '<u2'" "f16 for bf16"
run f16.pto --target=interp --arg a=u2.npy --out c=e.npy
expect_rc 1 "u16 array for f16"
expect_err "expected '<f2'" "u16 for f16"

run vcopy.pto --target=interp --arg a=a200.npy --arg n=2x00 --out c=e.npy --blocks 4
expect_rc 1 "bad scalar"
expect_err "parameter %n: '2x00' is not an integer" "bad scalar"
run scalars.pto --target=interp --function ints --arg a=128 --arg b=1 --arg d=1 --arg e=1 --arg f=1 --arg g=1 --arg h=1 --arg k=1 --out c=e.npy
expect_rc 1 "i8 out of range"
expect_err "parameter %a: '128' is out of range for i8" "i8 out of range"
run scalars.pto --target=interp --function ints --arg a=1 --arg b=1 --arg d=1 --arg e=1 --arg f=-1 --arg g=65536 --arg h=1 --arg k=1 --out c=e.npy
expect_rc 1 "unsigned out of range"
expect_err "parameter %f: '-1' is out of range for ui8" "ui8 negative"
expect_err "parameter %g: '65536' is out of range for ui16" "ui16 too big"
run scalars.pto --target=interp --function floats --arg x=abc --arg y=1e6 --arg z=1 --arg w=1 --arg p=maybe --out c=e.npy
expect_rc 1 "bad float scalars"
expect_err "parameter %x: 'abc' is not a f32 value" "bad f32"
expect_err "parameter %y: '1e6' is out of range for f16" "f16 range"
expect_err "parameter %p: 'maybe' is not an i1 value" "bad i1"

run vcopy.pto --target=interp --arg a=a200.npy --arg n=200 --out n=e.npy --out c=e2.npy --blocks 4
expect_rc 1 "array for a scalar"
expect_err "parameter %n is given more than once" "duplicate"
run vcopy.pto --target=interp --arg a=a200.npy --out n=e.npy --out c=e2.npy --blocks 4
expect_rc 1 "--out for a scalar"
expect_err "parameter %n is a scalar (index): pass a value, not an array" "--out for a scalar"

run tileparam.pto --target=interp
expect_rc 1 "tile parameter"
expect_err "parameter %t has type !pto.tile_buf<vec, 16x16xf32>, which cannot be passed from the host" "tile parameter"
run noview.pto --target=interp --out p=e.npy
expect_rc 1 "output without a view"
expect_err "cannot size the output for parameter %p" "output without a view"
expect_no_file e.npy "output without a view"

run vcopy.pto --target=interp --arg a=fortran.npy --arg n=200 --out c=e.npy --blocks 4
expect_rc 1 "Fortran order"
expect_err "parameter %a (!pto.ptr<f32>): fortran.npy: Fortran-order arrays are not supported" "Fortran order"
run vcopy.pto --target=interp --arg a=big.npy --arg n=200 --out c=e.npy --blocks 4
expect_rc 1 "big-endian"
expect_err "big-endian" "big-endian"
for f in trunc_header.npy trunc_data.npy garbage.npy empty.npy trailing.npy; do
  run vcopy.pto --target=interp --arg a=$f --arg n=200 --out c=e.npy --blocks 4
  expect_rc 1 "corrupt .npy $f"
  expect_err "parameter %a (!pto.ptr<f32>): $f: " "corrupt .npy $f names the parameter and file"
  expect_no_file e.npy "corrupt .npy $f"
done
cp trunc_data.npy tio.npy
run vcopy.pto --target=interp --arg a=a200.npy --arg n=200 --inout c=tio.npy --blocks 4
expect_rc 1 "corrupt --inout"
expect_err "truncated .npy data" "corrupt --inout"
cmp -s trunc_data.npy tio.npy || fail "corrupt --inout file was rewritten"

# Runtime error in one block: located, the block named, no output written.
cp sent200.npy rio.npy
run fixed.pto --target=interp --arg a=a200.npy --arg n=200 --out c=e.npy --inout a=rio.npy --blocks 4
expect_rc 1 "array given twice"
run fixed.pto --target=interp --arg a=a200.npy --arg n=200 --out c=e.npy --blocks 4
expect_rc 1 "runtime error"
expect_err "fixed.pto:17:5: runtime error: tload: the view is 1x8 but the tile's valid region is 1x64 (block 3 of 4)" "runtime error"
expect_no_file e.npy "runtime error"
run fixed.pto --target=interp --arg a=a200.npy --arg n=200 --inout c=rio.npy --blocks 4
expect_rc 1 "runtime error with --inout"
cmp -s sent200.npy rio.npy || fail "--inout written back after a failed run"

run bad.pto --target=interp
expect_rc 1 "front-end error"
expect_err "bad.pto:3:" "front-end error is located"
expect_err "error:" "front-end error"
run scalars.pto --target=interp --out c=e.npy
expect_rc 1 "several functions, no entry"
expect_err "pick one with --function" "several functions"
run vcopy.pto --target=interp --function nosuch
expect_rc 1 "--function nosuch"
expect_err "no function named 'nosuch'" "--function nosuch"

run vcopy.pto --target=toy --arg a=a200.npy --arg n=200 --out c=e.npy
expect_rc 1 "unimplemented target"
expect_err "ptorun: error: target toy has no JIT; run it on interp instead" "target without a runner"
expect_no_file e.npy "unimplemented target"
run vcopy.pto -target=amdgpu
expect_rc 1 "unimplemented target (single dash)"

# ---- --target=sve: natively on AArch64 with SVE, else under qemu-aarch64 --------------

run vcopy.pto --target=sve --arg a=a200.npy --arg n=200 --out c=sve.npy --blocks 4
if [ "$rc" = 1 ] && grep -qF "this CPU has no SVE and" err.txt; then
  echo "ptorun_cli: note: --target=sve not checked: $(head -n1 err.txt)"
else
  expect_rc 0 "sve, 4 blocks"
  cmp -s c.npy sve.npy || fail "sve output differs from the interpreter's"
  native_sve=1
  grep -qF "this CPU has no SVE; running under qemu-aarch64 at 256-bit SVE" err.txt && native_sve=0
  if [ $native_sve = 0 ]; then
    run vcopy.pto -target=sve -sve-vl=2048 --arg a=a200.npy --arg n=200 --out c=sve2.npy --blocks 3
    expect_rc 0 "sve at 2048 bits"
    expect_err "running under qemu-aarch64 at 2048-bit SVE" "sve at 2048 bits"
    py "c = np.load('sve2.npy').reshape(-1); a = np.load('a200.npy')
assert np.array_equal(c[:192], a[:192]) and not c[192:].any()" "sve at 2048 bits, 3 of 4 blocks"
    SVE_VL=128 run vcopy.pto --target=sve --arg a=a200.npy --arg n=200 --out c=sve3.npy --blocks 4
    expect_rc 0 "sve, SVE_VL=128"
    expect_err "running under qemu-aarch64 at 128-bit SVE" "SVE_VL=128"
    cmp -s c.npy sve3.npy || fail "sve output at 128 bits differs from the interpreter's"
  fi
  # Vector lengths qemu cannot be asked for: usage errors, nothing written.
  run vcopy.pto --target=sve --sve-vl=100 --arg a=a200.npy --arg n=200 --out c=e.npy
  expect_rc 2 "--sve-vl=100"
  expect_err "expected a multiple of 128" "--sve-vl=100"
  SVE_VL=abc run vcopy.pto --target=sve --arg a=a200.npy --arg n=200 --out c=e.npy
  expect_rc 2 "SVE_VL=abc"
  expect_no_file e.npy "bad vector length"
fi

# ---- level 3: explicit tile addresses (--pto-level as in ptoas) ------------------------

# %u sits at %t's address (aliasing is what explicit addresses mean): the
# tadd writes over its own input, y = x + x.
cat >level3.pto <<'PTO'
module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %a0 = arith.constant 0 : i64
    %vx = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %vy = pto.make_tensor_view %y, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %px = pto.partition_view %vx, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
    %py = pto.partition_view %vy, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
    %t = pto.alloc_tile addr = %a0 : !pto.tile_buf<vec, 1x16xf32>
    %u = pto.alloc_tile addr = %a0 : !pto.tile_buf<vec, 1x16xf32>
    pto.tload ins(%px : !pto.partition_tensor_view<1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
    pto.tadd ins(%t, %t : !pto.tile_buf<vec, 1x16xf32>, !pto.tile_buf<vec, 1x16xf32>) outs(%u : !pto.tile_buf<vec, 1x16xf32>)
    pto.tstore ins(%u : !pto.tile_buf<vec, 1x16xf32>) outs(%py : !pto.partition_tensor_view<1x16xf32>)
    return
  }
}
PTO
"$PY" -c 'import numpy as np; np.save("x16.npy", np.arange(16, dtype=np.float32) - 4.5)'
run level3.pto --target=interp --arg x=x16.npy --out y=e.npy
expect_rc 1 "level-3 kernel without --pto-level"
expect_err "level3.pto:11:" "level-3 kernel without --pto-level: located"
expect_err "--pto-level=level3" "level-3 kernel without --pto-level: says which option"
for t in interp avx2 sve; do
  run level3.pto --target=$t --pto-level=level3 --arg x=x16.npy --out y=l3_$t.npy
  if [ "$rc" = 1 ] && grep -qF "this CPU" err.txt; then continue; fi
  expect_rc 0 "level-3 kernel on $t"
  py "y = np.load('l3_$t.npy').reshape(-1); x = np.load('x16.npy')
assert np.array_equal(y, x + x), y" "level-3 aliasing on $t"
done
run level3.pto -target=interp -pto-level=level3 --arg x=x16.npy --out y=l3s.npy
expect_rc 0 "-pto-level single dash"
run level3.pto --target=interp --pto-level=level4
expect_rc 2 "bad --pto-level"
# An address past the tile memory: located, before anything runs (the
# interpreter's probe; the native backends when they compile).
sed 's/%a0 = arith.constant 0 : i64/%a0 = arith.constant 4294967296 : i64/' level3.pto >l3far.pto
for t in interp avx2 sve; do
  run l3far.pto --target=$t --pto-level=level3 --arg x=x16.npy --out y=e.npy
  if [ "$rc" = 1 ] && grep -qF "this CPU" err.txt; then continue; fi
  expect_rc 1 "level-3 address past the arena on $t"
  expect_err "l3far.pto:11:" "level-3 address past the arena on $t: located"
  expect_err "does not fit the vec memory" "level-3 address past the arena on $t"
  expect_no_file e.npy "level-3 address past the arena on $t"
done

# ---- outputs appear together or not at all ----------------------------------------------

# x goes to y and to z.
cat >two.pto <<'PTO'
func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %vx = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %vy = pto.make_tensor_view %y, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %vz = pto.make_tensor_view %z, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %px = pto.partition_view %vx, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
  %py = pto.partition_view %vy, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
  %pz = pto.partition_view %vz, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
  pto.tload ins(%px : !pto.partition_tensor_view<1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%py : !pto.partition_tensor_view<1x16xf32>)
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%pz : !pto.partition_tensor_view<1x16xf32>)
  return
}
PTO
"$PY" -c 'import numpy as np; np.save("x16.npy", np.arange(16, dtype=np.float32) - 4.5); np.save("old16.npy", np.full(16, 9, dtype=np.float32))'
# The second --out cannot be written: the first is not left behind.
run two.pto --target=interp --arg x=x16.npy --out y=o1.npy --out z=nodir/o2.npy
expect_rc 1 "second --out unwritable"
expect_err "cannot write 'nodir/o2.npy'" "second --out unwritable"
expect_no_file o1.npy "second --out unwritable"
# An --inout array with an unwritable --out keeps its contents; so does an
# existing --out file.
cp old16.npy io16.npy
cp old16.npy prev16.npy
run two.pto --target=interp --arg x=x16.npy --inout y=io16.npy --out z=nodir/o2.npy
expect_rc 1 "--inout with an unwritable --out"
cmp -s old16.npy io16.npy || fail "--inout rewritten although another output failed"
run two.pto --target=interp --arg x=x16.npy --out y=prev16.npy --out z=nodir/o2.npy
cmp -s old16.npy prev16.npy || fail "an existing --out file replaced although another output failed"
if compgen -G ".tmp-*" >/dev/null; then fail "temporary files left behind: $(ls -a | grep tmp)"; fi
# Both written; /dev/null as one of them.
run two.pto --target=interp --arg x=x16.npy --out y=o1.npy --out z=/dev/null
expect_rc 0 "--out y and /dev/null"
py "assert np.array_equal(np.load('o1.npy').reshape(-1), np.load('x16.npy'))" "--out with /dev/null"
run two.pto --target=interp --arg x=x16.npy --inout y=io16.npy --out z=o2.npy
expect_rc 0 "--inout and --out"
py "assert np.array_equal(np.load('io16.npy').reshape(-1), np.load('x16.npy'))
assert np.array_equal(np.load('o2.npy').reshape(-1), np.load('x16.npy'))" "--inout and --out contents"

# ---- tile memory: planned as the compiled targets plan it ------------------------------

# Four 64 KiB vec tiles, each dead before the next is loaded: 256 KiB of
# allocations, but one tile's memory at a time. At -O1 and up the
# interpreter places tiles by the memory plan ptoas's CPU targets use, so
# the kernel fits a3's 192 KiB there as it does in the compiled code; at
# -O0 every alloc_tile has memory of its own and the run is refused, as
# `ptoas -O0` refuses to compile it.
{
  vt='!pto.tile_buf<vec, 128x128xf32>' pv='!pto.partition_tensor_view<128x128xf32>' tv='!pto.tensor_view<512x128xf32>'
  echo 'module attributes {pto.target_arch = "a3"} {'
  echo '  func.func @four(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {pto.entry} {'
  echo '    %c0 = arith.constant 0 : index'
  echo '    %c1 = arith.constant 1 : index'
  echo '    %c128 = arith.constant 128 : index'
  echo '    %c512 = arith.constant 512 : index'
  echo "    %xv = pto.make_tensor_view %x, shape = [%c512, %c128], strides = [%c128, %c1] : $tv"
  echo "    %yv = pto.make_tensor_view %y, shape = [%c512, %c128], strides = [%c128, %c1] : $tv"
  for i in 0 1 2 3; do
    echo "    %r$i = arith.constant $((128 * i)) : index"
    echo "    %px$i = pto.partition_view %xv, offsets = [%r$i, %c0], sizes = [%c128, %c128] : $tv -> $pv"
    echo "    %py$i = pto.partition_view %yv, offsets = [%r$i, %c0], sizes = [%c128, %c128] : $tv -> $pv"
    echo "    %t$i = pto.alloc_tile : $vt"
    echo "    pto.tload ins(%px$i : $pv) outs(%t$i : $vt)"
    echo "    pto.tadd ins(%t$i, %t$i : $vt, $vt) outs(%t$i : $vt)"
    echo "    pto.tstore ins(%t$i : $vt) outs(%py$i : $pv)"
  done
  echo '    return'
  echo '  }'
  echo '}'
} >four.pto
py "np.save('x4.npy', (np.arange(512 * 128, dtype=np.float32) / 7).reshape(512, 128))" "four tiles input"
for t in interp avx2; do
  run four.pto --target=$t -O2 --arg x=x4.npy --out y=y4.npy
  expect_rc 0 "four tiles in turn, $t -O2"
  py "assert np.array_equal(np.load('y4.npy'), 2 * np.load('x4.npy'))" "four tiles in turn, $t -O2 result"
done
run four.pto --target=interp -O0 --arg x=x4.npy --out y=y4o0.npy
expect_rc 1 "four tiles with memory of their own (-O0)"
expect_err "four.pto:33:" "the tile that does not fit is located"
expect_err "tile memory overflow: the vec tiles need 262144 bytes, the a3 vec memory holds 196608" "-O0 overflow"
expect_no_file y4o0.npy "-O0 overflow"

# ---- usage: exit 2 ---------------------------------------------------------------------

run vcopy.pto --target=interp --arg a=nosuch.npy --arg n=200 --out c=e.npy
expect_rc 2 "missing .npy"
expect_err "parameter %a (!pto.ptr<f32>): cannot open 'nosuch.npy'" "missing .npy"
run vcopy.pto --target=interp --arg a=a200.npy --arg n=200 --inout c=nosuch.npy
expect_rc 2 "missing --inout file"
run nosuch.pto --target=interp
expect_rc 2 "missing kernel"
expect_err "cannot read 'nosuch.pto'" "missing kernel"
run vcopy.pto --target=interp --bogus
expect_rc 2 "unknown option"
run vcopy.pto --target=foo
expect_rc 2 "unknown target name"
run vcopy.pto --target=interp --arg a
expect_rc 2 "--arg without ="
expect_err "--arg expects NAME=VALUE" "--arg without ="
run vcopy.pto --target=interp --out c=
expect_rc 2 "--out without a file"
run vcopy.pto --target=interp --blocks 0
expect_rc 2 "--blocks 0"
run vcopy.pto --target=interp --blocks x
expect_rc 2 "--blocks x"
run vcopy.pto --target=interp --pto-arch=a9
expect_rc 2 "bad --pto-arch"
run
expect_rc 2 "no input"

echo "ptorun_cli: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
