// Hot file: the convolutions' GEMM packs its A operand here, straight from
// the convolution's input. Keep it allocation-free; measure with the
// network's benchmarks (bench/compare-pytorch-go) after any change.

package kernels

import "fmt"

// Patches is the A operand of a convolution's GEMM given by the
// convolution's input instead of its im2col matrix: row r of A is square
// r%Squares of image r/Squares, and its columns are the Cin channels of
// each of its T taps in turn (column t*Cin+c is channel c of tap t), the
// channels of the square Taps[s*T+t] of the same image, or zeros where that
// is -1 (off the board). X holds the images' squares, Cin channels each
// (row-major, ld Cin).
//
// [Workspace.GemmPatches] gathers each sliver of A into a small buffer
// that stays in L1 just before packing it, so the im2col matrix (9 times
// the input) is never written to memory and read back; the packed operand,
// and so the result, is bitwise what Gemm computes from the im2col matrix.
type Patches struct {
	X       []float32
	Cin     int
	Squares int
	Taps    []int16 // Squares × T
}

// GemmPatches computes C = A·B, with A the m × (T·Cin) patches of pa, B
// k×n (ldb) and C m×n (ldc, overwritten), on the calling goroutine with w's
// buffers. It panics like Gemm on bad dimensions or short slices, and if
// pa's taps do not fit its squares or point outside them.
func (w *Workspace) GemmPatches(m, n int, pa *Patches, b []float32, ldb int, c []float32, ldc int) {
	gemmPatchesWith(current.Load(), &w.ws, m, n, pa, b, ldb, c, ldc)
}

func gemmPatchesWith(im *impl, ws *workspace, m, n int, pa *Patches, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 {
		panic(fmt.Sprintf("kernels: negative dimension in GemmPatches (m=%d, n=%d)", m, n))
	}
	k := checkPatches(m, pa)
	checkMatrix("B", k, n, b, ldb)
	checkMatrix("C", m, n, c, ldc)
	gemmIn(im, ws, false, false, m, n, k, 1, nil, 0, pa, b, ldb, 0, c, ldc)
}

// checkPatches panics unless pa describes m rows; it returns their length.
func checkPatches(m int, pa *Patches) int {
	if pa.Cin < 1 || pa.Squares < 1 || len(pa.Taps) == 0 || len(pa.Taps)%pa.Squares != 0 {
		panic(fmt.Sprintf("kernels: Patches with Cin %d, %d squares and %d taps", pa.Cin, pa.Squares, len(pa.Taps)))
	}
	for _, t := range pa.Taps {
		if int(t) >= pa.Squares || t < -1 {
			panic(fmt.Sprintf("kernels: Patches tap %d outside %d squares", t, pa.Squares))
		}
	}
	if m%pa.Squares != 0 {
		panic(fmt.Sprintf("kernels: %d rows of Patches are not whole images of %d squares", m, pa.Squares))
	}
	if len(pa.X) < m*pa.Cin {
		panic(fmt.Sprintf("kernels: Patches X too short: len %d, %d rows of %d need %d", len(pa.X), m, pa.Cin, m*pa.Cin))
	}
	return len(pa.Taps) / pa.Squares * pa.Cin
}

// packPatches is packA for patches: it packs rows [i0, i0+mb) and columns
// [p0, p0+kb) of pa's A into dst, sliver by sliver, each gathered into
// stage (mr×kb) first and packed from there as packA packs it from A.
func packPatches(im *impl, pa *Patches, i0, mb, p0, kb int, dst, stage []float32) {
	mr, cin := im.mr, pa.Cin
	taps := len(pa.Taps) / pa.Squares
	for ir := 0; ir < mb; ir += mr {
		w := min(mr, mb-ir)
		W, _ := im.sliver(w)
		st := stage[:w*kb]
		for i := range w {
			r := i0 + ir + i
			s := r % pa.Squares
			base := r - s
			tp := pa.Taps[s*taps : (s+1)*taps]
			row := st[i*kb : (i+1)*kb]
			for p := p0; p < p0+kb; {
				t := p / cin
				c0 := p - t*cin
				n := min(cin-c0, p0+kb-p)
				d := row[p-p0 : p-p0+n]
				if nb := tp[t]; nb < 0 {
					clear(d)
				} else {
					copy(d, pa.X[(base+int(nb))*cin+c0:])
				}
				p += n
			}
		}
		im.transPack(dst[ir*kb:ir*kb+W*kb], st, kb, kb, w, W, 1)
	}
}
