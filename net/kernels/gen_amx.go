//go:build ignore

// gen_amx writes amx_amd64.s, the AMX convolutions of LowpConv (bfloat16
// and int8), from one template. Go's assembler (Go 1.26) has no AMX
// mnemonics, so the tile instructions are written as bytes, each with the
// instruction it encodes beside it; this program is where their encodings
// are worked out (Intel SDM vol. 2, "VEX prefix" and the AMX instruction
// pages). Run it with `go generate ./net/kernels` after editing.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"
)

// Register numbers as the ModRM, SIB and VEX fields take them.
const (
	rAX = 0
	rCX = 1
	rDX = 2
	rBX = 3
	rSI = 6
	rDI = 7
)

var regName = map[int]string{rAX: "AX", rCX: "CX", rDX: "DX", rBX: "BX", rSI: "SI", rDI: "DI"}

// vex3 is a three-byte VEX prefix for opcode map 0F38, W0, L0 (every AMX
// instruction): C4, then R̄X̄B̄ and the map (00010), then W, the inverted
// vvvv (the second source tile, or 1111 when unused), L and pp (00 none,
// 01 66, 10 F3, 11 F2: the instruction's mandatory prefix).
func vex3(index, base, pp, vvvv int) []byte {
	b1 := byte(0x80 | 0x02) // R̄ = 1: tile numbers fit ModRM.reg
	if index < 8 {
		b1 |= 0x40
	}
	if base < 8 {
		b1 |= 0x20
	}
	return []byte{0xC4, b1, byte((^vvvv&0xF)<<3 | pp)}
}

// emit writes the bytes of one instruction as BYTE directives with the
// instruction as a comment.
func emit(w *bytes.Buffer, enc []byte, asm string) {
	parts := make([]string, len(enc))
	for i, b := range enc {
		parts[i] = fmt.Sprintf("BYTE $0x%02X", b)
	}
	fmt.Fprintf(w, "\t%s // %s\n", strings.Join(parts, "; "), asm)
}

// ldtilecfg is LDTILECFG m512 with the address in base: VEX.128.NP.0F38.W0
// 49 /0, ModRM mod=00 reg=000 rm=base.
func ldtilecfg(w *bytes.Buffer, base int) {
	emit(w, append(vex3(0, base, 0, 0), 0x49, byte(base&7)), fmt.Sprintf("LDTILECFG (%s)", regName[base]))
}

// tilerelease is TILERELEASE: VEX.128.NP.0F38.W0 49 C0.
func tilerelease(w *bytes.Buffer) {
	emit(w, append(vex3(0, 0, 0, 0), 0x49, 0xC0), "TILERELEASE")
}

// tilezero is TILEZERO tmm: VEX.128.F2.0F38.W0 49, ModRM 11:tmm:000.
func tilezero(w *bytes.Buffer, t int) {
	emit(w, append(vex3(0, 0, 3, 0), 0x49, byte(0xC0|t<<3)), fmt.Sprintf("TILEZERO tmm%d", t))
}

// sibmem is the ModRM, SIB and displacement of [base + index·1 + disp]
// with ModRM.reg = reg: rm=100 (a SIB follows), mod=00 without a
// displacement, 01 with 8 bits, 10 with 32.
func sibmem(reg, base, index, disp int) []byte {
	sib := byte((index&7)<<3 | base&7)
	switch {
	case disp == 0:
		return []byte{byte(reg<<3 | 4), sib}
	case disp >= -128 && disp < 128:
		return []byte{byte(0x40 | reg<<3 | 4), sib, byte(disp)}
	}
	return []byte{byte(0x80 | reg<<3 | 4), sib, byte(disp), byte(disp >> 8), byte(disp >> 16), byte(disp >> 24)}
}

// tileloadd is TILELOADD tmm, [base + index·1 + disp] (the rows of the
// tile index bytes apart): VEX.128.F2.0F38.W0 4B.
func tileloadd(w *bytes.Buffer, t, base, index, disp int) {
	emit(w, append(append(vex3(index, base, 3, 0), 0x4B), sibmem(t, base, index, disp)...),
		fmt.Sprintf("TILELOADD tmm%d, %d(%s)(%s*1)", t, disp, regName[base], regName[index]))
}

// tilestored is TILESTORED [base + index·1 + disp], tmm:
// VEX.128.F3.0F38.W0 4B.
func tilestored(w *bytes.Buffer, t, base, index, disp int) {
	emit(w, append(append(vex3(index, base, 2, 0), 0x4B), sibmem(t, base, index, disp)...),
		fmt.Sprintf("TILESTORED %d(%s)(%s*1), tmm%d", disp, regName[base], regName[index], t))
}

