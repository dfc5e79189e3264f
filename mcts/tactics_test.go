package mcts

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// Positions of the tactics tests, in copenhagen.
const (
	// capturePosition: the start after d1-d3, e5-b5 and h1-h3 (written
	// with the attackers' moves in place). e7-b7 is the defenders' one
	// capture (b6, against b5), and the attackers cannot take back.
	capturePosition = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/ad3dd3a/a4d4a/3a3a3/5a5/4aaa4 d"
	// startDefenders: the start with the defenders to move. 20 of their
	// 60 moves let the attackers capture at once, d6-c6 among them (d11-d6
	// or d1-d6 takes c6 against b6); e7-e9 does not.
	startDefenders = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 d"
	// fortPosition: g3-g1 closes an edge fort around the king on e1 (f1
	// empty; the wall d1, e2, f2, g1, each safe on both lines), the
	// defenders' only win in one; i1 keeps the king from k1.
	fortPosition = "3aaaaa3/5a5/11/11/11/11/11/11/6d4/4dd5/3dk3a2 d"
	// encirclePosition: the defenders are walled in around the throne but
	// for f8; a9-f9 seals them off from the edge, the attackers' only win
	// in one, on a square away from the king.
	encirclePosition = "11/11/a10/4a1a4/3a3a3/3adkda3/3a3a3/4aaa4/11/11/11 a"
)

// favouring is a test evaluator: value 0 everywhere, uniform priors but at
// one position, where it gives moves fixed priors and shares the rest of
// the mass among the others.
type favouring struct {
	at    rules.Position
	moves []rules.Move
	probs []float32
}

func (f *favouring) ID() string { return "favouring" }

func (f *favouring) Evaluate(b *Batch) error {
	for i, moves := range b.Moves {
		b.Values[i] = 0
		fillUniform(b.Priors[i], len(moves))
		if b.Positions[i] != f.at {
			continue
		}
		rest := float32(1)
		for _, p := range f.probs {
			rest -= p
		}
		for j, m := range moves {
			b.Priors[i][j] = rest / float32(len(moves)-len(f.moves))
			for k, x := range f.moves {
				if m == x {
					b.Priors[i][j] = f.probs[k]
				}
			}
		}
	}
	return nil
}

// tacticalSearch runs a search of position with the given tactical weight
// and evaluator.
func tacticalSearch(t *testing.T, position string, weight float64, eval Evaluator, playouts int) *Search {
	t.Helper()
	cfg := DefaultConfig()
	cfg.TacticalWeight = weight
	s := NewSearch(&cfg, mustGame(t, "copenhagen", position), 1)
	if err := NewRunner(eval).Search(s, playouts); err != nil {
		t.Fatal(err)
	}
	if weight > 0 {
		checkTactics(t, s)
	}
	return s
}

// refTactic is tacticValue worked out afresh from g, just after mover's
// move: the outcome, or tanh of the material difference from the start's
// over 8, from the whole position.
func refTactic(g *rules.Game, mover rules.Side) int16 {
	if o := g.Outcome(); o.Over() {
		switch {
		case o.Winner == rules.Draw:
			return 0
		case (o.Winner == rules.DefendersWin) == (mover == rules.Defenders):
			return tacticScale
		}
		return -tacticScale
	}
	p, start := g.Position(), g.Variant().Start()
	d := 2*p.Defenders.Count() - p.Attackers.Count() - (2*start.Defenders.Count() - start.Attackers.Count())
	v := math.Tanh(float64(d) / 8)
	if mover == rules.Attackers {
		v = -v
	}
	return int16(math.Round(v * tacticScale))
}

// checkTactics recomputes every node's implicit minimax value from the
// positions (refTactic at nodes not expanded, minus the best child's
// else) and compares it with the tree's.
func checkTactics(t *testing.T, s *Search) {
	t.Helper()
	g := s.game
	var walk func(i int32) int16
	walk = func(i int32) int16 {
		n := s.tree.at(i)
		best := int16(-tacticScale)
		for k := range int32(n.numChildren) {
			c := s.tree.at(n.firstChild + k)
			mover := g.ToMove()
			g.Make(c.move)
			v := refTactic(g, mover)
			if c.expanded() {
				v = walk(n.firstChild + k)
			}
			g.Unmake()
			if c.tactic != v {
				t.Fatalf("node %d (%v, in %v): got minimax value %d, want %d", n.firstChild+k, c.move, g.Position(), c.tactic, v)
			}
			best = max(best, v)
		}
		return -best
	}
	if root := s.tree.at(0); root.expanded() {
		if want := walk(0); root.tactic != want {
			t.Fatalf("root: got minimax value %d, want %d", root.tactic, want)
		}
	}
}

