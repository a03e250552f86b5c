"""Kernels for the x86 instruction-forms test (tests/x86/x86_forms.sh).

groups() yields (name, [function text, ...]) for generated kernels that
reach the lowering paths of the x86 backend (docs/x86_backend.md,
"Supported"): elementwise, tile-scalar, unary and expand ops in every lane
type, row / column reductions, tcmp / tcmps / tsel / tsels, tcvt between
lane types, the fused ops, tmatmul / tmov on boxed tiles, ttri, strided
loads / stores and the scalar arith ops. Each function is a complete
`func.func`; the driver compiles a group as one module and, when the
target refuses something in it, each function alone (a3, then a5), so a
refused op / dtype pair only drops its own function.
"""

LANES = ["f32", "f16", "bf16", "i32", "ui32", "i16", "ui16", "i8", "ui8"]
FLOATS = ("f32", "f16", "bf16")
SIZE = {"f32": 4, "i32": 4, "ui32": 4, "f16": 2, "bf16": 2, "i16": 2, "ui16": 2, "i8": 1, "ui8": 1}

# (name, tile rows, tile cols, valid rows, valid cols): a ragged region,
# a full tile, a wide one with a tail, a single column.
SHAPES = [("rag", 8, 24, 5, 13), ("full", 8, 16, 8, 16), ("big", 16, 128, 15, 125), ("col", 16, 8, 16, 1)]

_uid = [0]


def _fn(ptrs, dt, sdt, vr, vc, ld, body):
    """One kernel: pointers of `dt`, a scalar %s of `sdt`, index constants
    %c0 %c1 %R %C %ld, then `body`."""
    _uid[0] += 1
    head = "func.func @k%d(" % _uid[0]
    head += "".join("%%%s: !pto.ptr<%s>, " % (p, d) for p, d in ptrs)
    head += "%%s: %s) {\n" % sdt
    head += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
    head += "  %%R = arith.constant %d : index\n  %%C = arith.constant %d : index\n" % (vr, vc)
    head += "  %%ld = arith.constant %d : index\n" % ld
    return head + body + "  return\n}\n"


def tile(r, c, dt, dn=False, valid="?x?", loc="vec", extra=""):
    lay = ", blayout=col_major" if dn else ""
    return "!pto.tile_buf<%s, %dx%dx%s, valid=%s%s%s>" % (loc, r, c, dt, valid, lay, extra)


def pview(dt):
    return "!pto.partition_tensor_view<?x?x%s>" % dt


def view(name, ptr, shape, strides, dt):
    tv = "!pto.tensor_view<?x?x%s>" % dt
    return ("  %%%sv = pto.make_tensor_view %%%s, shape = [%s], strides = [%s] : %s\n"
            "  %%%sp = pto.partition_view %%%sv, offsets = [%%c0, %%c0], sizes = [%s] : %s -> %s\n"
            % (name, ptr, shape, strides, tv, name, name, shape, tv, pview(dt)))


def load(vname, t, tty, dt, vr="%R", vc="%C"):
    return ("  %%%s = pto.alloc_tile valid_row = %s valid_col = %s : %s\n"
            "  pto.tload ins(%%%sp : %s) outs(%%%s : %s)\n" % (t, vr, vc, tty, vname, pview(dt), t, tty))


def store(t, tty, vname, dt):
    return "  pto.tstore ins(%%%s : %s) outs(%%%sp : %s)\n" % (t, tty, vname, pview(dt))


def round32(n, dt):
    per = 32 // SIZE[dt]
    return (n + per - 1) // per * per if n > 1 else n


def scalar_type(dt, used):
    return dt if used or dt not in ("f16", "bf16") else "f32"


def _geom(shape, dt, dn):
    _, rows, cols, vr, vc = shape
    if dn:
        return round32(rows, dt), cols, vr, vc, rows + 3, "%c1, %ld"
    return rows, round32(cols, dt), vr, vc, cols + 3, "%ld, %c1"


def _shapes(dt):
    """(shape, dn) pairs: every shape row-major, the ones with 8k rows
    column-major too."""
    for s in SHAPES:
        yield s, False
        if s[1] % 8 == 0 and s[0] != "col":
            yield s, True


