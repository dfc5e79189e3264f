package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The Arrow library trusts the lengths that a file's flatbuffers give
// (a field's children, a schema's metadata, a batch's buffers) and makes a
// slice of each before it reads them: a crafted file with a valid checksum
// and a length of a billion made it allocate 168 GB and the process die
// (found by FuzzReadShard). checkFlatbuffers walks the footer and every
// record batch's message first, and refuses any length that does not fit
// in the bytes that hold it; the reads go through a boundedAllocator too.

// fbMaxDepth bounds the nesting of fields: ours nest two deep.
const fbMaxDepth = 16

// fb is a flatbuffer held in buf, read with bounds checks.
type fb struct{ buf []byte }

var errFlatbuffer = errors.New("corrupt Arrow metadata: a flatbuffer offset or length out of bounds")

func (b fb) u32(at int) (uint32, error) {
	if at < 0 || at+4 > len(b.buf) {
		return 0, errFlatbuffer
	}
	return binary.LittleEndian.Uint32(b.buf[at:]), nil
}

func (b fb) u16(at int) (uint16, error) {
	if at < 0 || at+2 > len(b.buf) {
		return 0, errFlatbuffer
	}
	return binary.LittleEndian.Uint16(b.buf[at:]), nil
}

// root returns the position of the root table.
func (b fb) root() (int, error) {
	off, err := b.u32(0)
	if err != nil || int(off) >= len(b.buf) {
		return 0, errFlatbuffer
	}
	return int(off), b.table(int(off))
}

// table checks the vtable of the table at pos.
func (b fb) table(pos int) error {
	soff, err := b.u32(pos)
	if err != nil {
		return err
	}
	vt := pos - int(int32(soff))
	size, err := b.u16(vt)
	if err != nil || size < 4 || vt+int(size) > len(b.buf) {
		return errFlatbuffer
	}
	return nil
}

// field returns the position of field i of the table at pos, or 0 when
// the table does not have it.
func (b fb) field(pos, i int) (int, error) {
	soff, err := b.u32(pos)
	if err != nil {
		return 0, err
	}
	vt := pos - int(int32(soff))
	size, err := b.u16(vt)
	if err != nil {
		return 0, err
	}
	if 4+2*i+2 > int(size) {
		return 0, nil
	}
	fo, err := b.u16(vt + 4 + 2*i)
	if err != nil || fo == 0 {
		return 0, err
	}
	return pos + int(fo), nil
}

// ref follows the offset of field i of the table at pos: the position of
// the subtable, vector or string it points to, or 0 when absent.
func (b fb) ref(pos, i int) (int, error) {
	at, err := b.field(pos, i)
	if err != nil || at == 0 {
		return 0, err
	}
	off, err := b.u32(at)
	if err != nil || off == 0 || at+int(off) >= len(b.buf) {
		return 0, errFlatbuffer
	}
	return at + int(off), nil
}

// vector checks the vector of field i of the table at pos, of elements of
// elem bytes, and returns the position of its first element and its
// length (0, 0 when absent).
func (b fb) vector(pos, i, elem int) (start, n int, err error) {
	at, err := b.ref(pos, i)
	if err != nil || at == 0 {
		return 0, 0, err
	}
	l, err := b.u32(at)
	if err != nil || uint64(at)+4+uint64(l)*uint64(elem) > uint64(len(b.buf)) {
		return 0, 0, errFlatbuffer
	}
	return at + 4, int(l), nil
}

// tables checks the vector of tables of field i of the table at pos and
// calls fn with each table's position.
func (b fb) tables(pos, i int, fn func(pos int) error) error {
	start, n, err := b.vector(pos, i, 4)
	if err != nil {
		return err
	}
	for k := range n {
		at := start + 4*k
		off, _ := b.u32(at)
		if at+int(off) >= len(b.buf) {
			return errFlatbuffer
		}
		if err := b.table(at + int(off)); err != nil {
			return err
		}
		if err := fn(at + int(off)); err != nil {
			return err
		}
	}
	return nil
}

// keyValues checks a vector of KeyValue tables (key, value strings).
func (b fb) keyValues(pos, i int) error {
	return b.tables(pos, i, func(kv int) error {
		for f := range 2 {
			if _, _, err := b.vector(kv, f, 1); err != nil {
				return err
			}
		}
		return nil
	})
}

// arrowField checks a Field table: name, type, dictionary, children
// (recursively), metadata.
func (b fb) arrowField(pos, depth int) error {
	if depth > fbMaxDepth {
		return errors.New("corrupt Arrow metadata: fields nested too deep")
	}
	if _, _, err := b.vector(pos, 0, 1); err != nil { // name
		return err
	}
	for _, f := range []int{3, 4} { // type, dictionary
		at, err := b.ref(pos, f)
		if err != nil {
			return err
		}
		if at != 0 {
			if err := b.table(at); err != nil {
				return err
			}
		}
	}
	if err := b.tables(pos, 5, func(child int) error { return b.arrowField(child, depth+1) }); err != nil {
		return err
	}
	return b.keyValues(pos, 6)
}

