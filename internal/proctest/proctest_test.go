package proctest

import (
	"os"
	"runtime"
	"testing"
)

// TestPeakRSS: this process's peak grows past a buffer it touches, and a
// process that is not there is an error.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's: skipped")
	}
	const size = 64 << 20
	buf := make([]byte, size)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1 // resident only once touched
	}
	peak, err := PeakRSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if peak < size {
		t.Errorf("got a peak of %d bytes, want at least the %d bytes touched", peak, size)
	}
	runtime.KeepAlive(buf)
	if _, err := PeakRSS(-1); err == nil {
		t.Error("pid -1: got no error, want one")
	}
}
