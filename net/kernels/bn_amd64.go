package kernels

import "golang.org/x/sys/cpu"

// hasBN says whether the batch norm's AVX-512 passes run here.
var hasBN = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL

// The AVX-512 passes (see bn.go); a pass writes a grid only where the CPU
// has AVX512-BF16 (hasCvtBF16).

//go:noescape
func bnSumRun(z *float32, n, c int, acc *float32)

//go:noescape
func bnSumSqRun(z *float32, n, c int, mean, acc *float32)

//go:noescape
func bnApplyRun(a *bnApplyArgs)

//go:noescape
func bnGradSumsRun(a *bnSumsArgs)

//go:noescape
func bnGradInputRun(a *bnInputArgs)