BIN = ["tadd", "tsub", "tmul", "tdiv", "tmax", "tmin", "tand", "tor", "txor", "tshl", "tshr"]
TS = ["tadds", "tsubs", "tmuls", "tdivs", "tmaxs", "tmins", "tands", "tors", "txors", "tshls", "tshrs"]
UNARY = ["tneg", "trelu", "tabs", "tnot", "tsqrt", "trecip", "texp", "tlog", "trsqrt"]
FLOAT_ONLY = {"tdiv", "tdivs", "tsqrt", "trecip", "texp", "tlog", "trsqrt"}
INT_ONLY = {"tand", "tor", "txor", "tshl", "tshr", "tands", "tors", "txors", "tshls", "tshrs", "tnot"}


def _fits(op, dt):
    fl = dt in FLOATS
    return not (fl and op in INT_ONLY or not fl and op in FLOAT_ONLY)


def elementwise(dt):
    out = []
    for shape, dn in _shapes(dt):
        rows, cols, vr, vc, ld, strides = _geom(shape, dt, dn)
        T = tile(rows, cols, dt, dn)
        for op in BIN + TS + ["tdivs!"] + UNARY + ["texpands"]:
            name = op.rstrip("!")
            if not _fits(name, dt):
                continue
            uses_s = op in TS or op in ("tdivs!", "texpands")
            b = "".join(view(p, p, "%R, %C", strides, dt) for p in "abc")
            b += load("a", "ta", T, dt) + load("b", "tb", T, dt) + load("b", "tc", T, dt)
            if op in BIN:
                b += "  pto.%s ins(%%ta, %%tb : %s, %s) outs(%%tc : %s)\n" % (name, T, T, T)
            elif op in TS:
                b += "  pto.%s ins(%%ta, %%s : %s, %s) outs(%%tc : %s)\n" % (name, T, dt, T)
            elif op == "tdivs!":  # scalar first
                b += "  pto.tdivs ins(%%s, %%ta : %s, %s) outs(%%tc : %s)\n" % (dt, T, T)
            elif op == "texpands":
                b += "  pto.texpands ins(%%s : %s) outs(%%tc : %s)\n" % (dt, T)
            else:
                b += "  pto.%s ins(%%ta : %s) outs(%%tc : %s)\n" % (name, T, T)
            b += store("tc", T, "c", dt)
            out.append(_fn([(p, dt) for p in "abc"], dt, scalar_type(dt, uses_s), vr, vc, ld, b))
    return out


EXPAND = ["add", "sub", "mul", "div", "max", "min"]


def expands(dt):
    out = []
    for shape in SHAPES[:3]:
        _, rows, cols0, vr, vc = shape
        cols = round32(cols0, dt)
        ta = tile(rows, cols, dt)
        for row in (True, False):
            tb = tile(rows, 1, dt, round32(rows, dt) == rows and rows > 1, "?x1") if row \
                else tile(1, cols, dt, False, "1x?")
            kind = "trowexpand" if row else "tcolexpand"
            for e in [""] + EXPAND:
                if e == "div" and dt not in FLOATS:
                    continue
                for swap in ((False, True) if e else (False,)):
                    b = view("a", "a", "%R, %C", "%ld, %c1", dt) + view("c", "c", "%R, %C", "%ld, %c1", dt)
                    b += view("b", "b", "%R, %c1", "%c1, %ld", dt) if row else view("b", "b", "%c1, %C", "%ld, %c1", dt)
                    b += load("a", "ta", ta, dt) + load("c", "tc", ta, dt)
                    b += load("b", "tb", tb, dt, "%R", "%c1") if row else load("b", "tb", tb, dt, "%c1", "%C")
                    if not e:
                        b += "  pto.%s ins(%%tb : %s) outs(%%tc : %s)\n" % (kind, tb, ta)
                    elif swap:
                        b += "  pto.%s%s ins(%%tb, %%ta : %s, %s) outs(%%tc : %s)\n" % (kind, e, tb, ta, ta)
                    else:
                        b += "  pto.%s%s ins(%%ta, %%tb : %s, %s) outs(%%tc : %s)\n" % (kind, e, ta, tb, ta)
                    b += store("tc", ta, "c", dt)
                    out.append(_fn([(p, dt) for p in "abc"], dt, scalar_type(dt, False), vr, vc, cols0 + 3, b))
    return out


