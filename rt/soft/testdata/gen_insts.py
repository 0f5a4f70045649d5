import json, struct, math
from fractions import Fraction as F

def f2b(x): return struct.unpack('<I', struct.pack('<f', x))[0]
def b2f(b): return struct.unpack('<f', struct.pack('<I', b))[0]
def d2b(x): return struct.unpack('<Q', struct.pack('<d', x))[0]
def b2d(b): return struct.unpack('<d', struct.pack('<Q', b))[0]

def round_fmt(q, mode, mant, ebits):
    # q: Fraction exact value; returns bits of the format
    bias = (1 << (ebits-1)) - 1
    sign = 0
    if q < 0: sign = 1; q = -q
    sbit = sign << (mant+ebits)
    if q == 0:
        return sbit
    emin = 1 - bias
    # find e: 2^e <= q < 2^(e+1)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if F(2)**e > q: e -= 1
    if F(2)**(e+1) <= q: e += 1
    if e < emin: e = emin
    n = q / F(2)**(e - mant)
    fl = n.numerator // n.denominator
    frac = n - fl
    m = fl
    neg = sign == 1
    inc = False
    if mode == 'rn': inc = frac > F(1,2) or (frac == F(1,2) and m & 1)
    elif mode == 'rm': inc = frac > 0 and neg
    elif mode == 'rp': inc = frac > 0 and not neg
    if inc: m += 1
    if m == 1 << (mant+1):
        m >>= 1; e += 1
    if e > bias:
        if mode == 'rz' or (mode == 'rm' and not neg) or (mode == 'rp' and neg):
            return sbit | ((1<<ebits)-2) << mant | ((1<<mant)-1)
        return sbit | ((1<<ebits)-1) << mant
    if m < (1 << mant):
        return sbit | m
    return sbit | (e+bias) << mant | (m - (1 << mant))

def r32(q, mode='rn'): return round_fmt(q, mode, 23, 8)
def r64(q, mode='rn'): return round_fmt(q, mode, 52, 11)
def r16(q, mode='rn'): return round_fmt(q, mode, 10, 5)
def rbf(q, mode='rn'): return round_fmt(q, mode, 7, 8)
def Fb(b): return F(b2f(b))
def Fd(b): return F(b2d(b))
def h2q(b):
    e = (b >> 10) & 31; m = b & 1023; s = -1 if b >> 15 else 1
    if e == 0: return s * F(m, 1 << 24)
    return s * F(m + 1024, 1) * F(2)**(e - 25)

def hx(v, w=32): return "0x%x" % (v & ((1 << w) - 1))

cases = []
def case(name, ptx, ins, outs, rows, tol=None, block=None):
    c = {"name": name, "ptx": ptx, "in": ins, "out": outs,
         "rows": [{"args": [hx(a, 64) if not isinstance(a, str) else a for a in r[0]],
                   "expected": [hx(x, 64) if not isinstance(x, str) else x for x in r[1]]} for r in rows]}
    if tol: c["tolerance"] = tol
    if block: c["block"] = block
    cases.append(c)

M32 = 0xffffffff
def s32(x): return x & M32

# --- integer ---
case("add.s32 wraps", "add.s32 %d0, %a0, %a1;", ["s32","s32"], ["s32"],
     [((0x7fffffff, 1), (0x80000000,)), ((s32(-5), 3), (s32(-2),))])
case("sub.u32 wraps", "sub.u32 %d0, %a0, %a1;", ["u32","u32"], ["u32"], [((0, 1), (M32,))])
case("add.sat.s32", "add.sat.s32 %d0, %a0, %a1;", ["s32","s32"], ["s32"],
     [((0x7fffffff, 1), (0x7fffffff,)), ((0x80000000, s32(-1)), (0x80000000,)), ((5, 6), (11,))])
case("mul.hi.s32", "mul.hi.s32 %d0, %a0, %a1;", ["s32","s32"], ["s32"],
     [((s32(-1), 0x7fffffff), (M32,)), ((0x40000000, 8), (2,))])
