// Package golden holds cugen's golden tests: every input under testdata/NAME/
// (PTX, cubin, fatbin, host object; options in cugen.flags) is generated into
// testdata/NAME/NAME_cugen.go and compared byte for byte with the committed
// file, and every committed output is compiled and vetted in a scratch module.
// Regenerate with: go test ./golden -update, and review the diff.
package golden
