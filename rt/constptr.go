package rt

import (
	"fmt"
	"unsafe"
)

// ConstPtr is a typed device pointer to data the kernel only reads: the Go
// type of a const T* parameter. Any Ptr converts to it with Const
// (buf.Ptr.Const(), or buf.Const()); going back takes an explicit conversion,
// rt.Ptr[T](c), the const_cast of Go. Keeping the two apart means a generated
// signature says which buffers a kernel writes.
type ConstPtr[T any] DevPtr

// Const is p as a pointer to read-only data.
func (p Ptr[T]) Const() ConstPtr[T] { return ConstPtr[T](p) }

// Const is the buffer's address as a pointer to read-only data.
func (b Buffer[T]) Const() ConstPtr[T] { return ConstPtr[T](b.Ptr) }

// Addr is the untyped device address.
func (p ConstPtr[T]) Addr() DevPtr { return DevPtr(p) }

// IsNil reports whether p is the null device pointer.
func (p ConstPtr[T]) IsNil() bool { return p == 0 }

// Add returns p advanced by n elements of T.
func (p ConstPtr[T]) Add(n int) ConstPtr[T] {
	var z T
	return p + ConstPtr[T](uintptr(n)*unsafe.Sizeof(z))
}

func (p ConstPtr[T]) String() string { return fmt.Sprintf("%#x", uint64(p)) }
