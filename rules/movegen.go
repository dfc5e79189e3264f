package rules

import "math/bits"

// This file is a hot path: self-play and search generate moves millions of
// times a second. GenerateMoves must stay free of allocations (the caller
// owns the slice), of closures and of interface calls; measure with
// BenchmarkLegalMoves before and after any change here.

// slide[p][occ] holds the squares a piece at position p of a line reaches
// along the line when occ is the line's occupancy: bit i for position i,
// stopping before the first occupied square in each direction. Bit p of occ
// is ignored. On boards smaller than MaxSize the caller masks the result with
// the board's line.
var slide [MaxSize][1 << MaxSize]uint16

func init() {
	for p := range MaxSize {
		for occ := range 1 << MaxSize {
			var reach uint16
			for i := p + 1; i < MaxSize && occ>>i&1 == 0; i++ {
				reach |= 1 << i
			}
			for i := p - 1; i >= 0 && occ>>i&1 == 0; i-- {
				reach |= 1 << i
			}
			slide[p][occ] = reach
		}
	}
}

// GenerateMoves appends the legal moves of the side to move to dst and
// returns the extended slice; a finished game has none. With cap(dst) -
// len(dst) >= MaxMoves it never allocates. The order is fixed: the soldiers
// by square index, then the king; each piece's moves along its rank, then
// along its file, each by square index.
func (g *Game) GenerateMoves(dst []Move) []Move {
	if g.outcome.Winner != NoWinner {
		return dst
	}
	if cap(dst)-len(dst) < MaxMoves {
		dst = append(make([]Move, 0, len(dst)+MaxMoves), dst...)
	}
	var soldiers Bitboard
	if g.toMove == Attackers {
		soldiers = g.attackers
	} else {
		soldiers = g.defenders
	}
	stops := &g.v.soldierStops
	for w, word := range [2]uint64{soldiers.Lo, soldiers.Hi} {
		for word != 0 {
			s := Square(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
			f, r := squareFile[s], squareRank[s]
			dst = appendLineMoves(dst, s, f, r, slide[f][g.rows[r]]&stops[r], slide[r][g.cols[f]]&stops[f])
		}
	}
	if g.toMove == Defenders {
		k := g.king
		f, r := squareFile[k], squareRank[k]
		line := g.v.lineMask
		dst = appendLineMoves(dst, k, f, r, slide[f][g.rows[r]]&line, slide[r][g.cols[f]]&line)
	}
	return dst
}

// appendLineMoves appends the moves from s (on file f, rank r) to the files
// of rankReach along its rank and to the ranks of fileReach along its file.
func appendLineMoves(dst []Move, s Square, f, r uint8, rankReach, fileReach uint16) []Move {
	from := Move(s)
	rankBase := Move(r) * MaxSize
	for rankReach != 0 {
		dst = append(dst, from|(rankBase+Move(bits.TrailingZeros16(rankReach)))<<8)
		rankReach &= rankReach - 1
	}
	for fileReach != 0 {
		dst = append(dst, from|(Move(bits.TrailingZeros16(fileReach))*MaxSize+Move(f))<<8)
		fileReach &= fileReach - 1
	}
	return dst
}

// hasMove reports whether the side to move has a legal move, without listing
// them: usually the first piece answers.
func (g *Game) hasMove() bool {
	var soldiers Bitboard
	if g.toMove == Attackers {
		soldiers = g.attackers
	} else {
		soldiers = g.defenders
		k := g.king
		f, r := squareFile[k], squareRank[k]
		if (slide[f][g.rows[r]]|slide[r][g.cols[f]])&g.v.lineMask != 0 {
			return true
		}
	}
	stops := &g.v.soldierStops
	for soldiers.Any() {
		s := soldiers.PopFirst()
		f, r := squareFile[s], squareRank[s]
		if slide[f][g.rows[r]]&stops[r]|slide[r][g.cols[f]]&stops[f] != 0 {
			return true
		}
	}
	return false
}
