package parse

import (
	"reflect"
	"strings"
	"testing"
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
