package kernels

import "golang.org/x/sys/cpu"

// hasCvtBF16 says whether cvtBF16 runs here (AVX512-BF16, with the
// AVX-512 foundation and BW; x/sys/cpu checks that the OS saves the Z
// registers).
var hasCvtBF16 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512BF16

// cvtBF16 rounds n float32 values (n a positive multiple of 32) at src to
// bfloat16 at dst.
//
//go:noescape
func cvtBF16(n int, src *float32, dst *uint16)