case("mul.hi.u32", "mul.hi.u32 %d0, %a0, %a1;", ["u32","u32"], ["u32"], [((M32, M32), (0xfffffffe,))])
case("mul.wide.s32", "mul.wide.s32 %d0, %a0, %a1;", ["s32","s32"], ["s64"],
     [((s32(-1), 0x7fffffff), ((-0x7fffffff) & (2**64-1),))])
case("mul.wide.u16", "mul.wide.u16 %d0, %a0, %a1;", ["u16","u16"], ["u32"], [((0xffff, 0xffff), (0xfffe0001,))])
case("mul.hi.u64", "mul.hi.u64 %d0, %a0, %a1;", ["u64","u64"], ["u64"], [((2**64-1, 2**64-1), (2**64-2,))])
case("mul.hi.s64", "mul.hi.s64 %d0, %a0, %a1;", ["s64","s64"], ["s64"], [((2**64-1, 5), (2**64-1,)), ((2**62, 8), (2,))])
case("mad.lo.s32", "mad.lo.s32 %d0, %a0, %a1, %a2;", ["s32","s32","s32"], ["s32"], [((7, s32(-3), 100), (79,))])
case("div.s32 truncates", "div.s32 %d0, %a0, %a1;", ["s32","s32"], ["s32"],
     [((s32(-7), 2), (s32(-3),)), ((7, s32(-2)), (s32(-3),)), ((0x80000000, M32), (0x80000000,))])
case("rem.s32 sign of dividend", "rem.s32 %d0, %a0, %a1;", ["s32","s32"], ["s32"],
     [((s32(-7), 2), (s32(-1),)), ((7, s32(-2)), (1,))])
case("div.u32 by zero", "div.u32 %d0, %a0, %a1;", ["u32","u32"], ["u32"], [((5, 0), (M32,)), ((100, 7), (14,))])
case("rem.u32 by zero", "rem.u32 %d0, %a0, %a1;", ["u32","u32"], ["u32"], [((5, 0), (5,))])
case("shl.b32 clamps the shift", "shl.b32 %d0, %a0, %a1;", ["b32","u32"], ["b32"], [((1, 31), (0x80000000,)), ((1, 32), (0,)), ((1, 200), (0,))])
case("shr.s32 fills with the sign", "shr.s32 %d0, %a0, %a1;", ["s32","u32"], ["s32"], [((0x80000000, 40), (M32,)), ((0x80000000, 4), (0xf8000000,))])
case("shr.u32", "shr.u32 %d0, %a0, %a1;", ["u32","u32"], ["u32"], [((0x80000000, 31), (1,)), ((0x80000000, 32), (0,))])
case("shl.b64", "shl.b64 %d0, %a0, %a1;", ["b64","u32"], ["b64"], [((1, 63), (2**63,)), ((1, 64), (0,))])
case("bfe.u32", "bfe.u32 %d0, %a0, %a1, %a2;", ["u32","u32","u32"], ["u32"], [((0xabcd1234, 8, 12), (0xd12,)), ((0xabcd1234, 28, 8), (0xa,)), ((0xabcd1234, 4, 0), (0,))])
case("bfe.s32", "bfe.s32 %d0, %a0, %a1, %a2;", ["s32","u32","u32"], ["s32"], [((0xabcd1234, 8, 12), (0xfffffd12,)), ((0x00000f00, 8, 4), (M32,)), ((0x80000000, 28, 8), (0xfffffff8,))])
case("bfi.b32", "bfi.b32 %d0, %a0, %a1, %a2, %a3;", ["b32","b32","u32","u32"], ["b32"], [((0xff, 0x12345678, 8, 8), (0x1234ff78,)), ((0xf, 0, 30, 8), (0xc0000000,))])
case("prmt.b32", "prmt.b32 %d0, %a0, %a1, %a2;", ["b32","b32","b32"], ["b32"],
     [((0x33221100, 0x77665544, 0x3210), (0x33221100,)), ((0x33221100, 0x77665544, 0x7654), (0x77665544,)), ((0x8877ff00, 0, 0x00b9), (0xffff,))])
