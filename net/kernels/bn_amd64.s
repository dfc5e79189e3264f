#include "textflag.h"

// The batch norm's passes, sixteen channels a row (see bn.go): the same
// arithmetic in the same order as the Go loops, no fused multiply-adds.

// func bnSumSq16(z *float32, rows, ld int, mean, acc *float32)
TEXT ·bnSumSq16(SB), NOSPLIT, $0-40
	MOVQ z+0(FP), SI
	MOVQ rows+8(FP), CX
	MOVQ ld+16(FP), BX
	SHLQ $2, BX
	MOVQ mean+24(FP), AX
	VMOVUPS (AX), Z0
	MOVQ acc+32(FP), DX
	VMOVUPS (DX), Z1
bnSumSq16_loop:
	VMOVUPS (SI), Z4
	VSUBPS Z0, Z4, Z4
	VMULPS Z4, Z4, Z4
	VADDPS Z4, Z1, Z1
	ADDQ BX, SI
	DECQ CX
	JNZ bnSumSq16_loop
	VMOVUPS Z1, (DX)
	VZEROUPPER
	RET

// func bnApply16(z, xhat, out *float32, rows, ld int, mean, invstd, gamma, beta *float32)
TEXT ·bnApply16(SB), NOSPLIT, $0-72
	MOVQ z+0(FP), SI
	MOVQ xhat+8(FP), DI
	MOVQ out+16(FP), DX
	MOVQ rows+24(FP), CX
	MOVQ ld+32(FP), BX
	SHLQ $2, BX
	MOVQ mean+40(FP), AX
	VMOVUPS (AX), Z0
	MOVQ invstd+48(FP), AX
	VMOVUPS (AX), Z1
	MOVQ gamma+56(FP), AX
	VMOVUPS (AX), Z2
	MOVQ beta+64(FP), AX
	VMOVUPS (AX), Z3
bnApply16_loop:
	VMOVUPS (SI), Z4
	VSUBPS Z0, Z4, Z4
	VMULPS Z1, Z4, Z4
	VMOVUPS Z4, (DI)
	VMULPS Z4, Z2, Z5
	VADDPS Z3, Z5, Z5
	VMOVUPS Z5, (DX)
	ADDQ BX, SI
	ADDQ BX, DI
	ADDQ BX, DX
	DECQ CX
	JNZ bnApply16_loop
	VZEROUPPER
	RET

// func bnGradSums16(dout, xhat *float32, rows, ld int, sumDy, dot *float32)
TEXT ·bnGradSums16(SB), NOSPLIT, $0-48
	MOVQ dout+0(FP), SI
	MOVQ xhat+8(FP), DI
	MOVQ rows+16(FP), CX
	MOVQ ld+24(FP), BX
	SHLQ $2, BX
	MOVQ sumDy+32(FP), AX
	VMOVUPS (AX), Z0
	MOVQ dot+40(FP), DX
	VMOVUPS (DX), Z1
bnGradSums16_loop:
	VMOVUPS (SI), Z4
	VADDPS Z4, Z0, Z0
	VMULPS (DI), Z4, Z5
	VADDPS Z5, Z1, Z1
	ADDQ BX, SI
	ADDQ BX, DI
	DECQ CX
	JNZ bnGradSums16_loop
	VMOVUPS Z0, (AX)
	VMOVUPS Z1, (DX)
	VZEROUPPER
	RET

// func bnGradInput16(dout, xhat, dz *float32, rows, ld int, k, s, d *float32, n float32)
TEXT ·bnGradInput16(SB), NOSPLIT, $0-68
	MOVQ dout+0(FP), SI
	MOVQ xhat+8(FP), DI
	MOVQ dz+16(FP), DX
	MOVQ rows+24(FP), CX
	MOVQ ld+32(FP), BX
	SHLQ $2, BX
	MOVQ k+40(FP), AX
	VMOVUPS (AX), Z0
	MOVQ s+48(FP), AX
	VMOVUPS (AX), Z1
	MOVQ d+56(FP), AX
	VMOVUPS (AX), Z2
	VBROADCASTSS n+64(FP), Z3
bnGradInput16_loop:
	VMULPS (SI), Z3, Z4
	VSUBPS Z1, Z4, Z4
	VMULPS (DI), Z2, Z5
	VSUBPS Z5, Z4, Z4
	VMULPS Z4, Z0, Z4
	VMOVUPS Z4, (DX)
	ADDQ BX, SI
	ADDQ BX, DI
	ADDQ BX, DX
	DECQ CX
	JNZ bnGradInput16_loop
	VZEROUPPER
	RET
