package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// threatPosition: the king on a3 walks to a1 next move unless an attacker
// blocks a2; c2-a2 is the only attackers' move that does (a4 closes a11).
// The defender on b3 keeps the king off rank 3, whose far end would give
// him two open lines (k1 and k11) whatever the attackers did.
const threatPosition = "11/11/11/11/11/11/11/a10/kd9/2a8/11"

func mustGame(t testing.TB, variant, position string) *rules.Game {
	t.Helper()
	p, err := rules.ParsePosition(position)
	if err != nil {
		t.Fatal(err)
	}
	g, err := rules.NewGameFrom(variants.MustLoad(variant), p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustMove(t testing.TB, text string) rules.Move {
	t.Helper()
	m, _, err := rules.ParseMove(text)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// symmetric returns position and move mapped by y.
func symmetric(t testing.TB, position, move string, y rules.Symmetry) (string, rules.Move) {
	t.Helper()
	p, err := rules.ParsePosition(position)
	if err != nil {
		t.Fatal(err)
	}
	return y.Position(p).String(), y.Move(mustMove(t, move), int(p.Size))
}

func TestTactics(t *testing.T) {
	cases := []struct {
		name, position, want string
		playouts             int
	}{
		{"takes a win in one", threatPosition + " d", "a3-a1", 8},
		{"stops the opponent's win in one", threatPosition + " a", "c2-a2", 200},
	}
	for _, c := range cases {
		for _, variant := range variants.Names() {
			for y := range rules.Symmetry(rules.NumSymmetries) {
				t.Run(fmt.Sprintf("%s/%s/sym%d", c.name, variant, y), func(t *testing.T) {
					pos, want := symmetric(t, c.position, c.want, y)
					cfg := DefaultConfig()
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
	t.Run("a win in one is proven at once", func(t *testing.T) {
		searchProvenAtOnce(t, threatPosition+" d", 1)
	})
}

// searchProvenAtOnce searches position with the uniform evaluator and
// checks that its first expansion proves the root, with root value want.
func searchProvenAtOnce(t *testing.T, position string, want float32) *Search {
	t.Helper()
	cfg := DefaultConfig()
	s := NewSearch(&cfg, mustGame(t, "copenhagen", position), 1)
	if err := NewRunner(Uniform{}).Search(s, 800); err != nil {
		t.Fatal(err)
	}
	if got := s.Playouts(); got != 1 {
		t.Errorf("got %v playouts, want 1: the root is proven by its first expansion", got)
	}
	if got := s.RootValue(); got != want {
		t.Errorf("got root value %v, want %v (a proof)", got, want)
	}
	return s
}

// checkTree walks every node and checks the invariants: no virtual loss left,
// and an unproven expanded node has one visit of its own plus its children's.
func checkTree(t *testing.T, s *Search) {
	t.Helper()
	for queue := []int32{0}; len(queue) > 0; queue = queue[1:] {
		i := queue[0]
		n := s.tree.at(i)
		if n.inFlight != 0 {
			t.Fatalf("node %d: got %v in flight, want 0: virtual loss not undone", i, n.inFlight)
		}
		if !n.expanded() {
			continue
		}
		for k := range int32(n.numChildren) {
			queue = append(queue, n.firstChild+k)
		}
		if n.proof != unproven {
			continue
		}
		sum := int32(0)
		for _, c := range s.tree.children(n) {
			sum += c.visits
		}
		if n.visits != sum+1 {
			t.Fatalf("node %d: got %v visits, want 1 + children's %v", i, n.visits, sum)
		}
	}
}

func TestSearchInvariants(t *testing.T) {
	for _, leaves := range []int{1, 4, 16} {
		for _, name := range variants.Names() {
			t.Run(fmt.Sprintf("%s/leaves%d", name, leaves), func(t *testing.T) {
				cfg := DefaultConfig()
				cfg.LeavesPerGame = leaves
				v := variants.MustLoad(name)
				g := rules.NewGame(v)
				s := NewSearch(&cfg, g, 7)
				r := NewRunner(NewHeuristic())
				for move := 0; move < 30 && !g.Outcome().Over(); move++ {
					s.Start(300, true)
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

func TestNoiseTouchesOnlyLegalMoves(t *testing.T) {
	cfg := DefaultConfig()
	g := mustGame(t, "copenhagen", "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a")
	s := NewSearch(&cfg, g, 3)
	s.Start(2, true)
	if err := NewRunner(Uniform{}).Step([]*Search{s}); err != nil {
		t.Fatal(err)
	}
	legal := g.GenerateMoves(nil)
	root := s.tree.at(0)
	children := s.tree.children(root)
	if len(children) != len(legal) {
		t.Fatalf("got %v children, want %v legal moves", len(children), len(legal))
	}
	sum, changed := 0.0, 0
	for i, c := range children {
		if c.move != legal[i] {
			t.Fatalf("child %d: got %v, want legal move %v", i, c.move, legal[i])
		}
		sum += float64(c.prior)
		if math.Abs(float64(c.prior)-1/float64(len(legal))) > 1e-6 {
			changed++
		}
	}
	if math.Abs(sum-1) > 1e-4 {
		t.Errorf("got prior sum %v, want 1", sum)
	}
	if changed < len(legal)/2 {
		t.Errorf("got %v of %v priors changed by noise, want most", changed, len(legal))
	}
}

func TestTreeReuse(t *testing.T) {
	for _, reuse := range []bool{true, false} {
		t.Run(fmt.Sprintf("reuse=%v", reuse), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.TreeReuse = reuse
			g := rules.NewGame(variants.MustLoad("copenhagen"))
			s := NewSearch(&cfg, g, 5)
			if err := NewRunner(NewHeuristic()).Search(s, 2000); err != nil {
				t.Fatal(err)
			}
			stats := s.Stats(nil)
			best := slices.MaxFunc(stats, func(a, b MoveStat) int { return a.Visits - b.Visits })
			// The chosen child's subtree, as (move, visits) of its children.
			root := s.tree.at(0)
			var child node
			for _, c := range s.tree.children(root) {
				if c.move == best.Move {
					child = c
				}
			}
			var want []MoveStat
			if child.expanded() {
				for _, c := range s.tree.children(&child) {
					want = append(want, MoveStat{Move: c.move, Visits: int(c.visits), Prior: c.prior, Value: c.valueSum})
				}
			}
			if err := s.Advance(best.Move); err != nil {
				t.Fatal(err)
			}
			var got []MoveStat
			root = s.tree.at(0)
			if root.expanded() {
				for _, c := range s.tree.children(root) {
					got = append(got, MoveStat{Move: c.move, Visits: int(c.visits), Prior: c.prior, Value: c.valueSum})
				}
			}
			if !reuse {
				want = nil
			}
			if !slices.Equal(got, want) {
				t.Errorf("got root children %v, want %v", got, want)
			}
			wantVisits := 0
			if reuse {
				wantVisits = best.Visits
			}
			if got := s.Visits(); got != wantVisits {
				t.Errorf("got %v root visits, want %v", got, wantVisits)
			}
			if reuse {
				checkTree(t, s)
			}
		})
	}
}

type failingEvaluator struct{}

func (failingEvaluator) Evaluate(*Batch) error { return errors.New("out of cheese") }
func (failingEvaluator) ID() string            { return "failing" }

func TestEvaluatorError(t *testing.T) {
	cfg := DefaultConfig()
	s := NewSearch(&cfg, rules.NewGame(variants.MustLoad("fetlar")), 1)
	err := NewRunner(failingEvaluator{}).Search(s, 10)
	if err == nil || !strings.Contains(err.Error(), "out of cheese") || !strings.Contains(err.Error(), "failing") {
		t.Fatalf("got %v, want the evaluator's error with its ID", err)
	}
	if got := s.tree.at(0).inFlight; got != 0 {
		t.Errorf("got %v in flight after the error, want 0", got)
	}
}

func TestConfigValidate(t *testing.T) {
	good := DefaultConfig()
	if err := good.Validate(); err != nil {
		t.Fatalf("default config: got %v, want no error", err)
	}
	cases := []struct {
		key    string
		modify func(*Config)
	}{
		{"playouts", func(c *Config) { c.Playouts = 0 }},
		{"cheap_playouts", func(c *Config) { c.CheapPlayouts = c.Playouts + 1 }},
		{"full_search_prob", func(c *Config) { c.FullSearchProb = 1.5 }},
		{"cpuct", func(c *Config) { c.CPuct = 0 }},
		{"noise_fraction", func(c *Config) { c.NoiseFraction = -0.1 }},
		{"temperature_half_life", func(c *Config) { c.TemperatureHalfLife = 0 }},
		{"leaves_per_game", func(c *Config) { c.LeavesPerGame = 0 }},
		{"dirichlet_alpha_total", func(c *Config) { c.DirichletAlphaTotal = 0 }},
		{"tactical_weight", func(c *Config) { c.TacticalWeight = -0.1 }},
		{"tactical_weight", func(c *Config) { c.TacticalWeight = 1.5 }},
		{"tactical_weight", func(c *Config) { c.TacticalWeight = math.NaN() }},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.key, i), func(t *testing.T) {
			cfg := DefaultConfig()
			c.modify(&cfg)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.key) {
				t.Errorf("got %v, want an error naming %s", err, c.key)
			}
		})
	}
}

func TestTemperatureSchedule(t *testing.T) {
	cfg := DefaultConfig()
	cases := []struct {
		ply  int
		want float64
	}{{0, 0.8}, {20, 0.5}, {40, 0.35}, {1000, 0.2}}
	for _, c := range cases {
		if got := cfg.Temperature(c.ply); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("ply %d: got %v, want %v", c.ply, got, c.want)
		}
	}
}

// sequentialSource hands out games 0..n-1 with seeds from seed; safe for
// concurrent use, as a GameSource shared by several workers must be.
func sequentialSource(n int, seed uint64) GameSource {
	var mu sync.Mutex
	next := 0 // guarded by mu
	return func() (GameSpec, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= n {
			return GameSpec{}, false
		}
		next++
		return GameSpec{Index: next - 1, Seed: seed*1_000_003 + uint64(next-1)}, true
	}
}

func TestSelfPlayDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Playouts, cfg.CheapPlayouts = 64, 16
	v := variants.MustLoad("copenhagen")
	play := func(parallel int) map[int]string {
		p, err := NewSelfPlayer(cfg, v, NewHeuristic(), parallel)
		if err != nil {
			t.Fatal(err)
		}
		games := map[int]string{}
		err = p.Play(context.Background(), sequentialSource(6, 42), func(r *GameRecord) error {
			g := rules.NewGame(v)
			var b strings.Builder
			for i, m := range r.Moves {
				if err := g.Play(m); err != nil {
					t.Fatalf("game %d, ply %d: %v", r.Index, i+1, err)
				}
				if _, c := g.LastMove(); c != r.Captures[i] {
					t.Fatalf("game %d, ply %d: got captures %v, want %v", r.Index, i+1, r.Captures[i], c)
				}
				b.WriteString(m.String() + " ")
			}
			if g.Outcome() != r.Outcome {
				t.Fatalf("game %d: got outcome %v, want %v", r.Index, r.Outcome, g.Outcome())
			}
			if len(r.Samples) != len(r.Moves) {
				t.Fatalf("game %d: got %d samples, want one per move (%d)", r.Index, len(r.Samples), len(r.Moves))
			}
			games[r.Index] = b.String()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return games
	}
	one, again, four := play(1), play(1), play(4)
	if len(one) != 6 {
		t.Fatalf("got %d games, want 6", len(one))
	}
	for i := range 6 {
		if one[i] != again[i] || one[i] != four[i] {
			t.Errorf("game %d differs between runs with the same seed:\n%s\n%s\n%s", i, one[i], again[i], four[i])
		}
	}
}

func TestSelfPlayStops(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Playouts, cfg.CheapPlayouts = 32, 8
	p, err := NewSelfPlayer(cfg, variants.MustLoad("fetlar"), NewHeuristic(), 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	finished := 0
	err = p.Play(ctx, sequentialSource(1000, 1), func(*GameRecord) error {
		finished++
		if finished == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if finished < 3 || finished > 4 {
		t.Errorf("got %d games finished, want 3 or 4", finished)
	}
}

// playVsRandom plays one game between the searcher (on side searcher) and a
// uniformly random player.
func playVsRandom(t testing.TB, v *rules.Variant, cfg *Config, r *Runner, searcher rules.Side, playouts int, seed uint64) rules.Outcome {
	g := rules.NewGame(v)
	s := NewSearch(cfg, g, seed)
	rng := rand.New(rand.NewPCG(seed, 99))
	var moves []rules.Move
	for !g.Outcome().Over() {
		var m rules.Move
		if g.ToMove() == searcher {
			if err := r.Search(s, playouts); err != nil {
				t.Fatal(err)
			}
			m = s.BestMove()
		} else {
			moves = g.GenerateMoves(moves[:0])
			m = moves[rng.IntN(len(moves))]
		}
		if err := s.Advance(m); err != nil {
			t.Fatal(err)
		}
	}
	return g.Outcome()
}

// TestBeatsRandom: the network-free searcher (100 playouts a move) against a
// uniformly random player, 100 games on each side for every rule set, must
// win at least 95%.
func TestBeatsRandom(t *testing.T) {
	const perSide, playouts = 100, 100
	cfg := DefaultConfig()
	for _, name := range variants.Names() {
		t.Run(name, func(t *testing.T) {
			v := variants.MustLoad(name)
			r := NewRunner(NewHeuristic())
			wins := map[rules.Side]int{}
			for _, side := range []rules.Side{rules.Attackers, rules.Defenders} {
				for i := range perSide {
					o := playVsRandom(t, v, &cfg, r, side, playouts, uint64(1000*int(side)+i))
					if o.Winner == rules.AttackersWin && side == rules.Attackers || o.Winner == rules.DefendersWin && side == rules.Defenders {
						wins[side]++
					}
				}
			}
			total := wins[rules.Attackers] + wins[rules.Defenders]
			t.Logf("%s: searcher won %d of %d (as attackers %d/%d, as defenders %d/%d)", name, total, 2*perSide,
				wins[rules.Attackers], perSide, wins[rules.Defenders], perSide)
			if total < 2*perSide*95/100 {
				t.Errorf("got %d wins of %d, want at least 95%%", total, 2*perSide)
			}
		})
	}
}

// playMatch plays one game between two searchers with their own evaluators
// and playout budgets, a as the attackers, after the opening moves; each
// side keeps its own tree.
func playMatch(t testing.TB, v *rules.Variant, cfg *Config, a, d *Runner, playoutsA, playoutsD int, opening []rules.Move) rules.Outcome {
	sa, sd := NewSearch(cfg, rules.NewGame(v), 1), NewSearch(cfg, rules.NewGame(v), 2)
	for ply := 0; !sa.game.Outcome().Over(); ply++ {
		var m rules.Move
		if ply < len(opening) {
			m = opening[ply]
		} else {
			s, r, playouts := sa, a, playoutsA
			if sa.game.ToMove() == rules.Defenders {
				s, r, playouts = sd, d, playoutsD
			}
			if err := r.Search(s, playouts); err != nil {
				t.Fatal(err)
			}
			m = s.BestMove()
		}
		if err := sa.Advance(m); err != nil {
			t.Fatal(err)
		}
		if err := sd.Advance(m); err != nil {
			t.Fatal(err)
		}
	}
	return sa.game.Outcome()
}

// randomOpening returns n random legal moves from the start.
func randomOpening(v *rules.Variant, n int, seed uint64) []rules.Move {
	g := rules.NewGame(v)
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []rules.Move
	for range n {
		moves := g.GenerateMoves(nil)
		m := moves[rng.IntN(len(moves))]
		g.Make(m)
		out = append(out, m)
	}
	return out
}

// TestHeuristicBeatsPlayouts: the Heuristic evaluator against random
// playouts (one 200-ply game a leaf) at a budget that costs the heuristic
// less time (1024 playouts against 64; BenchmarkEvaluate gives the cost of
// one evaluation of each), over game pairs with sides swapped from random
// openings: the heuristic must score more than half. At equal playouts the
// playouts evaluator is the stronger; TAFLAB_LONG=1 plays 50 pairs of both
// and logs the scores (the figures in docs/self-play.md).
func TestHeuristicBeatsPlayouts(t *testing.T) {
	pairs := 4
	budgets := [][2]int{{1024, 64}}
	if os.Getenv("TAFLAB_LONG") != "" {
		pairs = 50
		budgets = append(budgets, [2]int{64, 64})
	}
	cfg := DefaultConfig()
	v := variants.MustLoad("copenhagen")
	for _, budget := range budgets {
		heur, play := NewRunner(NewHeuristic()), NewRunner(NewPlayouts(1, 200, 1))
		score := 0.0
		for i := range pairs {
			opening := randomOpening(v, 4, uint64(i))
			for _, heuristicAttacks := range []bool{true, false} {
				var o rules.Outcome
				if heuristicAttacks {
					o = playMatch(t, v, &cfg, heur, play, budget[0], budget[1], opening)
				} else {
					o = playMatch(t, v, &cfg, play, heur, budget[1], budget[0], opening)
				}
				switch {
				case o.Winner == rules.Draw:
					score += 0.5
				case (o.Winner == rules.AttackersWin) == heuristicAttacks:
					score++
				}
			}
		}
		t.Logf("heuristic at %d playouts against random playouts at %d: %.1f of %d", budget[0], budget[1], score, 2*pairs)
		if budget[0] > budget[1] && score <= float64(pairs) {
			t.Errorf("got a score of %v of %d for the heuristic, want more than half", score, 2*pairs)
		}
	}
}

// TestSelfPlayOdds plays games that give one side odds: the weaker side's
// searches run its own, smaller budget from an empty tree (never the
// stronger side's kept visits) and are never training targets, and the
// record says both sides' budgets.
func TestSelfPlayOdds(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Playouts, cfg.CheapPlayouts, cfg.FullSearchProb = 64, 32, 0.5
	v := variants.MustLoad("copenhagen")
	for _, favoured := range []rules.Side{rules.Attackers, rules.Defenders} {
		t.Run(favoured.String(), func(t *testing.T) {
			p, err := NewSelfPlayer(cfg, v, NewHeuristic(), 2)
			if err != nil {
				t.Fatal(err)
			}
			next := 0
			source := func() (GameSpec, bool) {
				if next == 2 {
					return GameSpec{}, false
				}
				next++
				return GameSpec{Index: next - 1, Seed: uint64(next), Odds: 4, Favoured: favoured}, true
			}
			var records []*GameRecord
			if err := p.Play(context.Background(), source, func(r *GameRecord) error {
				records = append(records, r)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for _, r := range records {
				want := [2]int{64, 64}
				want[favoured.Opponent()] = 16
				if r.Playouts != want {
					t.Errorf("game %d: got playouts %v, want %v", r.Index, r.Playouts, want)
				}
				weakFull, weakCheap, short := 0, 0, 0
				for _, s := range r.Samples {
					if s.Position.ToMove == favoured {
						if s.Playouts > 64 {
							t.Errorf("game %d ply %d: the favoured side ran %d playouts, want at most 64", r.Index, s.Ply, s.Playouts)
						}
						continue
					}
					if s.Full {
						t.Errorf("game %d ply %d: the weaker side's search is a training target", r.Index, s.Ply)
					}
					// From an empty tree, a search runs its whole budget
					// unless it proves the position first.
					switch s.Playouts {
					case 16:
						weakFull++
					case 8:
						weakCheap++
					default:
						short++ // a search that proved its position early
						if s.Playouts > 16 {
							t.Errorf("game %d ply %d: the weaker side ran %d playouts, want 16 or 8", r.Index, s.Ply, s.Playouts)
						}
					}
				}
				if short > 2 {
					t.Errorf("game %d: %d of the weaker side's searches ran less than their budget, want 2 at most (proofs near the end)", r.Index, short)
				}
				if weakFull == 0 || weakCheap == 0 {
					t.Errorf("game %d: the weaker side ran %d searches of 16 and %d of 8, want both kinds", r.Index, weakFull, weakCheap)
				}
			}
		})
	}
}

// TestForcedEscape: the attackers to move lose by force when the king has
// two open lines to corners, or one that no attacker can close, and no move
// of theirs ends the game; the search proves it at once. A line an attacker
// can close, or a move that wins, is no proof.
func TestForcedEscape(t *testing.T) {
	cases := []struct {
		name, position string
		want           bool
	}{
		// The king on a6, file a open both ways.
		{"two lines open", "11/11/5d5/11/11/k10/11/11/5a5/11/11 a", true},
		{"the defenders to move", "11/11/5d5/11/11/k10/11/11/5a5/11/11 d", false},
		// An attacker on a9 closes a11; the one on f3 can close a1's line
		// on a3.
		{"one line open, closable", "11/11/a4d5/11/11/k10/11/11/5a5/11/11 a", false},
		// With the attacker on c1 instead, which reaches b1 but not a2 to
		// a5 (a1 is a corner, closed to soldiers), nobody can close a1's
		// line.
		{"one line open, no one to close it", "11/11/a4d5/11/11/k10/11/11/11/11/2a8 a", true},
		// g3-g1 closes a shieldwall round e1 and f1, which wins at once
		// under copenhagen.
		{"a move that wins", "11/11/11/11/11/k10/11/11/6a4/4aa5/3add5 a", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustGame(t, "copenhagen", c.position)
			if got := newEscapeSolver().attackersLose(g, 1); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
			if g.Position().String() != c.position {
				t.Errorf("the game moved: got %s, want %s", g.Position(), c.position)
			}
		})
	}
	t.Run("the search proves it at once", func(t *testing.T) {
		searchProvenAtOnce(t, cases[0].position, -1)
	})
	t.Run("a move that allows it is seen as lost", func(t *testing.T) {
		// The king on b6 steps to a6 next, and the one attacker (f3) can
		// close at most one of the two lines there: every attacker move
		// loses, which the search proves.
		cfg := DefaultConfig()
		s := NewSearch(&cfg, mustGame(t, "copenhagen", "11/11/5d5/11/11/1k9/11/11/5a5/11/11 a"), 1)
		if err := NewRunner(Uniform{}).Search(s, 4000); err != nil {
			t.Fatal(err)
		}
		if got := s.RootValue(); got != -1 {
			t.Errorf("got root value %v after %d playouts, want -1 (a proven loss)", got, s.Playouts())
		}
	})
}

// TestKingFork: the defenders to move win by force when the king can step
// to a square with two open lines to corners; the search proves it at
// once, and an attacker move that allows it is seen as lost.
func TestKingFork(t *testing.T) {
	cases := []struct {
		name, position string
		want           bool
	}{
		// The king on b6 steps to a6 (file a open both ways) or b11 (a11
		// and k11 open).
		{"a fork one step away", "11/11/5d5/11/11/1k9/11/11/5a5/11/11 d", true},
		{"the attackers to move", "11/11/5d5/11/11/1k9/11/11/5a5/11/11 a", false},
		// Attackers on a7 and a5 close file a, b10 and b2 keep the king
		// off ranks 11 and 1, and a defender on c6 off file k: no square
		// the king reaches sees a corner.
		{"every fork closed", "11/1a9/5d5/11/a10/1kd8/a10/11/5a5/1a9/11 d", false},
		// The rule set's start: the king walled in by his own men.
		{"no king move", "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 d", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustGame(t, "copenhagen", c.position)
			e := newEscapeSolver()
			m, got := e.defendersWin(g, 2)
			if got != c.want {
				t.Fatalf("got %v (move %v), want %v", got, m, c.want)
			}
			if g.Position().String() != c.position {
				t.Errorf("the game moved: got %s, want %s", g.Position(), c.position)
			}
			if !got {
				return
			}
			if m.From() != g.Position().King || !g.IsLegal(m) {
				t.Errorf("got move %v, want a legal king move", m)
			}
			g.Make(m)
			if !e.attackersLose(g, 1) {
				t.Errorf("after %v: got no forced escape, want one", m)
			}
		})
	}
	t.Run("the search proves it at once", func(t *testing.T) {
		s := searchProvenAtOnce(t, cases[0].position, 1)
		// The winning move is played, and the search goes on from there.
		m := s.BestMove()
		if err := s.Advance(m); err != nil {
			t.Fatal(err)
		}
		if err := NewRunner(Uniform{}).Search(s, 800); err != nil {
			t.Fatal(err)
		}
		if got := s.RootValue(); got != -1 {
			t.Errorf("after %v: got root value %v, want -1 (the attackers lose by force)", m, got)
		}
	})
}

// TestEscapeDepth3: a king move that threatens a corner, after which every
// attacker move that closes the line opens another, leaving the king a fork
// (three king moves in all); and the same with an attacker more, who
// closes the line without opening one. Depth 2 sees neither.
func TestEscapeDepth3(t *testing.T) {
	// The king on e3, between his men on d3 and f3, goes to e1 (a1 open,
	// k1 closed by h1) or e11 (k11 open, a11 closed by c11). The attackers
	// close e1's line only by c11-c1 and e11's only by h1-h11, each opening
	// the other edge: the king crosses the board to a fork.
	const won = "2a8/11/11/11/11/11/11/11/3dkd5/11/7a3 d"
	// Attackers on c5 and g5 close the lines at c1 or g11 instead (closing
	// them next to a corner, at b1 say, would not do: the king captures
	// against the corner).
	const held = "2a8/11/11/11/11/11/2a3a4/11/3dkd5/11/7a3 d"
	cases := []struct {
		name, position string
		depth          int
		want           bool
	}{
		{"won, depth 2", won, 2, false},
		{"won, depth 3", won, 3, true},
		{"held, depth 3", held, 3, false},
		{"the attackers to move", strings.TrimSuffix(won, "d") + "a", 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustGame(t, "copenhagen", c.position)
			e := newEscapeSolver()
			m, got := e.defendersWin(g, c.depth)
			if got != c.want {
				t.Fatalf("got %v (move %v), want %v", got, m, c.want)
			}
			if g.Position().String() != c.position {
				t.Errorf("the game moved: got %s, want %s", g.Position(), c.position)
			}
			if !got {
				return
			}
			// Whatever the attackers answer, the defenders' win is still
			// there, one king move shorter.
			g.Make(m)
			if !e.attackersLose(g, c.depth-1) {
				t.Fatalf("after %v: got no forced loss of the attackers, want one", m)
			}
			for _, r := range g.GenerateMoves(nil) {
				g.Make(r)
				if o := g.Outcome(); o.Over() {
					if o.Winner != rules.DefendersWin {
						t.Errorf("after %v %v: got %v, want the defenders' win", m, r, o)
					}
				} else if _, ok := e.defendersWin(g, c.depth-1); !ok {
					t.Errorf("after %v %v: got no win of the defenders within %d king moves, want one", m, r, c.depth-1)
				}
				g.Unmake()
			}
		})
	}
	t.Run("the search proves it at once", func(t *testing.T) {
		searchProvenAtOnce(t, won, 1)
	})
	t.Run("allocation-free", func(t *testing.T) {
		g := mustGame(t, "copenhagen", won)
		e := newEscapeSolver()
		if n := testing.AllocsPerRun(50, func() { e.defendersWin(g, maxEscapeDepth) }); n != 0 {
			t.Errorf("got %v allocations, want 0", n)
		}
	})
}

// TestEscapeSound: every win the escape solver claims, in positions of
// random games under each rule set, holds against every attacker reply,
// not only the ones that close the king's line: a brute-force check of its
// proof tree.
func TestEscapeSound(t *testing.T) {
	// OpenTafl's Copenhagen, as protocol.CompileRules makes it: both sides'
	// shieldwalls capture (and OpenTafl's scan may take the king), no move
	// limit, OpenTafl's referee.
	opentafl := variants.MustLoad("copenhagen").Definition()
	opentafl.Name, opentafl.Referee = "copenhagen-opentafl", rules.RefereeOpenTafl
	opentafl.Shieldwall, opentafl.ShieldwallWins, opentafl.NoProgressMoves = rules.ShieldwallBoth, false, 0
	defs := map[string]rules.Definition{opentafl.Name: opentafl}
	names := append(variants.Names(), opentafl.Name)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var v *rules.Variant
			if def, found := defs[name]; found {
				var err error
				if v, err = rules.Compile(def); err != nil {
					t.Fatal(err)
				}
			} else {
				v = variants.MustLoad(name)
			}
			e := newEscapeSolver()
			rng := rand.New(rand.NewPCG(7, 11))
			var claims [maxEscapeDepth + 1]int // by the fewest king moves that win
			var verify func(g *rules.Game, depth int) bool
			verify = func(g *rules.Game, depth int) bool {
				m, ok := e.defendersWin(g, depth)
				if !ok {
					return false
				}
				g.Make(m)
				defer g.Unmake()
				if o := g.Outcome(); o.Over() {
					return o.Winner == rules.DefendersWin
				}
				for _, r := range g.GenerateMoves(nil) {
					g.Make(r)
					o := g.Outcome()
					held := o.Over() && o.Winner == rules.DefendersWin || !o.Over() && verify(g, depth-1)
					g.Unmake()
					if !held {
						t.Errorf("%s: after %v %v: the defenders' win does not hold", g.Position(), m, r)
						return false
					}
				}
				return true
			}
			// OpenTafl's referee makes every claim check every reply (and
			// its games make several times the claims): fewer games keep
			// the test within seconds under -race.
			games := 40
			if name == opentafl.Name {
				games = 10
			}
			for game := 0; game < games; game++ {
				g := rules.NewGame(v)
				for !g.Outcome().Over() {
					if _, ok := e.defendersWin(g, maxEscapeDepth); ok {
						d := 1
						for ; d < maxEscapeDepth; d++ {
							if _, ok := e.defendersWin(g, d); ok {
								break
							}
						}
						claims[d]++
						pos := g.Position()
						if !verify(g, maxEscapeDepth) {
							t.Fatalf("game %d, %s: claimed win does not hold", game, pos)
						}
					}
					moves := g.GenerateMoves(nil)
					g.Make(moves[rng.IntN(len(moves))])
				}
			}
			t.Logf("claimed wins checked, by king moves: %v", claims[1:])
			if claims[2] < 10 || claims[3] < 3 {
				t.Errorf("got %v claimed wins in %d random games, by king moves, want at least 10 in two and 3 in three to check", claims[1:], games)
			}
		})
	}
}

// TestEscapeRepetition: an attacker move that closes nothing may still
// rescue the attackers by repetition where a third occurrence draws; where
// the mover into it loses, it does not.
func TestEscapeRepetition(t *testing.T) {
	// The king on a5 sees a1 (a11 is closed by a8), and no attacker can
	// close the line. Before the attackers move, d9 and j9 shuttle twice,
	// so that j10-j9 makes the start position's third occurrence.
	const start = "11/11/3d5a1/a10/11/11/k10/11/11/11/11 d"
	shuttle := []string{"d9-d10", "j9-j10", "d10-d9", "j10-j9", "d9-d10", "j9-j10", "d10-d9"}
	draw := variants.MustLoad("copenhagen").Definition()
	draw.Name, draw.Repetition = "copenhagen-repetition-draw", rules.RepetitionDraw
	cases := []struct {
		name string
		def  rules.Definition
		want bool // the attackers lose by force
	}{
		{"mover loses", variants.MustLoad("copenhagen").Definition(), true},
		{"draw", draw, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := rules.Compile(c.def)
			if err != nil {
				t.Fatal(err)
			}
			p, err := rules.ParsePosition(start)
			if err != nil {
				t.Fatal(err)
			}
			g, err := rules.NewGameFrom(v, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range shuttle {
				if err := g.Play(mustMove(t, m)); err != nil {
					t.Fatalf("%s: %v", m, err)
				}
			}
			if got := newEscapeSolver().attackersLose(g, 1); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestMovesOnto: the attackers' moves onto a set of squares, found from
// the squares outward, are exactly the legal moves that end there, in
// positions of random games under every rule set.
func TestMovesOnto(t *testing.T) {
	for _, name := range variants.Names() {
		t.Run(name, func(t *testing.T) {
			v := variants.MustLoad(name)
			rng := rand.New(rand.NewPCG(3, 5))
			checked := 0
			for game := 0; game < 20; game++ {
				g := rules.NewGame(v)
				for !g.Outcome().Over() {
					if g.ToMove() == rules.Attackers {
						pos := g.Position()
						var targets rules.Bitboard
						for range 12 {
							targets = targets.With(rules.NewSquare(rng.IntN(v.Size()), rng.IntN(v.Size())))
						}
						var want []rules.Move
						for _, m := range g.GenerateMoves(nil) {
							if targets.Has(m.To()) {
								want = append(want, m)
							}
						}
						got := appendMovesOnto(nil, v, &pos, targets)
						slices.Sort(got)
						slices.Sort(want)
						if !slices.Equal(got, want) {
							t.Fatalf("%s, onto %v: got %v, want %v", pos, targets.Squares(nil), got, want)
						}
						checked++
					}
					moves := g.GenerateMoves(nil)
					g.Make(moves[rng.IntN(len(moves))])
				}
			}
			if checked < 100 {
				t.Errorf("got %d positions checked, want at least 100", checked)
			}
		})
	}
}
