package analysis_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"taflab/analysis"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/internal/nettest"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

// handGame is a game made by hand: a start and its moves.
func handGame(t *testing.T, v *rules.Variant, start, moves string) *datasets.Game {
	t.Helper()
	p, err := rules.ParsePosition(start)
	if err != nil {
		t.Fatal(err)
	}
	rms, err := rules.ParseMoves(moves)
	if err != nil {
		t.Fatal(err)
	}
	return &datasets.Game{Variant: v, Start: p, Moves: rms}
}

// TestBlunders: a move that lets the king escape, or be taken, on the
// next move is a blunder, and the reply that ends the game is the best
// move and loses nothing.
func TestBlunders(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	cases := []struct {
		name, start, moves string
		blunder            string // the ply 1 move, labelled a blunder
		winner, reason     string
	}{
		// The king on e1 walled in by attackers on c1, g1 and e3; c1-c5
		// opens rank 1 to the a1 corner.
		{"lets the king escape", "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1dd1dd1aa/a3d1d3a/a9a/4a6/11/2a1k1a4 a", "c1-c5 e1-a1",
			"c1-c5", "defenders", "king-escaped"},
		// The king on d6 with attackers on c6, d7 and d5 and his guard on
		// e6; e6-e9 lets e3-e6 take him (h8-d8 would have taken d7).
		{"lets the king be taken", "11/11/1a5d3/7d3/3a7/2akd2d3/3a7/11/4a4a1/11/11 d", "e6-e9 e3-e6",
			"e6-e9", "attackers", "king-captured"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := analysis.DefaultConfig()
			rev, err := analysis.ReviewGame(context.Background(), &cfg, mcts.NewHeuristic(), handGame(t, v, c.start, c.moves), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rev.Plies) != 2 {
				t.Fatalf("got %d plies, want 2", len(rev.Plies))
			}
			first, last := rev.Plies[0], rev.Plies[1]
			if first.Move != c.blunder || first.Label != analysis.Blunder {
				t.Errorf("ply 1 %s: got label %q (win chance %.2f -> %.2f), want %s a blunder", first.Move, first.Label, first.WinBefore, first.WinAfter, c.blunder)
			}
			if first.WinAfter != 0 || first.Best == first.Move {
				t.Errorf("ply 1: got win chance after %v and best %s, want 0 and another move than %s", first.WinAfter, first.Best, first.Move)
			}
			if last.Loss != 0 || last.Label != analysis.Good || last.Best != strings.SplitN(last.Move, "x", 2)[0] || last.WinAfter != 100 {
				t.Errorf("ply 2 %s: got loss %v, label %q, best %s, win chance after %v; want the winning move, best, losing nothing", last.Move, last.Loss, last.Label, last.Best, last.WinAfter)
			}
			if rev.Winner != c.winner || rev.Reason != c.reason {
				t.Errorf("got %s by %s, want %s by %s", rev.Winner, rev.Reason, c.winner, c.reason)
			}
			loser := rev.Attackers
			if c.winner == "attackers" {
				loser = rev.Defenders
			}
			if loser.Blunders != 1 || loser.Moves != 1 {
				t.Errorf("the loser's summary: got %+v, want one move, a blunder", loser)
			}
			if rev.Decisive == nil || rev.Decisive.Ply != 1 || rev.Decisive.Label != analysis.Blunder {
				t.Errorf("decisive move: got %+v, want ply 1, a blunder", rev.Decisive)
			}
		})
	}
}

// randomGame plays a game of random legal moves under v from its start,
// at most plies long.
func randomGame(v *rules.Variant, seed uint64, plies int) *datasets.Game {
	rng := rand.New(rand.NewPCG(seed, 7))
	g := rules.NewGame(v)
	game := &datasets.Game{Variant: v, Start: v.Start()}
	for !g.Outcome().Over() && len(game.Moves) < plies {
		moves := g.GenerateMoves(nil)
		m := moves[rng.IntN(len(moves))]
		g.Make(m)
		game.Moves = append(game.Moves, rules.RecordedMove{Move: m})
	}
	return game
}

