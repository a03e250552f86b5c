#!/usr/bin/env python3
"""x86 instruction forms: the encoder's bytes against LLVM's assembler.

Run by tests/x86/x86_forms.sh (which see for the options). For each target
(avx2, avx512) it compiles the samples, tests/x86/kernels and the
generated kernels of kernels.py to objects, reads (bytes, text) of every
instruction from ptodis, and then:

1. assembles the text of every distinct (bytes, text) instance with
   llvm-mc (one section per instruction) and compares the bytes; where
   they differ, both byte strings are disassembled with ZydisDisasm and
   must give the same text (an equivalent encoding: VEX vs EVEX, another
   modrm, a shorter displacement, another prefix order);
2. reduces the instances to forms (mnemonic, operand kinds and sizes, the
   encoding: legacy / vex / evex) and compares one representative
   (bytes, text) per form with expected.txt: a form whose representative
   now has other bytes, a new form and a form no longer emitted all fail;
   PTOAS_BLESS=1 (--bless) rewrites the table.
"""
import argparse
import concurrent.futures as cf
import glob
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402

TARGETS = ("avx2", "avx512")
LINE_RE = re.compile(r"^  ([0-9a-f]{6}):  ((?:[0-9a-f]{2} )+)\s*\t(.*)$")
ERR_RE = re.compile(r"^[^:\s]+\.pto:(\d+):\d+: error:", re.M)
BRANCH_RE = re.compile(r"^(j\w+|call|loop\w*|jmp)\s+0x([0-9A-Fa-f]+)$")


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


# ---- collecting instructions ---------------------------------------------------------

def compile_obj(ptoas, target, arch, src, obj, opt="-O0"):
    # The generated kernels at -O0: each op's own lowering (at -O2 fusion and
    # the f32 exp would replace some); the files at -O0 and -O2 both.
    cmd = [ptoas, "-target=" + target, opt, src, "-o", obj]
    if arch and arch != "a3":
        cmd.insert(2, "--pto-arch=" + arch)
    return run(cmd)


def compile_group(args, target, name, funcs, work):
    """Compiles the functions of a group as one module on a3, leaving out
    those the errors' lines name; those on a5; drops what neither takes.
    Returns (objects, dropped function count)."""
    objs, pending = [], list(range(len(funcs)))
    for arch in ("a3", "a5"):
        refused = []
        for attempt in range(10):
            if not pending:
                break
            src = os.path.join(work, "%s.%s.%s.%d.pto" % (name, target, arch, attempt))
            starts, line = [], 1
            for i in pending:
                starts.append((line, i))
                line += funcs[i].count("\n")
            with open(src, "w") as f:
                f.write("".join(funcs[i] for i in pending))
            obj = src[:-4] + ".o"
            r = compile_obj(args.ptoas, target, arch, src, obj)
            if r.returncode == 0:
                objs.append(obj)
                pending = []
                break
            bad = set()
            for m in ERR_RE.finditer(r.stderr):
                ln = int(m.group(1))
                bad.add([i for s, i in starts if s <= ln][-1])
                if arch == "a5" and args.v:
                    msg = r.stderr[m.end():].split("\n", 1)[0].strip()
                    print("refused (%s, a3 and a5): %s" % (target, re.sub(r"\d+x\d+", "RxC", msg)))
            if not bad:
                raise RuntimeError("%s %s: ptoas failed without a located error:\n%s" % (target, name, r.stderr))
            refused += sorted(bad)
            pending = [i for i in pending if i not in bad]
        pending = refused
    return objs, len(pending)


def disassemble(ptodis, obj):
    """(offset, bytes, text) of every instruction in obj's functions (ptodis)."""
    r = run([ptodis, "--no-source", obj])
    if r.returncode != 0:
        raise RuntimeError("ptodis %s: %s" % (obj, r.stderr))
    out = []
    for ln in r.stdout.splitlines():
        m = LINE_RE.match(ln)
        if m:
            out.append((int(m.group(1), 16), bytes.fromhex(m.group(2).replace(" ", "")), m.group(3).strip()))
    return out


