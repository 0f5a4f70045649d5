package nccl

import (
	"fmt"
	"reflect"

	"github.com/cugen/cugen/rt"
)

// Elem is the element types NCCL moves and reduces: its integer and
// floating-point types (and Go types defined on them), rt.Half,
// rt.BFloat16, and rt.Float8E4M3 and rt.Float8E5M2 (which ~uint8 admits;
// NCCL 2.24+, and reduced only on sm_90+). TypeOf gives a type's DataType.
type Elem interface {
	~int8 | ~uint8 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64 | rt.Half | rt.BFloat16
}

// DataType is an ncclDataType_t.
type DataType int32

// The ncclDataType_t values; the numbers are NCCL's (nccl.h).
const (
	Int8       DataType = 0
	Uint8      DataType = 1
	Int32      DataType = 2
	Uint32     DataType = 3
	Int64      DataType = 4
	Uint64     DataType = 5
	Float16    DataType = 6
	Float32    DataType = 7
	Float64    DataType = 8
	BFloat16   DataType = 9
	Float8E4M3 DataType = 10
	Float8E5M2 DataType = 11
)

var dataTypes = [...]struct {
	name string
	size int
}{
	{"ncclInt8", 1}, {"ncclUint8", 1}, {"ncclInt32", 4}, {"ncclUint32", 4}, {"ncclInt64", 8}, {"ncclUint64", 8},
	{"ncclFloat16", 2}, {"ncclFloat32", 4}, {"ncclFloat64", 8}, {"ncclBfloat16", 2},
	{"ncclFloat8e4m3", 1}, {"ncclFloat8e5m2", 1},
}

func (t DataType) valid() bool { return t >= 0 && int(t) < len(dataTypes) }

// Size is the type's size in bytes (0 for an unknown type).
func (t DataType) Size() int {
	if !t.valid() {
		return 0
	}
	return dataTypes[t].size
}

func (t DataType) String() string {
	if !t.valid() {
		return fmt.Sprintf("ncclDataType_t(%d)", int32(t))
	}
	return dataTypes[t].name
}

// float reports whether t is a floating-point type.
func (t DataType) float() bool { return t >= Float16 }

// signed reports whether t is a signed integer type.
func (t DataType) signed() bool { return t == Int8 || t == Int32 || t == Int64 }

// fp8 reports whether t is one of the fp8 types.
func (t DataType) fp8() bool { return t == Float8E4M3 || t == Float8E5M2 }

// TypeOf is the DataType of T.
func TypeOf[T Elem]() DataType {
	var z T
	switch any(z).(type) {
	case rt.Half:
		return Float16
	case rt.BFloat16:
		return BFloat16
	case rt.Float8E4M3:
		return Float8E4M3
	case rt.Float8E5M2:
		return Float8E5M2
	case float32:
		return Float32
	case float64:
		return Float64
	case int32:
		return Int32
	case uint32:
		return Uint32
	case int8:
		return Int8
	case uint8:
		return Uint8
	case int64:
		return Int64
	case uint64:
		return Uint64
	}
	// A Go type defined on one of the basic types.
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Int8:
		return Int8
	case reflect.Uint8:
		return Uint8
	case reflect.Int32:
		return Int32
	case reflect.Uint32:
		return Uint32
	case reflect.Int64:
		return Int64
	case reflect.Uint64:
		return Uint64
	case reflect.Float32:
		return Float32
	}
	return Float64
}

// RedOp is an ncclRedOp_t: one of the built-in reductions, or an operator
// made by NewPreMulSum for one communicator and type.
type RedOp int32

// The built-in reductions; the numbers are NCCL's (nccl.h). Avg divides
// the sum by the number of ranks: integers sum, then divide rounding
// toward zero; floating-point types multiply each rank's value by
// 1/nranks (rounded to the type) and then sum, as NCCL does.
const (
	Sum  RedOp = 0
	Prod RedOp = 1
	Max  RedOp = 2
	Min  RedOp = 3
	Avg  RedOp = 4
)

// numOps is ncclNumOps: the first value NCCL gives a created operator.
const numOps = 5

func (op RedOp) String() string {
	switch op {
	case Sum:
		return "sum"
	case Prod:
		return "prod"
	case Max:
		return "max"
	case Min:
		return "min"
	case Avg:
		return "avg"
	}
	return fmt.Sprintf("premulsum#%d", int32(op))
}