// TestTacticValue: the scan's value of a move, for its mover, and whether
// it is the win in one the scan reports.
func TestTacticValue(t *testing.T) {
	fixed := func(v float64) int16 { return int16(math.Round(v * tacticScale)) }
	const (
		attackersToMove = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aad1dkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a" // d6-c6 played from startDefenders
		defenderDown    = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa2dkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 d"  // the start without d6
	)
	cases := []struct {
		name, position, moves string // moves: the last is the one valued
		want                  int16  // for the side that makes it
		wins                  bool
	}{
		{"quiet move at the start's material", startDefenders, "e7-e9", 0, false},
		{"the defenders take an attacker", capturePosition, "e7-b7", fixed(math.Tanh(1.0 / 8)), false},
		{"the attackers take a defender", attackersToMove, "d11-d6", fixed(math.Tanh(2.0 / 8)), false},
		{"the attackers' quiet move", attackersToMove, "a8-b8", 0, false},
		{"the defenders' quiet move a defender down", defenderDown, "e7-e9", fixed(math.Tanh(-2.0 / 8)), false},
		{"far from the start's material", fortPosition, "e1-f1", fixed(math.Tanh((2*4 - 7) / 8.0)), false},
		{"the king escapes", threatPosition + " d", "a3-a1", tacticScale, true},
		{"an edge fort", fortPosition, "g3-g1", tacticScale, true},
		{"an encirclement", encirclePosition, "a9-f9", tacticScale, true},
		{"the king is taken", "11/11/5a5/11/4aka4/11/11/11/11/1d9/11 a", "f9-f8", tacticScale, true},
		{"a third repetition by the mover", startDefenders, "e7-e9 a8-b8 e9-e7 b8-a8 e7-e9 a8-b8 e9-e7 b8-a8", -tacticScale, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustGame(t, "copenhagen", c.position)
			moves := strings.Fields(c.moves)
			for _, text := range moves[:len(moves)-1] {
				if err := g.Play(mustMove(t, text)); err != nil {
					t.Fatal(err)
				}
			}
			m := mustMove(t, moves[len(moves)-1])
			legal := g.GenerateMoves(nil)
			i := slices.Index(legal, m)
			if i < 0 {
				t.Fatalf("%v is not legal in %v", m, g.Position())
			}
			values := make([]int16, len(legal))
			winning := scanTactics(g, legal, values)
			if got := values[i]; got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
			if got := winning == int32(i); got != c.wins {
				t.Errorf("got the scan's win in one %d (move %d a win: %v), want %v", winning, i, got, c.wins)
			}
			for k, mv := range legal {
				mover := g.ToMove()
				g.Make(mv)
				want := refTactic(g, mover)
				g.Unmake()
				if values[k] != want {
					t.Errorf("%v: got %v, want %v (from the position)", mv, values[k], want)
				}
			}
		})
	}
}

// TestTacticalCapture: a capture the evaluator gives no hint of (uniform
// priors, value 0) is found in a few hundred playouts with a tactical
// weight, in every orientation of the board.
func TestTacticalCapture(t *testing.T) {
	for y := range rules.Symmetry(rules.NumSymmetries) {
		t.Run(fmt.Sprintf("sym%d", y), func(t *testing.T) {
			pos, want := symmetric(t, capturePosition, "e7-b7", y)
			s := tacticalSearch(t, pos, 0.3, Uniform{}, 400)
			if got := s.BestMove(); got != want {
				t.Errorf("got %v, want the capture %v", got, want)
			}
		})
	}
	t.Run("weight 0", func(t *testing.T) {
		// Without it every value is 0: the visits spread evenly and the
		// tie goes to the first move generated, not the capture.
		s := tacticalSearch(t, capturePosition, 0, Uniform{}, 400)
		if got, capture := s.BestMove(), mustMove(t, "e7-b7"); got == capture {
			t.Errorf("got %v, want another move: nothing shows the capture at weight 0", got)
		}
	})
}

