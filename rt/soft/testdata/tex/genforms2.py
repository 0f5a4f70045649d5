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

# Round 6 (targeted.inc's t_tex6, forms 156-232): every combination of offsets, depth compare and
# residency that soft still refused after round 5, built from one spec per form so that rec.cu's case
# (T6_<form>, left out with -DNO_T6_<form>, or alone with -DT6_ONLY=<form>) and the Go replay's PTX
# (../../tex_operands_gen_test.go) say the same instruction. Operand conventions as rounds 4 and 5:
# offsets are the signed bytes of word w (x bits 0-7, y 8-15, z 16-23, 3-D's ignored fourth 24-31),
# the depth-compare value is word w as an f32 (with offsets too: t_tex6 then puts a depth value's high
# half over the offset bytes), tex.level's lod and tex.grad's gradients are word z (1d, 2d, a1d; on 3d
# and a2d z is also a coordinate) or w (cube, acube: w is the depth value or, on acube, a direction
# component), and with d|p the result word w is the predicate (0/1).
GEOMS = ["1d", "2d", "3d", "a1d", "a2d", "cube", "acube"]
T6 = []      # (form, spec)
def spec6(form, op, geom, mod="", s32=False, offs=False, depth=False, resid=False):
    T6.append((form, dict(op=op, geom=geom, mod=mod, s32=s32, offs=offs, depth=depth, resid=resid)))
def t6_operands(s):
    """The instruction's operand groups, each a list of (word, kind) / ("b", byte) items."""
    g = GEOMS.index(s["geom"])
    k = "r" if s["s32"] else "f"
    coords = [[("x", k)], [("x", k), ("y", k)], [("x", k), ("y", k), ("z", k), ("z", k)], [("x", "r"), ("y", k)],
              [("x", "r"), ("y", k), ("z", k), ("z", k)], [("x", "f"), ("y", "f"), ("z", "f"), ("z", "f")],
              [("x", "r"), ("y", "f"), ("z", "f"), ("w", "f")]][g]
    lw = "w" if s["geom"] in ("cube", "acube") else "z"
    groups = [("coords", coords)]
    if s["mod"] == "level":
        groups.append(("lod", [(lw, "f")]))
    if s["mod"] == "grad":
        n = [1, 2, 4, 1, 2, 4, 4][g]
        groups += [("dPdx", [(lw, "f")] * n), ("dPdy", [(lw, "f")] * n)]
    if s["offs"]:
        groups.append(("offs", [("b", i) for i in range([1, 2, 4, 1, 2][g])]))
    if s["depth"]:
        groups.append(("depth", [("w", "f")]))
    return groups
def t6_name(s):
    n = s["op"] + (".r" if s["op"] == "tld4" else "") + ("." + s["mod"] if s["mod"] else "") + "." + s["geom"] + ".v4.f32." + ("s32" if s["s32"] else "f32")
    return n
def t6_render(s, reg):
    """The instruction with operand items rendered by reg(item); dst, pred are placeholders."""
    parts = []
    for name, items in t6_operands(s):
        r = [reg(it) for it in items]
        if name == "coords":
            parts.append("[@H, {" + ", ".join(r) + "}]")
        elif name in ("lod", "depth"):
            parts.append(r[0])
        else:
            parts.append("{" + ", ".join(r) + "}")
    return t6_name(s) + " @D, " + ", ".join(parts) + ";"
def t6_cuda(form, s):
    base = 5 if s["resid"] else 4
    idx, ins = {}, []
    def reg(it):
        if it not in idx:
            idx[it] = base + 1 + len(ins)
            if it[0] == "b":
                ins.append(B[it[1]])
            else:
                ins.append((F if it[1] == "f" else R) % it[0])
        return "%%%d" % idx[it]
    asm = t6_render(s, reg).replace("@H", "%%%d" % base)
    if s["resid"]:
        asm = asm.replace("@D", "{%0,%1,%2,%3}|q")
        body = '{ float a,b,d,e; unsigned p; asm volatile("{ .reg .pred q; %s selp.u32 %%4, 1, 0, q; }" : "=f"(a),"=f"(b),"=f"(d),"=f"(e), "=r"(p) : "l"(t), %s); %s o.w = p; }' % (asm, ", ".join(ins), RES)
    else:
        asm = asm.replace("@D", V4)
        body = '{ float a,b,d,e; asm volatile("%s" : "=f"(a),"=f"(b),"=f"(d),"=f"(e) : "l"(t), %s); %s }' % (asm, ", ".join(ins), RES)
    return body
