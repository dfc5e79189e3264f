package hugepage

import (
	"testing"
	"unsafe"
)

// TestMake checks the slices' length, capacity and zeros for small and
// large sizes of each width, and that the large ones start on a huge page
// boundary (on Linux; elsewhere Make is make).
func TestMake(t *testing.T) {
	cases := []struct {
		name string
		make func() (n, elem int, p unsafe.Pointer, zero func() bool, length, capacity int)
	}{
		{"float32 small", sized[float32](1000)},
		{"float32 one page", sized[float32](Size / 4)},
		{"float32 large", sized[float32](3*Size/4 + 17)},
		{"uint16 large", sized[uint16](5*Size/2 + 3)},
		{"uint8 just under", sized[uint8](Size - 1)},
		{"float64 large", sized[float64](Size/8 + 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, elem, p, zero, length, capacity := c.make()
			if length != n || capacity != n {
				t.Fatalf("len %d cap %d, want %d and %d", length, capacity, n, n)
			}
			if !zero() {
				t.Errorf("got a non-zero element, want all zero")
			}
			if aligned := uintptr(p)%Size == 0; onLinux && n*elem >= Size && !aligned {
				t.Errorf("start %#x: got not on a %d-byte boundary, want on one", uintptr(p), Size)
			}
		})
	}
}

// sized makes a Make of n elements and reports what TestMake checks,
// writing every element after checking the zeros (so that the memory is
// used as a caller would).
func sized[T Number](n int) func() (int, int, unsafe.Pointer, func() bool, int, int) {
	return func() (int, int, unsafe.Pointer, func() bool, int, int) {
		s := Make[T](n)
		var zero T
		allZero := func() bool {
			for _, v := range s {
				if v != 0 {
					return false
				}
			}
			for i := range s {
				s[i] = 1
			}
			return true
		}
		return n, int(unsafe.Sizeof(zero)), unsafe.Pointer(unsafe.SliceData(s)), allZero, len(s), cap(s)
	}
}
