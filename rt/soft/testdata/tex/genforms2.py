#!/usr/bin/env python3
# Emits forms2.inc for targeted.inc's third round (rec tex2 ... txq/offs/sustp/sured):
# TEX3_CASES (ktex forms 103-120), SUSTP_CASES (ksustp), SURED_CASES (ksured).
# Form numbers are shared with the Go replay tests, which decode them the same way.
out = []
defs = []
F = '"f"(__uint_as_float(c.%s))'
R = '"r"(c.%s)'
RES = 'o = make_uint4(__float_as_uint(a),__float_as_uint(b),__float_as_uint(d),__float_as_uint(e));'
def case(form, asm, ins, pred=False):
    outs = '"=f"(a),"=f"(b),"=f"(d),"=f"(e)'
    if pred:
        out.append('case %d: { float a,b,d,e; unsigned p; asm volatile("{ .reg .pred q; %s selp.u32 %%4, 1, 0, q; }" : %s, "=r"(p) : "l"(t), %s); %s o.w = p; } break; \\' % (asm, outs, ", ".join(ins), RES))
    else:
        out.append('case %d: { float a,b,d,e; asm volatile("%s" : %s : "l"(t), %s); %s } break; \\' % (form, asm, outs, ", ".join(ins), RES))
out.append("#define TEX3_CASES \\")
# 103: tex.2d with integer texel offsets (z, w as s32)
case(103, "tex.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6}], {%7,%8};", [F % "x", F % "y", R % "z", R % "w"])
# 104: tex.2d with a depth-compare operand (z)
case(104, "tex.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6}], %7;", [F % "x", F % "y", F % "z"])
# 105: tex.2d with offsets (z, w) and depth compare (w as float)
case(105, "tex.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6}], {%7,%7}, %8;", [F % "x", F % "y", R % "z", F % "w"])
# 106: tex.2d with a residency predicate: result channel w is the predicate (0/1)
out.append('case 106: { float a,b,d,e; unsigned p; asm volatile("{ .reg .pred q; tex.2d.v4.f32.f32 {%0,%1,%2,%3}|q, [%5, {%6,%7}]; selp.u32 %4, 1, 0, q; }" : "=f"(a),"=f"(b),"=f"(d),"=f"(e), "=r"(p) : "l"(t), ' + F % "x" + ', ' + F % "y" + '); ' + RES + ' o.w = p; } break; \\')
# 107: tld4.r.2d with offsets (z, w)
case(107, "tld4.r.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6}], {%7,%8};", [F % "x", F % "y", R % "z", R % "w"])
# 108-111: tld4.{r,g,b,a}.a2d (layer x, coords y z); 112-115: tld4.{r,g,b,a}.cube (x y z)
for k, comp in enumerate("rgba"):
    case(108 + k, "tld4.%s.a2d.v4.f32.f32 {%%0,%%1,%%2,%%3}, [%%4, {%%5,%%6,%%7,%%7}];" % comp, [R % "x", F % "y", F % "z"])
    case(112 + k, "tld4.%s.cube.v4.f32.f32 {%%0,%%1,%%2,%%3}, [%%4, {%%5,%%6,%%7,%%7}];" % comp, [F % "x", F % "y", F % "z"])
# 116 tex.grad.3d, 117 tex.grad.cube, 118 tex.grad.a2d, 119 tex.level.acube, 120 tex.grad.1d (gradients all w)
case(116, "tex.grad.3d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6,%7,%7}], {%8,%8,%8,%8}, {%8,%8,%8,%8};", [F % "x", F % "y", F % "z", F % "w"])
case(117, "tex.grad.cube.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6,%7,%7}], {%8,%8,%8,%8}, {%8,%8,%8,%8};", [F % "x", F % "y", F % "z", F % "w"])
case(118, "tex.grad.a2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6,%7,%7}], {%8,%8}, {%8,%8};", [R % "x", F % "y", F % "z", F % "w"])
case(119, "tex.level.acube.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6,%7,%8}], %9;", [R % "x", F % "y", F % "z", F % "w", F % "w"])
case(120, "tex.grad.1d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5}], {%6}, {%6};", [F % "x", F % "w"])
out.append("")

