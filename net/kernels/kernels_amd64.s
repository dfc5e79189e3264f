// Hot file: the amd64 packing and vector loops (the GEMM micro-kernels are
// in gemm_kernels_amd64.s). Packing runs once per element of A and B per
// cache block, between micro-kernel calls: keep it streaming (whole slivers
// per call, software prefetch of the next rows) and check the benchmarks
// (go test -bench Gemm ./net/kernels) after any change.
//
// Go assembler operand order is reversed from Intel's: VFMADD231PS Y0, Y2, Y4
// is Intel's vfmadd231ps ymm4, ymm2, ymm0, that is Y4 += Y2*Y0.

#include "textflag.h"

// func transPackAVX2(src *float32, lds int, dst *float32, ldd int, rows int, alpha float32, blocks int)
// For blocks consecutive 8-column blocks b of the source:
// dst[(8b+j)*ldd+i] = alpha*src[i*lds+8b+j] for i < rows, j < 8; rows is 4,
// 6 or 8.
TEXT ·transPackAVX2(SB), NOSPLIT, $0-56
	MOVQ src+0(FP), R10
	MOVQ lds+8(FP), R8
	SHLQ $2, R8
	MOVQ dst+16(FP), R11
	MOVQ ldd+24(FP), R9
	SHLQ $2, R9
	MOVQ rows+32(FP), CX
	MOVQ blocks+48(FP), DX
	TESTQ DX, DX
	JZ done
block:
	MOVQ R10, SI
	MOVQ R11, DI
	VBROADCASTSS alpha+40(FP), Y15
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VMULPS (SI), Y15, Y0
	PREFETCHT0 (SI)(R8*8)
	ADDQ R8, SI
	VMULPS (SI), Y15, Y1
	PREFETCHT0 (SI)(R8*8)
	ADDQ R8, SI
	VMULPS (SI), Y15, Y2
	PREFETCHT0 (SI)(R8*8)
	ADDQ R8, SI
	VMULPS (SI), Y15, Y3
	PREFETCHT0 (SI)(R8*8)
	CMPQ CX, $4
	JEQ transpose
	ADDQ R8, SI
	VMULPS (SI), Y15, Y4
	PREFETCHT0 (SI)(R8*8)
	ADDQ R8, SI
	VMULPS (SI), Y15, Y5
	PREFETCHT0 (SI)(R8*8)
	CMPQ CX, $6
	JEQ transpose
	ADDQ R8, SI
	VMULPS (SI), Y15, Y6
	PREFETCHT0 (SI)(R8*8)
	ADDQ R8, SI
	VMULPS (SI), Y15, Y7
	PREFETCHT0 (SI)(R8*8)
transpose:
	// Rows a..h in Y0..Y7; after the unpacks, shuffles and lane
	// permutes, column j is in Y(8+j).
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	CMPQ CX, $4
	JEQ store4
	CMPQ CX, $6
	JEQ store6
	VMOVUPS Y8, (DI)
	ADDQ R9, DI
	VMOVUPS Y9, (DI)
	ADDQ R9, DI
	VMOVUPS Y10, (DI)
	ADDQ R9, DI
	VMOVUPS Y11, (DI)
	ADDQ R9, DI
	VMOVUPS Y12, (DI)
	ADDQ R9, DI
	VMOVUPS Y13, (DI)
	ADDQ R9, DI
	VMOVUPS Y14, (DI)
	ADDQ R9, DI
	VMOVUPS Y15, (DI)
	JMP next
store4:
	VMOVUPS X8, (DI)
	ADDQ R9, DI
	VMOVUPS X9, (DI)
	ADDQ R9, DI
	VMOVUPS X10, (DI)
	ADDQ R9, DI
	VMOVUPS X11, (DI)
	ADDQ R9, DI
	VMOVUPS X12, (DI)
	ADDQ R9, DI
	VMOVUPS X13, (DI)
	ADDQ R9, DI
	VMOVUPS X14, (DI)
	ADDQ R9, DI
	VMOVUPS X15, (DI)
	JMP next
