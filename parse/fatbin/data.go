package fatbin

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// MaxDataSize is the largest decompressed image Data accepts: chosen well
// above the cubins and PTX cugen expects, and low enough that a hostile
// header cannot make Data allocate gigabytes. DataLimit lifts it for
// callers that need more.
const MaxDataSize = 256 << 20

// hardMaxDataSize bounds DataLimit (4 GiB).
const hardMaxDataSize = 1 << 32

// Worst-case expansion ratios, used to reject an uncompressed size that the
// compressed bytes could not possibly produce before allocating for it.
// LZ4: each input byte yields at most 255 output bytes (match-length
// extension bytes), plus the token's own 19. Zstd: the smallest block
// producing the 128 KiB block maximum is a 4-byte RLE block.
const (
	lz4MaxRatio  = 256
	zstdMaxRatio = 128 << 10 / 4
)

// ErrObfuscated is the cause Data reports for obfuscated payloads (the
// LTO-IR that nvcc -dlto embeds), which cannot be decoded without NVIDIA's key.
var ErrObfuscated = errors.New("payload is obfuscated")

// PTXVersion returns the PTX ISA version recorded in the header of a PTX
// entry (9.0 for CUDA 13.0), or 0, 0 for other kinds. Use it rather than the
// text: nvFatbin may drop the .version line from the stored PTX.
func (e *Entry) PTXVersion() (major, minor int) {
	if e.Kind != KindPTX {
		return 0, 0
	}
	return int(e.Major), int(e.Minor)
}

// Data returns the image, decompressed: a cubin for ELF entries, the PTX
// text without its trailing NULs for PTX entries. Obfuscated payloads
// (LTO-IR) yield an error wrapping ErrObfuscated; Payload still gives their
// stored bytes. Exactly CompressedSize payload bytes are
// decompressed and the result must be exactly UncompressedSize bytes; sizes
// above MaxDataSize or beyond what CompressedSize bytes can expand to are
// refused before any allocation. For uncompressed entries the result
// aliases the input and must not be modified.
func (e *Entry) Data() ([]byte, error) { return e.DataLimit(MaxDataSize) }

// DataLimit is Data with a caller-chosen cap on the decompressed size
// (at most 4 GiB).
func (e *Entry) DataLimit(limit int64) ([]byte, error) {
	limit = min(limit, hardMaxDataSize)
	data, _, err := e.decode(NewBudget(limit), limit)
	return data, err
}

// DataBudget is Data for one of many decompressions of a run: the
// decompressed size is reserved in b before anything is allocated, waiting
// while other goroutines hold the budget, and refused when it can never fit.
// Call release once the data is no longer used (it does nothing for stored
// entries, whose data aliases the input).
func (e *Entry) DataBudget(b *Budget) (data []byte, release func(), err error) {
	return e.decode(b, MaxDataSize)
}

