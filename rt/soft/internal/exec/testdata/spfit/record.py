#!/usr/bin/env python3
"""Record the spfit bundle (sparse mma.sp and wgmma.mma_async.sp) on a GPU.

    go test ./rt/soft -run TestSpfitBundle -spfit.bundle DIR      (here)
    python3 record.py DIR OUT                                     (on the GPU machine; run.sh)

Each kernel k/NNN.ptx is compiled on its own with nvcc -cubin for sm_90a
(a form nvcc/ptxas refuses is logged in OUT/compile.log and skipped; its
SASS tensor-core opcodes go to OUT/sass.txt), then launched as k(in, out)
with the manifest's grid and block, in/out in device memory, out
pre-filled with 0xA5 bytes; OUT/k/NNN.out receives the output and
OUT/status.jsonl one line per kernel. A kernel that fails is recorded and
the others still run: a failure that poisons the context, or a kernel that
hangs (no progress for HANG seconds), restarts the worker after it.
"""
import concurrent.futures
import ctypes
import json
import os
import re
import subprocess
import sys
import time

STICKY = {700, 701, 702, 714, 715, 716, 717, 718, 719, 720}
HANG = 15  # seconds without progress before a worker is killed
BUDGET = 150  # seconds for the whole run, compile included


class CudaError(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


def compile_one(bundle, out, e):
    ptx = os.path.join(bundle, e["file"] + ".ptx")
    cubin = os.path.join(out, e["file"] + ".cubin")
    try:
        r = subprocess.run(["nvcc", "-cubin", "-arch=sm_90a", "-o", cubin, ptx], capture_output=True, text=True, timeout=60)
    except Exception as ex:  # timeout or nvcc missing
        return e["name"], None, "nvcc: %s" % ex, str(ex)
    if r.returncode != 0:
        err = r.stderr.strip()
        lines = err.splitlines() or ["nvcc failed"]
        first = ([l for l in lines if "error" in l] or lines)[0]
        return e["name"], None, first[:300], err
    try:
        s = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True, timeout=60).stdout
    except Exception:
        s = ""
    ops = {}
    for m in re.finditer(r"\b((?:HMMA|IMMA|DMMA|BMMA|HGMMA|IGMMA|QGMMA|GMMA|LDSM|STSM|MOVM|QMMA|OMMA|F2FP|HFMA2\.MMA)[.A-Z0-9_]*)", s):
        ops[m.group(1)] = ops.get(m.group(1), 0) + 1
    return e["name"], cubin, " ".join("%s×%d" % (k, v) for k, v in sorted(ops.items())), r.stderr.strip()


def worker(bundle, out, start, status_path):
    cu = ctypes.CDLL("libcuda.so.1")
    P = ctypes.POINTER
    cu.cuMemAlloc_v2.argtypes = [P(ctypes.c_uint64), ctypes.c_size_t]
    cu.cuMemFree_v2.argtypes = [ctypes.c_uint64]
    cu.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
    cu.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
    cu.cuMemsetD8_v2.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t]
    cu.cuModuleLoadData.argtypes = [P(ctypes.c_void_p), ctypes.c_char_p]
    cu.cuModuleGetFunction.argtypes = [P(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p]
    cu.cuModuleUnload.argtypes = [ctypes.c_void_p]
    cu.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p, P(ctypes.c_void_p), P(ctypes.c_void_p)]

    def check(r, what):
        if r != 0:
            s = ctypes.c_char_p()
            cu.cuGetErrorName(r, ctypes.byref(s))
            raise CudaError(r, "%s: %s" % (what, s.value.decode() if s.value else r))

    check(cu.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
    check(cu.cuCtxSetCurrent(ctx), "set current")
    man = json.load(open(os.path.join(bundle, "manifest.json")))
    comp = json.load(open(os.path.join(out, "compile.json")))
    with open(status_path, "a") as st:
        for i in range(start, len(man)):
            e = man[i]
            c = comp.get(e["name"])
            if c is None or c[0] is None:
                st.write(json.dumps({"i": i, "name": e["name"], "err": "compile: " + (c[1] if c else "?")}) + "\n")
                st.flush()
                continue
            try:
                data = open(os.path.join(bundle, e["file"] + ".in"), "rb").read()
                mod = ctypes.c_void_p()
                check(cu.cuModuleLoadData(ctypes.byref(mod), open(c[0], "rb").read()), "load")
                fn = ctypes.c_void_p()
                check(cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"k"), "function")
                nin, nout = max(len(data), 8), e["grid"] * e["out"]
                din, dout = ctypes.c_uint64(), ctypes.c_uint64()
                check(cu.cuMemAlloc_v2(ctypes.byref(din), nin), "alloc")
                check(cu.cuMemAlloc_v2(ctypes.byref(dout), nout), "alloc")
                check(cu.cuMemcpyHtoD_v2(din.value, data, len(data)), "copy in")
                check(cu.cuMemsetD8_v2(dout.value, 0xA5, nout), "memset")
                a, b = ctypes.c_uint64(din.value), ctypes.c_uint64(dout.value)
                args = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.byref(a), ctypes.c_void_p), ctypes.cast(ctypes.byref(b), ctypes.c_void_p))
                check(cu.cuLaunchKernel(fn, e["grid"], 1, 1, e["block"], 1, 1, 0, None, args, None), "launch")
                check(cu.cuCtxSynchronize(), "run")
                buf = ctypes.create_string_buffer(nout)
                check(cu.cuMemcpyDtoH_v2(buf, dout.value, nout), "copy out")
                open(os.path.join(out, e["file"] + ".out"), "wb").write(buf.raw)
                cu.cuMemFree_v2(din.value)
                cu.cuMemFree_v2(dout.value)
                cu.cuModuleUnload(mod)
                st.write(json.dumps({"i": i, "name": e["name"], "ok": True}) + "\n")
            except CudaError as err:
                st.write(json.dumps({"i": i, "name": e["name"], "err": str(err)}) + "\n")
                st.flush()
                if err.code in STICKY:
                    sys.exit(3)
            st.flush()