def reductions(dt):
    out = []
    for shape in SHAPES:
        _, rows, cols0, vr, vc = shape
        ld = cols0 + 3
        for op in ("trowsum", "trowmax", "trowmin"):
            for v in range(3):  # 0: ND src, DN dst, tmp tile; 1: DN src, DN dst; 2: ND src, ND dst
                dn_src, dn_dst = v == 1, v != 2
                if dn_src and rows % 8:
                    continue
                ta = tile(round32(rows, dt), cols0, dt, True) if dn_src else tile(rows, round32(cols0, dt), dt)
                tc = tile(round32(rows, dt) if dn_dst else rows, 1, dt, dn_dst, "?x1")
                b = view("a", "a", "%R, %C", "%c1, %ld" if dn_src else "%ld, %c1", dt)
                b += view("c", "c", "%R, %c1", "%c1, %ld", dt)
                b += load("a", "ta", ta, dt) + load("c", "tc", tc, dt, "%R", "%c1")
                ins = "%%ta : %s" % ta
                if v == 0:
                    b += "  %%tt = pto.alloc_tile valid_row = %%R valid_col = %%C : %s\n" % ta
                    ins = "%%ta, %%tt : %s, %s" % (ta, ta)
                b += "  pto.%s ins(%s) outs(%%tc : %s)\n" % (op, ins, tc) + store("tc", tc, "c", dt)
                out.append(_fn([("a", dt), ("c", dt)], dt, scalar_type(dt, False), vr, vc, ld, b))
        for op in ("tcolsum", "tcolmax", "tcolmin", "tcolprod"):
            for tmp in (False, True):
                if tmp and op != "tcolsum":
                    continue
                cols = round32(cols0, dt)
                ta, tc = tile(rows, cols, dt), tile(1, cols, dt, False, "1x?")
                b = view("a", "a", "%R, %C", "%ld, %c1", dt) + view("c", "c", "%c1, %C", "%ld, %c1", dt)
                b += load("a", "ta", ta, dt) + load("c", "tc", tc, dt, "%c1", "%C")
                ins = "%%ta : %s" % ta
                if tmp:
                    b += "  %%tt = pto.alloc_tile valid_row = %%R valid_col = %%C : %s\n" % ta
                    ins = "%%ta, %%tt : %s, %s" % (ta, ta)
                b += "  pto.%s ins(%s) outs(%%tc : %s)\n" % (op, ins, tc) + store("tc", tc, "c", dt)
                out.append(_fn([("a", dt), ("c", dt)], dt, scalar_type(dt, False), vr, vc, ld, b))
    return out


CMP = ["eq", "ne", "lt", "le", "gt", "ge"]


def compares(dt):
    out = []
    for shape, dn in _shapes(dt):
        if dn:
            continue
        rows, cols, vr, vc, ld, strides = _geom(shape, dt, False)
        T = tile(rows, cols, dt)
        for mdt, mcols in (("ui8", 32), ("ui32", 8)):
            M = tile(rows, mcols, mdt, valid="%dx%d" % (rows, mcols))
            base = view("a", "a", "%R, %C", strides, dt) + view("b", "b", "%R, %C", strides, dt)
            base += view("c", "c", "%R, %C", strides, dt)
            base += load("a", "ta", T, dt) + load("b", "tb", T, dt) + load("b", "tc", T, dt)
            base += "  %%m = pto.alloc_tile : %s\n" % M
            for mode in CMP:
                for scalar in (False, True):
                    b = base
                    if scalar:
                        b += "  pto.tcmps ins(%%ta, %%s {cmpMode = #pto<cmp %s>} : %s, %s) outs(%%m : %s)\n" % (
                            mode, T, dt, M)
                    else:
                        b += "  pto.tcmp ins(%%ta, %%tb {cmpMode = #pto<cmp %s>} : %s, %s) outs(%%m : %s)\n" % (
                            mode, T, T, M)
                    if SIZE[dt] >= 2 and mode in ("lt", "eq"):
                        if scalar:
                            b += "  pto.tsels ins(%%m, %%ta, %%s : %s, %s, %s) outs(%%tc : %s)\n" % (M, T, dt, T)
                        else:
                            b += "  pto.tsel ins(%%m, %%ta, %%tb : %s, %s, %s) outs(%%tc : %s)\n" % (M, T, T, T)
                    b += store("tc", T, "c", dt)
                    out.append(_fn([(p, dt) for p in "abc"], dt, dt, vr, vc, ld, b))
    return out


