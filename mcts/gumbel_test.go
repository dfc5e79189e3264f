package mcts

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// gumbelConfig returns the default config under Gumbel root search.
func gumbelConfig() Config {
	cfg := DefaultConfig()
	cfg.RootSearch = RootGumbel
	return cfg
}

// tableEvaluator gives hand-set priors at one position (the first moves of
// move-generation order get rootPriors, the others share what is left) and
// hand-set values at some positions; uniform priors and a value of 0
// everywhere else.
type tableEvaluator struct {
	root       rules.Position
	rootPriors []float32
	values     map[rules.Position]float32 // for the side to move
}

func (e *tableEvaluator) ID() string { return "table" }

func (e *tableEvaluator) Evaluate(b *Batch) error {
	for i, moves := range b.Moves {
		b.Values[i] = e.values[b.Positions[i]]
		if b.Positions[i] != e.root {
			fillUniform(b.Priors[i], len(moves))
			continue
		}
		left := float32(1)
		for _, p := range e.rootPriors {
			left -= p
		}
		for j := range moves {
			if j < len(e.rootPriors) {
				b.Priors[i][j] = e.rootPriors[j]
			} else {
				b.Priors[i][j] = left / float32(len(moves)-len(e.rootPriors))
			}
		}
	}
	return nil
}

