#include "textflag.h"

// The batch norm's passes (see bn.go): a row at a time, sixteen channels
// a step, the per-channel vectors indexed by R10 (the step's channel, in
// bytes, back to 0 at R11 = c·4); the same arithmetic in the same order as
// the Go loops, no fused multiply-adds. Sums are kept in memory, per
// channel, so that any c works.

// VCVTNEPS2BF16 Z0, Y4 (AVX512-BF16), which Go's assembler does not know.
#define CVT_Z0_Y4 BYTE $0x62; BYTE $0xF2; BYTE $0x7E; BYTE $0x48; BYTE $0x72; BYTE $0xE0

// NEXT_CHANNELS steps R10 to the next sixteen channels.
#define NEXT_CHANNELS ADDQ $64, R10; CMPQ R10, R11; JNE 2(PC); XORQ R10, R10

// func bnSumRun(z *float32, n, c int, acc *float32)
TEXT ·bnSumRun(SB), NOSPLIT, $0-32
	MOVQ z+0(FP), SI
	MOVQ n+8(FP), CX
	SHRQ $4, CX
	MOVQ c+16(FP), R11
	SHLQ $2, R11
	MOVQ acc+24(FP), DX
	XORQ R10, R10
bnSum_loop:
	VMOVUPS (DX)(R10*1), Z1
	VADDPS (SI), Z1, Z1
	VMOVUPS Z1, (DX)(R10*1)
	ADDQ $64, SI
	NEXT_CHANNELS
	DECQ CX
	JNZ bnSum_loop
	VZEROUPPER
	RET

// func bnSumSqRun(z *float32, n, c int, mean, acc *float32)
TEXT ·bnSumSqRun(SB), NOSPLIT, $0-40
	MOVQ z+0(FP), SI
	MOVQ n+8(FP), CX
	SHRQ $4, CX
	MOVQ c+16(FP), R11
	SHLQ $2, R11
	MOVQ mean+24(FP), AX
	MOVQ acc+32(FP), DX
	XORQ R10, R10
bnSumSq_loop:
	VMOVUPS (SI), Z0
	VSUBPS (AX)(R10*1), Z0, Z0
	VMULPS Z0, Z0, Z0
	VADDPS (DX)(R10*1), Z0, Z0
	VMOVUPS Z0, (DX)(R10*1)
	ADDQ $64, SI
	NEXT_CHANNELS
	DECQ CX
	JNZ bnSumSq_loop
	VZEROUPPER
	RET

// func bnApplyRun(a *bnApplyArgs)
TEXT ·bnApplyRun(SB), NOSPLIT, $0-8
	MOVQ a+0(FP), AX
	MOVQ 0(AX), SI   // z
	MOVQ 8(AX), DX   // out
	MOVQ 16(AX), R8  // skip
	MOVQ 24(AX), R9  // grid
	MOVQ 32(AX), DI  // mask
	MOVQ 40(AX), CX  // n
	SHRQ $4, CX
	MOVQ 48(AX), R11 // c
	SHLQ $2, R11
	MOVQ 56(AX), R12 // mean
	MOVQ 64(AX), R13 // invstd
	MOVQ 72(AX), R14 // gamma
	MOVQ 88(AX), BX  // relu
	MOVQ 80(AX), AX  // beta
	XORQ R10, R10
	VXORPS Z15, Z15, Z15
bnApply_loop:
	VMOVUPS (SI), Z0
	VSUBPS (R12)(R10*1), Z0, Z0
	VMULPS (R13)(R10*1), Z0, Z0
	VMULPS (R14)(R10*1), Z0, Z0
	VADDPS (AX)(R10*1), Z0, Z0
	TESTQ R8, R8
	JZ bnApply_relu
	VADDPS (R8), Z0, Z0
	ADDQ $64, R8
bnApply_relu:
	TESTQ BX, BX
	JZ bnApply_out
	VADDPS Z15, Z0, Z0
	VMAXPS Z0, Z15, Z0
bnApply_out:
	TESTQ DX, DX
	JZ bnApply_mask
	VMOVUPS Z0, (DX)
	ADDQ $64, DX
bnApply_mask:
	TESTQ DI, DI
	JZ bnApply_grid
	VCMPPS $0x1E, Z15, Z0, K1
	KMOVW K1, (DI)
	ADDQ $2, DI
bnApply_grid:
	TESTQ R9, R9
	JZ bnApply_next
	CVT_Z0_Y4
	VMOVDQU16 Y4, (R9)
	ADDQ $32, R9