def t6_ptx(form, s):
    """The same instruction for the Go kernels (texForms3PTX): words x y z w in %r1..%r4, offset bytes
    in %r16..%r19 (texB4), results in %r5..%r8, the predicate %p2."""
    def reg(it):
        return "%%r%d" % (16 + it[1]) if it[0] == "b" else "%%r%d" % (1 + "xyzw".index(it[0]))
    txt = t6_render(s, reg).replace("@H", "%rd1")
    txt = txt.replace("@D", "{%r5, %r6, %r7, %r8}" + ("|%p2" if s["resid"] else ""))
    if s["resid"]:
        txt += "\\n\\tselp.u32 %r8, 1, 0, %p2;"
    return txt

# offsets alone: tex.level.a1d, tex.grad of 1d, 3d, a1d, a2d
spec6(156, "tex", "a1d", "level", offs=True)
for f, g in zip(range(157, 161), ["1d", "3d", "a1d", "a2d"]):
    spec6(f, "tex", g, "grad", offs=True)
# tex.level / tex.grad never recorded without extras
spec6(161, "tex", "a1d", "level")
spec6(162, "tex", "a1d", "grad")
spec6(163, "tex", "acube", "grad")
# depth compare alone: .s32 coordinates (3d: ptxas refuses tex.3d's; probed), tex.level, tex.grad, tld4.acube
for f, g in zip(range(164, 169), ["1d", "2d", "3d", "a1d", "a2d"]):
    spec6(f, "tex", g, s32=True, depth=True)
for f, g in zip(range(169, 176), ["1d", "2d", "3d", "a1d", "a2d", "cube", "acube"]):
    spec6(f, "tex", g, "level", depth=True)
for f, g in zip(range(176, 183), ["1d", "2d", "3d", "a1d", "a2d", "cube", "acube"]):
    spec6(f, "tex", g, "grad", depth=True)
spec6(183, "tld4", "acube", depth=True)
# residency predicate alone
spec6(184, "tex", "a1d", resid=True)
spec6(185, "tex", "acube", resid=True)
for f, g in zip(range(186, 190), ["1d", "3d", "a1d", "a2d"]):
    spec6(f, "tex", g, s32=True, resid=True)
for f, g in zip(range(190, 197), ["1d", "2d", "3d", "a1d", "a2d", "cube", "acube"]):
    spec6(f, "tex", g, "level", resid=True)
for f, g in zip(range(197, 204), ["1d", "2d", "3d", "a1d", "a2d", "cube", "acube"]):
    spec6(f, "tex", g, "grad", resid=True)
spec6(204, "tld4", "cube", resid=True)
spec6(205, "tld4", "acube", resid=True)
# offsets and depth compare together
for f, g in zip(range(206, 209), ["1d", "a1d", "a2d"]):
    spec6(f, "tex", g, offs=True, depth=True)
for f, g in zip(range(209, 213), ["1d", "2d", "a1d", "a2d"]):
    spec6(f, "tex", g, s32=True, offs=True, depth=True)
spec6(213, "tld4", "2d", offs=True, depth=True)
spec6(214, "tld4", "a2d", offs=True, depth=True)
for f, g in zip(range(215, 219), ["1d", "2d", "a1d", "a2d"]):
    spec6(f, "tex", g, "level", offs=True, depth=True)
for f, g in zip(range(219, 223), ["1d", "2d", "a1d", "a2d"]):
    spec6(f, "tex", g, "grad", offs=True, depth=True)
