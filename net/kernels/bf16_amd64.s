#include "textflag.h"

// func cvtBF16(n int, src *float32, dst *uint16)
TEXT ·cvtBF16(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ dst+16(FP), DI
cvtBF16_loop:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	BYTE $0x62; BYTE $0xF2; BYTE $0x77; BYTE $0x48; BYTE $0x72; BYTE $0xE0 // VCVTNE2PS2BF16 Z1, Z0, Z4 (Go's order: hi, lo, dst)
	VMOVDQU16 Z4, (DI)
	ADDQ $128, SI
	ADDQ $64, DI
	SUBQ $32, CX
	JGT cvtBF16_loop
	VZEROUPPER
	RET
