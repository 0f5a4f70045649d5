#!/usr/bin/env python3
# Emits forms.inc: the switch cases of rec.cu's sampling and surface kernels,
# one inline-PTX instruction per form. Form numbers are shared with the Go
# replay test (tex_sampler_test.go), which decodes them the same way.
GEOMS = ["1d", "2d", "3d", "a1d", "a2d", "cube", "acube"]
NCO = {"1d": 1, "2d": 2, "3d": 4, "a1d": 2, "a2d": 4, "cube": 4, "acube": 4}
LAYERED = {"a1d", "a2d", "acube"}
RT = ["f32", "s32", "u32"]
out = []
def tex_case(form, instr, geom, ct, rt, extra=""):
    n = NCO[geom]
    ops = []
    for i in range(n):
        if geom in LAYERED and i == 0 or ct == "s32":
            ops.append('"r"(c.%s)' % "xyzw"[i])
        else:
            ops.append('"f"(__uint_as_float(c.%s))' % "xyzw"[i])
    vec = ",".join("%%%d" % (5 + i) for i in range(n))
    s = '%s {%%0,%%1,%%2,%%3}, [%%4, {%s}]%s;' % (instr, vec, extra)
    if rt == "f32":
        out.append('case %d: { float a,b,d,e; asm volatile("%s" : "=f"(a),"=f"(b),"=f"(d),"=f"(e) : "l"(t), %s); o = make_uint4(__float_as_uint(a),__float_as_uint(b),__float_as_uint(d),__float_as_uint(e)); } break;' % (form, s, ", ".join(ops)))
    else:
        out.append('case %d: { unsigned a,b,d,e; asm volatile("%s" : "=r"(a),"=r"(b),"=r"(d),"=r"(e) : "l"(t), %s); o = make_uint4(a,b,d,e); } break;' % (form, s, ", ".join(ops)))

out.append("#define TEX_CASES \\")
for gi, g in enumerate(GEOMS):
    for ci, ct in enumerate(["f32", "s32"]):
        if ct == "s32" and g in ("cube", "acube"):
            continue
        for ri, rt in enumerate(RT):
            tex_case(gi * 10 + ci * 3 + ri, "tex.%s.v4.%s.%s" % (g, rt, ct), g, ct, rt)
            out[-1] += " \\"
for comp in range(4):
    for ri, rt in enumerate(RT):
        tex_case(70 + comp * 3 + ri, "tld4.%s.2d.v4.%s.f32" % ("rgba"[comp], rt), "2d", "f32", rt)
        out[-1] += " \\"
out.append("")
# tex.level.2d with lod from lod[] (separate array), only f32.
out.append("#define TEXLEVEL_CASES \\")
out.append('case 100: { float a,b,d,e; asm volatile("tex.level.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6}], %7;" : "=f"(a),"=f"(b),"=f"(d),"=f"(e) : "l"(t), "f"(__uint_as_float(c.x)), "f"(__uint_as_float(c.y)), "f"(__uint_as_float(c.z))); o = make_uint4(__float_as_uint(a),__float_as_uint(b),__float_as_uint(d),__float_as_uint(e)); } break; \\')
out.append("")

SGEOMS = ["1d", "2d", "3d", "a1d", "a2d"]
SNCO = {"1d": 1, "2d": 2, "3d": 4, "a1d": 2, "a2d": 4}
SDT = [("b8", 1), ("b8", 2), ("b8", 4), ("b16", 1), ("b16", 2), ("b16", 4), ("b32", 1), ("b32", 2), ("b32", 4), ("b64", 1), ("b64", 2)]
MODES = ["clamp", "zero", "trap"]
def regc(dt):
    return {"b8": "h", "b16": "h", "b32": "r", "b64": "l"}[dt]
def ctype(dt):
    return {"b8": "unsigned short", "b16": "unsigned short", "b32": "unsigned", "b64": "unsigned long long"}[dt]
ld, st = ["#define SULD_CASES \\"], ["#define SUST_CASES \\"]
for gi, g in enumerate(SGEOMS):
    n = SNCO[g]
    cops = ", ".join('"r"(c.%s)' % "xyzw"[i] for i in range(n))
    for di, (dt, nv) in enumerate(SDT):
        for mi, m in enumerate(MODES):
            form = gi * 100 + di * 4 + mi
            vs = "" if nv == 1 else ".v%d" % nv
            dvec = ",".join("%%%d" % i for i in range(nv))
            cvec = ",".join("%%%d" % (nv + 1 + i) for i in range(n))
            s = "suld.b.%s%s.%s.%s {%s}, [%%%d, {%s}];" % (g, vs, dt, m, dvec, nv, cvec)
            outs = ", ".join('"=%s"(v[%d])' % (regc(dt), i) for i in range(nv))
            body = "{ %s v[4] = {0,0,0,0}; asm volatile(\"%s\" : %s : \"l\"(s), %s); " % (ctype(dt), s, outs, cops)
            if dt == "b64":
                body += "o = make_uint4((unsigned)v[0], (unsigned)(v[0]>>32), (unsigned)v[1], (unsigned)(v[1]>>32)); }"
            else:
                body += "o = make_uint4(v[0],v[1],v[2],v[3]); }"
            ld.append("case %d: %s break; \\" % (form, body))
            cvec2 = ",".join("%%%d" % (1 + i) for i in range(n))
            vvec = ",".join("%%%d" % (1 + n + i) for i in range(nv))
            s2 = "sust.b.%s%s.%s.%s [%%0, {%s}], {%s};" % (g, vs, dt, m, cvec2, vvec)
            if dt == "b64":
                vals = ", ".join('"l"((unsigned long long)w.%s | ((unsigned long long)w.%s << 32))' % ("xz"[i], "yw"[i]) for i in range(nv))
            else:
                cast = "(unsigned short)" if regc(dt) == "h" else ""
                vals = ", ".join('"%s"(%sw.%s)' % (regc(dt), cast, "xyzw"[i]) for i in range(nv))
            st.append('case %d: asm volatile("%s" :: "l"(s), %s, %s : "memory"); break; \\' % (form, s2, cops, vals))
ld.append("")
st.append("")
open("forms.inc", "w").write("\n".join(out + ld + st) + "\n")