# Round 4 (targeted.inc's t_tex4, forms 121-135): the combinations of offsets, depth compare and
# residency that round 3 left out. Offsets come from word w as signed bytes (ox = bits 0-7, oy = 8-15,
# oz = 16-23, the 3-D vector's ignored fourth element = 24-31). Each form is its own macro T4_<form>,
# left out with -DNO_T4_<form>, or alone with -DT4_ONLY=<form> (the run script probes each form first).
B = ['"r"((int)(signed char)(c.w >> %d))' % s for s in (0, 8, 16, 24)]
T4 = []
def case4(form, asm, ins, pred=False):
    if pred:
        body = '{ float a,b,d,e; unsigned p; asm volatile("{ .reg .pred q; %s selp.u32 %%4, 1, 0, q; }" : "=f"(a),"=f"(b),"=f"(d),"=f"(e), "=r"(p) : "l"(t), %s); %s o.w = p; }' % (asm, ", ".join(ins), RES)
    else:
        body = '{ float a,b,d,e; asm volatile("%s" : "=f"(a),"=f"(b),"=f"(d),"=f"(e) : "l"(t), %s); %s }' % (asm, ", ".join(ins), RES)
    defs.append("#if !defined(NO_T4_%d) && (!defined(T4_ONLY) || T4_ONLY == %d)\n#define T4_%d case %d: %s break;\n#else\n#define T4_%d\n#endif" % (form, form, form, form, body, form))
    T4.append(form)
V4 = "{%0,%1,%2,%3}"
case4(121, "tex.1d.v4.f32.f32 " + V4 + ", [%4, {%5}], {%6};", [F % "x", B[0]])
case4(122, "tex.a1d.v4.f32.f32 " + V4 + ", [%4, {%5, %6}], {%7};", [R % "x", F % "y", B[0]])
case4(123, "tex.a2d.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %7}], {%8, %9};", [R % "x", F % "y", F % "z", B[0], B[1]])
case4(124, "tex.3d.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %7}], {%8, %9, %10, %11};", [F % "x", F % "y", F % "z"] + B)
case4(125, "tex.2d.v4.f32.s32 " + V4 + ", [%4, {%5, %6}], {%7, %8};", [R % "x", R % "y", B[0], B[1]])
case4(126, "tex.level.2d.v4.f32.f32 " + V4 + ", [%4, {%5, %6}], %7, {%8, %9};", [F % "x", F % "y", F % "z", B[0], B[1]])
case4(127, "tld4.r.a2d.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %7}], {%8, %9};", [R % "x", F % "y", F % "z", B[0], B[1]])
case4(128, "tld4.r.2d.v4.f32.f32 {%0,%1,%2,%3}|q, [%5, {%6, %7}];", [F % "x", F % "y"], pred=True)
case4(129, "tex.3d.v4.f32.f32 {%0,%1,%2,%3}|q, [%5, {%6, %7, %8, %8}];", [F % "x", F % "y", F % "z"], pred=True)
case4(130, "tex.a2d.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %7}], %8;", [R % "x", F % "y", F % "z", F % "w"])
case4(131, "tex.cube.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %7}], %8;", [F % "x", F % "y", F % "z", F % "w"])
case4(132, "tex.1d.v4.f32.f32 " + V4 + ", [%4, {%5}], %6;", [F % "x", F % "w"])
case4(133, "tld4.r.acube.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %8}];", [R % "x", F % "y", F % "z", F % "w"])
case4(134, "tld4.r.2d.v4.f32.f32 " + V4 + ", [%4, {%5, %6}], %7;", [F % "x", F % "y", F % "z"])
case4(135, "tex.2d.v4.f32.f32 {%0,%1,%2,%3}|q, [%5, {%6, %7}], {%8, %9};", [F % "x", F % "y", B[0], B[1]], pred=True)
out.append("#define TEX4_CASES " + " ".join("T4_%d" % f for f in T4))
out.append("")

