package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

const onLinux = true

// TestMakeAdvises checks in /proc/self/smaps that the memory of a large
// slice, first byte to last, carries the kernel's huge page advice ("hg"
// in its mapping's VmFlags). (That a small one does not cannot be checked:
// the heap may place it in memory a freed large one advised.)
func TestMakeAdvises(t *testing.T) {
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(b), "[never]") {
		t.Skipf("this system has no transparent huge pages to advise (%q, %v)", b, err)
	}
	for _, c := range []struct {
		name  string
		bytes int
	}{
		{"4 MiB", 2 * Size},
		{"3 MiB and a bit", 3*Size/2 + 100},
		{"one huge page", Size},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Make[byte](c.bytes)
			start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
			for _, addr := range []uintptr{start, start + uintptr(c.bytes) - 1} {
				flags, err := vmFlags(addr)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(" "+flags+" ", " hg ") {
					t.Errorf("byte %#x: got VmFlags %s, want hg among them", addr, flags)
				}
			}
		})
	}
}

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps that
// holds addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line[:strings.IndexByte(line, ' ')], "-") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping of /proc/self/smaps holds %#x", addr)
}
