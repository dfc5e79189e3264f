// Hot file: these helpers run on every activation of the network (bias,
// ReLU and their gradients); keep them allocation-free and dispatching to
// the vector loops.

package kernels

import "fmt"

// vecOps are the vector loops of one implementation. Each takes slices of
// equal length (the callers check).
type vecOps struct {
	axpy     func(alpha float32, x, y []float32)
	scale    func(alpha float32, x []float32)
	dot      func(x, y []float32) float32
	addConst func(s float32, x []float32, relu bool)
	addVec   func(b, x []float32, relu bool)
	reluGrad func(dy, y []float32)
}

var genericVec = &vecOps{
	axpy:     axpyGeneric,
	scale:    scaleGeneric,
	dot:      dotGeneric,
	addConst: addConstGeneric,
	addVec:   addVecGeneric,
	reluGrad: reluGradGeneric,
}

// vec returns the vector loops of the implementation in use.
func vec() *vecOps {
	if v := current.Load().vec; v != nil {
		return v
	}
	return genericVec
}

func checkSameLen(fn string, x, y []float32) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("kernels: %s: slices of different lengths %d and %d", fn, len(x), len(y)))
	}
}

// Axpy sets y[i] += alpha*x[i]. It panics if x and y differ in length.
func Axpy(alpha float32, x, y []float32) {
	checkSameLen("Axpy", x, y)
	if alpha == 0 {
		return
	}
	vec().axpy(alpha, x, y)
}

// Scale sets x[i] *= alpha.
func Scale(alpha float32, x []float32) {
	vec().scale(alpha, x)
}

// Dot returns Σ x[i]*y[i], accumulated in float32 over several partial
// sums. It panics if x and y differ in length.
func Dot(x, y []float32) float32 {
	checkSameLen("Dot", x, y)
	return vec().dot(x, y)
}

// ReLU sets x[i] = max(x[i], 0) in place (NaN stays NaN).
func ReLU(x []float32) {
	vec().addConst(0, x, true)
}

// ReLUGrad is the backward pass of ReLU: it sets dy[i] = 0 wherever the
// forward output y[i] is not positive, and leaves dy[i] alone elsewhere. It
// panics if dy and y differ in length.
func ReLUGrad(dy, y []float32) {
	checkSameLen("ReLUGrad", dy, y)
	vec().reluGrad(dy, y)
}

// AddBiasPerRow adds bias[i] to every element of row i of the rows×cols
// row-major matrix c (leading dimension ldc), then, if relu is set, clamps
// the row to max(·, 0). This is the channel-major layout: one row per
// channel. It panics if c or bias is too short or ldc < cols.
func AddBiasPerRow(c []float32, rows, cols, ldc int, bias []float32, relu bool) {
	checkBias("AddBiasPerRow", c, rows, cols, ldc, bias, rows)
	v := vec()
	for i := 0; i < rows; i++ {
		v.addConst(bias[i], c[i*ldc:i*ldc+cols], relu)
	}
}

// AddBiasPerCol adds bias[j] to element j of every row of the rows×cols
// row-major matrix c (leading dimension ldc), then, if relu is set, clamps
// to max(·, 0). This is the batch-major layout: one column per channel. It
// panics if c or bias is too short or ldc < cols.
func AddBiasPerCol(c []float32, rows, cols, ldc int, bias []float32, relu bool) {
	checkBias("AddBiasPerCol", c, rows, cols, ldc, bias, cols)
	v := vec()
	bias = bias[:cols]
	for i := 0; i < rows; i++ {
		v.addVec(bias, c[i*ldc:i*ldc+cols], relu)
	}
}

func checkBias(fn string, c []float32, rows, cols, ldc int, bias []float32, nbias int) {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("kernels: %s: negative dimension (rows=%d, cols=%d)", fn, rows, cols))
	}
	if ldc < max(1, cols) {
		panic(fmt.Sprintf("kernels: %s: bad ldc=%d for %d columns", fn, ldc, cols))
	}
	if rows > 0 && cols > 0 && len(c) < (rows-1)*ldc+cols {
		panic(fmt.Sprintf("kernels: %s: c too short: len %d, need %d", fn, len(c), (rows-1)*ldc+cols))
	}
	if len(bias) < nbias {
		panic(fmt.Sprintf("kernels: %s: bias too short: len %d, need %d", fn, len(bias), nbias))
	}
}