// TestGumbelSequentialHalving checks the visits sequential halving gives
// each sampled move, and the move played, against counts worked out by hand
// (and checked against mctx's get_sequence_of_considered_visits with its
// selection by score among the moves at each visit count).
//
// The root is copenhagen's start, attackers to move. Without noise g = 0,
// so Gumbel-top-k takes the top moves by prior: moves 0 to 7 of
// move-generation order, with priors 0.20, 0.16, 0.13, 0.11, 0.09, 0.07,
// 0.05, 0.04 (the other 100-odd moves share the 0.15 left). The evaluator
// gives the position after move a the value -q1(a) for the defenders, so
// that the first visit of a backs up q1(a) for the attackers, and every
// position deeper the value 0: after N visits Q(a) = q1(a)/N, whichever
// grandchildren PUCT picks below the root, so that the counts must not
// depend on the leaves per round either. The root's own expansion is the
// first playout: a search of p playouts gives its children n = p - 1.
func TestGumbelSequentialHalving(t *testing.T) {
	priors := []float32{0.20, 0.16, 0.13, 0.11, 0.09, 0.07, 0.05, 0.04}
	q1 := []float32{-0.5, -0.3, 0.6, 0.2, 0.5, -0.1, 0.4, -0.2}
	cases := []struct {
		name              string
		actions, playouts int
		want              []int32 // the visits of moves 0 to 7; the others get none
		wantMove          int     // the move played, by index
	}{
		// n = 16, L = ceil(log2 4) = 2 phases. Phase 1: 4 moves, +max(1,
		// 16/(2*4)) = 2 visits each (8 in all). Q = q1/2 = -0.25, -0.15,
		// 0.3, 0.1: sigma's scale is (50 + 2) * 1 over a Q range of 0.55
		// (v_mix of the unvisited lies inside), 52*0.1/0.55 = 9.5 or more
		// between neighbours, far above the log-prior gaps (ln(0.20/0.11) =
		// 0.6): moves 2 and 3 stay. Phase 2: 2 moves, +16/(2*2) = 4 each,
		// to 6 (16). Played: Q(2) = 0.6/6 > Q(3) = 0.2/6, and move 2 has
		// the larger prior too.
		{"m=4/n=16", 4, 17, []int32{2, 2, 6, 6, 0, 0, 0, 0}, 2},
		// n = 50, L = 3. Phase 1: 8 moves, +50/24 = 2 each (16). Q = q1/2
		// ranks 2 (0.3), 4 (0.25), 6 (0.2), 3 (0.1) above 5 (-0.05), 7, 1,
		// 0; a gap of 0.05 is 52*0.05/0.55 = 4.7 of sigma, above any
		// log-prior gap among the eight (ln(0.20/0.04) = 1.6): keep 2, 4,
		// 6, 3. Phase 2: +50/12 = 4 each, to 6 (32). Q = q1/6 = 0.1, 0.083,
		// 0.067, 0.033 over a range of 0.35 (min Q(0) = -0.25): a gap is
		// 56*0.0167/0.35 = 2.7 > ln(0.13/0.05) = 0.96: keep 2, 4. Phase 3:
		// +50/6 = 8 each, to 14 (48). The last phase repeats, to 22, with 2
		// playouts left: one each, move 2 first (the better at the
		// halving): 15 and 15. Played: Q(2) = 0.6/15 > Q(4) = 0.5/15, and
		// move 2 has the larger prior.
		{"m=8/n=50", 8, 51, []int32{2, 2, 15, 6, 15, 2, 6, 2}, 2},
		// An odd budget, n = 15, L = 2. Phase 1: +max(1, 15/8) = 1 each
		// (4); Q = q1 keeps 2 and 3. Phase 2: +15/4 = 3 each, to 4 (10).
		// The last phase repeats, to 7, with 5 playouts left: to 2, 3, 2,
		// 3, 2 (the fewest visits first, ties to the better at the
		// halving, 2): 7 and 6. Played: Q(2) = 0.6/7 > Q(3) = 0.2/6.
		{"m=4/n=15", 4, 16, []int32{1, 1, 7, 6, 0, 0, 0, 0}, 2},
		// n = 16, L = 1: both moves +16/2 = 8. Q(0) = -0.5/8 = -0.0625 <
		// Q(1) = -0.3/8 = -0.0375, with v_mix = (0 + 16 * (0.2*-0.0625 +
		// 0.16*-0.0375) / 0.36) / 17 = -0.048 between: sigma gives move 1
		// all of (50 + 8) and move 0 nothing, which outweighs ln(0.20/0.16)
		// = 0.22: move 1 is played, against the prior.
		{"m=2/n=16", 2, 17, []int32{8, 8, 0, 0, 0, 0, 0, 0}, 1},
		// One move sampled: it gets every visit and is played.
		{"m=1/n=16", 1, 17, []int32{16, 0, 0, 0, 0, 0, 0, 0}, 0},
	}
	v := variants.MustLoad("copenhagen")
	start := rules.NewGame(v)
	legal := start.GenerateMoves(nil)
	eval := &tableEvaluator{root: start.Position(), rootPriors: priors, values: map[rules.Position]float32{}}
	for i, q := range q1 {
		start.Make(legal[i])
		eval.values[start.Position()] = -q
		start.Unmake()
	}
	for _, c := range cases {
		for _, leaves := range []int{1, 4, 16} {
			t.Run(fmt.Sprintf("%s/leaves%d", c.name, leaves), func(t *testing.T) {
				cfg := gumbelConfig()
				cfg.GumbelActions, cfg.LeavesPerGame = c.actions, leaves
				s := NewSearch(&cfg, rules.NewGame(v), 1)
				if err := NewRunner(eval).Search(s, c.playouts); err != nil {
					t.Fatal(err)
				}
				checkTree(t, s)
				var got []int32
				rest := int32(0)
				for i, child := range s.rootChildren() {
					if i < len(c.want) {
						got = append(got, child.visits)
					} else {
						rest += child.visits
					}
				}
				if !slices.Equal(got, c.want) || rest != 0 {
					t.Errorf("got visits %v and %v on the other moves, want %v and 0", got, rest, c.want)
				}
				if got, want := s.ChooseMove(1), legal[c.wantMove]; got != want {
					t.Errorf("ChooseMove: got %v, want %v (move %d)", got, want, c.wantMove)
				}
				if got, want := s.BestMove(), legal[c.wantMove]; got != want {
					t.Errorf("BestMove: got %v, want %v (move %d)", got, want, c.wantMove)
				}
				// The kept root's value v̂, worked out from the tree, is the
				// evaluator's value of the position after the move.
				if err := s.Advance(legal[c.wantMove]); err != nil {
					t.Fatal(err)
				}
				if got, want := s.rootValue, -q1[c.wantMove]; math.Abs(float64(got-want)) > 1e-6 {
					t.Errorf("root value after Advance: got %v, want %v", got, want)
				}
			})
		}
	}
}

// handTree replaces s's tree by a root with four children: the first four
// legal moves of s's game, with these priors, visits and value sums (for the
// side to move at the root), and the root's value v̂.
func handTree(t *testing.T, s *Search, priors []float32, visits []int32, sums []float32, proofs []proof, rootValue float32) []rules.Move {
	t.Helper()
	moves := s.game.GenerateMoves(nil)[:4]
	s.tree.reset()
	root := node{visits: 1, firstChild: 1, numChildren: 4}
	for i := range 4 {
		root.visits += visits[i]
	}
	*s.tree.at(s.tree.alloc(1, s.limit())) = root
	first := s.tree.alloc(4, s.limit())
	for i, m := range moves {
		*s.tree.at(first + int32(i)) = node{move: m, prior: priors[i], visits: visits[i], valueSum: sums[i], proof: proofs[i], firstChild: noChildren}
	}
	s.rootValue = rootValue
	return moves
}