// TestReviewInvariants: over games of random moves, with and without tree
// reuse, every ply's principal variation is legal from its position and
// starts with its best move, after is the next ply's before, the labels
// and accuracies follow the documented formulas from the plies' own win
// chances, and the sides' summaries add up.
func TestReviewInvariants(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	for _, reuse := range []bool{true, false} {
		for seed := uint64(1); seed <= 3; seed++ {
			game := randomGame(v, seed, 30)
			cfg := analysis.DefaultConfig()
			cfg.Playouts = 100
			cfg.Search.TreeReuse = reuse
			var seen []analysis.Ply
			rev, err := analysis.ReviewGame(context.Background(), &cfg, mcts.NewHeuristic(), game, func(p analysis.Ply) { seen = append(seen, p) })
			if err != nil {
				t.Fatal(err)
			}
			if len(rev.Plies) != len(game.Moves) || len(seen) != len(game.Moves) {
				t.Fatalf("reuse %v, seed %d: got %d plies (%d reported), want %d", reuse, seed, len(rev.Plies), len(seen), len(game.Moves))
			}
			var sum [2]analysis.Side
			for i, p := range rev.Plies {
				if p.Ply != i+1 || len(p.PV) == 0 || p.PV[0] != p.Best {
					t.Fatalf("ply %d: got number %d, pv %v, best %s; want the best move first", i+1, p.Ply, p.PV, p.Best)
				}
				pos, err := rules.ParsePosition(p.Position)
				if err != nil {
					t.Fatal(err)
				}
				// Replay the game to the ply, so that repetition counts as it did.
				g, err := rules.NewGameFrom(v, game.Start)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range game.Moves[:i] {
					g.Make(m.Move)
				}
				if g.Position() != pos {
					t.Fatalf("ply %d: position %s, want %s", i+1, p.Position, g.Position())
				}
				for k, text := range p.PV {
					m, _, err := rules.ParseMove(text)
					if err == nil {
						err = g.Play(m)
					}
					if err != nil {
						t.Fatalf("ply %d: pv %v: move %d: %v", i+1, p.PV, k+1, err)
					}
				}
				if i+1 < len(rev.Plies) && rev.Plies[i+1].AttackersBefore != p.AttackersAfter {
					t.Errorf("ply %d: after %+v, but ply %d's before is %+v", i+1, p.AttackersAfter, i+2, rev.Plies[i+1].AttackersBefore)
				}
				if want := cfg.Thresholds.Label(p.Loss); p.Label != want {
					t.Errorf("ply %d: loss %v labelled %q, want %q", i+1, p.Loss, p.Label, want)
				}
				if want := math.Max(0, p.WinBefore-p.WinAfter); math.Abs(p.Loss-want) > 0.011 {
					t.Errorf("ply %d: loss %v, want %v - %v", i+1, p.Loss, p.WinBefore, p.WinAfter)
				}
				if want := analysis.MoveAccuracy(p.WinBefore, p.WinAfter); math.Abs(p.Accuracy-want) > 0.011 {
					t.Errorf("ply %d: accuracy %v, want %v", i+1, p.Accuracy, want)
				}
				s := &sum[i%2]
				s.Moves++
				switch p.Label {
				case analysis.Inaccuracy:
					s.Inaccuracies++
				case analysis.Mistake:
					s.Mistakes++
				case analysis.Blunder:
					s.Blunders++
				}
			}
			got := [2]analysis.Side{rev.Attackers, rev.Defenders} // copenhagen's attackers move first
			for k := range got {
				got[k].MeanLoss, got[k].Accuracy = 0, nil
				if got[k] != sum[k] {
					t.Errorf("reuse %v, seed %d, side %d: got %+v, want %+v", reuse, seed, k, got[k], sum[k])
				}
			}
			a, d, _, _ := analysis.GameAccuracy(rev.WinChances())
			if rev.Attackers.Accuracy == nil || math.Abs(*rev.Attackers.Accuracy-a) > 0.011 || rev.Defenders.Accuracy == nil || math.Abs(*rev.Defenders.Accuracy-d) > 0.011 {
				t.Errorf("reuse %v, seed %d: accuracies %v, %v; want %.2f, %.2f", reuse, seed, rev.Attackers.Accuracy, rev.Defenders.Accuracy, a, d)
			}
		}
	}
}