case("prmt.b32.b4e", "prmt.b32.b4e %d0, %a0, %a1, %a2;", ["b32","b32","b32"], ["b32"], [((0x33221100, 0x77665544, 0), (0x55667700,))])
case("lop3.b32", "lop3.b32 %d0, %a0, %a1, %a2, 0x96;", ["b32","b32","b32"], ["b32"], [((0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa), (0x96969696,))])
case("lop3.b32 majority", "lop3.b32 %d0, %a0, %a1, %a2, 0xe8;", ["b32","b32","b32"], ["b32"], [((0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa), (0xe8e8e8e8,))])
case("shf.l.wrap.b32", "shf.l.wrap.b32 %d0, %a0, %a1, %a2;", ["b32","b32","u32"], ["b32"], [((0x80000000, 0x1, 4), (0x18,)), ((0x80000000, 0x1, 36), (0x18,))])
case("shf.r.clamp.b32", "shf.r.clamp.b32 %d0, %a0, %a1, %a2;", ["b32","b32","u32"], ["b32"], [((0x0, 0x1, 4), (0x10000000,)), ((0x0, 0x1, 40), (0x1,))])
case("popc/clz/brev", "popc.b32 %d0, %a0; clz.b32 %d1, %a0; brev.b32 %d2, %a0;", ["b32"], ["u32","u32","b32"],
     [((0,), (0, 32, 0)), ((0x80000001,), (2, 0, 0x80000001)), ((0x00f0,), (4, 24, 0x0f000000))])
case("bfind", "bfind.u32 %d0, %a0; bfind.s32 %d1, %a0; bfind.shiftamt.u32 %d2, %a0;", ["u32"], ["u32","u32","u32"],
     [((0,), (M32, M32, M32)), ((M32,), (31, M32, 0)), ((0x100,), (8, 8, 23)), ((0xfffffeff,), (31, 8, 0))])
case("abs/neg/min/max s32", "abs.s32 %d0, %a0; neg.s32 %d1, %a0; min.s32 %d2, %a0, %a1; max.u32 %d3, %a0, %a1;", ["s32","s32"], ["s32","s32","s32","u32"],
     [((0x80000000, 5), (0x80000000, 0x80000000, 0x80000000, 0x80000000)), ((s32(-3), 5), (3, 3, s32(-3), s32(-3)))])
case("cvt integer truncation and extension", "cvt.s8.s32 %d0, %a0; cvt.s64.s32 %d1, %a0; cvt.u16.u32 %d2, %a0; cvt.u64.u32 %d3, %a0;", ["s32"], ["s32","s64","u16","u64"],
     [((0x1ff,), (M32, 0x1ff, 0x1ff, 0x1ff)), ((0x80000000,), (0, 0xffffffff80000000, 0, 0x80000000))])
case("cvt.sat integer", "cvt.sat.u8.s32 %d0, %a0; cvt.sat.s16.s32 %d1, %a0; cvt.sat.u32.s32 %d2, %a0;", ["s32"], ["u32","s32","u32"],
     [((s32(-5),), (0, s32(-5), 0)), ((300,), (255, 300, 300)), ((100000,), (255, 0x7fff, 100000)), ((s32(-100000),), (0, 0xffff8000, 0))])
case("add.cc/addc 64-bit carry", "add.cc.u32 %d0, %a0, %a2; addc.u32 %d1, %a1, %a3;", ["u32","u32","u32","u32"], ["u32","u32"],
     [((M32, 0, 1, 0), (0, 1)), ((5, 7, 6, 1), (11, 8))])

# --- floats ---
one = 0x3f800000
a = f2b(1 + 2**-12); c = f2b(2.0**-70)
exact = Fb(a)*Fb(a) + Fb(c)
case("fma.rn.f32 is correctly rounded (double-rounding counterexample)", "fma.rn.f32 %d0, %a0, %a1, %a2;", ["f32","f32","f32"], ["f32"],
     [((a, a, c), (r32(exact),))])
assert r32(exact) == 0x3f801001
def fmarows(mode):
    rows = []
    for (x, y, z) in [(1/3, 3.0, -1.0), (1.1, 1.3, 1e-9), (-1.1, 1.3, -1e-9), (3.4e38, 2.0, -3.4e38), (1e-20, 1e-20, 0.0), (1.0, 2.0**-24, 1.0)]:
        bx, by, bz = f2b(x), f2b(y), f2b(z)
        q = Fb(bx)*Fb(by) + Fb(bz)
        rows.append(((bx, by, bz), (r32(q, mode),)))
    return rows