store6:
	VMOVUPS X8, (DI)
	VEXTRACTF128 $1, Y8, X8
	VMOVSD X8, 16(DI)
	ADDQ R9, DI
	VMOVUPS X9, (DI)
	VEXTRACTF128 $1, Y9, X9
	VMOVSD X9, 16(DI)
	ADDQ R9, DI
	VMOVUPS X10, (DI)
	VEXTRACTF128 $1, Y10, X10
	VMOVSD X10, 16(DI)
	ADDQ R9, DI
	VMOVUPS X11, (DI)
	VEXTRACTF128 $1, Y11, X11
	VMOVSD X11, 16(DI)
	ADDQ R9, DI
	VMOVUPS X12, (DI)
	VEXTRACTF128 $1, Y12, X12
	VMOVSD X12, 16(DI)
	ADDQ R9, DI
	VMOVUPS X13, (DI)
	VEXTRACTF128 $1, Y13, X13
	VMOVSD X13, 16(DI)
	ADDQ R9, DI
	VMOVUPS X14, (DI)
	VEXTRACTF128 $1, Y14, X14
	VMOVSD X14, 16(DI)
	ADDQ R9, DI
	VMOVUPS X15, (DI)
	VEXTRACTF128 $1, Y15, X15
	VMOVSD X15, 16(DI)
next:
	ADDQ $32, R10
	MOVQ R9, AX
	SHLQ $3, AX
	ADDQ AX, R11
	DECQ DX
	JNZ block
done:
	VZEROUPPER
	RET

// func packCopyAVX2(dst, src *float32, ld, kb, w int, alpha float32)
// dst[p*w+j] = alpha*src[p*ld+j] for p < kb, j < w; w is 4, 6, 8, 12, 16
// or 32.
TEXT ·packCopyAVX2(SB), NOSPLIT, $0-44
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	SHLQ $2, R8
	MOVQ kb+24(FP), CX
	MOVQ w+32(FP), AX
	VBROADCASTSS alpha+40(FP), Y15
	TESTQ CX, CX
	JZ done
	CMPQ AX, $32
	JEQ w32
	CMPQ AX, $16
	JEQ w16
	CMPQ AX, $12
	JEQ w12
	CMPQ AX, $8
	JEQ w8
	CMPQ AX, $4
	JEQ w4
w6:
	VMULPS (SI), X15, X0
	VMOVSD 16(SI), X1
	VMULPS X1, X15, X1
	VMOVUPS X0, (DI)
	VMOVSD X1, 16(DI)
	ADDQ R8, SI
	ADDQ $24, DI
	DECQ CX
	JNZ w6
	JMP done
w4:
	VMULPS (SI), X15, X0
	VMOVUPS X0, (DI)
	ADDQ R8, SI
	ADDQ $16, DI
	DECQ CX
	JNZ w4
	JMP done
w8:
	VMULPS (SI), Y15, Y0
	VMOVUPS Y0, (DI)
	ADDQ R8, SI
	ADDQ $32, DI
	DECQ CX
	JNZ w8
	JMP done
w12:
	VMULPS (SI), Y15, Y0
	VMULPS 32(SI), X15, X1
	VMOVUPS Y0, (DI)
	VMOVUPS X1, 32(DI)
	ADDQ R8, SI
	ADDQ $48, DI
	DECQ CX
	JNZ w12
	JMP done
w16:
	VMULPS (SI), Y15, Y0
	VMULPS 32(SI), Y15, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ R8, SI
	ADDQ $64, DI
	DECQ CX
	JNZ w16
	JMP done
w32:
	VMULPS (SI), Y15, Y0
	VMULPS 32(SI), Y15, Y1
	VMULPS 64(SI), Y15, Y2
	VMULPS 96(SI), Y15, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ R8, SI
	ADDQ $128, DI
	DECQ CX
	JNZ w32