// dot is one tile dot product, dst += a·b, ModRM 11:dst:a, vvvv = b:
// TDPBF16PS is VEX.128.F3.0F38.W0 5C, TDPBUSD (unsigned bytes of a
// times signed bytes of b) VEX.128.66.0F38.W0 5E (F3 would be TDPBSUD, signed times unsigned).
type dot struct {
	name   string
	opcode byte
	pp     int
}

var (
	tdpbf16ps = dot{"TDPBF16PS", 0x5C, 2}
	tdpbusd   = dot{"TDPBUSD", 0x5E, 1}
)

func (d dot) emit(w *bytes.Buffer, dst, a, b int) {
	emit(w, append(vex3(0, 0, d.pp, b), d.opcode, byte(0xC0|dst<<3|a)), fmt.Sprintf("%s tmm%d, tmm%d, tmm%d", d.name, dst, a, b))
}

// vcvtne2ps2bf16 is VCVTNE2PS2BF16 dst, lo, hi for Z registers 0-15
// (AVX512-BF16, which every AMX-BF16 CPU has; Go's assembler lacks it):
// dst's words 0-15 from lo, 16-31 from hi, each float32 rounded to the
// nearest bfloat16, ties to even, a denormal to zero, a NaN made quiet.
// EVEX.512.F2.0F38.W0 72 /r: 62, then R̄X̄B̄R̄'00 and the map (10), then W,
// the inverted vvvv (hi, the first source), 1 and pp (11: F2), then z,
// L'L (10: 512 bits), b, V̄' and aaa; ModRM 11:dst:lo (the second source).
func vcvtne2ps2bf16(w *bytes.Buffer, dst, lo, hi int) {
	enc := []byte{0x62, 0xF2, byte((^hi&0xF)<<3 | 0x04 | 0x03), 0x48, 0x72, byte(0xC0 | (dst&7)<<3 | lo&7)}
	if dst > 7 || lo > 7 || hi > 15 {
		log.Fatalf("vcvtne2ps2bf16 Z%d, Z%d, Z%d: registers past Z7 (Z15 for hi) are not encoded here", dst, lo, hi)
	}
	emit(w, enc, fmt.Sprintf("VCVTNE2PS2BF16 Z%d, Z%d, Z%d (Go's order: hi, lo, dst)", hi, lo, dst))
}

// variant is one generated function.
type variant struct {
	name string
	dot  dot
	ints bool // the accumulators are int32
	// rows is how many rows of the previous block's epilogue each step of
	// the dot products does (a step's 4 products take the tiles 64 cycles
	// of their own, during which the vector units are free): enough that
	// a 3x3 layer of 64 channels finishes them in its steps (18 in
	// bfloat16, 9 in int8).
	rows int
}

