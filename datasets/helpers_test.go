package datasets

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/rules"
)

// Rule sets of the tests: the three board sizes, with switches that make
// their TOML differ in every kind of key.
var (
	defCopenhagen = rules.Definition{
		Name:            "copenhagen",
		Size:            11,
		Start:           "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a",
		Shieldwall:      rules.ShieldwallAttackers,
		ShieldwallWins:  true,
		EdgeFort:        true,
		Encirclement:    true,
		Repetition:      rules.RepetitionMoverLoses,
		NoProgressMoves: 100,
	}
	defTablut = rules.Definition{
		Name:            "tablut-test",
		Size:            9,
		Start:           "3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4/3aaa3 a",
		Shieldwall:      rules.ShieldwallBoth,
		EdgeFort:        true,
		Encirclement:    true,
		Repetition:      rules.RepetitionDefendersLose,
		NoProgressMoves: 100,
	}
	defBrandubh = rules.Definition{
		Name:               "brandubh-test",
		Size:               7,
		Start:              "3a3/3a3/3d3/aadkdaa/3d3/3a3/3a3 a",
		KingCapturedOnEdge: true,
		Shieldwall:         rules.ShieldwallNone,
		Repetition:         rules.RepetitionMoverLoses,
		NoProgressMoves:    100,
	}
)

// genShard plays games random games of at most maxPlies plies under def
// (random moves drawn from PCG(seed, 0)) and returns a row per position
// before each move, with a random visit distribution over the legal moves
// (empty for every fifth position), and a row per game.
func genShard(tb testing.TB, def rules.Definition, games, maxPlies int, seed uint64) ([]PositionRow, []GameRow) {
	tb.Helper()
	v, err := rules.Compile(def)
	if err != nil {
		tb.Fatalf("compile %s: %v", def.Name, err)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	var (
		positions []PositionRow
		rows      []GameRow
		moves     []rules.Move
		text      []byte
	)
	g := rules.NewGame(v)
	for gi := range games {
		g.Reset()
		id := fmt.Sprintf("%s-%d-%04d", def.Name, seed, gi)
		first := len(positions)
		game := GameRow{GameID: id, RuleSet: def.Name, Seed: rng.Uint64(), Evaluator: "random",
			AttackerPlayouts: 64, DefenderPlayouts: 64}
		if gi%3 == 1 {
			// A game from another start (an opening suite's) with odds.
			for range 2 {
				moves = g.GenerateMoves(moves[:0])
				g.Make(moves[rng.IntN(len(moves))])
			}
			if !g.Outcome().Over() {
				start := g.Position()
				if err := g.ResetTo(start); err != nil {
					panic(err)
				}
				game.Start = start.String()
				game.DefenderPlayouts = 16
			} else {
				g.Reset()
			}
		}
		for g.Ply() < maxPlies && !g.Outcome().Over() {
			moves = g.GenerateMoves(moves[:0])
			r := PositionRow{
				GameID:     id,
				Ply:        int32(g.Ply()),
				RuleSet:    def.Name,
				Position:   g.Position(),
				FullSearch: rng.IntN(4) != 0,
				RootValue:  float32(rng.Float64()*2 - 1),
			}
			if len(positions)%5 != 4 {
				var sum float32
				for _, m := range moves {
					if rng.IntN(3) == 0 {
						p := rng.Float32()
						r.Policy = append(r.Policy, rules.MoveProb{Move: m, Prob: p})
						sum += p
					}
				}
				for i := range r.Policy {
					r.Policy[i].Prob /= sum
				}
			}
			positions = append(positions, r)
			g.Make(moves[rng.IntN(len(moves))])
			m, captured := g.LastMove()
			text = rules.AppendMove(text[:0], m, captured)
			game.Moves = append(game.Moves, string(text))
		}
		o := g.Outcome()
		game.Winner, game.Reason, game.Length = o.Winner, o.Reason, int32(len(game.Moves))
		if !o.Over() {
			game.Winner, game.Reason = rules.Draw, rules.NoProgress // cut off: scored a draw
		}
		for i := first; i < len(positions); i++ {
			p := &positions[i]
			p.Reason = game.Reason
			switch {
			case game.Winner == rules.Draw:
				p.Result = 0
			case game.Winner == rules.AttackersWin == (p.Position.ToMove == rules.Attackers):
				p.Result = 1
			default:
				p.Result = -1
			}
		}
		rows = append(rows, game)
	}
	return positions, rows
}

// normalize returns rows with every empty Policy nil, as the reader gives
// them.
func normalize(rows []PositionRow) []PositionRow {
	if len(rows) == 0 {
		return nil
	}
	out := make([]PositionRow, len(rows))
	for i, r := range rows {
		if len(r.Policy) == 0 {
			r.Policy = nil
		}
		out[i] = r
	}
	return out
}

func normalizeGames(rows []GameRow) []GameRow {
	if len(rows) == 0 {
		return nil
	}
	out := make([]GameRow, len(rows))
	for i, g := range rows {
		if len(g.Moves) == 0 {
			g.Moves = nil
		}
		out[i] = g
	}
	return out
}

// mustWriteShard writes a shard and returns the paths of its two files.
func mustWriteShard(tb testing.TB, dir, name string, def rules.Definition, positions []PositionRow, games []GameRow) (string, string) {
	tb.Helper()
	if err := WriteShard(dir, name, def, positions, games); err != nil {
		tb.Fatalf("WriteShard(%s): %v", name, err)
	}
	return filepath.Join(dir, name+PositionsSuffix), filepath.Join(dir, name+GamesSuffix)
}

// listDir returns the names in dir.
func listDir(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// wantFileError checks that err is an error that names path.
func wantFileError(tb testing.TB, err error, path, what string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("%s: got no error, want one naming %s", what, path)
	}
	if !strings.Contains(err.Error(), path) || !strings.HasPrefix(err.Error(), "datasets: ") {
		tb.Fatalf("%s: got error %q, want one starting \"datasets: \" and naming %s", what, err, path)
	}
}