RMODES = ["RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "NONE"]


def converts(src):
    out = []
    for dst in LANES:
        if dst == src:
            continue
        float_to_int = src in FLOATS and dst not in FLOATS
        attrs = []
        for m in (RMODES if float_to_int else ["RINT"]):
            attrs.append("{rmode = #pto<round_mode %s>}" % m)
        if float_to_int:
            attrs.append("{rmode = #pto<round_mode RINT>, sat_mode = #pto<saturation_mode ON>}")
        for shape in (SHAPES[0], SHAPES[2]):
            _, rows, cols0, vr, vc = shape
            cols = max(round32(cols0, src), round32(cols0, dst))
            ti, to = tile(rows, cols, src), tile(rows, cols, dst)
            for a in attrs:
                b = view("a", "a", "%R, %C", "%ld, %c1", src) + view("c", "c", "%R, %C", "%ld, %c1", dst)
                b += load("a", "ta", ti, src) + load("c", "tc", to, dst)
                b += "  pto.tcvt ins(%%ta %s : %s) outs(%%tc : %s)\n" % (a, ti, to) + store("tc", to, "c", dst)
                out.append(_fn([("a", src), ("c", dst)], src, "i32", vr, vc, cols0 + 3, b))
    # f32 <-> bf16 between tiles of different layouts.
    for s, d in (("f32", "bf16"), ("bf16", "f32")):
        if src != s:
            continue
        ti, to = tile(16, 16, s), tile(16, 16, d, True)
        b = view("a", "a", "%R, %C", "%ld, %c1", s) + view("c", "c", "%R, %C", "%c1, %ld", d)
        b += load("a", "ta", ti, s) + load("c", "tc", to, d)
        b += "  pto.tcvt ins(%%ta {rmode = #pto<round_mode RINT>} : %s) outs(%%tc : %s)\n" % (ti, to)
        b += store("tc", to, "c", d)
        out.append(_fn([("a", s), ("c", d)], s, "i32", 5, 13, 19, b))
    return out


# (op, operands): t = the second tile, s = the scalar, e = a third tile,
# x = tprelu's scratch tile.
FUSED = [("taddc", "tbe"), ("tsubc", "tbe"), ("taddsc", "tse"), ("tsubsc", "tse"), ("tmuladddst", "tb"),
         ("tfusedmuladd", "tb"), ("tfusedmuladdrelu", "tb"), ("tsubrelu", "tb"), ("tprelu", "tb"),
         ("tprelu", "tbx"), ("tlrelu", "ts"), ("taxpy", "ts")]


def fused(dt):
    out = []
    for shape, dn in _shapes(dt):
        if shape[0] == "col":
            continue
        rows, cols, vr, vc, ld, strides = _geom(shape, dt, dn)
        T = tile(rows, cols, dt, dn)
        for op, opnds in FUSED:
            if dt not in FLOATS and op not in ("taddc", "tsubc", "taddsc", "tsubsc"):
                continue
            b = "".join(view(p, p, "%R, %C", strides, dt) for p in "abec")
            b += load("a", "ta", T, dt)
            names, types = ["%ta"], [T]
            for o in opnds[1:]:
                if o == "b":
                    b += load("b", "tb", T, dt)
                    names.append("%tb"), types.append(T)
                elif o == "e":
                    b += load("e", "te", T, dt)
                    names.append("%te"), types.append(T)
                elif o == "s":
                    names.append("%s"), types.append(dt)
                elif o == "x":
                    b += "  %%tt = pto.alloc_tile valid_row = %%R valid_col = %%C : %s\n" % T
                    names.append("%tt"), types.append(T)
            b += load("c", "tc", T, dt)
            b += "  pto.%s ins(%s : %s) outs(%%tc : %s)\n" % (op, ", ".join(names), ", ".join(types), T)
            b += store("tc", T, "c", dt)
            out.append(_fn([(p, dt) for p in "abec"], dt, scalar_type(dt, "s" in opnds), vr, vc, ld, b))
    return out


def matmuls():
    out = []
    nz = ", blayout=col_major, slayout=row_major"
    zn = ", blayout=row_major, slayout=col_major"
    nd = ", blayout=row_major, slayout=none_box"
    dn = ", blayout=col_major, slayout=none_box"
    # (mat / left, right, acc) layouts: boxed; none_box row-major (vector
    # packing and stores, f32 A read in place); right and acc column-major
    # (transposed B, scattered C); right NZ (gathered B on avx512), acc ZN.
    lays = ((nz, zn, nz + ", fractal=1024"), (nd, nd, nd), (nd, dn, dn), (nd, nz, zn + ", fractal=1024"))
    for dt, (la, lb, lc) in [(d, l) for d in ("f32", "bf16", "i8") for l in lays] + [("f16", lays[0])]:
        od = "i32" if dt == "i8" else "f32"
        for M, N, K in ((32, 32, 64), (13, 7, 29)):
            for mode in range(3):
                for via_vec in (False, True):
                    am = "!pto.tile_buf<mat, 32x64x%s, valid=?x?%s>" % (dt, la)
                    bm = "!pto.tile_buf<mat, 64x32x%s, valid=?x?%s>" % (dt, la)
                    al = "!pto.tile_buf<left, 32x64x%s, valid=?x?%s>" % (dt, la)
                    br = "!pto.tile_buf<right, 64x32x%s, valid=?x?%s>" % (dt, lb)
                    acc = "!pto.tile_buf<acc, 32x32x%s, valid=?x?%s>" % (od, lc)
                    vec = "!pto.tile_buf<vec, 32x32x%s, valid=?x?>" % od
                    bias = "!pto.tile_buf<bias, 1x32x%s, valid=?x?>" % od
                    b = "  %%M = arith.constant %d : index\n  %%N = arith.constant %d : index\n" % (M, N)
                    b += "  %%K = arith.constant %d : index\n" % K
                    b += view("a", "a", "%M, %K", "%ld, %c1", dt) + view("b", "b", "%K, %N", "%ld, %c1", dt)
                    b += view("c", "c", "%M, %N", "%ld, %c1", od)
                    b += load("a", "am", am, dt, "%M", "%K") + load("b", "bm", bm, dt, "%K", "%N")
                    b += "  %%al = pto.alloc_tile valid_row = %%M valid_col = %%K : %s\n" % al
                    b += "  %%br = pto.alloc_tile valid_row = %%K valid_col = %%N : %s\n" % br
                    b += "  %%acc = pto.alloc_tile valid_row = %%M valid_col = %%N : %s\n" % acc
                    b += "  pto.tmov ins(%%am : %s) outs(%%al : %s)\n" % (am, al)
                    b += "  pto.tmov ins(%%bm : %s) outs(%%br : %s)\n" % (bm, br)
                    if mode == 2:
                        b += "  %%bt = pto.alloc_tile valid_row = %%c1 valid_col = %%N : %s\n" % bias
                        b += "  %%bp1 = pto.partition_view %%cv, offsets = [%%c0, %%c0], sizes = [%%c1, %%N] : " \
                             "!pto.tensor_view<?x?x%s> -> %s\n" % (od, pview(od))
                        b += "  pto.tload ins(%%bp1 : %s) outs(%%bt : %s)\n" % (pview(od), bias)
                        b += "  pto.tmatmul.bias ins(%%al, %%br, %%bt : %s, %s, %s) outs(%%acc : %s)\n" % (
                            al, br, bias, acc)
                    else:
                        b += "  pto.tmatmul ins(%%al, %%br : %s, %s) outs(%%acc : %s)\n" % (al, br, acc)
                        if mode == 1:
                            b += "  pto.tmatmul.acc ins(%%acc, %%al, %%br : %s, %s, %s) outs(%%acc : %s)\n" % (
                                acc, al, br, acc)
                    if via_vec:
                        b += "  %%vt = pto.alloc_tile valid_row = %%M valid_col = %%N : %s\n" % vec
                        b += "  pto.tmov ins(%%acc : %s) outs(%%vt : %s)\n" % (acc, vec)
                        b += store("vt", vec, "c", od)
                    else:
                        b += store("acc", acc, "c", od)
                    out.append(_fn([("a", dt), ("b", dt), ("c", od)], od, od, M, N, 70, b))
    return out


def misc():
    """ttri, tmov between vec layouts, strided loads / stores, scalars."""
    out = []
    for dt in ("f32", "i32"):
        for upper in (False, True):
            T = tile(8, 24, dt)
            b = view("c", "c", "%R, %C", "%ld, %c1", dt) + "  %d = arith.constant 3 : i32\n"
            b += "  %%t = pto.alloc_tile valid_row = %%R valid_col = %%C : %s\n" % T
            b += "  pto.ttri ins(%%d %s: i32) outs(%%t : %s)\n" % ("{upperOrLower = 1 : i32} " if upper else "", T)
            b += store("t", T, "c", dt)
            out.append(_fn([("c", dt)], dt, dt, 5, 13, 27, b))
    for dt in LANES:
        for dn_in, dn_out in ((False, True), (True, False)):
            ti = tile(32, 32, dt, dn_in)
            to = tile(32, 32, dt, dn_out)
            b = view("a", "a", "%R, %C", "%ld, %c1", dt) + view("c", "c", "%R, %C", "%ld, %c1", dt)
            b += load("a", "ta", ti, dt)
            b += "  %%tc = pto.alloc_tile valid_row = %%R valid_col = %%C : %s\n" % to
            b += "  pto.tmov ins(%%ta : %s) outs(%%tc : %s)\n" % (ti, to) + store("tc", to, "c", dt)
            out.append(_fn([("a", dt), ("c", dt)], dt, dt, 5, 13, 40, b))
        # Neither rows nor columns contiguous in the view; a rank-2 view
        # with a column stride of 2.
        T = tile(8, round32(24, dt), dt)
        b = view("a", "a", "%R, %C", "%ld, %c2", dt) + view("c", "c", "%R, %C", "%ld, %c2", dt)
        b = "  %c2 = arith.constant 2 : index\n" + b + load("a", "ta", T, dt) + store("ta", T, "c", dt)
        out.append(_fn([("a", dt), ("c", dt)], dt, dt, 5, 13, 60, b))
    out.append(_scalars())
    return out


def _scalars():
    lines = []
    res = []  # (ssa name, type)

    def op(name, expr, ty=None):
        lines.append("  %%%s = %s\n" % (name, expr))
        if ty:
            res.append((name, ty))
    for ty, a, b in (("i32", "%a", "%b"), ("i64", "%a64", "%b64")):
        if ty == "i64":
            op("a64", "arith.extsi %a : i32 to i64")
            op("b64", "arith.extsi %b : i32 to i64")
        for o in ("addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "ceildivsi", "floordivsi", "minsi",
                  "maxsi", "minui", "maxui", "andi", "ori", "xori", "shli", "shrsi", "shrui"):
            op("%s_%s" % (o, ty), "arith.%s %s, %s : %s" % (o, a, b, ty), ty)
        for p in ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"):
            op("c%s_%s" % (p, ty), "arith.cmpi %s, %s, %s : %s" % (p, a, b, ty))
            op("e%s_%s" % (p, ty), "arith.extui %%c%s_%s : i1 to i32" % (p, ty), "i32")
        op("sel_%s" % ty, "arith.select %%cslt_%s, %s, %s : %s" % (ty, a, b, ty), ty)
    for ty, x, y in (("f32", "%x", "%y"), ("f64", "%x64", "%y64")):
        if ty == "f64":
            op("x64", "arith.extf %x : f32 to f64")
            op("y64", "arith.extf %y : f32 to f64")
        for o in ("addf", "subf", "mulf", "divf", "maximumf", "minimumf"):
            op("%s_%s" % (o, ty), "arith.%s %s, %s : %s" % (o, x, y, ty), ty)
        op("negf_%s" % ty, "arith.negf %s : %s" % (x, ty), ty)
        for p in ("oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno"):
            op("f%s_%s" % (p, ty), "arith.cmpf %s, %s, %s : %s" % (p, x, y, ty))
            op("g%s_%s" % (p, ty), "arith.extui %%f%s_%s : i1 to i32" % (p, ty), "i32")
        op("fsel_%s" % ty, "arith.select %%folt_%s, %s, %s : %s" % (ty, x, y, ty), ty)
    for src, dst, cast in (("%a", "f32", "sitofp %a : i32 to f32"), ("%a", "f32", "uitofp %a : i32 to f32"),
                           ("%a64", "f64", "sitofp %a64 : i64 to f64"),
                           ("%a", "f64", "sitofp %a : i32 to f64"), ("%a64", "f32", "sitofp %a64 : i64 to f32"),
                           ("%x", "i32", "fptosi %x : f32 to i32"), ("%x", "i32", "fptoui %x : f32 to i32"),
                           ("%x64", "i64", "fptosi %x64 : f64 to i64"), ("%x64", "i64", "fptoui %x64 : f64 to i64"),
                           ("%x64", "f32", "truncf %x64 : f64 to f32"), ("%x", "i32", "bitcast %x : f32 to i32"),
                           ("%x64", "i64", "bitcast %x64 : f64 to i64"), ("%a", "i32", "extui %a : i32 to i64"),
                           ("%a", "index", "index_cast %a : i32 to index"),
                           ("%a", "index", "index_castui %a : i32 to index")):
        n = "cast%d" % len(lines)
        op(n, "arith." + cast)
        if "to i64" in cast and cast.startswith("extui"):
            op(n + "t", "arith.trunci %%%s : i64 to i32" % n, "i32")
        elif dst == "index":
            op(n + "t", "arith.index_cast %%%s : index to i64" % n, "i64")
        else:
            res.append((n, dst))
    op("t8", "arith.trunci %a : i32 to i8")
    op("s8", "arith.extsi %t8 : i8 to i32", "i32")
    op("t16", "arith.trunci %a : i32 to i16")
    op("z16", "arith.extui %t16 : i16 to i32", "i32")
    # i64 / f64 results are narrowed to i32 / f32 for the stores.
    narrow = {"i64": ("trunci", "i32"), "f64": ("truncf", "f32")}
    wide, res[:] = list(res), []
    for name, ty in wide:
        if ty in narrow:
            op(name + "_n", "arith.%s %%%s : %s to %s" % (narrow[ty][0], name, ty, narrow[ty][1]), narrow[ty][1])
        else:
            res.append((name, ty))
    body = "".join(lines)
    # Each result goes through texpands into a 1x8 tile stored to row r of
    # the output of its type.
    tys = sorted({t for _, t in res})
    for ty in tys:
        n = sum(1 for _, t in res if t == ty)
        body += "  %%n%s = arith.constant %d : index\n" % (ty, n)
        body += "  %%v%s = pto.make_tensor_view %%o%s, shape = [%%n%s, %%k8], strides = [%%k8, %%c1] : " \
                "!pto.tensor_view<?x?x%s>\n" % (ty, ty, ty, ty)
    row = {}
    for name, ty in res:
        r = row.get(ty, 0)
        row[ty] = r + 1
        T = "!pto.tile_buf<vec, 1x8x%s>" % ty
        body += "  %%r_%s = arith.constant %d : index\n" % (name, r)
        body += "  %%p_%s = pto.partition_view %%v%s, offsets = [%%r_%s, %%c0], sizes = [%%c1, %%k8] : " \
                "!pto.tensor_view<?x?x%s> -> %s\n" % (name, ty, name, ty, pview(ty))
        body += "  %%t_%s = pto.alloc_tile : %s\n" % (name, T)
        body += "  pto.texpands ins(%%%s : %s) outs(%%t_%s : %s)\n" % (name, ty, name, T)
        body += "  pto.tstore ins(%%t_%s : %s) outs(%%p_%s : %s)\n" % (name, T, name, pview(ty))
    _uid[0] += 1
    head = "func.func @k%d(" % _uid[0] + "".join("%%o%s: !pto.ptr<%s>, " % (t, t) for t in tys)
    head += "%a: i32, %b: i32, %x: f32, %y: f32) {\n"
    head += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
    head += "  %k8 = arith.constant 8 : index\n"
    return head + body + "  return\n}\n"


def groups():
    for dt in LANES:
        yield "elt_" + dt, elementwise(dt)
        yield "expand_" + dt, expands(dt)
        yield "reduce_" + dt, reductions(dt)
        yield "cmp_" + dt, compares(dt)
        yield "cvt_" + dt, converts(dt)
        yield "fused_" + dt, fused(dt)
    yield "matmul", matmuls()
    yield "misc", misc()