func main() {
	var w bytes.Buffer
	w.WriteString(`// Code generated by gen_amx.go; DO NOT EDIT.

#include "textflag.h"
#include "go_asm.h"

// The AMX convolutions of LowpConv: see amx_amd64.go. Each call holds its
// tile registers from LDTILECFG to TILERELEASE within this one function:
// Go neither preempts a goroutine inside an assembly function nor moves it
// to another thread there, and the tiles are a thread's state.
//
// The output is computed in blocks of 32 pixels × 32 channels: row pair
// after row pair within each column pair, or with rowsOuter set, column
// pair after column pair within each row pair. Tiles: tmm0-tmm3 the block's
// accumulators (tmm0 rows 0-15 of columns 0-15, tmm1 rows 0-15 of columns
// 16-31, tmm2 and tmm3 rows 16-31), tmm4 and tmm5 the two 16-pixel halves
// of A (the input grid, shifted by the tap), tmm6 and tmm7 the weights of
// the two 16-column halves. A block's accumulators go to one of two
// scratch blocks, and its epilogue (scale, bias, skip, ReLU, the outputs)
// runs a few rows at a time between the next block's tile products, on
// the vector units the tiles leave idle.
//
// Registers: R8 the arguments, R9 the column pair, R10 the row pair, DX
// the running weights, SI and DI the two halves of A, AX the row pair's
// first pixel, CX A's pixel stride, BX 64 (the weights' tiles' stride),
// R12 and R13 the steps (tap and k step) and their count; the epilogue's
// R14 the pending block's next pixel, R15 its rows left (0: none), R11 its
// scratch register, K1 and K2 the float32 output's column masks, Z24 zero
// and Z25 the inverse step of the byte output.

`)
	for _, v := range []variant{{"amxConvBF16", tdpbf16ps, false, 2}, {"amxConvInt8", tdpbusd, true, 2}} {
		gen(&w, v)
	}
	genWeightGrad(&w)
	if err := os.WriteFile("amx_amd64.s", w.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

func gen(w *bytes.Buffer, v variant) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	L := func(s string) string { return v.name + "_" + s }
	p("// func %s(a *amxArgs)", v.name)
	p("TEXT ·%s(SB), NOSPLIT, $0-8", v.name)
	p("\tMOVQ a+0(FP), R8")
	p("\tMOVQ amxArgs_cfg(R8), AX")
	ldtilecfg(w, rAX)
	p("\tMOVQ amxArgs_lda(R8), CX")
	p("\tMOVQ $64, BX")
	p("\tVPXORD Z24, Z24, Z24")
	p("\tVBROADCASTSS amxArgs_invs(R8), Z25")
	p("\tXORQ R15, R15 // no block pending")
	p("\tXORQ R9, R9")
	p("\tXORQ R10, R10")
	p("%s:", L("block"))
	for t := range 4 {
		tilezero(w, t)
	}
	p("\tMOVQ R9, DX")
	p("\tIMULQ amxArgs_bnp(R8), DX")
	p("\tADDQ amxArgs_b(R8), DX // the weights of column pair R9")
	p("\tMOVQ amxArgs_offs(R8), R12")
	p("\tMOVQ amxArgs_noffs(R8), R13")
	p("\tMOVQ R10, AX")
	p("\tSHLQ $5, AX")
	p("\tIMULQ CX, AX")
	p("\tADDQ amxArgs_a(R8), AX // the first pixel of row pair R10")
	p("%s:", L("steps"))
	p("\tMOVQ (R12), SI")
	p("\tADDQ AX, SI")
	p("\tMOVQ CX, DI")
	p("\tSHLQ $4, DI")
	p("\tADDQ SI, DI")
	tileloadd(w, 4, rSI, rCX, 0)
	tileloadd(w, 6, rDX, rBX, 0)
	tileloadd(w, 5, rDI, rCX, 0)
	tileloadd(w, 7, rDX, rBX, 1024)
	v.dot.emit(w, 0, 4, 6)
	v.dot.emit(w, 1, 4, 7)
	v.dot.emit(w, 2, 5, 6)
	v.dot.emit(w, 3, 5, 7)
	p("\tADDQ $2048, DX")
	for r := range v.rows {
		after := L(fmt.Sprintf("row%d", r))
		p("\tTESTQ R15, R15")
		p("\tJZ %s", after)
		epilogueRow(w, v, p, L, fmt.Sprintf("s%d", r))
		p("%s:", after)
	}
	p("\tADDQ $8, R12")
	p("\tDECQ R13")
	p("\tJNZ %s", L("steps"))
	p("%s: // the pending block's rows left", L("drain"))
	p("\tTESTQ R15, R15")
	p("\tJZ %s", L("store"))
	epilogueRow(w, v, p, L, "d")
	p("\tJMP %s", L("drain"))
	p("%s: // this block becomes the pending one, in the other scratch block", L("store"))
	p("\tMOVQ amxArgs_scratch0(R8), SI")
	p("\tMOVQ amxArgs_scratch1(R8), DI")
	p("\tMOVQ DI, amxArgs_scratch0(R8)")
	p("\tMOVQ SI, amxArgs_scratch1(R8)")
	p("\tMOVQ SI, amxArgs_epiScratch(R8)")
	p("\tMOVQ $128, DI")
	tilestored(w, 0, rSI, rDI, 0)
	tilestored(w, 1, rSI, rDI, 64)
	tilestored(w, 2, rSI, rDI, 2048)
	tilestored(w, 3, rSI, rDI, 2048+64)
	// column sets field epi to the field base's column pair R9 (shift:
	// log2 of a column pair's bytes), 0 when base is nil.
	column := func(base, epi string, shift int) {
		p("\tMOVQ amxArgs_%s(R8), R11", base)
		p("\tTESTQ R11, R11")
		p("\tJZ %s", L("nil"+epi))
		p("\tMOVQ R9, DI")
		p("\tSHLQ $%d, DI", shift)
		p("\tADDQ DI, R11")
		p("%s:", L("nil"+epi))
		p("\tMOVQ R11, amxArgs_%s(R8)", epi)
	}
	column("scale", "epiScale", 7)
	column("bias", "epiBias", 7)
	column("skip", "epiSkip", 6)
	column("outBF", "epiBF", 6)
	column("outU8", "epiU8", 5)
	column("outF", "epiF", 7)
	p("\tMOVQ amxArgs_fmask(R8), R11")
	p("\tKMOVW (R11)(R9*4), K1")
	p("\tKMOVW 2(R11)(R9*4), K2")
	p("\tMOVQ R10, R14")
	p("\tSHLQ $5, R14")
	p("\tMOVQ $32, R15")
	// advance moves to the next block: the inner counter on, or back to 0
	// and the outer one on; past the last block it falls through.
	advance := func(inner, innerCount, outer, outerCount string) {
		p("\tINCQ %s", inner)
		p("\tCMPQ %s, amxArgs_%s(R8)", inner, innerCount)
		p("\tJLT %s", L("block"))
		p("\tXORQ %s, %s", inner, inner)
		p("\tINCQ %s", outer)
		p("\tCMPQ %s, amxArgs_%s(R8)", outer, outerCount)
		p("\tJLT %s", L("block"))
	}
	p("\tCMPQ amxArgs_rowsOuter(R8), $0")
	p("\tJNE %s", L("nextcol"))
	advance("R10", "mpairs", "R9", "npairs") // columns outer: the next row pair
	p("\tJMP %s", L("fin"))
	p("%s: // rows outer: the next column pair", L("nextcol"))
	advance("R9", "npairs", "R10", "mpairs")
	p("%s: // the last block's rows", L("fin"))
	p("\tTESTQ R15, R15")
	p("\tJZ %s", L("done"))
	epilogueRow(w, v, p, L, "f")
	p("\tJMP %s", L("fin"))
	p("%s:", L("done"))
	tilerelease(w)
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}

// epilogueRow writes one row of the pending block (its computed pixel
// R14, row 32-R15 of its scratch block) to the outputs, and moves R14 and
// R15 on: y = acc·scale + bias, zero on the layout's zero pixels, else
// plus the skip, through ReLU, rounded to bfloat16, quantized to bytes and
// stored in float32, as asked. It uses R11, Z0-Z4 and the constants, and
// its labels end with tag.
func epilogueRow(w *bytes.Buffer, v variant, p func(string, ...any), L func(string) string, tag string) {
	l := func(s string) string { return L(s + "_" + tag) }
	p("\tMOVQ $32, R11")
	p("\tSUBQ R15, R11")
	p("\tSHLQ $7, R11")
	p("\tADDQ amxArgs_epiScratch(R8), R11")
	p("\tVMOVDQU32 (R11), Z0")
	p("\tVMOVDQU32 64(R11), Z1")
	if v.ints {
		// bfloat16's scale is 1: no product.
		p("\tVCVTDQ2PS Z0, Z0")
		p("\tVCVTDQ2PS Z1, Z1")
		p("\tMOVQ amxArgs_epiScale(R8), R11")
		p("\tVMULPS (R11), Z0, Z0")
		p("\tVMULPS 64(R11), Z1, Z1")
	}
	p("\tMOVQ amxArgs_epiBias(R8), R11")
	p("\tVADDPS (R11), Z0, Z0")
	p("\tVADDPS 64(R11), Z1, Z1")
	p("\tCMPQ R14, amxArgs_nvalid(R8)")
	p("\tJGE %s", l("zero"))
	p("\tMOVQ amxArgs_rowmap(R8), R11")
	p("\tMOVLQSX (R11)(R14*4), R11")
	p("\tTESTQ R11, R11")
	p("\tJS %s", l("zero"))
	// addr sets R11 to the pixel R14 of output field epi (of stride ld),
	// or jumps to skip when it is nil.
	addr := func(epi, ld, skip string) {
		p("\tCMPQ amxArgs_%s(R8), $0", epi)
		p("\tJEQ %s", skip)
		p("\tMOVQ R14, R11")
		p("\tIMULQ amxArgs_%s(R8), R11", ld)
		p("\tADDQ amxArgs_%s(R8), R11", epi)
	}
	addr("epiSkip", "ldskip", l("noskip"))
	p("\tVPMOVZXWD (R11), Z2")
	p("\tVPMOVZXWD 32(R11), Z3")
	p("\tVPSLLD $16, Z2, Z2")
	p("\tVPSLLD $16, Z3, Z3")
	p("\tVADDPS Z2, Z0, Z0")
	p("\tVADDPS Z3, Z1, Z1")
	p("%s:", l("noskip"))
	p("\tCMPQ amxArgs_relu(R8), $0")
	p("\tJEQ %s", l("norelu"))
	p("\tVMAXPS Z24, Z0, Z0 // max(y, +0): +0 for -0 and NaN")
	p("\tVMAXPS Z24, Z1, Z1")
	p("%s:", l("norelu"))
	addr("epiBF", "ldBF", l("nobf"))
	vcvtne2ps2bf16(w, 4, 0, 1)
	p("\tVMOVDQU16 Z4, (R11)")
	p("%s:", l("nobf"))
	addr("epiU8", "ldU8", l("nou8"))
	// Codes: y/step rounded to nearest even (MXCSR's default), below 0 to
	// 0 (a ReLU's output never is), past 255 to 255 (unsigned saturation;
	// past 2³¹ the conversion gives 0x80000000, which saturates too).
	for i, off := range []int{0, 16} {
		p("\tVMULPS Z25, Z%d, Z4", i)
		p("\tVMAXPS Z24, Z4, Z4")
		p("\tVCVTPS2DQ Z4, Z4")
		p("\tVPMOVUSDB Z4, %d(R11)", off)
	}
	p("%s:", l("nou8"))
	p("\tCMPQ amxArgs_epiF(R8), $0")
	p("\tJEQ %s", l("next"))
	p("\tMOVQ amxArgs_rowmap(R8), R11")
	p("\tMOVLQSX (R11)(R14*4), R11")
	p("\tIMULQ amxArgs_ldF(R8), R11")
	p("\tADDQ amxArgs_epiF(R8), R11")
	p("\tVMOVUPS Z0, K1, (R11)")
	p("\tVMOVUPS Z1, K2, 64(R11)")
	p("\tJMP %s", l("next"))
	p("%s: // a zero pixel of the layout, or past the images", l("zero"))
	addr("epiBF", "ldBF", l("zbf"))
	p("\tVMOVDQU32 Z24, (R11)")
	p("%s:", l("zbf"))
	addr("epiU8", "ldU8", l("next"))
	p("\tVMOVDQU32 Y24, (R11)")
	p("%s:", l("next"))
	p("\tINCQ R14")
	p("\tDECQ R15")
}

// genWeightGrad writes amxWeightGradBF16, a 32×32 block of a weight
// gradient: C = A·B over a run of pixels, A two 16-row tiles of a
// transposed input grid (a channel a row, 32 pixels a step), B two 16-column
// tiles of the output gradient's pixel pairs (16 pairs a step), C the four
// accumulator tiles, stored to a 32×32 float32 block.
//
// Registers: R8 the arguments, SI and DI A's two halves, CX A's row
// stride, DX B, BX B's row stride, R11 B's advance per step (16 rows),
// R10 the steps left, AX the output block.
func genWeightGrad(w *bytes.Buffer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("// The weight gradient's 32×32 blocks (LowpWeightGrad): see genWeightGrad")
	p("// in gen_amx.go.")
	p("")
	p("// func amxWeightGradBF16(a *amxGradArgs)")
	p("TEXT ·amxWeightGradBF16(SB), NOSPLIT, $0-8")
	p("\tMOVQ a+0(FP), R8")
	p("\tMOVQ amxGradArgs_cfg(R8), AX")
	ldtilecfg(w, rAX)
	p("\tMOVQ amxGradArgs_a0(R8), SI")
	p("\tMOVQ amxGradArgs_a1(R8), DI")
	p("\tMOVQ amxGradArgs_lda(R8), CX")
	p("\tMOVQ amxGradArgs_b(R8), DX")
	p("\tMOVQ amxGradArgs_ldb(R8), BX")
	p("\tMOVQ BX, R11")
	p("\tSHLQ $4, R11")
	p("\tMOVQ amxGradArgs_steps(R8), R10")
	for t := range 4 {
		tilezero(w, t)
	}
	p("amxWeightGradBF16_steps:")
	tileloadd(w, 4, rSI, rCX, 0)
	tileloadd(w, 5, rDI, rCX, 0)
	tileloadd(w, 6, rDX, rBX, 0)
	tileloadd(w, 7, rDX, rBX, 64)
	tdpbf16ps.emit(w, 0, 4, 6)
	tdpbf16ps.emit(w, 1, 4, 7)
	tdpbf16ps.emit(w, 2, 5, 6)
	tdpbf16ps.emit(w, 3, 5, 7)
	p("\tADDQ $64, SI")
	p("\tADDQ $64, DI")
	p("\tADDQ R11, DX")
	p("\tDECQ R10")
	p("\tJNZ amxWeightGradBF16_steps")
	p("\tMOVQ amxGradArgs_out(R8), AX")
	p("\tMOVQ $128, CX")
	tilestored(w, 0, rAX, rCX, 0)
	tilestored(w, 1, rAX, rCX, 64)
	tilestored(w, 2, rAX, rCX, 16*128)
	tilestored(w, 3, rAX, rCX, 16*128+64)
	tilerelease(w)
	p("\tRET")
}
