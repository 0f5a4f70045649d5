#!/usr/bin/env python3
"""lib64check compares `cugen -list -json` with NVIDIA's `cuobjdump -elf`
on every library of a directory (the CUDA toolkit's lib64), kernel for
kernel and target for target: the kernels each cubin holds, and for each
kernel and cubin target the parameter count, offsets and sizes
(EIATTR_KPARAM_INFO) and the parameter block's size
(EIATTR_CBANK_PARAM_SIZE). It prints one line per library as it goes and a
table last: kernels, kernel-targets and parameters compared, mismatches,
the time and peak memory of both tools and the ratio of the peaks (the
goal: cugen at most cuobjdump on every library, within 2 MiB of noise,
which the exit status checks too).

    python3 cmd/cugen/lib64check.py --cugen ./cugen [--dir /usr/local/cuda/lib64] [--details N] [files...]

It needs only Python 3 and the two tools: cmd/cugen/lib64-check.sh builds
cugen where Go is and runs this on the GPU machine. `--selftest FILE...`
parses cuobjdump -elf listings and prints what it read (used by the Go
test of this parser).
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

PARAM_RE = re.compile(r"Ordinal\s*:\s*0x([0-9a-fA-F]+)\s+Offset\s*:\s*0x([0-9a-fA-F]+)\s+Size\s*:\s*0x([0-9a-fA-F]+)")
ELF_RE = re.compile(r"^\d+-bit ELF: .*\bsm=(\d+)")
ARCH_RE = re.compile(r"^arch\s*=\s*(\S+)")
VALUE_RE = re.compile(r"^\s*Value:\s*(0x[0-9a-fA-F]+)")


class Dump:
    """What a cuobjdump -elf listing says: for every (kernel, target), the
    layouts its cubins give ("off:size off:size|block"), and the number of
    cubins per target."""

    def __init__(self):
        self.layouts = {}  # (kernel, arch) -> set of layout strings
        self.cubins = {}  # arch -> count

    def add(self, kernel, arch, params, block):
        params = sorted(params)
        for i, (ordinal, _, _) in enumerate(params):
            if ordinal != i:
                break
        layout = " ".join("%d:%d" % (off, size) for _, off, size in params)
        if block is not None:
            layout += "|%d" % block
        self.layouts.setdefault((kernel, arch), set()).add(layout)

    def kernels(self):
        return {k for k, _ in self.layouts}


def parse_dump(lines):
    """Reads cuobjdump -elf output (an iterable of lines) into a Dump.

    A listing is a sequence of cubins: each starts with a "Fatbin elf code:"
    header (with an "arch = sm_90" line) in a fatbin or host file, or with
    its "64-bit ELF: ... sm=90" line alone for a cubin file. A kernel's
    attributes are in its ".nv.info.NAME" section; PTX listings are skipped.
    """
    d = Dump()
    arch = None  # of the cubin being read
    header = False  # a Fatbin elf header was read, its ELF line not yet
    in_elf = False
    kernel, params, block, want_block = None, [], None, False

    def flush():
        nonlocal kernel, params, block, want_block
        if kernel is not None and in_elf and arch is not None:
            d.add(kernel, arch, params, block)
        kernel, params, block, want_block = None, [], None, False

    for line in lines:
        line = line.rstrip("\n")
        if line.startswith("Fatbin elf code"):
            flush()
            arch, header, in_elf = None, True, True
            continue
        if line.startswith("Fatbin"):  # ptx, nvvm, ...: no cubin
            flush()
            arch, header, in_elf = None, False, False
            continue
        m = ARCH_RE.match(line)
        if m and header:
            arch = m.group(1)
            continue
        m = ELF_RE.match(line)
        if m:
            flush()
            if not header:
                arch = "sm_" + m.group(1)
                in_elf = True
            elif arch is None:
                arch = "sm_" + m.group(1)
            header = False
            d.cubins[arch] = d.cubins.get(arch, 0) + 1
            continue
        if line.startswith("."):  # a section: ".nv.info.NAME" holds kernel NAME's attributes
            flush()
            if line.startswith(".nv.info."):
                kernel = line[len(".nv.info."):].strip()
            continue
        if kernel is None:
            continue
        if "EIATTR_CBANK_PARAM_SIZE" in line:
            want_block = True
            continue
        m = VALUE_RE.match(line)
        if m and want_block:
            block = int(m.group(1), 16)
            want_block = False
            continue
        m = PARAM_RE.search(line)
        if m:
            params.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)))
    flush()
    return d


def cugen_layouts(modules):
    """The layouts cugen -list -json gives, as parse_dump spells them:
    (kernel, arch) -> layout, for every cubin target (sm_*) of each kernel."""
    out = {}
    for m in modules:
        for k in m.get("kernels", []):
            arches = k.get("arches") or m.get("arches") or []
            params = k.get("params", [])
            for arch in arches:
                if not arch.startswith("sm_"):
                    continue
                offsets, block = [p["offset"] for p in params], k.get("paramSize", 0)
                for l in k.get("layouts") or []:
                    if arch in l["arches"]:
                        offsets, block = l["offsets"], l["paramSize"]
                layout = " ".join("%d:%d" % (o, p["size"]) for o, p in zip(offsets, params))
                out[(k["name"], arch)] = (layout, block)
    return out


def compare(dump, modules):
    """Returns (kernels, kernel-targets, params compared, mismatches, details)."""
    got = cugen_layouts(modules)
    mismatches, params, details = 0, 0, []
    for key, layouts in sorted(dump.layouts.items()):
        g = got.get(key)
        if g is None:
            mismatches += 1
            details.append("missing in cugen: %s %s" % key)
            continue
        params += len(g[0].split()) if g[0] else 0
        ok = False
        for l in layouts:
            lay, _, block = l.partition("|")
            if lay == g[0] and (block == "" or int(block) == g[1] or not lay):
                ok = True
        if not ok:
            mismatches += 1
            details.append("differs: %s %s: cugen %s|%d, cuobjdump %s" % (key[0], key[1], g[0], g[1], sorted(layouts)))
    for key in sorted(set(got) - set(dump.layouts)):
        mismatches += 1
        details.append("extra in cugen: %s %s" % key)
    return len(dump.kernels()), len(dump.layouts), params, mismatches, details


# The tool runs under a small Python of its own that forks it, waits for it
# and reports its ru_maxrss: Linux carries a process's peak RSS across exec,
# and a tool forked from this Python (which grows as it holds listings, and
# forks from several threads) would start at this Python's size at the
# moment, not at the same baseline for both tools.
_MEASURE = """import os, sys
fd = int(sys.argv[1])
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as e:
        os.write(2, ("%s: %s\\n" % (sys.argv[2], e.strerror)).encode())
    os._exit(127)