bnApply_next:
	ADDQ $64, SI
	NEXT_CHANNELS
	DECQ CX
	JNZ bnApply_loop
	VZEROUPPER
	RET

// XHAT_Z4 sets Z4 to (z - mean)·invstd at DI, the mean at R14 and invstd
// at AX.
#define XHAT_Z4 VMOVUPS (DI), Z4; VSUBPS (R14)(R10*1), Z4, Z4; VMULPS (AX)(R10*1), Z4, Z4

// MASK_Z0 zeroes Z0 where the 16 bits at R9 are 0 (if R9 is not nil), and
// steps R9 on.
#define MASK_Z0 TESTQ R9, R9; JZ 5(PC); KMOVW (R9), K1; VPMOVM2D K1, Z1; VANDPS Z1, Z0, Z0; ADDQ $2, R9

// func bnGradSumsRun(a *bnSumsArgs)
TEXT ·bnGradSumsRun(SB), NOSPLIT, $0-8
	MOVQ a+0(FP), AX
	MOVQ 0(AX), SI   // dout
	MOVQ 8(AX), R8   // add
	MOVQ 16(AX), DX  // save
	MOVQ 24(AX), DI  // z
	MOVQ 32(AX), R9  // mask
	MOVQ 40(AX), CX  // n
	SHRQ $4, CX
	MOVQ 48(AX), R11 // c
	SHLQ $2, R11
	MOVQ 56(AX), R14 // mean
	MOVQ 72(AX), R12 // sumDy
	MOVQ 80(AX), R13 // dot
	MOVQ 88(AX), BX  // back
	MOVQ 64(AX), AX  // invstd
	XORQ R10, R10
bnGradSums_loop:
	VMOVUPS (SI), Z0
	TESTQ R8, R8
	JZ bnGradSums_mask
	VADDPS (R8), Z0, Z0
	ADDQ $64, R8
bnGradSums_mask:
	MASK_Z0
	TESTQ DX, DX
	JZ bnGradSums_back
	VMOVUPS Z0, (DX)
	ADDQ $64, DX
	JMP bnGradSums_sum
bnGradSums_back:
	TESTQ BX, BX
	JZ bnGradSums_sum
	VMOVUPS Z0, (SI)
bnGradSums_sum:
	VADDPS (R12)(R10*1), Z0, Z2
	VMOVUPS Z2, (R12)(R10*1)
	XHAT_Z4
	VMULPS Z4, Z0, Z3
	VADDPS (R13)(R10*1), Z3, Z3
	VMOVUPS Z3, (R13)(R10*1)
	ADDQ $64, SI
	ADDQ $64, DI
	NEXT_CHANNELS
	DECQ CX
	JNZ bnGradSums_loop
	VZEROUPPER
	RET

// func bnGradInputRun(a *bnInputArgs)
TEXT ·bnGradInputRun(SB), NOSPLIT, $0-8
	MOVQ a+0(FP), AX
	MOVQ 0(AX), SI   // d
	MOVQ 8(AX), DI   // z
	MOVQ 16(AX), DX  // dz
	MOVQ 24(AX), R8  // grid
	MOVQ 32(AX), R9  // mask
	MOVQ 40(AX), CX  // n
	SHRQ $4, CX
	MOVQ 48(AX), R11 // c
	SHLQ $2, R11
	MOVQ 56(AX), BX  // k
	MOVQ 64(AX), R12 // sumDy
	MOVQ 72(AX), R13 // dot
	MOVQ 80(AX), R14 // mean
	VBROADCASTSS 96(AX), Z3 // rows
	MOVQ 88(AX), AX  // invstd
	XORQ R10, R10
bnGradInput_loop:
	VMOVUPS (SI), Z0
	MASK_Z0
	VMULPS Z0, Z3, Z0
	VSUBPS (R12)(R10*1), Z0, Z0
	XHAT_Z4
	VMULPS (R13)(R10*1), Z4, Z5
	VSUBPS Z5, Z0, Z0
	VMULPS (BX)(R10*1), Z0, Z0
	TESTQ DX, DX
	JZ bnGradInput_grid
	VMOVUPS Z0, (DX)
	ADDQ $64, DX
bnGradInput_grid:
	TESTQ R8, R8
	JZ bnGradInput_next
	CVT_Z0_Y4
	VMOVDQU16 Y4, (R8)
	ADDQ $32, R8
bnGradInput_next:
	ADDQ $64, SI
	ADDQ $64, DI
	NEXT_CHANNELS
	DECQ CX
	JNZ bnGradInput_loop
	VZEROUPPER
	RET
