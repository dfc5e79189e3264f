package rules_test

import (
	"math/rand/v2"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// midgamePositions is the fixed mid-game set of BenchmarkLegalMoves and
// BenchmarkMakeUnmake: positions 24 to 60 plies into random copenhagen games
// (seed 2026), both sides to move, 63 to 153 legal moves each. Fixed as text
// so that the benchmark measures the same work whatever the engine becomes.
var midgamePositions = []string{
	"3aaaa4/2a2a1d3/7a3/3d6a/ad4d3a/aa4d1daa/a2ddkd4/2a4ddaa/3aa5a/5d1a3/5a2a2 a",
	"1aa1daaa3/5a5/3d4d2/a6d2a/a5d3a/a3dk1a3/a3ddd3a/ad1addaa3/11/2aa5a1/4aa2a2 a",
	"2a1aa2a2/4a6/6a4/a2dd3d1a/a1a7a/aa2dkdd2a/a3d5a/2d2d2d2/a4ad2aa/3a7/2a4a3 a",
	"2a1aa1a3/a1d2a1aa2/6a4/2a2d3a1/3ad2d2a/3k2d1d1a/a3d1d4/a6d1d1/4a6/2d2a5/2a2aa4 a",
	"3a1aada2/3da6/a8d1/3ddaa4/aa3d3a1/a3d1kd1a1/3d1d1a1a1/2a2a1a3/a9a/1a3d5/4aa5 d",
	"3a1a1ka2/1d3d4a/4aa5/6a2a1/d5d3a/a1a1d1d2a1/a1d6d1/aa3d1a1da/3a1a1d1ad/11/4aaaa3 a",
	"3a1a1a3/4aa5/1a6d2/3add4a/4ad4a/a4kd2aa/aa1d3d1da/2a2da4/3dd4a1/d2a7/2a2aaa3 d",
	"4a2aa2/4aaa3a/a4d5/2aa6d/a3d1d3a/1a1dd2d2a/a1d1a1d3a/1a1d1kd3a/9a1/8a2/3a2a2d1 a",
	"1a1a1a5/5da3a/3d5d1/a5a4/ad1d3dd1a/a1a1akd3a/a4d2daa/a5a4/1d9/2a1a6/3aaa1a3 a",
	"3aaaa4/4d1a2a1/1a9/a4dd3a/a3d1da1da/3a1kd2a1/a2dd1d4/a5a2a1/11/3a2d4/3aaaaad2 d",
	"3aa1aa3/4da4a/9d1/1a5a1aa/a4d1d2a/ad4dd3/a5d3a/5kd4/7d3/3d1a5/3aaaaaaa1 a",
	"5a5/a1a1d3a2/11/aad2k2a1a/a3d3d1a/a3d1add1a/ad1a2dd2a/10a/1d3d5/6aa3/1a3aaa3 a",
	"7a3/5aaa1d1/3aa6/3a1d4a/a2d1d2d1a/a1dd1kd2aa/1a3d1d3/a2da1a3a/3d3a3/1aa8/3a1aa4 d",
	"3aaaa4/5ad1da1/1a3d5/3dd1d2a1/1a5a2a/a3dkd2a1/a1a1ddd3a/6a3a/a1a8/8a2/3aaa2d2 d",
	"1a2aa2a2/5a5/6a4/a1a1dk1d2a/a10/a2dd1dd1aa/1a1d1d4a/1a2a2d3/11/1a4d4/2d1aaaaa2 a",
	"3a1aaa3/a3a2daa1/3d7/3d1d5/ad4d3a/a3a1d1da1/a1kd1dd3a/a9a/5a5/1a7a1/3a1aaa3 a",
}

// midgameGames returns one game per mid-game position, under copenhagen.
func midgameGames(tb testing.TB) []*rules.Game {
	tb.Helper()
	v := variants.MustLoad("copenhagen")
	games := make([]*rules.Game, len(midgamePositions))
	for i, text := range midgamePositions {
		p, err := rules.ParsePosition(text)
		if err != nil {
			tb.Fatalf("midgame position %d: %v", i, err)
		}
		if games[i], err = rules.NewGameFrom(v, p); err != nil {
			tb.Fatalf("midgame position %d: %v", i, err)
		}
	}
	return games
}

func BenchmarkLegalMoves(b *testing.B) {
	sets := []struct {
		name  string
		games func(testing.TB) []*rules.Game
	}{
		{"start", func(testing.TB) []*rules.Game { return []*rules.Game{rules.NewGame(variants.MustLoad("copenhagen"))} }},
		{"midgame", midgameGames},
	}
	for _, set := range sets {
		b.Run(set.name, func(b *testing.B) {
			games := set.games(b)
			moves := make([]rules.Move, 0, rules.MaxMoves)
			generated := 0
			for i := 0; b.Loop(); i++ {
				moves = games[i%len(games)].GenerateMoves(moves[:0])
				generated += len(moves)
			}
			b.ReportMetric(float64(generated)/b.Elapsed().Seconds(), "moves/s")
		})
	}
}

func BenchmarkMakeUnmake(b *testing.B) {
	games := midgameGames(b)
	lists := make([][]rules.Move, len(games))
	for i, g := range games {
		lists[i] = g.GenerateMoves(nil)
	}
	for i := 0; b.Loop(); i++ {
		g, list := games[i%len(games)], lists[i%len(games)]
		g.Make(list[(i/len(games))%len(list)])
		g.Unmake()
	}
}

// playRandomGame plays uniformly random moves from the start until the rules
// end the game, and returns the number of plies.
func playRandomGame(g *rules.Game, rng *rand.Rand, moves []rules.Move) int {
	g.Reset()
	for {
		moves = g.GenerateMoves(moves[:0])
		if len(moves) == 0 {
			return g.Ply()
		}
		g.Make(moves[rng.IntN(len(moves))])
	}
}

func BenchmarkRandomGame(b *testing.B) {
	for _, name := range variants.Names() {
		b.Run(name, func(b *testing.B) {
			g := rules.NewGame(variants.MustLoad(name))
			rng := rand.New(rand.NewPCG(1, 2))
			moves := make([]rules.Move, 0, rules.MaxMoves)
			plies, games := 0, 0
			for b.Loop() {
				plies += playRandomGame(g, rng, moves)
				games++
			}
			b.ReportMetric(float64(plies)/b.Elapsed().Seconds(), "plies/s")
			b.ReportMetric(float64(plies)/float64(games), "plies/game")
		})
	}
}

// TestHotPathsAllocateNothing asserts the steady state of move generation,
// make and unmake, and whole random games: no allocation at all.
func TestHotPathsAllocateNothing(t *testing.T) {
	games := midgameGames(t)
	moves := make([]rules.Move, 0, rules.MaxMoves)
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		name string
		run  func()
	}{
		{"GenerateMoves", func() {
			for _, g := range games {
				moves = g.GenerateMoves(moves[:0])
			}
		}},
		{"MakeUnmake", func() {
			for _, g := range games {
				for _, m := range g.GenerateMoves(moves[:0]) {
					g.Make(m)
					g.Unmake()
				}
			}
		}},
	}
	for _, name := range variants.Names() {
		g := rules.NewGame(variants.MustLoad(name))
		playRandomGame(g, rng, moves) // grows the undo stack once
		cases = append(cases, struct {
			name string
			run  func()
		}{"RandomGame/" + name, func() { playRandomGame(g, rng, moves) }})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run()
			if got := testing.AllocsPerRun(20, c.run); got != 0 {
				t.Errorf("got %v allocations per run, want 0", got)
			}
		})
	}
}