for m in ["rn", "rz", "rm", "rp"]:
    case("fma.%s.f32" % m, "fma.%s.f32 %%d0, %%a0, %%a1, %%a2;" % m, ["f32","f32","f32"], ["f32"], fmarows(m))
def binrows(op, mode, pairs):
    rows = []
    for (x, y) in pairs:
        bx, by = f2b(x), f2b(y)
        if op == "add": q = Fb(bx) + Fb(by)
        elif op == "mul": q = Fb(bx) * Fb(by)
        elif op == "div": q = Fb(bx) / Fb(by)
        rows.append(((bx, by), (r32(q, mode),)))
    return rows
pairs = [(1.0, 2.0**-30), (-1.0, 2.0**-30), (1/3, 1/7), (3.0e38, 3.0e38), (-3.0e38, -3.0e38), (1.0, -1.0 + 2**-23)]
for m in ["rn", "rz", "rm", "rp"]:
    case("add.%s.f32" % m, "add.%s.f32 %%d0, %%a0, %%a1;" % m, ["f32","f32"], ["f32"], binrows("add", m, pairs))
    case("mul.%s.f32" % m, "mul.%s.f32 %%d0, %%a0, %%a1;" % m, ["f32","f32"], ["f32"], binrows("mul", m, [(1/3, 3.0), (1e30, 1e30), (1e-30, 1e-30), (-1.1, 1.3)]))
    case("div.%s.f32" % m, "div.%s.f32 %%d0, %%a0, %%a1;" % m, ["f32","f32"], ["f32"], binrows("div", m, [(1.0, 3.0), (-1.0, 3.0), (2.0, 7.0), (1e-38, 3.0)]))
case("add.rm.f32 exact zero is -0", "add.rm.f32 %d0, %a0, %a1;", ["f32","f32"], ["f32"], [((one, f2b(-1.0)), (0x80000000,))])
case("add.rn.f32 exact zero is +0", "add.rn.f32 %d0, %a0, %a1;", ["f32","f32"], ["f32"], [((one, f2b(-1.0)), (0,))])
def sqrtq(b, mode):
    # correctly rounded sqrt via integer sqrt on a scaled value
    x = Fb(b)
    lo, hi = F(0), max(x, F(1))
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid*mid <= x: lo = mid
        else: hi = mid
    # lo ~ sqrt(x) within 2^-200; rounding decisions are safe for these inputs
    return r32(lo if mode in ("rz", "rm") else hi, mode) if mode != "rn" else r32(lo, "rn")
for m in ["rn", "rz", "rm", "rp"]:
    case("sqrt.%s.f32" % m, "sqrt.%s.f32 %%d0, %%a0;" % m, ["f32"], ["f32"],
         [((f2b(x),), (sqrtq(f2b(x), m),)) for x in (2.0, 3.0, 0.1, 1e-40)])
case("rcp.rn.f32", "rcp.rn.f32 %d0, %a0;", ["f32"], ["f32"], [((f2b(3.0),), (r32(1/F(3)),)), ((0,), (0x7f800000,)), ((0x80000000,), (0xff800000,))])
NAN = 0x7fffffff
case("NaN results are canonical", "add.f32 %d0, %a0, %a1; mul.f32 %d1, %a0, %a1;", ["f32","f32"], ["f32","f32"],
     [((0xffc00001, one), (NAN, NAN)), ((0x7f800000, 0xff800000), (NAN, 0xff800000))])
case("min/max.f32 NaN and signed zero", "min.f32 %d0, %a0, %a1; max.f32 %d1, %a0, %a1; min.NaN.f32 %d2, %a0, %a1;", ["f32","f32"], ["f32","f32","f32"],
     [((0x7fc00000, one), (one, one, NAN)), ((0x7fc00000, 0x7fc00001), (NAN, NAN, NAN)), ((0x80000000, 0), (0x80000000, 0, 0x80000000)), ((f2b(-2.0), one), (f2b(-2.0), one, f2b(-2.0)))])