done:
	VZEROUPPER
	RET

// func axpyAVX2(n int, alpha float32, x, y *float32)
// y[i] += alpha*x[i], i < n.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	VBROADCASTSS alpha+8(FP), Y0
	MOVQ x+16(FP), SI
	MOVQ y+24(FP), DI
	CMPQ CX, $32
	JLT loop8
loop32:
	VMOVUPS (DI), Y1
	VMOVUPS 32(DI), Y2
	VMOVUPS 64(DI), Y3
	VMOVUPS 96(DI), Y4
	VFMADD231PS (SI), Y0, Y1
	VFMADD231PS 32(SI), Y0, Y2
	VFMADD231PS 64(SI), Y0, Y3
	VFMADD231PS 96(SI), Y0, Y4
	VMOVUPS Y1, (DI)
	VMOVUPS Y2, 32(DI)
	VMOVUPS Y3, 64(DI)
	VMOVUPS Y4, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	CMPQ CX, $32
	JGE loop32
loop8:
	CMPQ CX, $8
	JLT loop1
	VMOVUPS (DI), Y1
	VFMADD231PS (SI), Y0, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP loop8
loop1:
	TESTQ CX, CX
	JZ done
	VMOVSS (DI), X1
	VFMADD231SS (SI), X0, X1
	VMOVSS X1, (DI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP loop1
done:
	VZEROUPPER
	RET

// func scaleAVX2(n int, alpha float32, x *float32)
// x[i] *= alpha, i < n.
TEXT ·scaleAVX2(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	VBROADCASTSS alpha+8(FP), Y0
	MOVQ x+16(FP), SI
	CMPQ CX, $32
	JLT loop8
loop32:
	VMULPS (SI), Y0, Y1
	VMULPS 32(SI), Y0, Y2
	VMULPS 64(SI), Y0, Y3
	VMULPS 96(SI), Y0, Y4
	VMOVUPS Y1, (SI)
	VMOVUPS Y2, 32(SI)
	VMOVUPS Y3, 64(SI)
	VMOVUPS Y4, 96(SI)
	ADDQ $128, SI
	SUBQ $32, CX
	CMPQ CX, $32
	JGE loop32
loop8:
	CMPQ CX, $8
	JLT loop1
	VMULPS (SI), Y0, Y1
	VMOVUPS Y1, (SI)
	ADDQ $32, SI
	SUBQ $8, CX
	JMP loop8
loop1:
	TESTQ CX, CX
	JZ done
	VMULSS (SI), X0, X1
	VMOVSS X1, (SI)
	ADDQ $4, SI
	DECQ CX
	JMP loop1
done:
	VZEROUPPER
	RET

// func dotAVX2(n int, x, y *float32) float32
// Σ x[i]*y[i], i < n, in four vector partial sums.
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	CMPQ CX, $32
	JLT loop8
loop32:
	VMOVUPS (SI), Y6
	VMOVUPS 32(SI), Y7
	VMOVUPS 64(SI), Y8
	VMOVUPS 96(SI), Y9
	VFMADD231PS (DI), Y6, Y1
	VFMADD231PS 32(DI), Y7, Y2
	VFMADD231PS 64(DI), Y8, Y3
	VFMADD231PS 96(DI), Y9, Y4
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	CMPQ CX, $32
	JGE loop32
loop8:
	CMPQ CX, $8
	JLT loop1
	VMOVUPS (SI), Y6
	VFMADD231PS (DI), Y6, Y1
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP loop8
loop1:
	TESTQ CX, CX
	JZ sum
	VMOVSS (SI), X6
	VFMADD231SS (DI), X6, X5
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP loop1
sum:
	VADDPS Y2, Y1, Y1
	VADDPS Y4, Y3, Y3
	VADDPS Y3, Y1, Y1
	VEXTRACTF128 $1, Y1, X2
	VADDPS X2, X1, X1
	VHADDPS X1, X1, X1
	VHADDPS X1, X1, X1
	VADDSS X5, X1, X1
	VMOVSS X1, ret+24(FP)
	VZEROUPPER
	RET

// func addConstAVX2(n int, s float32, x *float32, relu int)
// x[i] += s, then x[i] = max(x[i], 0) if relu != 0 (NaN stays NaN).
TEXT ·addConstAVX2(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	VBROADCASTSS s+8(FP), Y0
	MOVQ x+16(FP), SI
	MOVQ relu+24(FP), AX
	VXORPS Y15, Y15, Y15
	TESTQ AX, AX
	JZ plain8
relu8:
	CMPQ CX, $8
	JLT relu1
	VADDPS (SI), Y0, Y1
	VMAXPS Y1, Y15, Y1
	VMOVUPS Y1, (SI)
	ADDQ $32, SI
	SUBQ $8, CX
	JMP relu8
relu1:
	TESTQ CX, CX
	JZ done
	VADDSS (SI), X0, X1
	VMAXSS X1, X15, X1
	VMOVSS X1, (SI)
	ADDQ $4, SI
	DECQ CX
	JMP relu1
plain8:
	CMPQ CX, $8
	JLT plain1
	VADDPS (SI), Y0, Y1
	VMOVUPS Y1, (SI)
	ADDQ $32, SI
	SUBQ $8, CX
	JMP plain8
plain1:
	TESTQ CX, CX
	JZ done
	VADDSS (SI), X0, X1
	VMOVSS X1, (SI)
	ADDQ $4, SI
	DECQ CX
	JMP plain1
done:
	VZEROUPPER
	RET

// func addVecAVX2(n int, b, x *float32, relu int)
// x[i] += b[i], then x[i] = max(x[i], 0) if relu != 0 (NaN stays NaN).
TEXT ·addVecAVX2(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ b+8(FP), DI
	MOVQ x+16(FP), SI
	MOVQ relu+24(FP), AX
	VXORPS Y15, Y15, Y15
	TESTQ AX, AX
	JZ plain8
relu8:
	CMPQ CX, $8
	JLT relu1
	VMOVUPS (DI), Y0
	VADDPS (SI), Y0, Y1
	VMAXPS Y1, Y15, Y1
	VMOVUPS Y1, (SI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP relu8
relu1:
	TESTQ CX, CX
	JZ done
	VMOVSS (DI), X0
	VADDSS (SI), X0, X1
	VMAXSS X1, X15, X1
	VMOVSS X1, (SI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP relu1
plain8:
	CMPQ CX, $8
	JLT plain1
	VMOVUPS (DI), Y0
	VADDPS (SI), Y0, Y1
	VMOVUPS Y1, (SI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP plain8
plain1:
	TESTQ CX, CX
	JZ done
	VMOVSS (DI), X0
	VADDSS (SI), X0, X1
	VMOVSS X1, (SI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP plain1
done:
	VZEROUPPER
	RET

// func reluGradAVX2(n int, dy, y *float32)
// dy[i] = 0 where !(y[i] > 0).
TEXT ·reluGradAVX2(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dy+8(FP), DI
	MOVQ y+16(FP), SI
	VXORPS Y15, Y15, Y15
loop8:
	CMPQ CX, $8
	JLT loop1
	VMOVUPS (SI), Y1
	VCMPPS $0x1E, Y15, Y1, Y1
	VANDPS (DI), Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP loop8
loop1:
	TESTQ CX, CX
	JZ done
	VMOVSS (SI), X1
	VCMPSS $0x1E, X15, X1, X1
	VMOVSS (DI), X2
	VANDPS X2, X1, X1
	VMOVSS X1, (DI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP loop1
done:
	VZEROUPPER
	RET