def read_status(path):
    out = []
    for l in open(path):
        try:
            out.append(json.loads(l))
        except ValueError:
            pass
    return out


def main():
    t0 = time.time()
    bundle, out = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3 and sys.argv[3] == "--worker":
        worker(bundle, out, int(sys.argv[4]), os.path.join(out, "status.jsonl"))
        return
    os.makedirs(os.path.join(out, "k"), exist_ok=True)
    man = json.load(open(os.path.join(bundle, "manifest.json")))
    comp, sass, clog = {}, [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 8) as ex:
        for name, cubin, info, err in ex.map(lambda e: compile_one(bundle, out, e), man):
            comp[name] = (cubin, info)
            sass.append("%s\t%s" % (name, info if cubin else "COMPILE ERROR " + info))
            if err:
                clog.append("== %s (%s)\n%s\n" % (name, "compiled" if cubin else "REFUSED", err))
    json.dump(comp, open(os.path.join(out, "compile.json"), "w"))
    open(os.path.join(out, "sass.txt"), "w").write("\n".join(sass) + "\n")
    open(os.path.join(out, "compile.log"), "w").write("".join(clog))
    nref = sum(1 for c in comp.values() if c[0] is None)
    print("compiled in %.0fs: %d forms, %d refused by nvcc/ptxas" % (time.time() - t0, len(man), nref))
    sys.stdout.flush()
    status = os.path.join(out, "status.jsonl")
    open(status, "w").close()
    start = 0
    while start < len(man):
        if time.time() - t0 > BUDGET:
            with open(status, "a") as st:
                for i in range(start, len(man)):
                    st.write(json.dumps({"i": i, "name": man[i]["name"], "err": "not run: time budget spent"}) + "\n")
            break
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), bundle, out, "--worker", str(start)])
        last, seen = time.time(), len(read_status(status))
        hung = False
        while p.poll() is None:
            time.sleep(0.2)
            n = len(read_status(status))
            if n != seen:
                seen, last = n, time.time()
            elif time.time() - last > HANG or time.time() - t0 > BUDGET + 10:
                p.kill()
                p.wait()
                hung = True
        done = read_status(status)
        nxt = (done[-1]["i"] + 1) if done else 0
        if nxt <= start or hung:  # the kernel at nxt took the worker down or hung
            k = max(nxt, start)
            if k < len(man):
                with open(status, "a") as st:
                    st.write(json.dumps({"i": k, "name": man[k]["name"], "err": "hung (killed)" if hung else "worker died"}) + "\n")
            nxt = k + 1
        start = nxt
    done = read_status(status)
    ok = sum(1 for d in done if d.get("ok"))
    print("kernels: %d, ran: %d, failed: %d, %.0fs" % (len(man), ok, len(done) - ok, time.time() - t0))
    for d in done:
        if not d.get("ok"):
            print("FAIL %-80s %s" % (d["name"], d["err"][:160]))
    for l in sass:
        if re.search(r"sel0\t|probe", l):
            print("SASS", l)


if __name__ == "__main__":
    main()