// checkFooter checks the flatbuffer of an Arrow file's footer: its schema
// (fields, metadata, features) and its block vectors.
func checkFooter(buf []byte) error {
	b := fb{buf}
	footer, err := b.root()
	if err != nil {
		return err
	}
	schema, err := b.ref(footer, 1)
	if err != nil {
		return err
	}
	if schema != 0 {
		if err := b.table(schema); err != nil {
			return err
		}
		if err := b.tables(schema, 1, func(f int) error { return b.arrowField(f, 0) }); err != nil {
			return err
		}
		if err := b.keyValues(schema, 2); err != nil {
			return err
		}
		if _, _, err := b.vector(schema, 3, 8); err != nil {
			return err
		}
	}
	for _, f := range []int{2, 3} { // dictionaries, record batches: Block structs
		if _, _, err := b.vector(footer, f, 24); err != nil {
			return err
		}
	}
	return b.keyValues(footer, 4)
}

// checkMessage checks the flatbuffer of a record batch's message: its
// header's nodes, buffers and counts, and its metadata.
func checkMessage(buf []byte) error {
	b := fb{buf}
	msg, err := b.root()
	if err != nil {
		return err
	}
	header, err := b.ref(msg, 2)
	if err != nil {
		return err
	}
	if header != 0 {
		if err := b.table(header); err != nil {
			return err
		}
		// RecordBatch: nodes and buffers (16-byte structs), compression,
		// variadic buffer counts; a DictionaryBatch's fields 1 and 2 are
		// not vectors, and we write no dictionaries.
		for _, f := range []struct{ i, elem int }{{1, 16}, {2, 16}, {4, 8}} {
			if _, _, err := b.vector(header, f.i, f.elem); err != nil {
				return err
			}
		}
	}
	return b.keyValues(msg, 4)
}

// checkArrowMetadata checks the footer and the message of every record
// batch of the Arrow file in data (which openFile has found to start and
// end with the magic).
func checkArrowMetadata(data []byte) error {
	n := len(data)
	if n < 2*len(arrowMagic)+4 {
		return errors.New("corrupt Arrow file: too short for a footer")
	}
	footerLen := int(int32(binary.LittleEndian.Uint32(data[n-len(arrowMagic)-4:])))
	footerEnd := n - len(arrowMagic) - 4
	if footerLen <= 0 || footerLen > footerEnd-len(arrowMagic) {
		return fmt.Errorf("corrupt Arrow file: a footer of %d bytes in a file of %d", footerLen, n)
	}
	footer := data[footerEnd-footerLen : footerEnd]
	if err := checkFooter(footer); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	b := fb{footer}
	root, _ := b.root()
	start, count, _ := b.vector(root, 3, 24)
	for k := range count {
		at := start + 24*k
		offset := int64(binary.LittleEndian.Uint64(footer[at:]))
		metaLen := int64(int32(binary.LittleEndian.Uint32(footer[at+8:])))
		if offset < 0 || metaLen < 8 || offset > int64(n) || metaLen > int64(n)-offset {
			return fmt.Errorf("record batch %d: corrupt Arrow file: a block at %d of %d bytes in a file of %d", k, offset, metaLen, n)
		}
		meta := data[offset : offset+metaLen]
		// An encapsulated message: 0xFFFFFFFF, its length, the flatbuffer.
		skip := 4
		if binary.LittleEndian.Uint32(meta) == 0xFFFFFFFF {
			skip = 8
		}
		msgLen := int64(int32(binary.LittleEndian.Uint32(meta[skip-4:])))
		if msgLen <= 0 || msgLen > metaLen-int64(skip) {
			return fmt.Errorf("record batch %d: corrupt Arrow file: a message of %d bytes in a block of %d", k, msgLen, metaLen)
		}
		if err := checkMessage(meta[skip : int64(skip)+msgLen]); err != nil {
			return fmt.Errorf("record batch %d: %w", k, err)
		}
	}
	return nil
}

// boundedAllocator refuses (panics, as the Arrow library's allocators do
// when they fail; recoverCorrupt turns it into an error) any allocation
// that would bring what it has allocated past limit: a file's buffers are
// never larger than the file.
type boundedAllocator struct {
	memory.Allocator
	limit int64
	used  atomic.Int64
}

func newBoundedAllocator(mem memory.Allocator, limit int64) *boundedAllocator {
	return &boundedAllocator{Allocator: mem, limit: limit}
}

func (a *boundedAllocator) Allocate(size int) []byte {
	if a.used.Add(int64(size)) > a.limit {
		panic(fmt.Sprintf("an allocation of %d bytes past the %d that a file of this size may need", size, a.limit))
	}
	return a.Allocator.Allocate(size)
}

func (a *boundedAllocator) Reallocate(size int, b []byte) []byte {
	if a.used.Add(int64(size-len(b))) > a.limit {
		panic(fmt.Sprintf("an allocation of %d bytes past the %d that a file of this size may need", size, a.limit))
	}
	return a.Allocator.Reallocate(size, b)
}

func (a *boundedAllocator) Free(b []byte) {
	a.used.Add(-int64(len(b)))
	a.Allocator.Free(b)
}
