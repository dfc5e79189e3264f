package net

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"strings"
)

// calibrationFile holds the input planes of the positions an Int8
// inference calibrates its activations' scales on: 512 positions of the
// human archive (archive.Copenhagen, its games that training does not hold
// out, every so many plies), encoded under copenhagen-classic, the
// archive's rules. TestCalibrationPositions checks that it is what the
// archive gives, and writes it again with -update-calibration.
//
//go:embed calibration.bin
var calibrationFile []byte

// calibrationMagic begins calibration.bin; then the number of positions
// (uint32, little-endian), then for each position InputPlanes planes of
// 128 bits (two uint64, little-endian), bit s set where the plane is 1 on
// square s (every plane is 0 or 1).
const calibrationMagic = "taflab-calibration-v1\n"

// CalibrationPositions is the number of positions in calibration.bin.
const CalibrationPositions = 512

// encodeCalibration writes the planes of positions (each Squares ×
// InputPlanes values, 0 or 1, as Encode writes them) in calibration.bin's
// format.
func encodeCalibration(planes []float32) []byte {
	n := len(planes) / (Squares * InputPlanes)
	out := append([]byte(calibrationMagic), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(out[len(calibrationMagic):], uint32(n))
	for i := range n {
		x := planes[i*Squares*InputPlanes : (i+1)*Squares*InputPlanes]
		for p := range InputPlanes {
			var bits [2]uint64
			for s := range Squares {
				if x[s*InputPlanes+p] != 0 {
					bits[s/64] |= 1 << (s % 64)
				}
			}
			out = binary.LittleEndian.AppendUint64(out, bits[0])
			out = binary.LittleEndian.AppendUint64(out, bits[1])
		}
	}
	return out
}

// decodeCalibration returns the planes of data in calibration.bin's format.
func decodeCalibration(data []byte) ([]float32, error) {
	rest, ok := strings.CutPrefix(string(data), calibrationMagic)
	if !ok || len(rest) < 4 {
		return nil, fmt.Errorf("net: calibration positions: not a calibration file")
	}
	n := int(binary.LittleEndian.Uint32([]byte(rest[:4])))
	body := []byte(rest[4:])
	if len(body) != n*InputPlanes*16 {
		return nil, fmt.Errorf("net: calibration positions: %d bytes for %d positions, want %d", len(body), n, n*InputPlanes*16)
	}
	planes := make([]float32, n*Squares*InputPlanes)
	for i := range n {
		for p := range InputPlanes {
			off := (i*InputPlanes + p) * 16
			bits := [2]uint64{binary.LittleEndian.Uint64(body[off:]), binary.LittleEndian.Uint64(body[off+8:])}
			for s := range Squares {
				if bits[s/64]>>(s%64)&1 != 0 {
					planes[(i*Squares+s)*InputPlanes+p] = 1
				}
			}
		}
	}
	return planes, nil
}

// calibration returns the steps of n's activations for Int8 (the
// largest value each takes over the calibration positions, in float32,
// over 255), computed once for n's weights as they are (again if they
// have changed since).
func (n *Network) calibration() *actScales {
	n.calMu.Lock()
	defer n.calMu.Unlock()
	h := n.Hash()
	if n.cal != nil && n.calHash == h {
		return n.cal
	}
	planes, err := decodeCalibration(calibrationFile)
	if err != nil {
		panic(err) // the embedded file is checked by TestCalibrationPositions
	}
	f := n.newInference(1, "calibration") // one thread: stats is not shared safely
	f.stats = &actStats{h: make([]float32, len(f.blocks)+1), t: make([]float32, len(f.blocks))}
	per := Squares * InputPlanes
	const batch = 64
	for i := 0; i*per < len(planes); i += batch {
		b := min(batch, len(planes)/per-i)
		copy(f.Input(b), planes[i*per:(i+b)*per])
		f.Forward(b)
	}
	n.cal, n.calHash = f.stats.scales(), h
	return n.cal
}