_, status, usage = os.wait4(pid, 0)
os.write(fd, b"%d" % usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_tool(args, out_path=None, consume=None):
    """Runs a command; returns (rc, seconds, peak RSS KiB, stderr tail).
    Its stdout goes to out_path, or line by line to consume (streamed:
    cuobjdump's listing of a large library is gigabytes). The peak is the
    tool's ru_maxrss as its parent, _MEASURE, sees it: never below that
    small Python's size, about 10 MiB, the same for both tools."""
    start = time.monotonic()
    err = tempfile.TemporaryFile()
    r, w = os.pipe()
    cmd = [sys.executable, "-c", _MEASURE, str(w)] + list(args)
    try:
        if consume is not None:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, errors="replace", pass_fds=(w,))
            os.close(w)
            w = -1
            consume(p.stdout)
            p.stdout.close()
        else:
            with open(out_path, "w") as f:
                p = subprocess.Popen(cmd, stdout=f, stderr=err, pass_fds=(w,))
            os.close(w)
            w = -1
        p.wait()
        peak = os.read(r, 64)
    finally:
        if w >= 0:
            os.close(w)
        os.close(r)
    seconds = time.monotonic() - start
    err.seek(0)
    tail = err.read().decode(errors="replace").strip().splitlines()
    return p.returncode, seconds, int(peak or b"0"), (tail[-1] if tail else "")


def check(lib, cugen, details):
    tmp = tempfile.NamedTemporaryFile(suffix=".json", delete=False)
    tmp.close()
    try:
        crc, cs, ckb, cerr = run_tool([cugen, "-list", "-json", lib], out_path=tmp.name)
        holder = {}
        orc, osec, okb, oerr = run_tool(["cuobjdump", "-elf", lib], consume=lambda f: holder.update(d=parse_dump(f)))
        dump = holder.get("d", Dump())
        row = {"lib": os.path.basename(lib), "cugen_rc": crc, "cugen_s": cs, "cugen_kib": ckb,
               "cuobjdump_rc": orc, "cuobjdump_s": osec, "cuobjdump_kib": okb, "note": ""}
        modules = []
        if crc == 0:
            with open(tmp.name) as f:
                modules = json.load(f)
        else:
            row["note"] = "cugen: " + cerr
        if orc != 0 and not dump.layouts:
            row["note"] = (row["note"] + "; " if row["note"] else "") + "cuobjdump: " + oerr
        kernels, targets, params, mism, det = compare(dump, modules)
        warnings = sum(len(m.get("warnings") or []) for m in modules)
        cugen_kernels = sum(len(m.get("kernels", [])) for m in modules)
        row.update(kernels=kernels, cugen_kernels=cugen_kernels, targets=targets, params=params,
                   mismatches=mism, warnings=warnings)
        for line in det[:details]:
            print("  %s: %s" % (os.path.basename(lib), line), flush=True)
        return row
    finally:
        os.unlink(tmp.name)


