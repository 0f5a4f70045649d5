#!/usr/bin/env python3
"""Record the tensor-core bundle on a GPU.

    go test ./rt/soft -run TestMMABundle -mma.bundle DIR             (here)
    python3 record.py DIR OUT                                          (on the GPU machine; run.sh)
    go test ./rt/soft -run TestMMAPack -mma.bundle DIR -mma.record OUT  (here: updates *.zip)

Each kernel k/NNN.ptx is compiled with nvcc -cubin for sm_90a (its SASS
tensor-core opcodes go to OUT/sass.txt), then launched as k(in, out) with
the manifest's grid and block, in/out in device memory, out pre-filled with
0xA5 bytes; OUT/k/NNN.out receives the output and OUT/status.json one line
per kernel. A kernel that fails is recorded and the others still run (a
failure that poisons the context restarts the worker after it).
"""
import concurrent.futures
import ctypes
import json
import os
import re
import subprocess
import sys

STICKY = {700, 701, 702, 714, 715, 716, 717, 718, 719, 720}


class CudaError(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


def compile_one(bundle, out, e):
    ptx = os.path.join(bundle, e["file"] + ".ptx")
    cubin = os.path.join(out, e["file"] + ".cubin")
    r = subprocess.run(["nvcc", "-cubin", "-arch=sm_90a", "-o", cubin, ptx], capture_output=True, text=True)
    if r.returncode != 0:
        return e["name"], None, (r.stderr.strip().splitlines() or ["nvcc failed"])[0][:300]
    s = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout
    ops = {}
    for m in re.finditer(r"\b((?:HMMA|IMMA|DMMA|BMMA|HGMMA|LDSM|STSM|MOVM|QMMA|OMMA|F2FP|HFMA2\.MMA)[.A-Z0-9_]*)", s):
        ops[m.group(1)] = ops.get(m.group(1), 0) + 1
    return e["name"], cubin, " ".join("%s×%d" % (k, v) for k, v in sorted(ops.items()))


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


def main():
    bundle, out = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3 and sys.argv[3] == "--worker":
        worker(bundle, out, int(sys.argv[4]), os.path.join(out, "status.jsonl"))
        return
    os.makedirs(os.path.join(out, "k"), exist_ok=True)
    man = json.load(open(os.path.join(bundle, "manifest.json")))
    comp, sass = {}, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 8) as ex:
        for name, cubin, info in ex.map(lambda e: compile_one(bundle, out, e), man):
            comp[name] = (cubin, info)
            sass.append("%s\t%s" % (name, info if cubin else "COMPILE ERROR " + info))
    json.dump(comp, open(os.path.join(out, "compile.json"), "w"))
    open(os.path.join(out, "sass.txt"), "w").write("\n".join(sass) + "\n")
    status = os.path.join(out, "status.jsonl")
    open(status, "w").close()
    start = 0
    while start < len(man):
        subprocess.run([sys.executable, __file__, bundle, out, "--worker", str(start)])
        done = [json.loads(l) for l in open(status) if l.strip()]
        nxt = (done[-1]["i"] + 1) if done else 0
        if nxt <= start:  # the kernel at start took the worker down
            with open(status, "a") as st:
                st.write(json.dumps({"i": start, "name": man[start]["name"], "err": "worker died"}) + "\n")
            nxt = start + 1
        start = nxt
    done = [json.loads(l) for l in open(status) if l.strip()]
    ok = sum(1 for d in done if d.get("ok"))
    print("kernels: %d, ran: %d, failed: %d" % (len(man), ok, len(done) - ok))
    for d in done:
        if not d.get("ok"):
            print("FAIL %-70s %s" % (d["name"], d["err"][:160]))
    for c in [l for l in sass if re.match(r"(mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16|mma\.sync\.aligned\.m8n8k4\.row\.col\.f32\.f16|mma\.sync\.aligned\.m16n8k16\.row\.col\.f64|mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e4m3|wmma\.mma\.sync\.aligned\.row\.col\.m16n16k16\.f32\.f32\t|wmma\.mma\.sync\.aligned\.row\.col\.m8n8k4\.f64|mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32)", l)]:
        print("SASS", c)


if __name__ == "__main__":
    main()
