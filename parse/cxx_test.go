package parse

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestDemangleParamTypes(t *testing.T) {
	for _, c := range []struct {
		mangled string
		want    []string // Spelling of each parameter
		kinds   []CKind
	}{
		{"_Z7scalarsbcahstijlmxyfdDsDiwPi", strings.Split("bool,char,signed char,unsigned char,short,unsigned short,int,unsigned int,long,unsigned long,long long,unsigned long long,float,double,char16_t,char32_t,wchar_t,int*", ","), nil},
		{"_Z4widenoPn", []string{"__int128", "unsigned __int128", "__int128*"}, []CKind{CBuiltin, CBuiltin, CPointer}},
		{"_Z8pointersPKfPViPPfPvPKvS3_", []string{"float const*", "int volatile*", "float**", "void*", "void const*", "float*"}, nil},
		{"_Z5pairs4PairIfES_IdE6Params4BitsPS2_Pf", []string{"Pair<float>", "Pair<double>", "Params", "Bits", "Params*", "float*"},
			[]CKind{CNamed, CNamed, CNamed, CNamed, CPointer, CPointer}},
		{"_Z5enums5Color4Mode4WidePi", []string{"Color", "Mode", "Wide", "int*"}, nil},
		{"_Z1fPrPf", []string{"float* restrict*"}, nil},
		{"_Z1fPKPf", []string{"float* const*"}, nil},
		{"_Z1fDF16_", []string{"_Float16"}, []CKind{CBuiltin}},
		{"_Z1fRi", []string{"int&"}, []CKind{COther}},
		{"_Z1fN12_GLOBAL__N_11SE", []string{"(anonymous namespace)::S"}, []CKind{CNamed}},
		{"_Z1fv", nil, nil},
	} {
		sig, err := Demangle(c.mangled)
		if err != nil {
			t.Errorf("%s: %v", c.mangled, err)
			continue
		}
		var got []string
		for i, p := range sig.Params {
			got = append(got, p.Spelling)
			if c.kinds != nil && p.Kind != c.kinds[i] {
				t.Errorf("%s: parameter %d (%s) is kind %d, want %d", c.mangled, i, p, p.Kind, c.kinds[i])
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: params %q, want %q", c.mangled, got, c.want)
		}
	}
}

func TestDemangleNames(t *testing.T) {
	for _, c := range []struct {
		mangled, base, scope, args string
	}{
		{"_Z9fixedSizeILi4EfEvPT0_", "fixedSize", "", "4,float"},
		{"_Z9fixedSizeILin1EdEvPT0_", "fixedSize", "", "-1,double"},
		{"_Z7flaggedILb1EEvPi", "flagged", "", "true"},
		{"_ZN5outer5inner4deepEPi", "deep", "outer::inner", ""},
		{"_ZN40_GLOBAL__N__a8f0258f_8_types_cu_a1cfb5cf6hiddenEPi", "hidden", "(anonymous namespace)", ""},
	} {
		sig, err := Demangle(c.mangled)
		if err != nil {
			t.Fatal(err)
		}
		var args []string
		for _, a := range sig.TemplateArgs {
			args = append(args, a.String())
		}
		if sig.Base != c.base || strings.Join(sig.Scope, "::") != c.scope || strings.Join(args, ",") != c.args {
			t.Errorf("%s: base %q scope %q args %q", c.mangled, sig.Base, sig.Scope, args)
		}
	}
	if _, err := Demangle("cvecAdd"); err != ErrNotMangled {
		t.Errorf("Demangle(cvecAdd) = %v, want ErrNotMangled", err)
	}
}

// TestConstructorsMatchDemangler checks that types built from source are
// identical, field for field, to the same types recovered from mangled names.
func TestConstructorsMatchDemangler(t *testing.T) {
	float := NewBuiltin("float")
	for _, c := range []struct {
		mangled string
		built   *CType
	}{
		{"_Z1fPKf", NewPointer(float.Qualified(true, false, false))},
		{"_Z1fPVi", NewPointer(NewBuiltin("int").Qualified(false, true, false))},
		{"_Z1fPPf", NewPointer(NewPointer(float))},
		{"_Z1fPKPf", NewPointer(NewPointer(float).Qualified(true, false, false))},
		{"_Z1fPKv", NewPointer(NewBuiltin("void").Qualified(true, false, false))},
		{"_Z1fj", NewBuiltin("unsigned int")},
		{"_Z1fN2ns4PairIiEE", NewNamed([]string{"ns"}, "Pair", []TemplateArg{{Type: NewBuiltin("int")}})},
		{"_Z1f6Params", NewNamed(nil, "Params", nil)},
		{"_Z1fPK6Params", NewPointer(NewNamed(nil, "Params", nil).Qualified(true, false, false))},
	} {
		sig, err := Demangle(c.mangled)
		if err != nil {
			t.Fatal(err)
		}
		got := sig.Params[0]
		if got.Spelling != c.built.Spelling {
			t.Errorf("%s: demangled %q, built %q", c.mangled, got.Spelling, c.built.Spelling)
		}
		if !reflect.DeepEqual(normalize(got), normalize(c.built)) {
			t.Errorf("%s: demangled %#v, built %#v", c.mangled, got, c.built)
		}
	}
	if u := NewPointer(float).Qualified(true, true, true).Unqualified(); u.Spelling != "float*" || u.Const {
		t.Errorf("Unqualified: %q", u.Spelling)
	}
}

// normalize treats nil and empty slices alike.
func normalize(t *CType) *CType {
	if t == nil {
		return nil
	}
	c := *t
	if len(c.Scope) == 0 {
		c.Scope = nil
	}
	var args []TemplateArg
	for _, a := range c.Args {
		args = append(args, TemplateArg{Type: normalize(a.Type), Value: a.Value})
	}
	c.Args = args
	c.Elem = normalize(c.Elem)
	return &c
}

// Pack expansions (Dp…) are one parameter per element, in every form a
// mangled name can hold; several of these nvcc cannot emit for a kernel
// (two packs, packs of references), which is why they are mangled by hand.
func TestDemanglePacks(t *testing.T) {
	for _, c := range []struct {
		mangled   string
		params    []string
		packSizes []int
		targs     string // the template arguments, packs in braces
	}{
		{"_Z2vkIJifEEvPyDpT_", []string{"unsigned long long*", "int", "float"}, []int{-1, 2}, "{int,float}"},
		{"_Z2vkIJEEvPyDpT_", []string{"unsigned long long*"}, []int{-1, 0}, "{}"},
		{"_Z5mixedIfJiiiEEvPT_iDpT0_", []string{"float*", "int", "int", "int", "int"}, []int{-1, -1, 3}, "float,{int,int,int}"},
		{"_Z5mixedIdJEEvPT_iDpT0_", []string{"double*", "int"}, []int{-1, -1, 0}, "double,{}"},
		{"_Z1kIJifEJdEEvDpT_DpT0_", []string{"int", "float", "double"}, []int{2, 1}, "{int,float},{double}"},
		{"_Z1kIJifEEvDpPT_", []string{"int*", "float*"}, []int{2}, "{int,float}"},
		{"_Z1kIJifEEvDpPKT_", []string{"int const*", "float const*"}, []int{2}, "{int,float}"},
		{"_Z1kIJ4CellP5InnerEEvDpT_", []string{"Cell", "Inner*"}, []int{2}, "{Cell,Inner*}"},
		{"_Z1kIJifEEvDpRKT_", []string{"int const&", "float const&"}, []int{2}, "{int,float}"},
		{"_Z1kIJifEEvDp4WrapIT_E", []string{"Wrap<int>", "Wrap<float>"}, []int{2}, "{int,float}"},
		{"_Z1kIJ2vkIJifEEEEvDpT_", []string{"vk<int, float>"}, []int{1}, "{vk<int, float>}"},
		{"_Z9packTwiceIJifEEv5TupleIJDpT_EEPiS2_", []string{"Tuple<int, float>", "int*", "int", "float"}, []int{-1, -1, 2}, "{int,float}"},
		{"_Z4intsIJLi1ELi2ELi3EEEvPi", []string{"int*"}, nil, "{1,2,3}"},
		{"_Z4intsIJEEvPi", []string{"int*"}, nil, "{}"},
	} {
		sig, err := Demangle(c.mangled)
		if err != nil {
			t.Errorf("%s: %v", c.mangled, err)
			continue
		}
		var got []string
		for _, p := range sig.Params {
			got = append(got, p.Spelling)
		}
		if !reflect.DeepEqual(got, c.params) || !reflect.DeepEqual(sig.PackSizes, c.packSizes) {
			t.Errorf("%s: params %q pack sizes %v, want %q %v", c.mangled, got, sig.PackSizes, c.params, c.packSizes)
		}
		if g := argsString(sig.TemplateArgs); g != c.targs {
			t.Errorf("%s: template arguments %s, want %s", c.mangled, g, c.targs)
		}
	}
	// A class template's pack argument keeps its structure too.
	sig, _ := Demangle("_Z9packTwiceIJifEEv5TupleIJDpT_EEPiS2_")
	if tu := sig.Params[0]; tu.Kind != CNamed || tu.Base != "Tuple" || argsString(tu.Args) != "{int,float}" {
		t.Errorf("Tuple parameter: %+v", tu)
	}
	if got := Flatten(sig.TemplateArgs); len(got) != 2 || got[0].Type.Name != "int" || got[1].Type.Name != "float" {
		t.Errorf("Flatten: %v", got)
	}
}

func argsString(args []TemplateArg) string {
	var parts []string
	for _, a := range args {
		if a.Pack {
			parts = append(parts, "{"+strings.ReplaceAll(argsString(a.Elems), ",", ",")+"}")
		} else {
			parts = append(parts, a.String())
		}
	}
	return strings.Join(parts, ",")
}

// deepNames are hostile names of growing size, built here: a pointer chain
// and a template nest n deep, a wide template, and a name whose
// substitutions double its demangled text at every level.
func deepNames(n int) map[string]string {
	wide := "_Z1fI" + strings.Repeat("i", n) + "EvT_"
	return map[string]string{
		"pointers":  "_Z1f" + strings.Repeat("P", n) + "i",
		"templates": "_Z1fI" + strings.Repeat("1AI", n) + "i" + strings.Repeat("E", n) + "EvT_",
		"wide":      wide,
		"dag":       doublingName(n),
	}
}

// doublingName is f(A, B<A, A>, B<B<A, A>, B<A, A> >, ...) with every
// repeated type a substitution: its demangled text doubles per level, the
// name grows by a few bytes.
func doublingName(levels int) string {
	var b strings.Builder
	b.WriteString("_Z1f1A1BIS_S_E") // A is S_, B is S0_, B<A, A> is S1_
	for i := 1; i < levels; i++ {
		k := strings.ToUpper(strconv.FormatInt(int64(i), 36)) // seq-ids are base 36
		fmt.Fprintf(&b, "S0_IS%s_S%s_E", k, k)                // B<Sk, Sk> is S(k+1)
	}
	return b.String()
}

// Demangling hostile names ends in bounded time whatever their shape: a
// goroutine with a generous deadline fails the test fast instead of hanging
// it, and a name over a limit is an error that names it abbreviated.
func TestDemangleBounded(t *testing.T) {
	for _, n := range []int{1000, 10000, 100000} {
		for shape, name := range deepNames(n) {
			done := make(chan error, 1)
			go func() {
				_, err := Demangle(name)
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil && len(err.Error()) > 400 {
					t.Errorf("%s %d: error of %d bytes: the name is not abbreviated", shape, n, len(err.Error()))
				}
				if shape == "pointers" || shape == "templates" {
					if err == nil {
						t.Errorf("%s %d deep: no error, want a nesting or length limit", shape, n)
					}
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("%s %d: Demangle still running after 60 s", shape, n)
			}
		}
	}
	_, err := Demangle("_Z1f" + strings.Repeat("P", 300) + "i")
	if err == nil || !strings.Contains(err.Error(), "nested more than 256 levels deep") || !strings.Contains(err.Error(), "(305 bytes)") {
		t.Errorf("300 deep: %v", err)
	}
	_, err = Demangle("_Z1f" + strings.Repeat("P", MaxNameLen) + "i")
	if err == nil || !strings.Contains(err.Error(), "over cugen's limit of 65536") {
		t.Errorf("long name: %v", err)
	}
	if sig, err := Demangle("_Z1f" + strings.Repeat("P", 250) + "i"); err != nil || sig.Params[0].Kind != CPointer {
		t.Errorf("250 deep: %v", err)
	}
}

// The work Demangle does, the syntax nodes it visits, grows linearly with
// the name: doubling a name's size at most doubles the work (plus a
// constant), whether it is wide, nested to the limit, or a DAG of
// substitutions whose demangled text doubles at every level (which the old
// per-level rendering made exponential).
func TestDemangleWorkLinear(t *testing.T) {
	for _, c := range []struct {
		shape string
		name  func(n int) string
		sizes []int
	}{
		{"wide", func(n int) string { return deepNames(n)["wide"] }, []int{500, 1000, 2000, 4000}},
		{"nest", func(n int) string { return deepNames(n)["templates"] }, []int{30, 60, 120, 240}},
		{"pointers", func(n int) string { return deepNames(n)["pointers"] }, []int{30, 60, 120, 240}},
		{"dag", doublingName, []int{3, 6, 12}},
	} {
		var prev int
		for _, n := range c.sizes {
			sig, work, err := demangleCounted(c.name(n))
			if err != nil {
				t.Fatalf("%s %d: %v", c.shape, n, err)
			}
			if prev > 0 && work > 2*prev+16 {
				t.Errorf("%s: work %d at size %d, %d at half the size: not linear", c.shape, work, n, prev)
			}
			if c.shape == "dag" && len(sig.Pretty) < 1<<n {
				t.Errorf("dag %d: demangled text %d bytes, want the doubling", n, len(sig.Pretty))
			}
			prev = work
		}
	}
}

// BenchmarkDemangle measures names near the limits (go test -bench Demangle ./parse).
func BenchmarkDemangle(b *testing.B) {
	for _, c := range []struct{ name, mangled string }{
		{"nest250", deepNames(250)["templates"]},
		{"wide60K", deepNames(60000)["wide"]},
		{"dag15", doublingName(15)},
		{"deep100K", deepNames(100000)["templates"]},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Demangle(c.mangled)
			}
		})
	}
}
