package devmem

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"
)

// mem is device-like memory: []uint64-backed, as rt/soft's allocations.
func mem(n int) []byte {
	b := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), n)
}

// Loads and stores of every size at every offset read and write the
// little-endian bytes, and nothing beside them.
func TestLoadStore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []uint16{1, 2, 4, 8} {
		for off := 0; off < 16; off++ {
			b, want := mem(32), make([]byte, 32)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			copy(want, b)
			v := r.Uint64() & (1<<(8*size) - 1)
			if size == 8 {
				v = r.Uint64()
			}
			Store(unsafe.Pointer(&b[off]), size, v)
			var le [8]byte
			binary.LittleEndian.PutUint64(le[:], v)
			copy(want[off:off+int(size)], le[:size])
			if !bytes.Equal(b, want) {
				t.Fatalf("Store(%d at %d, %#x): % x, want % x", size, off, v, b, want)
			}
			if got := Load(unsafe.Pointer(&b[off]), size); got != v {
				t.Fatalf("Load(%d at %d) = %#x, want %#x", size, off, got, v)
			}
		}
	}
}

// Copies of every length between every pair of offsets move the bytes
// as the built-in copy does, overlapping spans included.
func TestCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 40; n++ {
		for do := 0; do < 9; do++ {
			for so := 0; so < 9; so++ {
				src, dst := mem(64), mem(64)
				for i := range src {
					src[i], dst[i] = byte(r.Uint32()), byte(r.Uint32())
				}
				want := append([]byte(nil), dst...)
				copy(want[do:do+n], src[so:so+n])
				Copy(dst[do:do+n], src[so:so+n])
				if !bytes.Equal(dst, want) {
					t.Fatalf("Copy n=%d dst+%d src+%d", n, do, so)
				}
				host := make([]byte, 64)
				CopyOut(host[do:do+n], src[so:so+n])
				if !bytes.Equal(host[do:do+n], src[so:so+n]) {
					t.Fatalf("CopyOut n=%d", n)
				}
				dev := mem(64)
				CopyIn(dev[do:do+n], host[do:do+n])
				if !bytes.Equal(dev[do:do+n], src[so:so+n]) {
					t.Fatalf("CopyIn n=%d", n)
				}
				Clear(dev[do : do+n])
				if !bytes.Equal(dev, make([]byte, 64)) {
					t.Fatalf("Clear n=%d", n)
				}
			}
		}
		// Overlapping, both ways.
		for _, d := range []int{-3, 3, -8, 8} {
			b := mem(80)
			for i := range b {
				b[i] = byte(i)
			}
			want := append([]byte(nil), b...)
			copy(want[20+d:20+d+n], want[20:20+n])
			Copy(b[20+d:20+d+n], b[20:20+n])
			if !bytes.Equal(b, want) {
				t.Fatalf("overlapping Copy n=%d d=%d", n, d)
			}
		}
	}
}

// Fill writes the pattern at every offset and length.
func TestFill(t *testing.T) {
	for _, size := range []int{1, 2, 4} {
		for off := 0; off < 8; off += size {
			for n := 0; n <= 40; n += size {
				b := mem(64)
				for i := range b {
					b[i] = 0xee
				}
				want := append([]byte(nil), b...)
				for i := 0; i < n; i++ {
					want[off+i] = byte(uint32(0x44332211) >> (8 * (i % size)))
				}
				Fill(b[off:off+n], 0x44332211, size)
				if !bytes.Equal(b, want) {
					t.Fatalf("Fill size %d off %d n %d: % x", size, off, n, b[:off+n+1])
				}
			}
		}
	}
}

// Goroutines storing into the same word and its neighbours, and copying
// over it, are a race the kernel's, not the Go program's: under -race
// this test must pass without a report; in every build each byte ends
// up as one of the values written to it.
func TestConcurrentAccess(t *testing.T) {
	b := mem(64)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			src := mem(64)
			for i := range src {
				src[i] = byte(g)
			}
			for k := 0; k < 200; k++ {
				Store(unsafe.Pointer(&b[g]), 1, uint64(g))
				Store(unsafe.Pointer(&b[8]), 4, 1)
				Store(unsafe.Pointer(&b[16+2*(g%4)]), 2, uint64(g))
				_ = Load(unsafe.Pointer(&b[8]), 8)
				Copy(b[32:64], src[32:64])
				CopyOut(make([]byte, 64), b)
			}
		}(g)
	}
	wg.Wait()
	for g := 0; g < 8; g++ {
		if b[g] != byte(g) {
			t.Errorf("byte %d = %d, want %d", g, b[g], g)
		}
	}
	if Load(unsafe.Pointer(&b[8]), 4) != 1 {
		t.Errorf("the shared flag is %d", Load(unsafe.Pointer(&b[8]), 4))
	}
	for i := 32; i < 64; i++ {
		if b[i] > 7 {
			t.Errorf("byte %d = %d, not a value written", i, b[i])
		}
	}
}
