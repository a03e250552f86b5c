#!/usr/bin/env python3
"""ptodis on crafted objects that multiply their size (disasm/ptodis.h).

Each object here is small (under 300 KB) but made so that a reader which
copies a name per entry, lists overlapping symbols one by one or reads the
same bytes through several section headers needs gigabytes of memory or
output. ptodis must answer each within a few seconds under a 2 GiB address
space limit, with exit 0 or 1 (a message), and a listing at most 64 times
the object's size.

Usage: ptodis_crafted.py PTODIS
"""
import os
import resource
import struct
import subprocess
import sys
import tempfile

SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA = 1, 2, 3, 4
EXEC = 0x6  # SHF_ALLOC | SHF_EXECINSTR


def elf(sections, machine=62):
    """An ELF64 little-endian relocatable object. `sections`: dicts with
    name, type, data and optionally flags, link, info, entsize, at (the data
    offset of another section's data: several headers over the same bytes)."""
    names = b"\0"
    name_at = []
    for s in sections:
        name_at.append(len(names))
        names += s["name"].encode() + b"\0"
    sections = sections + [{"name": ".shstrtab", "type": SHT_STRTAB, "data": names}]
    name_at.append(name_at[-1] + len(sections[-2]["name"]) + 1 if len(sections) > 1 else 1)
    body = b""
    offsets = []
    for s in sections:
        if "at" in s:
            offsets.append(offsets[s["at"]])
            continue
        body += b"\0" * (-len(body) % 8)
        offsets.append(64 + len(body))
        body += s["data"]
    body += b"\0" * (-len(body) % 8)
    shoff = 64 + len(body)
    shnum = len(sections) + 1
    header = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    header += struct.pack("<HHIQQQIHHHHHH", 1, machine, 1, 0, 0, shoff, 0, 64, 0, 0, 64, shnum, shnum - 1)
    shdrs = b"\0" * 64
    for i, s in enumerate(sections):
        size = len(sections[s["at"]]["data"]) if "at" in s else len(s["data"])
        shdrs += struct.pack("<IIQQQQIIQQ", name_at[i], s["type"], s.get("flags", 0), 0, offsets[i], size,
                             s.get("link", 0), s.get("info", 0), 8, s.get("entsize", 0))
    return header + body + shdrs


def sym(name_off, value, size, shndx, info=0x12):
    return struct.pack("<IBBHQQ", name_off, info, 0, shndx, value, size)