case(".ftz flushes subnormal inputs and results", "add.ftz.f32 %d0, %a0, %a1; add.f32 %d1, %a0, %a1; mul.ftz.f32 %d2, %a0, %a0;", ["f32","f32"], ["f32","f32","f32"],
     [((0x00000001, 0), (0, 1, 0)), ((0x80400000, 0x00000000), (0, 0x80400000, 0)), ((f2b(1e-20), 0), (f2b(1e-20), f2b(1e-20), 0))])
def cvti(x, mode, bits, signed):
    if x != x: return 0
    import math as mm
    if mm.isinf(x):
        r = x
    elif mode == "rni":
        r = round(x)  # python rounds half to even
    elif mode == "rzi": r = mm.trunc(x) if mm.isfinite(x) else x
    elif mode == "rmi": r = mm.floor(x) if mm.isfinite(x) else x
    else: r = mm.ceil(x) if mm.isfinite(x) else x
    if signed:
        lo, hi = -(1 << (bits-1)), (1 << (bits-1)) - 1
    else:
        lo, hi = 0, (1 << bits) - 1
    r = max(lo, min(hi, r)) if not mm.isinf(r) else (hi if r > 0 else lo)
    return int(r) & ((1 << bits) - 1)
vals = [2.5, -2.5, 3.5, -0.5, 0.7, -0.7, 3e9, -3e9, float('nan'), float('inf')]
for m in ["rni", "rzi", "rmi", "rpi"]:
    case("cvt.%s.s32.f32" % m, "cvt.%s.s32.f32 %%d0, %%a0;" % m, ["f32"], ["s32"], [((f2b(x),), (cvti(x, m, 32, True),)) for x in vals])
    case("cvt.%s.u32.f32" % m, "cvt.%s.u32.f32 %%d0, %%a0;" % m, ["f32"], ["u32"], [((f2b(x),), (cvti(x, m, 32, False),)) for x in vals])
case("cvt.rzi.s64.f64", "cvt.rzi.s64.f64 %d0, %a0;", ["f64"], ["s64"], [((d2b(-1e19),), (2**63,)), ((d2b(1e19),), (2**63-1,)), ((d2b(-7.9),), ((-7) & (2**64-1),))])
def i2f(v, mode, w=32):
    return r32(F(v), mode) if w == 32 else r64(F(v), mode)
for m in ["rn", "rz", "rm", "rp"]:
    case("cvt.%s.f32.s64" % m, "cvt.%s.f32.s64 %%d0, %%a0;" % m, ["s64"], ["f32"],
         [((v & (2**64-1),), (i2f(v, m),)) for v in (2**53+1, -(2**53+1), 2**63-1, -2**63, 16777217, -16777217, 3)])
    case("cvt.%s.f32.u32" % m, "cvt.%s.f32.u32 %%d0, %%a0;" % m, ["u32"], ["f32"], [((v,), (i2f(v, m),)) for v in (M32, 16777217, 7)])
case("cvt f32 to integral f32", "cvt.rni.f32.f32 %d0, %a0; cvt.rmi.f32.f32 %d1, %a0; cvt.rpi.f32.f32 %d2, %a0; cvt.rzi.f32.f32 %d3, %a0;", ["f32"], ["f32","f32","f32","f32"],
     [((f2b(2.5),), (f2b(2.0), f2b(2.0), f2b(3.0), f2b(2.0))), ((f2b(-1.5),), (f2b(-2.0), f2b(-2.0), f2b(-1.0), f2b(-1.0))), ((f2b(-0.3),), (0x80000000, f2b(-1.0), 0x80000000, 0x80000000))])
case("cvt.sat.f32.f32", "cvt.sat.f32.f32 %d0, %a0;", ["f32"], ["f32"], [((NAN,), (0,)), ((f2b(1.5),), (one,)), ((f2b(-2.0),), (0,)), ((f2b(0.25),), (f2b(0.25),))])
for m in ["rn", "rz", "rm", "rp"]:
    case("cvt.%s.f16.f32" % m, "cvt.%s.f16.f32 %%d0, %%a0;" % m, ["f32"], ["f16"],
         [((f2b(x),), (r16(Fb(f2b(x)), m),)) for x in (1/3, -1/3, 70000.0, -70000.0, 1e-6, 65519.0, 65520.0)])
    case("cvt.%s.f32.f64" % m, "cvt.%s.f32.f64 %%d0, %%a0;" % m, ["f64"], ["f32"],
         [((d2b(x),), (r32(Fd(d2b(x)), m),)) for x in (0.1, -0.1, 1e39, 1e-46)])