def relative_branch(off, text):
    """'jnz 0x...' (a target address) -> 'jnz .+N' (from the instruction's
    first byte), so that instances at other offsets compare equal."""
    m = BRANCH_RE.match(text)
    if not m:
        return text
    d = (int(m.group(2), 16) - off + (1 << 63)) % (1 << 64) - (1 << 63)  # ZydisDisasm wraps below 0
    return "%s .%+d" % (m.group(1), d)


# ---- forms --------------------------------------------------------------------------

GPR = {}
for i, (q, d, w, b) in enumerate([("rax", "eax", "ax", "al"), ("rcx", "ecx", "cx", "cl"), ("rdx", "edx", "dx", "dl"),
                                  ("rbx", "ebx", "bx", "bl"), ("rsp", "esp", "sp", "spl"), ("rbp", "ebp", "bp", "bpl"),
                                  ("rsi", "esi", "si", "sil"), ("rdi", "edi", "di", "dil")]):
    GPR.update({q: "r64", d: "r32", w: "r16", b: "r8"})
for n in range(8, 16):
    GPR.update({"r%d" % n: "r64", "r%dd" % n: "r32", "r%dw" % n: "r16", "r%db" % n: "r8"})
GPR.update({"ah": "r8", "bh": "r8", "ch": "r8", "dh": "r8"})


def encoding_space(b):
    i = 0
    while i < len(b) and b[i] in (0x66, 0x67, 0xF2, 0xF3, 0x2E, 0x36, 0x3E, 0x26, 0x64, 0x65, 0xF0):
        i += 1
    if i < len(b) and 0x40 <= b[i] <= 0x4F:
        return "legacy"
    if i < len(b) and b[i] in (0xC4, 0xC5):
        return "vex"
    if i < len(b) and b[i] == 0x62:
        return "evex"
    return "legacy"


def imm_kind(v):
    if v < 0x100 or v >= 0xFFFFFFFFFFFFFF80 or 0xFFFFFF80 <= v <= 0xFFFFFFFF:
        return "imm8"
    if v < 1 << 32 or v >= 0xFFFFFFFF80000000:
        return "imm32"
    return "imm64"


def mem_kind(m):
    """'zmmword ptr [rdi+rax*4+0x40]{1to16}' -> 'zmmword ptr [b+i*4+d8]{1to16}'."""
    mm = re.match(r"^(?:(\w+) ptr )?(?:(\w+):)?\[([^\]]*)\](.*)$", m)
    if not mm:
        return m
    size, seg, inner, tail = mm.groups()
    parts = re.findall(r"[+-]?[^+-]+", inner)
    kinds = []
    for p in parts:
        s = p.lstrip("+-")
        if "*" in s:
            reg, scale = s.split("*")
            kinds.append("i%s*%s" % ("" if reg in GPR else re.sub(r"\d+", "", reg), scale))
        elif s == "rip":
            kinds.append("rip")
        elif s in GPR:
            kinds.append("b")
        else:
            v = int(s, 16) if s.lower().startswith("0x") else int(s)
            kinds.append("d8" if v < 0x80 or (p.startswith("-") and v <= 0x80) else "d32")
    return "%s[%s]%s" % ((size + " ptr " if size else "") + (seg + ":" if seg else ""), "+".join(kinds), tail)


def operand_kind(o):
    o = o.strip()
    deco = ""
    m = re.match(r"^(.*?)((?:\s*\{[^}]*\})*)$", o)
    if m and m.group(2) and "[" not in m.group(2):
        o, deco = m.group(1).strip(), re.sub(r"\{k\d\}", "{k}", m.group(2).replace(" ", ""))
    if "[" in o:
        return mem_kind(o) + deco
    if o in GPR:
        return GPR[o] + deco
    r = re.match(r"^(xmm|ymm|zmm|k|st|mm)\d+$", o)
    if r:
        return r.group(1) + deco
    if re.match(r"^(0x[0-9A-Fa-f]+|\d+)$", o):
        return imm_kind(int(o, 0)) + deco
    if o.startswith("."):
        return "rel" + deco
    return o + deco


