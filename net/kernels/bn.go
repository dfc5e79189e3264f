// Hot file: the batch norm's passes over a training step's activations.
// Keep them allocation-free; measure with net's BenchmarkTrainStep after
// any change.

package kernels

// The batch norm's passes over rows rows of c channels (a row's c values
// consecutive, rows ld apart; c ≤ ld): on AVX-512 sixteen channels at a
// time where c is a multiple of 16, else in portable Go, with the same
// arithmetic in the same order (no fused multiply-adds), so bitwise the
// same. Each panics if a slice is too short.

// BNSumSq adds Σ over the rows of (z - mean)² to acc, per channel.
func BNSumSq(z []float32, rows, c, ld int, mean, acc []float32) {
	checkRows(len(z), rows, c, ld)
	mean, acc = mean[:c], acc[:c]
	if hasBN && c%16 == 0 && rows > 0 {
		for g := 0; g < c; g += 16 {
			bnSumSq16(&z[g], rows, ld, &mean[g], &acc[g])
		}
		return
	}
	for r := range rows {
		row := z[r*ld : r*ld+c]
		for j, v := range row {
			d := v - mean[j]
			acc[j] += d * d
		}
	}
}

// BNApply writes xhat = (z - mean)·invstd and out = gamma·xhat + beta.
// out may be z.
func BNApply(z []float32, rows, c, ld int, mean, invstd, gamma, beta, xhat, out []float32) {
	checkRows(len(z), rows, c, ld)
	checkRows(len(xhat), rows, c, ld)
	checkRows(len(out), rows, c, ld)
	mean, invstd, gamma, beta = mean[:c], invstd[:c], gamma[:c], beta[:c]
	if hasBN && c%16 == 0 && rows > 0 {
		for g := 0; g < c; g += 16 {
			bnApply16(&z[g], &xhat[g], &out[g], rows, ld, &mean[g], &invstd[g], &gamma[g], &beta[g])
		}
		return
	}
	for r := range rows {
		zr, xr, or := z[r*ld:r*ld+c], xhat[r*ld:r*ld+c], out[r*ld:r*ld+c]
		for j, v := range zr {
			x := (v - mean[j]) * invstd[j]
			xr[j] = x
			or[j] = gamma[j]*x + beta[j]
		}
	}
}

// BNGradSums adds Σ dout to sumDy and Σ dout·xhat to dotXhat, per
// channel.
func BNGradSums(dout, xhat []float32, rows, c, ld int, sumDy, dotXhat []float32) {
	checkRows(len(dout), rows, c, ld)
	checkRows(len(xhat), rows, c, ld)
	sumDy, dotXhat = sumDy[:c], dotXhat[:c]
	if hasBN && c%16 == 0 && rows > 0 {
		for g := 0; g < c; g += 16 {
			bnGradSums16(&dout[g], &xhat[g], rows, ld, &sumDy[g], &dotXhat[g])
		}
		return
	}
	for r := range rows {
		dr, xr := dout[r*ld:r*ld+c], xhat[r*ld:r*ld+c]
		for j, d := range dr {
			sumDy[j] += d
			dotXhat[j] += d * xr[j]
		}
	}
}

// BNGradInput writes dz = k·(n·dout - sumDy - xhat·dotXhat), the batch
// norm's input gradient (k = gamma·invstd/n, n the rows of the batch).
// dz may be dout.
func BNGradInput(dout, xhat []float32, rows, c, ld int, k, sumDy, dotXhat []float32, n float32, dz []float32) {
	checkRows(len(dout), rows, c, ld)
	checkRows(len(xhat), rows, c, ld)
	checkRows(len(dz), rows, c, ld)
	k, sumDy, dotXhat = k[:c], sumDy[:c], dotXhat[:c]
	if hasBN && c%16 == 0 && rows > 0 {
		for g := 0; g < c; g += 16 {
			bnGradInput16(&dout[g], &xhat[g], &dz[g], rows, ld, &k[g], &sumDy[g], &dotXhat[g], n)
		}
		return
	}
	for r := range rows {
		dr, xr, zr := dout[r*ld:r*ld+c], xhat[r*ld:r*ld+c], dz[r*ld:r*ld+c]
		for j, v := range dr {
			zr[j] = k[j] * (n*v - sumDy[j] - xr[j]*dotXhat[j])
		}
	}
}

// checkRows panics unless a slice of n values holds rows rows of c of ld.
func checkRows(n, rows, c, ld int) {
	if rows < 0 || c < 0 || ld < c || (rows > 0 && n < (rows-1)*ld+c) {
		panic("kernels: batch norm pass: slice too short for its rows")
	}
}