# everything at once
spec6(223, "tex", "1d", offs=True, depth=True, resid=True)
spec6(224, "tex", "a2d", offs=True, depth=True, resid=True)
spec6(225, "tex", "2d", s32=True, offs=True, depth=True, resid=True)
spec6(226, "tex", "a1d", "level", offs=True, depth=True, resid=True)
spec6(227, "tex", "2d", "grad", offs=True, depth=True, resid=True)
spec6(228, "tex", "3d", "grad", offs=True, resid=True)
spec6(229, "tld4", "a2d", offs=True, depth=True, resid=True)
spec6(230, "tex", "acube", "level", depth=True, resid=True)
spec6(231, "tex", "cube", "grad", depth=True, resid=True)
spec6(232, "tld4", "acube", depth=True, resid=True)
for form, s in T6:
    defs.append("#if !defined(NO_T6_%d) && (!defined(T6_ONLY) || T6_ONLY == %d)\n#define T6_%d case %d: %s break;\n#define T6_ON_%d 1\n#else\n#define T6_%d\n#define T6_ON_%d 0\n#endif" % (form, form, form, form, t6_cuda(form, s), form, form, form))
out.append("#define TEX6_CASES " + " ".join("T6_%d" % f for f, _ in T6))
# t6_built: whether the recorder was built with the form (t_tex6 skips the others: no records)
# T6_SPECS: what t_tex6 needs to know of each form (geom as rec.cu's: 0 1d, 1 2d, 2 3d, 3 a1d, 4 a2d,
# 5 cube, 6 acube; mod 0 plain, 1 tex.level, 2 tex.grad)
out.append("struct T6Spec { int form, geom, s32, tld4, mod, offs, depth, resid; };")
out.append("static const T6Spec T6_SPECS[] = {" + ", ".join("{%d, %d, %d, %d, %d, %d, %d, %d}" % (f, GEOMS.index(s6["geom"]), s6["s32"], s6["op"] == "tld4", ["", "level", "grad"].index(s6["mod"]), s6["offs"], s6["depth"], s6["resid"]) for f, s6 in T6) + "};")
out.append("static inline bool t6_built(int form) { switch (form) { " + " ".join("case %d: return T6_ON_%d;" % (f, f) for f, _ in T6) + " } return false; }")
out.append("")

# The Go side of round 6: ../../tex_operands_gen_test.go, one texForm6 per form.
GOGEOM = ["texunit.Geom1D", "texunit.Geom2D", "texunit.Geom3D", "texunit.GeomA1D", "texunit.GeomA2D", "texunit.GeomCube", "texunit.GeomACube"]
go = ["// Code generated by testdata/tex/genforms2.py; DO NOT EDIT.", "", "package soft", "",
      'import "github.com/cugen/cugen/rt/soft/internal/texunit"', "",
      "// texForms6 are round 6's forms (tex2-m, targeted.inc's t_tex6): the",
      "// instruction each ran and its PTX for the kernel replay (words x y z w",
      "// in %r1..%r4, offset bytes of w in %r16..%r19, results in %r5..%r8).",
      "var texForms6 = map[uint32]texForm6{"]
for form, s6 in T6:
    f = ["geom: %s" % GOGEOM[GEOMS.index(s6["geom"])]]
    for k, v in (("tld4", s6["op"] == "tld4"), ("level", s6["mod"] == "level"), ("grad", s6["mod"] == "grad"),
                 ("s32", s6["s32"]), ("offs", s6["offs"]), ("depth", s6["depth"]), ("resid", s6["resid"])):
        if v:
            f.append("%s: true" % k)
    ptx = t6_ptx(form, s6)
    if s6["offs"]:
        ptx = '" + texB4 + "' + ptx
    f.append('ptx: "%s"' % ptx)
    go.append("\t%d: {%s}," % (form, ", ".join(f)))
go.append("}")
open("../../tex_operands_gen_test.go", "w").write("\n".join(go).replace('"" + texB4 + "', 'texB4 + "') + "\n")

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