// TestReviewRepeats: a review with a network whose board symmetries are
// random repeats exactly under its seed, with and without tree reuse, and
// gives every ply the network's draw share.
func TestReviewRepeats(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	n, _, err := net.Load(nettest.TinyFile(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	game := randomGame(v, 11, 16)
	review := func(reuse bool, seed uint64) string {
		in := n.NewInference(1, "tiny")
		in.RandomSymmetry = true
		cfg := analysis.DefaultConfig()
		cfg.Playouts, cfg.Seed, cfg.Search.TreeReuse = 64, seed, reuse
		rev, err := analysis.ReviewGame(context.Background(), &cfg, in, game, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rev.Plies {
			if p.Before.Draw == 0 && p.Before.Win != 1 && p.Before.Loss != 1 {
				t.Fatalf("ply %d: no draw share in %+v from a network with a draw head", p.Ply, p.Before)
			}
		}
		b, err := json.Marshal(rev)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, reuse := range []bool{true, false} {
		if a, b := review(reuse, 5), review(reuse, 5); a != b {
			t.Errorf("reuse %v: two reviews under seed 5 differ:\n%s\n%s", reuse, a, b)
		}
	}
	if review(true, 5) == review(true, 6) {
		t.Errorf("seeds 5 and 6 gave the same review: the seed does not reach the network's symmetries")
	}
}

// TestReviewStops: a review stops with its context's error, and a game
// the rules refuse is an error naming its ply.
func TestReviewStops(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := analysis.DefaultConfig()
	if _, err := analysis.ReviewGame(ctx, &cfg, mcts.NewHeuristic(), randomGame(v, 1, 10), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled review: got %v, want context.Canceled", err)
	}
	bad := handGame(t, v, v.Start().String(), "d1-d3 d3-d1")
	if _, err := analysis.ReviewGame(context.Background(), &cfg, mcts.NewHeuristic(), bad, nil); err == nil || !strings.Contains(err.Error(), "ply 2") {
		t.Errorf("an illegal second move: got %v, want an error naming ply 2", err)
	}
	cfg.Playouts = 0
	if _, err := analysis.ReviewGame(context.Background(), &cfg, mcts.NewHeuristic(), randomGame(v, 1, 4), nil); err == nil {
		t.Errorf("a review without playouts: got no error, want one")
	}
}

// TestReviewParallel: a review searched in one stretch and in many gives
// the same plies, in order, each reported once as it completes.
func TestReviewParallel(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	game := randomGame(v, 4, 40)
	for _, parallel := range []int{1, 3, 8, 64} {
		cfg := analysis.DefaultConfig()
		cfg.Playouts, cfg.Parallel = 50, parallel
		seen := map[int]int{}
		rev, err := analysis.ReviewGame(context.Background(), &cfg, mcts.NewHeuristic(), game, func(p analysis.Ply) { seen[p.Ply]++ })
		if err != nil {
			t.Fatal(err)
		}
		if len(rev.Plies) != len(game.Moves) || len(seen) != len(game.Moves) {
			t.Fatalf("parallel %d: got %d plies, %d reported, want %d", parallel, len(rev.Plies), len(seen), len(game.Moves))
		}
		for i, p := range rev.Plies {
			if p.Ply != i+1 || seen[p.Ply] != 1 {
				t.Errorf("parallel %d: ply %d at %d, reported %d times; want in order, once", parallel, p.Ply, i+1, seen[p.Ply])
			}
		}
	}
}

// TestErrorsNameOnePackage: an analysis's and a review's errors name
// this package once, the rules' and the search's reasons under it without
// their own package's name.
func TestErrorsNameOnePackage(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	illegal := handGame(t, v, v.Start().String(), "d1-d3 d3-d1")
	badSearch := analysis.DefaultConfig()
	badSearch.Search.CPuct = -1
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"an illegal move analysed", func() error {
			cfg := analysis.DefaultConfig()
			_, err := analysis.Analyze(context.Background(), &cfg, mcts.NewHeuristic(), illegal)
			return err
		}, "analysis: ply 2: move d3-d1: defenders to move, but an attacker stands on d3"},
		{"an illegal move reviewed", func() error {
			cfg := analysis.DefaultConfig()
			_, err := analysis.ReviewGame(context.Background(), &cfg, mcts.NewHeuristic(), illegal, nil)
			return err
		}, "analysis: ply 2: move d3-d1: defenders to move, but an attacker stands on d3"},
		{"a search setting out of range", func() error {
			_, err := analysis.Analyze(context.Background(), &badSearch, mcts.NewHeuristic(), randomGame(v, 1, 2))
			return err
		}, "analysis: search: cpuct = -1: want more than 0"},
		{"playouts out of range", func() error {
			cfg := analysis.DefaultConfig()
			cfg.Playouts = -1
			_, err := analysis.Analyze(context.Background(), &cfg, mcts.NewHeuristic(), randomGame(v, 1, 2))
			return err
		}, "analysis: playouts -1: want 0 (no search) to 16777216"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "rules: ") || strings.Contains(err.Error(), "mcts: ") {
				t.Errorf("got %v, want an error starting %q, naming no other package", err, c.want)
			}
		})
	}
}