def uleb(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


STD_LENGTHS = bytes([0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1])


def line_program_v4(dirs, files, program):
    hdr = bytes([1, 1, 1, 0xFB, 14, 13]) + STD_LENGTHS
    hdr += b"".join(d + b"\0" for d in dirs) + b"\0"
    hdr += b"".join(f + b"\0" + uleb(di) + b"\0\0" for f, di in files) + b"\0"
    rest = struct.pack("<H", 4) + struct.pack("<I", len(hdr)) + hdr + program
    return struct.pack("<I", len(rest)) + rest


def line_program_v5(ndirs, nfiles, program):
    """Every directory and file name is DW_FORM_line_strp offset 0."""
    hdr = bytes([1, 1, 1, 0xFB, 14, 13]) + STD_LENGTHS
    hdr += bytes([1]) + uleb(1) + uleb(0x1F) + uleb(ndirs) + struct.pack("<I", 0) * ndirs
    hdr += bytes([2]) + uleb(1) + uleb(0x1F) + uleb(2) + uleb(0x0B)
    hdr += uleb(nfiles) + (struct.pack("<I", 0) + b"\0") * nfiles
    rest = struct.pack("<H", 5) + bytes([8, 0]) + struct.pack("<I", len(hdr)) + hdr + program
    return struct.pack("<I", len(rest)) + rest


def text(n=4096):
    return {"name": ".text", "type": SHT_PROGBITS, "flags": EXEC, "data": b"\x90" * n}


def symtab(entries, strtab_index):
    return {"name": ".symtab", "type": SHT_SYMTAB, "data": sym(0, 0, 0, 0, 0) + b"".join(entries),
            "link": strtab_index, "entsize": 24}


def cases():
    long_name = b"n" * 100000
    # 1. 2,000 function symbols over the same 4 KB: 2,000 listings of it.
    yield "overlapping functions", elf([
        text(), symtab([sym(1, 0, 4096, 1)] * 2000, 3),
        {"name": ".strtab", "type": SHT_STRTAB, "data": b"\0f\0"}]), 1, "overlap"
    # 2. 1,000 symbol tables over the same 1,000 symbols.
    syms = [sym(1, 4 * i, 4, 1) for i in range(1000)]
    secs = [text(), symtab(syms, 2), {"name": ".strtab", "type": SHT_STRTAB, "data": b"\0f\0"}]
    secs += [dict(secs[1], at=1) for _ in range(1000)]
    yield "symbol tables sharing their bytes", elf(secs), 1, "overlap in the file"
    # 3. A relocation at each of 4,096 offsets naming a 100 KB symbol name.
    relas = b"".join(struct.pack("<QQq", off, (1 << 32) | 2, -4) for off in range(4096))
    yield "relocations naming a long symbol", elf([
        text(), symtab([sym(1, 0, 4096, 1), sym(1, 0, 0, 0, 0x10)], 3),
        {"name": ".strtab", "type": SHT_STRTAB, "data": b"\0" + long_name + b"\0"},
        {"name": ".rela.text", "type": SHT_RELA, "data": relas, "link": 2, "info": 1, "entsize": 24}]), 0, None
    # 4. A 60 KB directory joined to 20,000 file entries; 100,000 rows of a
    #    file whose name is that long.
    program = bytes([4]) + uleb(5) + bytes([1]) * 100000  # set_file 5, then DW_LNS_copy
    dl = line_program_v4([b"d" * 60000], [(b"a", 1)] * 20000, program)
    yield "a long directory for many files and rows (DWARF 4)", elf([
        text(), symtab([sym(1, 0, 4096, 1)], 3), {"name": ".strtab", "type": SHT_STRTAB, "data": b"\0f\0"},
        {"name": ".debug_line", "type": SHT_PROGBITS, "data": dl}]), None, None
    # 5. 30,000 file entries, each a 4-byte offset of one 60 KB string.
    program = bytes([4]) + uleb(3) + bytes([1]) * 50000
    dl = line_program_v5(1, 30000, program)
    yield "one long string for every file name (DWARF 5)", elf([
        text(), symtab([sym(1, 0, 4096, 1)], 3), {"name": ".strtab", "type": SHT_STRTAB, "data": b"\0f\0"},
        {"name": ".debug_line", "type": SHT_PROGBITS, "data": dl},
        {"name": ".debug_line_str", "type": SHT_STRTAB, "data": b"x" * 60000 + b"\0"}]), None, None


def main():
    ptodis = sys.argv[1]
    limit_as = 2 << 30

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    # A sanitizer build reserves more address space than that at start.
    probe = subprocess.run([ptodis, "--version"], preexec_fn=limited, capture_output=True)
    preexec = limited if probe.returncode == 0 else None
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for what, data, want_rc, want_msg in cases():
            path = os.path.join(tmp, "crafted.o")
            with open(path, "wb") as f:
                f.write(data)
            out_path = os.path.join(tmp, "out.txt")
            with open(out_path, "wb") as out:
                try:
                    r = subprocess.run([ptodis, path], stdout=out, stderr=subprocess.PIPE, preexec_fn=preexec,
                                       timeout=30)
                except subprocess.TimeoutExpired:
                    print(f"ptodis_crafted: FAIL: {what}: no answer in 30 s")
                    failures += 1
                    continue
            err = r.stderr.decode(errors="replace")
            listing = os.path.getsize(out_path)
            problems = []
            if r.returncode not in (0, 1) or (want_rc is not None and r.returncode != want_rc):
                problems.append(f"exit {r.returncode}" + (f", expected {want_rc}" if want_rc is not None else ""))
            if r.returncode == 1 and not err.startswith("ptodis: error: "):
                problems.append("no error message")
            if want_msg and want_msg not in err:
                problems.append(f"'{want_msg}' not in the message")
            if listing > 64 * len(data):
                problems.append(f"{listing} bytes of listing from {len(data)} bytes")
            status = "FAIL: " + "; ".join(problems) if problems else "ok"
            print(f"ptodis_crafted: {what} ({len(data)} bytes): exit {r.returncode}, {listing} bytes out: {status}"
                  + (f" [{err.strip()[:200]}]" if problems else ""))
            failures += bool(problems)
    print(f"ptodis_crafted: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
