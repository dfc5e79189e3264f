#include "textflag.h"

// func pairsRun(dst, src *uint16, n, c int, idx *[64]uint16)
TEXT ·pairsRun(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), BX
	SHLQ $1, BX // a pixel's bytes
	MOVQ idx+32(FP), AX
	VMOVDQU16 (AX), Z6
	VMOVDQU16 64(AX), Z7
pairs_pair:
	LEAQ (SI)(BX*1), R8
	XORQ R10, R10
pairs_chunk:
	VMOVDQU16 (SI)(R10*1), Z0
	VMOVDQU16 (R8)(R10*1), Z1
	VMOVDQA64 Z6, Z2
	VPERMI2W Z1, Z0, Z2
	VMOVDQA64 Z7, Z3
	VPERMI2W Z1, Z0, Z3
	VMOVDQU16 Z2, (DI)(R10*2)
	VMOVDQU16 Z3, 64(DI)(R10*2)
	ADDQ $64, R10
	CMPQ R10, BX
	JNE pairs_chunk
	LEAQ (SI)(BX*2), SI
	LEAQ (DI)(BX*2), DI
	DECQ CX
	JNZ pairs_pair
	VZEROUPPER
	RET