// TestGumbelCompletedQ checks the improved policy (the training target) and
// the move played on hand-made roots, worked out by hand. Every case has the
// priors 0.4, 0.3, 0.2, 0.1, root value v̂ = 0.1, gumbel_c_visit = 2 and
// gumbel_c_scale = 0.5 unless it says otherwise, so that sigma(q^) = (2 +
// max N) * 0.5 * q^.
func TestGumbelCompletedQ(t *testing.T) {
	priors := []float32{0.4, 0.3, 0.2, 0.1}
	cases := []struct {
		name     string
		visits   []int32
		sums     []float32
		proofs   []proof
		cScale   float64
		want     []float64 // the policy
		wantMove int
	}{
		// Q(0) = 2/4 = 0.5, Q(1) = -0.4/2 = -0.2. v_mix = (v̂ + sum N /
		// sum pi_visited * sum pi q) / (1 + sum N) = (0.1 + 6/0.7 * (0.4*0.5
		// + 0.3*-0.2)) / 7 = (0.1 + 6*0.2) / 7 = 0.185714 for moves 2 and 3.
		// Rescaled over min -0.2, max 0.5: q^ = 1, 0, 0.385714/0.7 =
		// 0.551020, 0.551020. sigma = (2 + 4) * 0.5 * q^ = 3, 0, 1.653061,
		// 1.653061. pi' = softmax(log pi + sigma) ∝ 0.4e^3 = 8.034215,
		// 0.3, 0.2e^1.653061 = 1.044589, 0.522294 (sum 9.901098):
		// 0.811447, 0.030300, 0.105502, 0.052751. Played: the best of the
		// four sampled moves by log pi + sigma, move 0 (no phase has ended:
		// moves 2 and 3 have no visits).
		{"visited and not", []int32{4, 2, 0, 0}, []float32{2, -0.4, 0, 0}, []proof{0, 0, 0, 0}, 0.5,
			[]float64{0.811447, 0.030300, 0.105502, 0.052751}, 0},
		// Move 1 proven lost: its Q is -1, not its mean -0.2. v_mix = (0.1
		// + 6/0.7 * (0.2 - 0.3)) / 7 = -0.108163. Over min -1, max 0.5: q^
		// = 1, 0, 0.891837/1.5 = 0.594558, 0.594558; sigma = 3, 0,
		// 1.783673, 1.783673; pi' ∝ 8.034215, 0.3, 1.190336, 0.595168 (sum
		// 10.119719): 0.793917, 0.029645, 0.117625, 0.058813. Played: move 0.
		{"a proven loss", []int32{4, 2, 0, 0}, []float32{2, -0.4, 0, 0}, []proof{0, provenLoss, 0, 0}, 0.5,
			[]float64{0.793917, 0.029645, 0.117625, 0.058813}, 0},
		// Move 0 proven lost, and sigma scaled down to nothing (c_scale
		// 1e-6): pi' is the priors (to 1e-5), and the move is the best by
		// prior of those not lost, move 1, not move 0.
		{"a proven loss dropped", []int32{4, 2, 0, 0}, []float32{2, -0.4, 0, 0}, []proof{provenLoss, 0, 0, 0}, 1e-6,
			[]float64{0.4, 0.3, 0.2, 0.1}, 1},
		// Move 2 proven won: all of the policy on it, and it is played.
		{"a proven win", []int32{4, 2, 1, 0}, []float32{2, -0.4, 1, 0}, []proof{0, 0, provenWin, 0}, 0.5,
			[]float64{0, 0, 1, 0}, 2},
		// No visits: every completed Q is v_mix = v̂, q^ = 0, sigma = 0:
		// pi' is the priors, and the move the best prior.
		{"no visits", []int32{0, 0, 0, 0}, []float32{0, 0, 0, 0}, []proof{0, 0, 0, 0}, 0.5,
			[]float64{0.4, 0.3, 0.2, 0.1}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := gumbelConfig()
			cfg.GumbelCVisit, cfg.GumbelCScale = 2, c.cScale
			s := NewSearch(&cfg, rules.NewGame(variants.MustLoad("copenhagen")), 1)
			moves := handTree(t, s, priors, c.visits, c.sums, c.proofs, 0.1)
			s.Start(int(s.tree.at(0).visits), false)
			policy := s.Policy(nil)
			if len(policy) != len(c.want) {
				t.Fatalf("got %d policy entries, want %d", len(policy), len(c.want))
			}
			for i, mp := range policy {
				if mp.Move != moves[i] || math.Abs(float64(mp.Prob)-c.want[i]) > 1e-5 {
					t.Errorf("entry %d: got %v %.6f, want %v %.6f", i, mp.Move, mp.Prob, moves[i], c.want[i])
				}
			}
			if got := s.ChooseMove(0); got != moves[c.wantMove] {
				t.Errorf("got move %v, want %v (move %d)", got, moves[c.wantMove], c.wantMove)
			}
		})
	}
}

