package ptx

import (
	"fmt"
	"slices"
)

// ParseBody parses the body of f, a function definition of m whose body
// ParseHeaders or ParseChecked skipped, from m's source, and returns it as
// Parse would have, with Parse's errors. A tool that needs the statements of
// one function at a time (rt/soft's generate-time check of a huge module)
// sets f.Body to it, and back to the skipped span when done, and so never
// holds the tree of the whole module. A prototype has no body: nil.
func (m *Module) ParseBody(f *Func) (b *Block, err error) {
	if f.Body == nil || len(f.Body.Stmts) > 0 {
		return f.Body, nil
	}
	pos := f.Body.Pos
	if pos.Offset < 0 || pos.Offset >= len(m.src) || m.src[pos.Offset] != '{' || pos.Column < 1 {
		return nil, fmt.Errorf("ptx: %s: ParseBody of %s: no body of this module's source at %s", m.File, f.Name, pos)
	}
	p := parser{mode: keepBodies}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			b, err = nil, e.err
		}
	}()
	p.sc = scanner{file: m.File, src: m.src, off: pos.Offset, line: pos.Line, lineStart: pos.Offset - (pos.Column - 1)}
	p.regs = map[string]bool{}
	for _, pr := range slices.Concat(f.Returns, f.Params) {
		p.registerParam(pr)
	}
	p.files = m.Files
	p.next()
	b = p.block()
	p.resolveFiles(m.Files)
	return b, nil
}