case("cvt.rn.bf16.f32", "cvt.rn.bf16.f32 %d0, %a0;", ["f32"], ["bf16"], [((f2b(x),), (rbf(Fb(f2b(x))),)) for x in (1/3, 1.00390625, 1.01171875, -3e38)])
case("cvt.f32.f16 is exact", "cvt.f32.f16 %d0, %a0;", ["f16"], ["f32"], [((0x3555,), (f2b(float(h2q(0x3555))),)), ((0x0001,), (f2b(2.0**-24),)), ((0x7c00,), (0x7f800000,))])
case("cvt.rn.f16x2.f32 packs a high", "cvt.rn.f16x2.f32 %d0, %a0, %a1;", ["f32","f32"], ["b32"], [((f2b(1.0), f2b(2.0)), (0x3c004000,))])
case("setp ordered/unordered with NaN", "setp.lt.f32 %d0, %a0, %a1; setp.ltu.f32 %d1, %a0, %a1; setp.ne.f32 %d2, %a0, %a1; setp.neu.f32 %d3, %a0, %a1; setp.nan.f32 %d4, %a0, %a1;",
     ["f32","f32"], ["pred","pred","pred","pred","pred"],
     [((NAN, one), (0, 1, 0, 1, 1)), ((0, one), (1, 1, 1, 1, 0)), ((one, one), (0, 0, 0, 0, 0))])
case("setp with .and/.or and two results", "setp.gt.and.s32 %d0|%d1, %a0, %a1, %a2;", ["s32","s32","pred"], ["pred","pred"],
     [((5, 3, 1), (1, 0)), ((5, 3, 0), (0, 0)), ((1, 3, 1), (0, 1))])
case("selp and set", "selp.b32 %d0, %a0, %a1, %a2; set.lt.u32.f32 %d1, 0f3f800000, 0f40000000;", ["b32","b32","pred"], ["b32","u32"],
     [((1, 2, 1), (1, M32)), ((1, 2, 0), (2, M32))])
case("testp", "testp.subnormal.f32 %d0, %a0; testp.finite.f32 %d1, %a0; testp.notanumber.f32 %d2, %a0;", ["f32"], ["pred","pred","pred"],
     [((1,), (1, 1, 0)), ((0x7f800000,), (0, 0, 0)), ((NAN,), (0, 0, 1)), ((one,), (0, 1, 0))])
case("copysign/abs/neg f32", "copysign.f32 %d0, %a0, %a1; abs.f32 %d1, %a1; neg.f32 %d2, %a1;", ["f32","f32"], ["f32","f32","f32"],
     [((f2b(-1.0), f2b(2.0)), (f2b(-2.0), f2b(2.0), f2b(-2.0))), ((0, 0xffc00000), (0x7fc00000, 0x7fc00000, 0x7fc00000))])
# approximations: tolerances from soft-backend.md §3.4
def ex2(x): return 2.0**x
apx = [0.5, 1.7, -3.25, 10.0]
case("ex2.approx.f32", "ex2.approx.f32 %d0, %a0;", ["f32"], ["f32"], [((f2b(x),), (f2b(ex2(b2f(f2b(x)))),)) for x in apx], tol={"ulp": 2})
case("lg2.approx.f32", "lg2.approx.f32 %d0, %a0;", ["f32"], ["f32"], [((f2b(x),), (f2b(math.log2(b2f(f2b(x)))),)) for x in (0.3, 2.0, 77.0, 1e-20)], tol={"abs": 4e-6})
case("rsqrt.approx.f32", "rsqrt.approx.f32 %d0, %a0;", ["f32"], ["f32"], [((f2b(x),), (f2b(1/math.sqrt(b2f(f2b(x)))),)) for x in (0.3, 2.0, 77.0)], tol={"ulp": 2})
case("sin/cos.approx.f32", "sin.approx.f32 %d0, %a0; cos.approx.f32 %d1, %a0;", ["f32"], ["f32","f32"],
     [((f2b(x),), (f2b(math.sin(b2f(f2b(x)))), f2b(math.cos(b2f(f2b(x)))))) for x in (0.3, -2.0, 3.0)], tol={"abs": 1e-6})
