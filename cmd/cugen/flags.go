package main

import (
	"strings"

	"github.com/cugen/cugen/gen"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }

func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// typeFlag is the repeatable -type flag, checked as it is parsed.
type typeFlag []gen.TypeMapping

func (t *typeFlag) String() string {
	var s []string
	for _, m := range *t {
		s = append(s, m.CName+"="+m.PkgPath+"."+m.Name)
	}
	return strings.Join(s, " ")
}

func (t *typeFlag) Set(s string) error {
	m, err := gen.ParseTypeMapping(s)
	if err != nil {
		return err
	}
	*t = append(*t, m)
	return nil
}
