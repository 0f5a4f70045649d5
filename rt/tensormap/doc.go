// Package tensormap encodes CUtensorMaps, the 128-byte descriptors of a
// tensor in global memory that Hopper's tensor memory accelerator (TMA)
// copies boxes of with cp.async.bulk.tensor. A description of the tensor
// and its boxes (Tiled for cuTensorMapEncodeTiled, Im2col for
// cuTensorMapEncodeIm2col) checks itself by the rules CUDA documents
// (Validate); EncodeTiled and EncodeIm2col validate it and ask a backend
// that implements Encoder (rt/cgo, rt/soft) for the Map:
//
//	m, err := tensormap.EncodeTiled(drv, tensormap.Tiled{DataType: tensormap.Float32,
//		Addr: uint64(buf.Ptr.Addr()), Dims: []uint64{cols, rows}, Strides: []uint64{4 * cols},
//		Box: []uint32{32, 8}})
//	err = kernels.TmaTile(cfg, m, out, 0, 0)
//
// A kernel takes a CUtensorMap by value; generated code spells the type
// rt.TensorMap, an alias of Map.
//
// The package imports nothing of rt (rt imports it, for that alias and for
// the deprecated names it kept: rt.TiledTensor, rt.EncodeTiled, …), which is
// why a device address is a plain uint64 here. Its errors are *rt.Error
// values (rt.ErrInvalidValue, rt.ErrNotSupported) in a program that links
// rt.
package tensormap
