package net

import (
	"taflab/internal/errctx"
	"taflab/rules"
)

// firstSwitchPlane is the first of the rule set's switch planes (7 to 14 in
// InputEncoding): planes that are 1 or 0 over the whole board.
const firstSwitchPlane = 7

// everySquarePlane is the plane that is 1 on every square.
const everySquarePlane = 6

// switchPlanes returns which of the switch planes v sets.
func switchPlanes(v *rules.Variant) ([InputPlanes]bool, error) {
	var on [InputPlanes]bool
	start := v.Start()
	row := make([]float32, Squares*InputPlanes)
	if err := Encode(row, v, &start); err != nil {
		return on, err
	}
	for c := firstSwitchPlane; c < InputPlanes; c++ {
		on[c] = row[c] == 1 // square 0's: the plane is whole
	}
	return on, nil
}

// AdoptPlanes changes the network so that positions shown the planes of
// rule set to give exactly the outputs (within float rounding) that the
// same positions shown from's planes gave before, while from's planes
// keep giving what they gave: a network that learnt from (people's games
// of copenhagen-classic, say) then plays to as it played from, and
// training on to's games starts from there instead of from input planes
// it never saw. The network's PlanesOf becomes nil: it reads both.
//
// The switch planes are whole-board constants, so the stem convolution's
// weights on a plane act as a bias that depends on the square (the padding
// cuts the kernel at the edge). The planes to sets and from does not (never
// 1 in from's training, so their weights do nothing yet) take over the
// weights of the planes from sets and to does not: the first of them gets
// their sum, the others zero. When to sets no plane that from does not,
// those weights move to the plane that is 1 on every square, and the
// planes they came from get zero. Both rule sets must be of the network's
// board size.
func (n *Network) AdoptPlanes(from, to *rules.Variant) error {
	a, err := switchPlanes(from)
	if err != nil {
		return errctx.Key("net", "adopt planes: "+from.Name(), err)
	}
	b, err := switchPlanes(to)
	if err != nil {
		return errctx.Key("net", "adopt planes: "+to.Name(), err)
	}
	var on, off []int // planes to sets and from does not; the reverse
	for c := firstSwitchPlane; c < InputPlanes; c++ {
		switch {
		case b[c] && !a[c]:
			on = append(on, c)
		case a[c] && !b[c]:
			off = append(off, c)
		}
	}
	cv := &n.stem.conv
	cin, cout := cv.cin, cv.cout
	for tap := range cv.k * cv.k {
		at := func(c int) []float32 { return cv.w[(tap*cin+c)*cout : (tap*cin+c+1)*cout] }
		sum := make([]float32, cout)
		for _, c := range off {
			for o, w := range at(c) {
				sum[o] += w
			}
		}
		if len(on) > 0 {
			copy(at(on[0]), sum)
			for _, c := range on[1:] {
				clear(at(c))
			}
			continue
		}
		every := at(everySquarePlane)
		for o := range every {
			every[o] += sum[o]
		}
		for _, c := range off {
			clear(at(c))
		}
	}
	n.planesOf = nil
	return nil
}
