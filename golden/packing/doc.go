// Package packing checks that generated launch functions pack exactly the
// bytes the PTX parameter layout dictates (see packing_test.go).
package packing