case("tanh.approx.f32", "tanh.approx.f32 %d0, %a0;", ["f32"], ["f32"], [((f2b(x),), (f2b(math.tanh(b2f(f2b(x)))),)) for x in (0.3, -2.0, 5.0)], tol={"rel": 2**-10})
case("rcp.approx.ftz.f32", "rcp.approx.ftz.f32 %d0, %a0;", ["f32"], ["f32"], [((f2b(x),), (f2b(1/b2f(f2b(x))),)) for x in (3.0, -7.0, 0.1)], tol={"ulp": 1})
# f64
def f64rows(op, mode, triples):
    rows = []
    for t in triples:
        bs = [d2b(v) for v in t]
        q = {"fma": lambda: Fd(bs[0])*Fd(bs[1])+Fd(bs[2]), "add": lambda: Fd(bs[0])+Fd(bs[1]), "div": lambda: Fd(bs[0])/Fd(bs[1]), "mul": lambda: Fd(bs[0])*Fd(bs[1])}[op]()
        rows.append((tuple(bs), (r64(q, mode),)))
    return rows
for m in ["rn", "rz", "rm", "rp"]:
    case("fma.%s.f64" % m, "fma.%s.f64 %%d0, %%a0, %%a1, %%a2;" % m, ["f64","f64","f64"], ["f64"], f64rows("fma", m, [(0.1, 0.3, -0.03), (1/3, 3.0, -1.0), (1e300, 1e10, -1e308)]))
    case("add.%s.f64" % m, "add.%s.f64 %%d0, %%a0, %%a1;" % m, ["f64","f64"], ["f64"], f64rows("add", m, [(1.0, 2.0**-60), (-1.0, 2.0**-60), (0.1, 0.2)]))
    case("div.%s.f64" % m, "div.%s.f64 %%d0, %%a0, %%a1;" % m, ["f64","f64"], ["f64"], f64rows("div", m, [(1.0, 3.0), (-2.0, 3.0), (1.0, 10.0)]))
    case("mul.%s.f64" % m, "mul.%s.f64 %%d0, %%a0, %%a1;" % m, ["f64","f64"], ["f64"], f64rows("mul", m, [(0.1, 0.3), (-1/3, 3.0), (1e300, 1e10)]))
# half
def hrow(op, x, y, z=None):
    bx, by = r16(F(x)), r16(F(y))
    if op == "add": q = h2q(bx) + h2q(by)
    elif op == "mul": q = h2q(bx) * h2q(by)
    else:
        bz = r16(F(z)); q = h2q(bx) * h2q(by) + h2q(bz)
        return ((bx, by, bz), (r16(q),))
    return ((bx, by), (r16(q),))
case("add.f16", "add.f16 %d0, %a0, %a1;", ["f16","f16"], ["f16"], [hrow("add", 1.0, 2.0**-11), hrow("add", 1.0, 3*2.0**-12), hrow("add", 60000.0, 10000.0), hrow("add", 0.1, 0.2)])
case("mul.f16", "mul.f16 %d0, %a0, %a1;", ["f16","f16"], ["f16"], [hrow("mul", 0.1, 0.3), hrow("mul", 300.0, 300.0), hrow("mul", 1e-4, 1e-3)])
case("fma.rn.f16", "fma.rn.f16 %d0, %a0, %a1, %a2;", ["f16","f16","f16"], ["f16"], [hrow("fma", 0.1, 0.3, -0.03), hrow("fma", 1.0+2**-10, 1.0+2**-10, 2.0**-24)])
case("add.f16x2", "add.f16x2 %d0, %a0, %a1;", ["b32","b32"], ["b32"], [((0x3c004000, 0x3c003c00), (0x40004200,))])