// TestGumbelTactics: a win in one is proven and played, and with every move
// sampled the moves that let the opponent win at once are proven lost and
// dropped, leaving the one that stops it.
func TestGumbelTactics(t *testing.T) {
	cases := []struct {
		name, position, want string
		actions, playouts    int
	}{
		{"takes a win in one", threatPosition + " d", "a3-a1", 16, 8},
		{"stops the opponent's win in one", threatPosition + " a", "c2-a2", rules.MaxMoves, 200},
	}
	for _, c := range cases {
		for _, variant := range variants.Names() {
			for y := range rules.Symmetry(rules.NumSymmetries) {
				t.Run(fmt.Sprintf("%s/%s/sym%d", c.name, variant, y), func(t *testing.T) {
					pos, want := symmetric(t, c.position, c.want, y)
					cfg := gumbelConfig()
					cfg.GumbelActions = c.actions
					s := NewSearch(&cfg, mustGame(t, variant, pos), 1)
					if err := NewRunner(NewHeuristic()).Search(s, c.playouts); err != nil {
						t.Fatal(err)
					}
					if got := s.BestMove(); got != want {
						t.Errorf("got %v, want %v (after %d playouts)", got, want, s.Playouts())
					}
				})
			}
		}
	}
}

// TestGumbelSearchInvariants runs self-play-like searches (noise, tree
// reuse) under Gumbel root search and checks the tree, the policy and the
// move after each.
func TestGumbelSearchInvariants(t *testing.T) {
	for _, leaves := range []int{1, 4, 16} {
		for _, name := range variants.Names() {
			t.Run(fmt.Sprintf("%s/leaves%d", name, leaves), func(t *testing.T) {
				cfg := gumbelConfig()
				cfg.LeavesPerGame = leaves
				g := rules.NewGame(variants.MustLoad(name))
				s := NewSearch(&cfg, g, 7)
				r := NewRunner(NewHeuristic())
				for move := 0; move < 30 && !g.Outcome().Over(); move++ {
					s.Start(300, move%2 == 0)
					for !s.Done() {
						if err := r.Step([]*Search{s}); err != nil {
							t.Fatal(err)
						}
						checkTree(t, s)
					}
					if got := s.Visits(); got < 300 && s.tree.at(0).proof == unproven {
						t.Fatalf("got %v root visits, want at least 300", got)
					}
					legal := g.GenerateMoves(nil)
					var policyMoves []rules.Move
					total := float32(0)
					for _, mp := range s.Policy(nil) {
						policyMoves = append(policyMoves, mp.Move)
						total += mp.Prob
					}
					if !slices.Equal(policyMoves, legal) {
						t.Fatalf("ply %d: policy moves %v, want the legal moves %v", g.Ply(), policyMoves, legal)
					}
					if math.Abs(float64(total)-1) > 1e-4 {
						t.Fatalf("ply %d: got policy sum %v, want 1", g.Ply(), total)
					}
					m := s.ChooseMove(cfg.Temperature(g.Ply()))
					if !g.IsLegal(m) {
						t.Fatalf("ply %d: chose %v, not legal in %v", g.Ply(), m, g.Position())
					}
					if err := s.Advance(m); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}

// TestGumbelNoise: with noise the sampled moves depend on the seed (the
// priors are uniform, so only g orders them), the same seed draws the same,
// and no Dirichlet noise touches the priors.
func TestGumbelNoise(t *testing.T) {
	cfg := gumbelConfig()
	g := rules.NewGame(variants.MustLoad("copenhagen"))
	sampled := func(seed uint64) string {
		s := NewSearch(&cfg, g, seed)
		s.Start(2, true)
		if err := NewRunner(Uniform{}).Step([]*Search{s}); err != nil {
			t.Fatal(err)
		}
		children := s.rootChildren()
		for i := range children {
			if want := 1 / float32(len(children)); children[i].prior != want {
				t.Fatalf("seed %d, child %d: got prior %v, want %v: no Dirichlet noise", seed, i, children[i].prior, want)
			}
		}
		return fmt.Sprint(s.gumbel.considered)
	}
	seen := map[string]bool{}
	for seed := range uint64(5) {
		a, b := sampled(seed), sampled(seed)
		if a != b {
			t.Errorf("seed %d: got %v and %v, want the same draw", seed, a, b)
		}
		seen[a] = true
	}
	if len(seen) < 4 {
		t.Errorf("got %d different samples of 5 seeds, want at least 4", len(seen))
	}
}

func TestGumbelSelfPlayDeterministic(t *testing.T) {
	cfg := gumbelConfig()
	cfg.Playouts, cfg.CheapPlayouts = 48, 12
	v := variants.MustLoad("copenhagen")
	play := func(parallel int) map[int]string {
		p, err := NewSelfPlayer(cfg, v, NewHeuristic(), parallel)
		if err != nil {
			t.Fatal(err)
		}
		games := map[int]string{}
		err = p.Play(context.Background(), sequentialSource(3, 42), func(r *GameRecord) error {
			var b strings.Builder
			for i, m := range r.Moves {
				sum := float32(0)
				for _, mp := range r.Samples[i].Policy {
					sum += mp.Prob
				}
				if math.Abs(float64(sum)-1) > 1e-4 {
					t.Errorf("game %d, ply %d: got policy sum %v, want 1", r.Index, i, sum)
				}
				b.WriteString(m.String() + " ")
			}
			games[r.Index] = b.String()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return games
	}
	one, three := play(1), play(3)
	if len(one) != 3 {
		t.Fatalf("got %d games, want 3", len(one))
	}
	for i := range 3 {
		if one[i] != three[i] {
			t.Errorf("game %d differs between 1 and 3 games at once:\n%s\n%s", i, one[i], three[i])
		}
	}
}

func TestGumbelConfigValidate(t *testing.T) {
	if cfg := gumbelConfig(); cfg.Validate() != nil {
		t.Fatalf("gumbel config: got %v, want no error", cfg.Validate())
	}
	cases := []struct {
		key    string
		modify func(*Config)
	}{
		{"root_search", func(c *Config) { c.RootSearch = "alphazero" }},
		{"root_search", func(c *Config) { c.RootSearch = "" }},
		{"gumbel_actions", func(c *Config) { c.GumbelActions = 0 }},
		{"gumbel_c_visit", func(c *Config) { c.GumbelCVisit = -1 }},
		{"gumbel_c_visit", func(c *Config) { c.GumbelCVisit = math.NaN() }},
		{"gumbel_c_scale", func(c *Config) { c.GumbelCScale = 0 }},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.key, i), func(t *testing.T) {
			cfg := gumbelConfig()
			c.modify(&cfg)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.key) {
				t.Errorf("got %v, want an error naming %s", err, c.key)
			}
		})
	}
}

// TestNoAllocations: once grown, a whole search (and reading its policy and
// move) allocates nothing, under PUCT and under Gumbel root search with
// noise and several leaves per round, with and without implicit minimax
// backups (Config.TacticalWeight).
func TestNoAllocations(t *testing.T) {
	cases := []struct {
		name, root string
		tactical   float64
	}{
		{RootPUCT, RootPUCT, 0},
		{RootGumbel, RootGumbel, 0},
		{RootPUCT + "/tactical", RootPUCT, 0.3},
		{RootGumbel + "/tactical", RootGumbel, 0.3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.RootSearch, cfg.TacticalWeight = c.root, c.tactical
			g := rules.NewGame(variants.MustLoad("copenhagen"))
			s := NewSearch(&cfg, g, 1)
			r := NewRunner(Uniform{})
			one := []*Search{s}
			policy := make([]rules.MoveProb, 0, rules.MaxMoves)
			run := func() {
				s.Reset(g, 1)
				s.Start(800, true)
				for !s.Done() {
					if err := r.Step(one); err != nil {
						t.Fatal(err)
					}
				}
				policy = s.Policy(policy[:0])
				s.ChooseMove(0.5)
			}
			run()
			if got := testing.AllocsPerRun(5, run); got != 0 {
				t.Errorf("got %v allocations per 800-playout search, want 0", got)
			}
		})
	}
}

// BenchmarkPlayoutsGumbel is BenchmarkPlayouts under Gumbel root search.
func BenchmarkPlayoutsGumbel(b *testing.B) {
	v := variants.MustLoad("copenhagen")
	cfg := gumbelConfig()
	r := NewRunner(Uniform{})
	playouts := 0
	g := rules.NewGame(v)
	s := NewSearch(&cfg, g, 1)
	for b.Loop() {
		s.Reset(g, 1)
		if err := r.Search(s, 800); err != nil {
			b.Fatal(err)
		}
		playouts += s.Playouts()
	}
	b.ReportMetric(float64(playouts)/b.Elapsed().Seconds(), "playouts/s")
}
