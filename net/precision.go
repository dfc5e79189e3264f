package net

import (
	"fmt"
	"strings"
	"sync/atomic"

	"taflab/net/kernels"
)

// Precision is the arithmetic an Inference runs its convolutions in.
// Training runs in float32 unless its config asks for bf16 (TrainConfig.Precision, Trainer.SetPrecision).
type Precision int

// The precisions.
const (
	// Auto is the fastest precision this CPU runs on its own instructions
	// at the network's strength: BF16 where it has AMX (AMX-BF16 tiles),
	// else Float32 (Precision.Resolve).
	Auto Precision = iota
	// Float32 runs Winograd convolutions on the float32 kernels (AVX-512,
	// AVX2 or portable Go): the reference, on every CPU.
	Float32
	// BF16 rounds activations and weights to bfloat16 and sums in float32
	// (AMX-BF16), direct 3x3 convolutions.
	BF16
	// Int8 quantizes activations to unsigned and weights to signed 8 bits
	// and sums exactly in int32 (AMX-INT8); the activations' scales are
	// calibrated on positions of the human archive when the inference is
	// made, the residual stream kept in bfloat16.
	Int8
)

var precisionNames = [...]string{Auto: "auto", Float32: "float32", BF16: "bf16", Int8: "int8"}

// String returns the precision's name: auto, float32, bf16 or int8.
func (p Precision) String() string {
	if p < 0 || int(p) >= len(precisionNames) {
		return fmt.Sprintf("Precision(%d)", int(p))
	}
	return precisionNames[p]
}

// ParsePrecision reads a precision's name (String).
func ParsePrecision(s string) (Precision, error) {
	for p, name := range precisionNames {
		if s == name {
			return Precision(p), nil
		}
	}
	return 0, fmt.Errorf("net: precision %q: want one of %s", s, strings.Join(precisionNames[:], ", "))
}

// lowp is the kernels' precision of p (BF16 or Int8), 0 for the others.
func (p Precision) lowp() kernels.Lowp {
	switch p {
	case BF16:
		return kernels.BF16
	case Int8:
		return kernels.Int8
	}
	return 0
}

// Native reports whether this CPU runs p on instructions made for it:
// Float32 always, BF16 and Int8 with AMX (and the operating system's
// leave to use its tiles). Elsewhere they run on portable Go, for tests:
// tens of times slower than Float32.
func (p Precision) Native() bool {
	switch p {
	case Auto, Float32:
		return true
	}
	return kernels.LowpImplementations(p.lowp())[0] != "generic"
}

// Resolve returns p, or for Auto the precision it stands for on this CPU.
func (p Precision) Resolve() Precision {
	if p != Auto {
		return p
	}
	if BF16.Native() {
		return BF16
	}
	return Float32
}

// Check returns an error if this CPU does not run p natively, naming what
// it lacks and what it runs: what a command says when a user forces a
// precision.
func (p Precision) Check() error {
	if p.Native() {
		return nil
	}
	return fmt.Errorf("net: precision %s: this CPU (or its operating system) has no %s instructions (AMX-%s tiles); it runs float32 (and auto, which is float32 here)",
		p, p, strings.ToUpper(p.String()))
}

// Kernel returns what runs p's convolutions here: the float32 kernels'
// implementation (avx512, avx2, generic) or the reduced precision's (amx,
// generic).
func (p Precision) Kernel() string {
	if p = p.Resolve(); p == Float32 {
		return kernels.Implementation()
	}
	return kernels.LowpImplementation(p.lowp())
}

// defaultPrecision is NewInference's precision (a Precision).
var defaultPrecision atomic.Int32

func init() { defaultPrecision.Store(int32(Float32)) }

// SetDefaultPrecision sets the precision of the inferences NewInference
// makes from now on (Float32 unless set: the commands set it from their
// -precision flag, Auto by default). Inferences already made keep theirs.
func SetDefaultPrecision(p Precision) { defaultPrecision.Store(int32(p)) }

// DefaultPrecision returns NewInference's precision, Auto not resolved.
func DefaultPrecision() Precision { return Precision(defaultPrecision.Load()) }