# Round 5 (targeted.inc's t_tex5, forms 136-155): what soft still refuses after round 4. Offsets as in
# round 4 (signed bytes of w); depth compare in w; lods and gradients in z. Each form is its own macro
# T5_<form>, left out with -DNO_T5_<form>, or alone with -DT5_ONLY=<form>.
T5 = []
def case5(form, asm, ins, pred=False):
    if pred:
        body = '{ float a,b,d,e; unsigned p; asm volatile("{ .reg .pred q; %s selp.u32 %%4, 1, 0, q; }" : "=f"(a),"=f"(b),"=f"(d),"=f"(e), "=r"(p) : "l"(t), %s); %s o.w = p; }' % (asm, ", ".join(ins), RES)
    else:
        body = '{ float a,b,d,e; asm volatile("%s" : "=f"(a),"=f"(b),"=f"(d),"=f"(e) : "l"(t), %s); %s }' % (asm, ", ".join(ins), RES)
    defs.append("#if !defined(NO_T5_%d) && (!defined(T5_ONLY) || T5_ONLY == %d)\n#define T5_%d case %d: %s break;\n#else\n#define T5_%d\n#endif" % (form, form, form, form, body, form))
    T5.append(form)
P4 = "{%0,%1,%2,%3}|q"
case5(136, "tex.1d.v4.f32.f32 " + V4 + ", [%4, {%5}], {-3};", [F % "x"])        # immediate offsets on tex.1d
case5(137, "tex.1d.v4.f32.f32 " + V4 + ", [%4, {%5}], {100};", [F % "x"])
case5(138, "tex.a1d.v4.f32.f32 " + V4 + ", [%4, {%5, %6}], %7;", [R % "x", F % "y", F % "w"])  # depth compare
case5(139, "tex.3d.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %7}], %8;", [F % "x", F % "y", F % "z", F % "w"])
case5(140, "tex.acube.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %8}], %8;", [R % "x", F % "y", F % "z", F % "w"])
case5(141, "tld4.r.a2d.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %7}], %8;", [R % "x", F % "y", F % "z", F % "w"])
case5(142, "tld4.r.cube.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %7}], %8;", [F % "x", F % "y", F % "z", F % "w"])
case5(143, "tex.1d.v4.f32.s32 " + V4 + ", [%4, {%5}], {%6};", [R % "x", B[0]])  # offsets with .s32 coordinates
case5(144, "tex.a1d.v4.f32.s32 " + V4 + ", [%4, {%5, %6}], {%7};", [R % "x", R % "y", B[0]])
case5(145, "tex.a2d.v4.f32.s32 " + V4 + ", [%4, {%5, %6, %7, %7}], {%8, %9};", [R % "x", R % "y", R % "z", B[0], B[1]])
case5(146, "tex.3d.v4.f32.s32 " + V4 + ", [%4, {%5, %6, %7, %7}], {%8, %9, %10, %11};", [R % "x", R % "y", R % "z"] + B)
case5(147, "tex.level.1d.v4.f32.f32 " + V4 + ", [%4, {%5}], %6, {%7};", [F % "x", F % "z", B[0]])  # tex.level + offsets
case5(148, "tex.level.a2d.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %7}], %7, {%8, %9};", [R % "x", F % "y", F % "z", B[0], B[1]])
case5(149, "tex.level.3d.v4.f32.f32 " + V4 + ", [%4, {%5, %6, %7, %7}], %7, {%8, %9, %10, %11};", [F % "x", F % "y", F % "z"] + B)
case5(150, "tex.grad.2d.v4.f32.f32 " + V4 + ", [%4, {%5, %6}], {%7, %7}, {%7, %7}, {%8, %9};", [F % "x", F % "y", F % "z", B[0], B[1]])
case5(151, "tex.a2d.v4.f32.f32 " + P4 + ", [%5, {%6, %7, %8, %8}];", [R % "x", F % "y", F % "z"], pred=True)  # d|p
case5(152, "tex.cube.v4.f32.f32 " + P4 + ", [%5, {%6, %7, %8, %8}];", [F % "x", F % "y", F % "z"], pred=True)
case5(153, "tld4.r.a2d.v4.f32.f32 " + P4 + ", [%5, {%6, %7, %8, %8}];", [R % "x", F % "y", F % "z"], pred=True)
case5(154, "tex.1d.v4.f32.f32 " + P4 + ", [%5, {%6}];", [F % "x"], pred=True)
case5(155, "tex.2d.v4.f32.s32 " + P4 + ", [%5, {%6, %7}];", [R % "x", R % "y"], pred=True)
out.append("#define TEX5_CASES " + " ".join("T5_%d" % f for f in T5))
out.append("")