def split_operands(ops):
    out, depth, cur = [], 0, ""
    for ch in ops:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def merge_masked_load(text):
    """Whether an instruction merges a memory operand into its destination
    under an opmask (`op zmm {k}, ..., [mem]`). On Zen 4 such a load in a
    loop ran the avx512 rmsnorm 60x slower in about half the process layouts
    (the stack's address decides; docs/x86_backend.md). Gathers need the
    mask; masked stores and zero-masked loads are not this form."""
    mnem, _, ops = text.partition(" ")
    if mnem.startswith(("vgather", "vpgather")):
        return False
    parts = split_operands(ops)
    if not parts or not re.search(r"\{k[1-7]\}", parts[0]) or "{z}" in parts[0]:
        return False
    return any("[" in p for p in parts[1:])


def form_of(text, full, b):
    """Form key: the mnemonic (with prefixes), the operand kinds from the
    full-size text (ZydisDisasm's), the encoding space."""
    t = full or text
    words = t.split(" ", 1)
    mnem, ops = words[0], words[1] if len(words) > 1 else ""
    while mnem in ("rep", "repe", "repne", "repz", "repnz", "lock") and ops:
        w = ops.split(" ", 1)
        mnem, ops = mnem + " " + w[0], w[1] if len(w) > 1 else ""
    kinds = [operand_kind(o) for o in split_operands(ops)]
    if text.startswith(("j", "call", "loop")) and kinds == ["rel"]:
        kinds = ["rel8" if len(b) == 2 else "rel32"]
    return ("%s %s" % (mnem, ", ".join(kinds))).strip() + " (%s)" % encoding_space(b)


# ---- LLVM and Zydis -----------------------------------------------------------------

def llvm_text(text):
    """Zydis Intel text -> what llvm-mc's Intel parser takes."""
    t = text.replace("} {", "}{")
    t = re.sub(r"\{k(\d)\}\{z\}", r"{k\1} {z}", t)
    # Gathers: Zydis names the element size, LLVM wants the vector's (or none).
    t = re.sub(r"\b\w+ ptr (\[[^\]]*[xyz]mm\d+)", r"\1", t)
    m = re.match(r"^(\S+) \.([+-]\d+)$", t)
    if m:
        return None, m.group(1), int(m.group(2))
    return t, None, None


