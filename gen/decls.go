package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// emitDecls declares the types the package defines for C++ types (opaque
// structs and unions, enums), and one size guard per -type mapping.
func (t *typer) emitDecls(f *jen.File) {
	for _, d := range t.sortedDecls() {
		if d.scalar != nil {
			emitScalar(f, d)
		} else {
			emitOpaque(f, d)
		}
	}
	for _, m := range t.sortedMappings() {
		f.Line()
		f.Comment(lineComment(fmt.Sprintf("The launch functions copy %s as the %s of the C++ %s;\n"+
			"this fails to compile if its size changes (run cugen again).", m.goSpelling(), plural(int(m.Size), "byte"), m.CName)))
		f.Var().Id("_").Index(jen.Lit(int(m.Size))).Byte().Op("=").
			Index(jen.Qual("unsafe", "Sizeof").Call(jen.Op("*").New(jen.Qual(m.PkgPath, m.Name)))).Byte().Values()
	}
}

func emitOpaque(f *jen.File, d *declType) {
	f.Line()
	hint := "or map it to a Go struct with cugen -type."
	if d.anon {
		hint = "or give cugen -src to name its C++ type."
	}
	f.Comment(lineComment(fmt.Sprintf("%s is %s, passed by value: %s, %d-byte aligned.\n"+
		"cugen knows its layout only by size; fill it through Bytes (little-endian,\n"+
		"C++ field offsets), %s", d.name, d.what, plural(d.size, "byte"), max(d.align, 1), hint)))
	fields := []jen.Code{}
	if a := alignField(d.align); a != nil {
		fields = append(fields, a)
	}
	fields = append(fields, jen.Id("b").Index(jen.Lit(d.size)).Byte())
	f.Type().Id(d.name).Struct(fields...)
	f.Line()
	f.Commentf("Bytes is the value's memory, %s.", plural(d.size, "byte"))
	f.Func().Params(jen.Id("v").Op("*").Id(d.name)).Id("Bytes").Params().Index().Byte().Block(
		jen.Return(jen.Id("v").Dot("b").Index(jen.Empty(), jen.Empty())))
}

func emitScalar(f *jen.File, d *declType) {
	f.Line()
	doc := fmt.Sprintf("%s is %s, passed as its %d-byte value", d.name, d.what, d.size)
	if d.ptx != "" {
		doc += fmt.Sprintf(" (PTX .%s)", d.ptx)
	}
	doc += "."
	if d.src != "" {
		doc += "\nIt is declared at " + d.src + "."
	}
	if d.guess {
		doc += fmt.Sprintf("\nThe binary does not say whether it is signed; %s is a guess (cugen -src\nreads the enum's underlying type from the source).", d.scalar.name)
	}
	if d.scalar.kind == gkInt {
		doc += fmt.Sprintf("\ncugen cannot see its enumerators: convert the C++ values, %s(1).", d.name)
	}
	f.Comment(lineComment(doc))
	f.Type().Id(d.name).Id(d.scalar.name)
}