def table(rows):
    head = ("library", "kernels", "cugen", "k-targets", "params", "mismatch", "cugen s", "cugen MiB",
            "cuobjdump s", "cuobjdump MiB", "mem ratio", "note")
    out = [head]
    tot = [0, 0, 0, 0, 0, 0.0, 0, 0.0, 0]
    worst = 0.0
    for r in rows:
        ratio = mem_ratio(r)
        worst = max(worst, ratio)
        out.append((r["lib"], str(r["kernels"]), str(r["cugen_kernels"]), str(r["targets"]), str(r["params"]),
                    str(r["mismatches"]), "%.2f" % r["cugen_s"], "%.0f" % (r["cugen_kib"] / 1024),
                    "%.2f" % r["cuobjdump_s"], "%.0f" % (r["cuobjdump_kib"] / 1024), "%.2f" % ratio, r["note"]))
        for i, key in enumerate(("kernels", "cugen_kernels", "targets", "params", "mismatches")):
            tot[i] += r[key]
        tot[5] += r["cugen_s"]
        tot[6] = max(tot[6], r["cugen_kib"])
        tot[7] += r["cuobjdump_s"]
        tot[8] = max(tot[8], r["cuobjdump_kib"])
    out.append(("TOTAL (%d libraries; MiB, ratio: max)" % len(rows),) + tuple(str(x) for x in tot[:5]) +
               ("%.2f" % tot[5], "%.0f" % (tot[6] / 1024), "%.2f" % tot[7], "%.0f" % (tot[8] / 1024), "%.2f" % worst, ""))
    widths = [max(len(r[i]) for r in out) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i in (0, 11) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                     for r in out)


def mem_ratio(r):
    """cugen's peak RSS over cuobjdump's (the goal: at most 1 on every library)."""
    return r["cugen_kib"] / r["cuobjdump_kib"] if r["cuobjdump_kib"] else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cugen", default="cugen", help="the cugen binary")
    ap.add_argument("--dir", default="/usr/local/cuda/lib64", help="the libraries' directory")
    ap.add_argument("--details", type=int, default=5, help="mismatches to print per library")
    ap.add_argument("--selftest", action="store_true", help="print what the cuobjdump listings named read as")
    ap.add_argument("--jobs", type=int, default=1,
                    help="libraries checked at once (times are then measured under that load)")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if a.selftest:
        for path in a.files:
            with open(path) as f:
                d = parse_dump(f)
            print("FILE %s cubins %s" % (os.path.basename(path), " ".join("%s=%d" % kv for kv in sorted(d.cubins.items()))))
            for (k, arch), ls in sorted(d.layouts.items()):
                print("%s %s %s" % (k, arch, " / ".join(sorted(ls))))
        return 0
    libs = a.files or sorted(os.path.join(a.dir, n) for n in os.listdir(a.dir)
                             if ".so" in n and not os.path.islink(os.path.join(a.dir, n)))
    def one(lib):
        r = check(lib, a.cugen, a.details)
        print("LIB64 %s kernels=%d cugen=%d targets=%d params=%d mismatches=%d cugen=%.2fs/%dKiB cuobjdump=%.2fs/%dKiB %s"
              % (r["lib"], r["kernels"], r["cugen_kernels"], r["targets"], r["params"], r["mismatches"], r["cugen_s"],
                 r["cugen_kib"], r["cuobjdump_s"], r["cuobjdump_kib"], r["note"]), flush=True)
        return r

    # Threads suffice: the work is in the two child processes.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        rows = list(pool.map(one, libs))
    print()
    print(table(rows))
    # Both peaks start at _MEASURE's RSS at its fork (run_tool): a
    # difference within 2 MiB of it is noise, not a larger peak.
    over = [r for r in rows if r["cugen_kib"] > r["cuobjdump_kib"] + 2048]
    print("LIB64-MEM cugen's peak RSS at most cuobjdump's on %d of %d libraries%s" % (
        len(rows) - len(over), len(rows),
        "; above on " + ", ".join("%s (%.2fx)" % (r["lib"], mem_ratio(r)) for r in over) if over else ""))
    return 1 if any(r["mismatches"] or r["cugen_rc"] for r in rows) or over else 0


if __name__ == "__main__":
    sys.exit(main())
