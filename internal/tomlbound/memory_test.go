package tomlbound_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"taflab/internal/proctest"
	"taflab/internal/tomlbound"
)

// worstFiles are the files within every bound that cost the decoder most:
// each at or near MaxBytes, and as deep, as long in its keys or as many in
// its values as the bounds let it be.
func worstFiles() map[string]string {
	files := map[string]string{}
	// Keys of MaxKeyBytes through MaxDepth-deep dotted paths, each path
	// its own (every implicit table new), as many as MaxBytes holds.
	part := strings.Repeat("p", tomlbound.MaxKeyBytes/tomlbound.MaxDepth-4)
	var b strings.Builder
	for i := 0; ; i++ {
		var line strings.Builder
		for d := 0; d < tomlbound.MaxDepth; d++ {
			fmt.Fprintf(&line, "%s%03d.", part, (i+d)%1000)
		}
		line.WriteString(fmt.Sprintf("k%d = %d\n", i, i))
		if b.Len()+line.Len() > tomlbound.MaxBytes {
			break
		}
		b.WriteString(line.String())
	}
	files["deep dotted keys of the longest paths"] = b.String()
	// A header at the deepest with the longest path, then as many keys as
	// MaxValues lets it hold.
	b.Reset()
	b.WriteString("[" + strings.TrimSuffix(strings.Repeat(strings.Repeat("h", tomlbound.MaxKeyBytes/(tomlbound.MaxDepth-1)-8)+".", tomlbound.MaxDepth-1), ".") + "]\n")
	for i := 0; i < tomlbound.MaxValues-2; i++ {
		fmt.Fprintf(&b, "k%d = %d\n", i, i)
	}
	files["the most keys in the deepest, longest table"] = b.String()
	// Inline tables and arrays MaxDepth deep, side by side, up to
	// MaxValues.
	b.Reset()
	one := "x = " + strings.Repeat("{a = [", tomlbound.MaxDepth/2) + "1" + strings.Repeat("]}", tomlbound.MaxDepth/2)
	for i := 0; b.Len() < tomlbound.MaxBytes-len(one)-20 && (i+1)*(tomlbound.MaxDepth+1) <= tomlbound.MaxValues; i++ { // a line holds MaxDepth+1 values
		b.WriteString(strings.Replace(one, "x", "x"+strconv.Itoa(i), 1) + "\n")
	}
	files["inline tables and arrays at the deepest"] = b.String()
	// The most array elements.
	files["the most array elements"] = "x = [" + strings.Repeat("1,", tomlbound.MaxValues-1) + "]\n"
	// One string of MaxBytes, escapes throughout.
	files["the largest string"] = `x = "` + strings.Repeat(`\u00e9`, (tomlbound.MaxBytes-8)/6) + "\"\n"
	return files
}

// decodeMemoryBound is the most the decoder may add to a process's
// resident memory decoding any file within the bounds (the file's text
// aside).
const decodeMemoryBound = 48 << 20

const childEnv = "TAFLAB_TOMLBOUND_MEMORY_CHILD"

// TestDecodeMemoryProcess is TestMemoryDecode's child: it decodes the worst
// file named in $TAFLAB_TOMLBOUND_MEMORY_CHILD and prints its resident
// memory before and its peak resident memory while decoding.
func TestDecodeMemoryProcess(t *testing.T) {
	name := os.Getenv(childEnv)
	if name == "" {
		t.Skip("the child of TestMemoryDecode; it runs only as that test's child")
	}
	text := []byte(worstFiles()[name])
	runtime.GC()
	// The peak so far is the making of the files: reset it (Linux's
	// clear_refs 5) to what is resident now.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("resetting the peak: %v", err)
	}
	before, err := proctest.PeakRSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if _, err := tomlbound.Decode(text, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	after, err := proctest.PeakRSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("peak %d %d\n", before, after)
}

// TestMemoryDecode decodes each worst file within the bounds in a process of
// its own and checks that decoding it takes less than decodeMemoryBound
// above what the process held before (a file of 80 KB nested 40,000 deep
// took 1.6 GB before the bounds). The decoder is github.com/BurntSushi/toml
// with Go's default GOGC, as the commands run it.
func TestMemoryDecode(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies memory: the bound is checked without -race")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the peak memory is read from /proc/PID/status")
	}
	for name, text := range worstFiles() {
		t.Run(name, func(t *testing.T) {
			if err := tomlbound.Check([]byte(text)); err != nil {
				t.Fatalf("the file is past a bound: %v", err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestDecodeMemoryProcess$", "-test.v=false")
			cmd.Env = append(os.Environ(), childEnv+"="+name, "GOGC=100", "GOMEMLIMIT=off")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var before, after int64
			if _, err := fmt.Sscanf(string(out), "peak %d %d", &before, &after); err != nil {
				t.Fatalf("child's output %q: %v", out, err)
			}
			t.Logf("%d bytes of TOML: resident %.1f MB before decoding, at most %.1f MB while decoding", len(text), float64(before)/1e6, float64(after)/1e6)
			if after-before > decodeMemoryBound {
				t.Errorf("decoding took %.1f MB more, want under %d MiB", float64(after-before)/1e6, decodeMemoryBound>>20)
			}
		})
	}
}