# --- warp operations (one warp; row = lane) ---
lanes = list(range(32))
case("shfl.sync.idx", "shfl.sync.idx.b32 %d0|%d1, %a0, %a1, 31, -1;", ["b32","u32"], ["b32","pred"],
     [((100 + l, (l * 7) % 32), (100 + (l*7) % 32, 1)) for l in lanes], block=32)
case("shfl.sync.up", "shfl.sync.up.b32 %d0|%d1, %a0, 3, 0, -1;", ["b32"], ["b32","pred"],
     [((100 + l,), (100 + (l - 3 if l >= 3 else l), 1 if l >= 3 else 0)) for l in lanes], block=32)
case("shfl.sync.down in segments of 8", "shfl.sync.down.b32 %d0|%d1, %a0, 2, 0x181f, -1;", ["b32"], ["b32","pred"],
     [((100 + l,), (100 + (l + 2 if (l % 8) + 2 <= 7 else l), 1 if (l % 8) + 2 <= 7 else 0)) for l in lanes], block=32)
case("shfl.sync.bfly", "shfl.sync.bfly.b32 %d0|%d1, %a0, 5, 31, -1;", ["b32"], ["b32","pred"],
     [((100 + l,), (100 + (l ^ 5), 1)) for l in lanes], block=32)
case("shfl reads every source before writing (dst = src)", "mov.b32 %d0, %a0; shfl.sync.idx.b32 %d0, %d0, %a1, 31, -1;", ["b32","u32"], ["b32"],
     [((l, 31 - l), (31 - l,)) for l in lanes], block=32)
ballot = sum(1 << l for l in lanes if l % 3 == 0)
case("vote.sync", "vote.sync.ballot.b32 %d0, %a0, -1; vote.sync.any.pred %d1, %a0, -1; vote.sync.all.pred %d2, %a0, -1; vote.sync.uni.pred %d3, %a0, -1;",
     ["pred"], ["b32","pred","pred","pred"], [((1 if l % 3 == 0 else 0,), (ballot, 1, 0, 0)) for l in lanes], block=32)
def matchany(vals, l): return sum(1 << j for j in lanes if vals[j] == vals[l])
mv = [l % 5 for l in lanes]
case("match.any.sync", "match.any.sync.b32 %d0, %a0, -1;", ["b32"], ["b32"], [((mv[l],), (matchany(mv, l),)) for l in lanes], block=32)
case("match.all.sync", "match.all.sync.b32 %d0|%d1, %a0, -1;", ["b32"], ["b32","pred"], [((7,), (M32, 1)) for l in lanes], block=32)
rv = [(l * 37) % 101 - 50 for l in lanes]
case("redux.sync", "redux.sync.min.s32 %d0, %a0, -1; redux.sync.add.s32 %d1, %a0, -1; redux.sync.or.b32 %d2, %a0, -1;", ["s32"], ["s32","s32","b32"],
     [((s32(rv[l]),), (s32(min(rv)), s32(sum(rv)), s32(eval('|'.join(str(s32(v)) for v in rv))))) for l in lanes], block=32)
case("activemask in a divergent branch", "mov.u32 %d0, 0; mov.u32 %d0, %laneid; setp.lt.u32 %d1, %d0, 10; mov.u32 %d0, 0; @!%d1 bra SKIP; activemask.b32 %d0; SKIP:", [], ["b32","pred"],
     [((), ((1 << 10) - 1 if l < 10 else 0, 1 if l < 10 else 0)) for l in lanes], block=32)

json.dump({"doc": "Per-instruction cases for rt/soft (see instr_test.go). Each case is a PTX snippet over input registers %a0.. and output registers %d0..; each row is one thread (rows of warp cases are lanes). Values are raw register bits in hex. 'source' says where the expected values come from: 'reference' = exact math (Python fractions, IEEE rounding), to be replaced by 'gpu' values recorded on hardware: go test -tags cudarecord -c -o x.test ./rt/soft, then on the GPU machine ./x.test -test.run TestInstrTable -instr.record=insts.json.",
           "source": "reference", "cases": cases}, open('/work/main/rt/soft/testdata/insts.json', 'w'), indent=1)
print(len(cases), "cases")