// TestTacticalTrap: the evaluator's favourite move (prior 0.9) lets the
// attackers take a defender at once; its second choice (0.09) is safe.
// With a tactical weight the search plays the safe move, without it the
// trap.
//
// The playouts are many because PUCT's visits follow a strong prior until
// the value gap outweighs it: the trap's is alpha * tanh(2/8), 0.07 for
// alpha 0.3, and it takes about 1,000 playouts to overturn 0.9 against 0.09
// (measured: at 800 the trap still has the most visits, at 1,600 the safe
// move). With the 0.1 left shared evenly among the other 59 moves instead,
// it takes far more (at 6,400 the trap still has 1,203 visits to the next
// move's 129, down from 5,750 at weight 0): a tactical weight alone does
// not overrule a network that is sure of a blunder.
func TestTacticalTrap(t *testing.T) {
	for y := range rules.Symmetry(rules.NumSymmetries) {
		for _, weight := range []float64{0, 0.3} {
			t.Run(fmt.Sprintf("sym%d/weight%v", y, weight), func(t *testing.T) {
				pos, trap := symmetric(t, startDefenders, "d6-c6", y)
				_, safe := symmetric(t, startDefenders, "e7-e9", y)
				g := mustGame(t, "copenhagen", pos)
				eval := &favouring{at: g.Position(), moves: []rules.Move{trap, safe}, probs: []float32{0.9, 0.09}}
				s := tacticalSearch(t, pos, weight, eval, 3200)
				got := s.BestMove()
				if weight == 0 && got != trap {
					t.Errorf("got %v, want the trap %v: the prior decides at weight 0", got, trap)
				}
				if weight > 0 && got != safe {
					t.Errorf("got %v, want the safe %v, not the trap %v", got, safe, trap)
				}
			})
		}
	}
}

// TestTacticalScanWins: with a tactical weight, the scan of the leaf's
// moves proves a win in one that immediateWin does not look for (an edge
// fort, an encirclement) at the root's first expansion.
func TestTacticalScanWins(t *testing.T) {
	cases := []struct{ name, position, want string }{
		{"edge fort", fortPosition, "g3-g1"},
		{"encirclement", encirclePosition, "a9-f9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustGame(t, "copenhagen", c.position)
			if i := immediateWin(g, g.GenerateMoves(nil)); i >= 0 {
				t.Fatalf("immediateWin finds move %d: the position does not test the scan", i)
			}
			s := tacticalSearch(t, c.position, 0.3, Uniform{}, 800)
			if got := s.Playouts(); got != 1 {
				t.Errorf("got %v playouts, want 1: the root is proven by its first expansion", got)
			}
			if got := s.RootValue(); got != 1 {
				t.Errorf("got root value %v, want 1 (a proof)", got)
			}
			if got, want := s.BestMove(), mustMove(t, c.want); got != want {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// TestTacticsSearch: over games of self-play with a tactical weight, under
// both root searches and several leaves a round, the tree keeps its
// invariants and every node's minimax value is the one recomputed from the
// positions, tree reuse included; and Advance keeps the values of the
// subtree it keeps.
func TestTacticsSearch(t *testing.T) {
	for _, root := range []string{RootPUCT, RootGumbel} {
		for _, name := range variants.Names() {
			t.Run(root+"/"+name, func(t *testing.T) {
				cfg := DefaultConfig()
				cfg.RootSearch, cfg.TacticalWeight = root, 0.3
				g := rules.NewGame(variants.MustLoad(name))
				s := NewSearch(&cfg, g, 3)
				r := NewRunner(NewHeuristic())
				kept := 0
				for move := 0; move < 12 && !g.Outcome().Over(); move++ {
					s.Start(200, true)
					for !s.Done() {
						if err := r.Step([]*Search{s}); err != nil {
							t.Fatal(err)
						}
					}
					checkTree(t, s)
					checkTactics(t, s)
					m := s.ChooseMove(cfg.Temperature(g.Ply()))
					want := subtreeTactics(s, m)
					if err := s.Advance(m); err != nil {
						t.Fatal(err)
					}
					checkTactics(t, s)
					var got []int16
					if root := s.tree.at(0); root.expanded() {
						got = append(got, root.tactic)
						for _, c := range s.tree.children(root) {
							got = append(got, c.tactic)
						}
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("ply %d: after Advance(%v) got the root's and its children's values %v, want %v", g.Ply(), m, got, want)
					}
					if want != nil {
						kept++
					}
				}
				if kept == 0 {
					t.Errorf("no move kept an expanded subtree: tree reuse untested")
				}
				t.Logf("%d plies, %d kept subtrees", g.Ply(), kept)
			})
		}
	}
}

// subtreeTactics returns the minimax values of root child m and its
// children, if m is expanded.
func subtreeTactics(s *Search, m rules.Move) []int16 {
	for _, c := range s.tree.children(s.tree.at(0)) {
		if c.move != m || !c.expanded() {
			continue
		}
		out := []int16{c.tactic}
		for _, k := range s.tree.children(&c) {
			out = append(out, k.tactic)
		}
		return out
	}
	return nil
}