def elf_sections(path):
    """name -> bytes of the PROGBITS sections of an ELF64 object."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = hdrs[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    out = {}
    for h in hdrs:
        if h[1] == 1:  # SHT_PROGBITS
            name = names[h[0]:names.index(b"\0", h[0])].decode()
            out[name] = data[h[4]:h[4] + h[5]]
    return out


def llvm_assemble(mc, texts, work, tag):
    """bytes (or an error string) per text, from one llvm-mc run (again
    without the lines it refused)."""
    result = [None] * len(texts)
    todo = list(range(len(texts)))
    for _ in range(3):
        lines, lineno = [".intel_syntax noprefix"], {}
        for i in todo:
            t, mnem, rel = llvm_text(texts[i])
            lines.append('.section .f%d,"ax",@progbits' % i)
            lineno[len(lines) + 1] = i
            lines.append(".Lf%d: %s .Lf%d%+d" % (i, mnem, i, rel) if t is None else t)
        src = os.path.join(work, "llvm_%s.s" % tag)
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        obj = src[:-2] + ".o"
        r = run([mc, "-triple=x86_64", "-x86-asm-syntax=intel", "--filetype=obj", src, "-o", obj])
        bad = {}
        for m in re.finditer(r"^[^:\n]*:(\d+):\d+: error: (.*)$", r.stderr, re.M):
            ln = int(m.group(1))
            if ln in lineno:
                bad[lineno[ln]] = m.group(2)
        if r.returncode == 0 and not bad:
            secs = elf_sections(obj)
            for i in todo:
                result[i] = secs.get(".f%d" % i, b"")
            return result
        if not bad:
            raise RuntimeError("llvm-mc failed:\n" + r.stderr[:2000])
        for i, e in bad.items():
            result[i] = "llvm-mc: " + e
        todo = [i for i in todo if i not in bad]
    raise RuntimeError("llvm-mc keeps failing:\n" + r.stderr[:2000])


def zydis_texts(zydis, codes, work, tag):
    """ZydisDisasm's text of each byte string (decoded back to back in one
    run; a count mismatch falls back to one run each). Branch targets are
    made relative to the instruction."""
    path = os.path.join(work, "zy_%s.bin" % tag)
    with open(path, "wb") as f:
        f.write(b"".join(codes))
    r = run([zydis, "-64", path])
    lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
    if r.returncode != 0 or len(lines) != len(codes):
        lines = []
        for i, c in enumerate(codes):
            p = os.path.join(work, "zy_%s_%d.bin" % (tag, i))
            with open(p, "wb") as f:
                f.write(c)
            rr = run([zydis, "-64", p])
            ls = [x.strip() for x in rr.stdout.splitlines() if x.strip()]
            lines.append(" ; ".join(ls) if rr.returncode == 0 else "<ZydisDisasm failed>")
    out, off = [], 0
    for c, ln in zip(codes, lines):
        ln = re.sub(r"\b(ds|ss):\[", "[", ln)  # ZydisDisasm shows the default segment
        out.append(relative_branch(off, ln))
        off += len(c)
    return out


# ---- the table ----------------------------------------------------------------------

# Ops whose two sources commute: LLVM 18 and up swap them where that gives
# the 2-byte VEX prefix (a high source register moves to VEX.vvvv).
COMMUTATIVE = {"vaddps", "vaddpd", "vmulps", "vmulpd", "vpaddd", "vpaddq", "vpaddw", "vpaddb", "vpmulld",
               "vpmullw", "vpand", "vpor", "vpxor", "vandps", "vandpd", "vorps", "vorpd", "vxorps", "vxorpd",
               "vpcmpeqd", "vpcmpeqw", "vpcmpeqb", "vpcmpeqq", "vpminsd", "vpmaxsd", "vpminud", "vpmaxud",
               "vpminsw", "vpmaxsw", "vpminuw", "vpmaxuw", "vpminsb", "vpmaxsb", "vpminub", "vpmaxub"}
# vcmpps / vcmppd predicates that do not depend on the operand order.
SYMMETRIC_CMP = {0x00, 0x03, 0x04, 0x07, 0x08, 0x0b, 0x0c, 0x0f, 0x10, 0x13, 0x14, 0x17, 0x18, 0x1b, 0x1c, 0x1f}


def same_meaning(a, b):
    """ZydisDisasm texts that mean the same: equal, xchg with its operands
    swapped, or a commutative three-operand op with its sources swapped."""
    if a == b:
        return True
    ma, mb = re.match(r"^xchg (\S+), (\S+)$", a), re.match(r"^xchg (\S+), (\S+)$", b)
    if ma and mb and ma.groups() == mb.groups()[::-1]:
        return True
    ma = re.match(r"^(\S+) (\w+), (\w+), (\w+)(, (0x[0-9A-Fa-f]+))?$", a)
    mb = re.match(r"^(\S+) (\w+), (\w+), (\w+)(, (0x[0-9A-Fa-f]+))?$", b)
    if not ma or not mb or ma.group(1) != mb.group(1) or ma.group(2) != mb.group(2):
        return False
    if (ma.group(3), ma.group(4)) != (mb.group(4), mb.group(3)) or ma.group(6) != mb.group(6):
        return False
    op = ma.group(1)
    if op in ("vcmpps", "vcmppd"):
        return ma.group(6) is not None and int(ma.group(6), 16) in SYMMETRIC_CMP
    return op in COMMUTATIVE and ma.group(6) is None


def read_table(path):
    table = {}
    if not os.path.exists(path):
        return table
    for ln in open(path):
        if ln.startswith("#") or not ln.strip():
            continue
        target, form, code, text = ln.rstrip("\n").split("\t")
        table[(target, form)] = (code, text)
    return table


def write_table(path, table):
    with open(path, "w") as f:
        f.write("# x86 instruction forms the encoder emits (tests/x86/x86_forms.sh): target, form,\n"
                "# bytes and text of one representative instance; checked against llvm-mc.\n"
                "# Regenerate after reviewing a change: PTOAS_BLESS=1 ctest -R x86_forms\n")
        for (target, form), (code, text) in sorted(table.items()):
            f.write("%s\t%s\t%s\t%s\n" % (target, form, code, text))


# ---- main ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptoas", required=True)
    ap.add_argument("--ptodis", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--llvm-mc", required=True)
    ap.add_argument("--zydis", required=True)
    ap.add_argument("--expected", required=True)
    ap.add_argument("--bless", action="store_true")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="x86forms.")
    fails = []

    files = sorted(glob.glob(os.path.join(a.src, "samples", "*", "*.pto")) +
                   glob.glob(os.path.join(a.src, "tests", "x86", "kernels", "*.pto")))
    groups = list(kernels.groups())
    nfuncs = sum(len(f) for _, f in groups)

    def job_file(target, path):
        objs = []
        for opt in ("-O0", "-O2"):
            obj = os.path.join(work, "%s.%s%s.o" % (os.path.basename(path)[:-4], target, opt))
            r = compile_obj(a.ptoas, target, None, path, obj, opt)
            if r.returncode != 0:
                return [], "%s: %s" % (os.path.relpath(path, a.src), r.stderr.strip().splitlines()[0])
            objs.append(obj)
        return objs, None

    def job_group(target, name, funcs):
        objs, dropped = compile_group(a, target, name, funcs, work)
        dropped_count[target] += dropped
        return objs, None

    # instances[target][(code, rel text)] = (where, count)
    instances = {t: {} for t in TARGETS}
    dropped_count = {t: 0 for t in TARGETS}
    with cf.ThreadPoolExecutor(max_workers=a.j) as ex:
        futs = []
        for t in TARGETS:
            for p in files:
                futs.append((t, ex.submit(job_file, t, p)))
            for name, funcs in groups:
                futs.append((t, ex.submit(job_group, t, name, funcs)))
        objs = {t: [] for t in TARGETS}
        for t, f in futs:
            o, err = f.result()
            if err:
                fails.append("%s: does not compile: %s" % (t, err))
            objs[t] += o
        dis = {t: [(o, ex.submit(disassemble, a.ptodis, o)) for o in objs[t]] for t in TARGETS}
        for t in TARGETS:
            for o, f in dis[t]:
                for off, code, text in f.result():
                    key = (code, relative_branch(off, text))
                    where, n = instances[t].get(key, (os.path.basename(o), 0))
                    instances[t][key] = (where, n + 1)
    t_collect = time.time() - t0

    for t in TARGETS:
        for code, text in sorted(instances[t]):
            if merge_masked_load(text):
                fails.append("%s: `%s` (from %s) merges a memory operand under an opmask: load it into a "
                             "register first" % (t, text, instances[t][(code, text)][0]))

    # LLVM: every distinct instance of both targets.
    keys = sorted(set(k for t in TARGETS for k in instances[t]))
    texts = [k[1] for k in keys]
    llvm = llvm_assemble(a.llvm_mc, texts, work, "all")
    diff_idx = [i for i, k in enumerate(keys) if llvm[i] != k[0]]
    ours = zydis_texts(a.zydis, [k[0] for k in keys], work, "ours")
    theirs_codes = [llvm[i] for i in diff_idx if isinstance(llvm[i], bytes) and llvm[i]]
    theirs = dict(zip([i for i in diff_idx if isinstance(llvm[i], bytes) and llvm[i]],
                      zydis_texts(a.zydis, theirs_codes, work, "llvm")))
    equivalent = 0
    bad_keys = set()
    for i in diff_idx:
        code, text = keys[i]
        where = [t + ":" + instances[t][keys[i]][0] for t in TARGETS if keys[i] in instances[t]][0]
        if isinstance(llvm[i], str) or not llvm[i]:
            fails.append("LLVM cannot assemble `%s` (ours %s, from %s): %s" % (text, code.hex(" "), where, llvm[i]))
            bad_keys.add(keys[i])
        elif theirs.get(i) is not None and same_meaning(theirs[i], ours[i]):
            equivalent += 1
            if a.v:
                print("equivalent: %-50s ours %s  llvm %s" % (text, code.hex(" "), llvm[i].hex(" ")))
        else:
            fails.append("MISMATCH `%s` (form %s, from %s)\n    ours: %s  = %s\n    llvm: %s  = %s" % (
                text, form_of(text, ours[i], code), where, code.hex(" "), ours[i], llvm[i].hex(" "), theirs.get(i)))
            bad_keys.add(keys[i])
    full = dict(zip(keys, ours))

    # Forms and the expected table.
    expected = read_table(a.expected)
    table, counts = {}, {}
    for t in TARGETS:
        forms = {}
        for k in instances[t]:
            forms.setdefault(form_of(k[1], full[k], k[0]), []).append(k)
        counts[t] = len(forms)
        for form, ks in forms.items():
            ks.sort(key=lambda k: (k[1], k[0]))
            exp = expected.get((t, form))
            rep = ks[0]
            if exp:
                same = [k for k in ks if k[1] == exp[1]]
                if same:
                    rep = same[0]
                    for k in same:
                        if k[0].hex(" ") != exp[0] and not a.bless:
                            fails.append("%s: bytes changed for form %s: `%s` was %s, now %s" % (
                                t, form, exp[1], exp[0], k[0].hex(" ")))
                elif a.v:
                    print("note: %s %s: `%s` no longer emitted; the form is (bless refreshes)" % (t, form, exp[1]))
            elif not a.bless:
                fails.append("%s: NEW form %s: %s  %s (from %s); review it, then PTOAS_BLESS=1 to add it" % (
                    t, form, rep[0].hex(" "), rep[1], instances[t][rep][0]))
            table[(t, form)] = (rep[0].hex(" "), rep[1])
    if not a.bless:
        for (t, form), (code, text) in sorted(expected.items()):
            if (t, form) not in table:
                fails.append("%s: form %s (`%s`) is no longer emitted; PTOAS_BLESS=1 to drop it" % (t, form, text))
    if a.bless:
        if any(k in bad_keys for t in TARGETS for k in instances[t]):
            print("not blessing: LLVM disagrees with some instructions")
        else:
            write_table(a.expected, table)
            print("wrote %s (%d forms)" % (a.expected, len(table)))

    for f in fails:
        print("FAIL: " + f)
    print("x86_forms: %s; %d distinct instructions (%d generated kernels + %d files), %d byte-identical with "
          "llvm-mc, %d equivalent encodings; kernels refused by both archs: %s; %.1f s (%.1f s compiling)" % (
              ", ".join("%s %d forms" % (t, counts[t]) for t in TARGETS), len(keys), nfuncs, len(files),
              len(keys) - len(diff_idx), equivalent, ", ".join("%s %d" % (t, dropped_count[t]) for t in TARGETS),
              time.time() - t0, t_collect))
    subprocess.run(["rm", "-rf", work])
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