# sust.p: form = geom*100 + vec*10 + mode; geom 0 1d, 1 2d, 2 3d; vec 0 scalar, 1 v2, 2 v4; mode 0 clamp, 1 zero
out.append("#define SUSTP_CASES \\")
NC = [1, 2, 4]
for g, gn in enumerate(["1d", "2d", "3d"]):
    for v, nv in enumerate([1, 2, 4]):
        for m, mn in enumerate(["clamp", "zero"]):
            form = g * 100 + v * 10 + m
            nc = NC[g]
            cv = ",".join("%%%d" % (1 + i) for i in range(nc))
            dv = ",".join("%%%d" % (1 + nc + i) for i in range(nv))
            vs = "" if nv == 1 else ".v%d" % nv
            ins = ['"l"(s)'] + ['"r"(c.%s)' % "xyzw"[i] for i in range(nc)] + ['"r"(w.%s)' % "xyzw"[i] for i in range(nv)]
            d = "{" + dv + "}"
            out.append('case %d: asm volatile("sust.p.%s%s.b32.%s [%%0, {%s}], %s;" :: %s : "memory"); break; \\' % (form, gn, vs, mn, cv, d, ", ".join(ins)))
out.append("")

# sured.{b,p}: form = kind*200 + op*40 + ty*10 + geom*2 + mode; kind 0 .b (x in bytes), 1 .p (x in elements);
# ops add min max (types u32 s32 u64), and or (b32 b64). Each (kind, op, type) can be left out with
# -DNO_SURED_<kind>_<op>_<type> when ptxas refuses it (the run script probes first).
out.append("#define SURED_CASES \\")
OPS = [("add", ["u32", "s32", "u64"]), ("min", ["u32", "s32", "u64"]), ("max", ["u32", "s32", "u64"]), ("and", ["b32", "b64"]), ("or", ["b32", "b64"])]
for ki, kn in enumerate(["b", "p"]):
    for oi, (op, tys) in enumerate(OPS):
        for ti, ty in enumerate(tys):
            guard = "NO_SURED_%s_%s_%s" % (kn, op, ty)
            cases = []
            for g, gn in enumerate(["1d", "2d"]):
                for m, mn in enumerate(["clamp", "zero"]):
                    form = ki * 200 + oi * 40 + ti * 10 + g * 2 + m
                    nc = [1, 2][g]
                    cv = ",".join("%%%d" % (1 + i) for i in range(nc))
                    ins = ['"l"(s)'] + ['"r"(c.%s)' % "xyzw"[i] for i in range(nc)]
                    if ty.endswith("64"):
                        ins.append('"l"(((unsigned long long)w.y << 32) | w.x)')
                    else:
                        ins.append('"r"(w.x)')
                    cases.append('case %d: asm volatile("sured.%s.%s.%s.%s.%s [%%0, {%s}], %%%d;" :: %s : "memory"); break;' % (form, kn, op, gn, ty, mn, cv, 1 + nc, ", ".join(ins)))
            out.append("SURED_%s_%s_%s \\" % (kn, op, ty))
            defs.append("#ifndef %s\n#define SURED_%s_%s_%s %s\n#else\n#define SURED_%s_%s_%s\n#endif" % (guard, kn, op, ty, " ".join(cases), kn, op, ty))
out.append("")
open("forms2.inc", "w").write("\n".join(defs) + "\n" + "\n".join(out) + "\n")