func (e *Entry) decode(b *Budget, limit int64) (data []byte, release func(), err error) {
	release = func() {}
	payloadOff := e.Offset + int64(e.HeaderSize)
	if e.Flags.Obfuscated() {
		// LTO-IR is obfuscated before it is compressed; without the
		// key the zstd frame is noise.
		return nil, release, &FormatError{Off: payloadOff, Msg: "cannot decode " + e.Kind.String() + " payload", Err: ErrObfuscated}
	}
	var out []byte
	switch c := e.Compression(); c {
	case CompressNone:
		if e.src == nil {
			out = e.Payload()
			break
		}
		// An entry of a file read in pieces: its bytes are read now, and
		// held within the budget as a decompressed entry's are.
		us := e.PayloadSize
		if limit < 0 || us > uint64(limit) {
			return nil, release, errorf(e.Offset+8, "payload size %#x exceeds limit %#x", us, limit)
		}
		rel, err := b.reserve(us, "entry "+e.Target(), e.Offset+8, false)
		if err != nil {
			return nil, release, err
		}
		if out, err = e.stored(us); err != nil {
			rel()
			return nil, release, err
		}
		release = rel
	case CompressLZ4, CompressZstd:
		cs, us := uint64(e.CompressedSize), e.UncompressedSize
		ratio := uint64(lz4MaxRatio)
		if c == CompressZstd {
			ratio = zstdMaxRatio
		}
		switch {
		case cs == 0:
			return nil, release, errorf(e.Offset+16, "%s entry has compressed size 0", c)
		case us == 0:
			return nil, release, errorf(e.Offset+56, "%s entry has uncompressed size 0", c)
		case limit < 0 || us > uint64(limit):
			return nil, release, errorf(e.Offset+56, "uncompressed size %#x exceeds limit %#x", us, limit)
		case us > cs*ratio+64:
			return nil, release, errorf(e.Offset+56, "uncompressed size %#x impossible for %#x bytes of %s", us, cs, c)
		case cs > e.payloadLen():
			// Parse rules this out; an Entry assembled by hand may not.
			return nil, release, errorf(e.Offset+16, "compressed size %#x exceeds payload of %#x bytes", cs, e.payloadLen())
		}
		rel, err := b.reserve(us, "entry "+e.Target(), e.Offset+56, false)
		if err != nil {
			return nil, release, err
		}
		src, err := e.stored(cs)
		if err != nil {
			rel()
			return nil, release, err
		}
		if c == CompressLZ4 {
			out, err = unLZ4(src, int(us))
		} else {
			out, err = unZstd(src, int(us))
		}
		if err != nil {
			rel()
			return nil, release, &FormatError{Off: payloadOff, Msg: "decompressing " + c.String() + " payload", Err: err}
		}
		release = rel
	}
	if e.Kind == KindPTX {
		out = bytes.TrimRight(out, "\x00")
	}
	return out[:len(out):len(out)], release, nil
}

// payloadLen is the stored payload's length.
func (e *Entry) payloadLen() uint64 {
	if e.src != nil {
		return e.PayloadSize
	}
	return uint64(len(e.Payload()))
}

// stored is the first n bytes of the payload as stored (n ≤ payloadLen):
// a slice of Raw, or, for an entry of a file read in pieces, read from it.
func (e *Entry) stored(n uint64) ([]byte, error) {
	if e.src == nil {
		return e.Payload()[:n], nil
	}
	b := make([]byte, n)
	at := e.srcOff + int64(e.HeaderSize)
	if _, err := e.src.ReadAt(b, at); err != nil {
		return nil, &FormatError{Off: at, Msg: fmt.Sprintf("reading the %d-byte payload of entry %s", n, e.Target()), Err: err}
	}
	return b, nil
}

func unLZ4(src []byte, size int) ([]byte, error) {
	dst := make([]byte, size)
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return nil, err
	}
	if n != size {
		return nil, fmt.Errorf("decompressed to %d bytes, header says %d", n, size)
	}
	return dst, nil
}

// zstdDec is shared by all entries: DecodeAll is safe for concurrent use
// and building a decoder per call costs more than most payloads.
// Concurrency 1 keeps its memory to one block decoder, and the cap limit
// makes DecodeAll stop at cap(dst) = the declared size instead of growing
// the output for a frame that lies about its length.
var zstdDec = sync.OnceValues(newZstdDec)

func newZstdDec() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(hardMaxDataSize),
		zstd.WithDecodeAllCapLimit(true))
}

// bigZstd is the output size from which a payload gets a decoder of its
// own, closed after it: the shared decoder keeps a reference to the last
// output it wrote until its next use, which for a 256 MiB entry is
// 256 MiB held after the entry's release (and the budget's accounting).
const bigZstd = 8 << 20

func unZstd(src []byte, size int) ([]byte, error) {
	// Check the frame header first: a frame declaring a content size
	// other than the entry header's is refused before allocating.
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return nil, err
	}
	if h.HasFCS && h.FrameContentSize != uint64(size) {
		return nil, fmt.Errorf("zstd frame declares %d bytes, header says %d", h.FrameContentSize, size)
	}
	d, err := zstdDec()
	if size >= bigZstd {
		d, err = newZstdDec()
		if err == nil {
			defer d.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	out, err := d.DecodeAll(src, make([]byte, 0, size))
	if err != nil {
		return nil, err
	}
	if len(out) != size {
		return nil, fmt.Errorf("decompressed to %d bytes, header says %d", len(out), size)
	}
	return out, nil
}
