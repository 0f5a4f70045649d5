//go:build cudarecord

package soft

import _ "github.com/cugen/cugen/rt/cgo" // registers the "cuda" backend

func init() { recordBackend = "cuda" }
