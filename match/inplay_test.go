package match_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"taflab/configs/variants"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/rules"
)

// TestUnfinishedGamesGoOn: OnMove tells of every move, an InPlay keeps the
// games in play through Save and ReadInPlay, and a match given them as
// Unfinished plays each on from its moves: its record begins with them.
func TestUnfinishedGamesGoOn(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	cfg := match.Config{Variant: v, A: builtin("a", 20), B: builtin("b", 10), Search: mcts.DefaultConfig(), Openings: openings.Book(v, 2, 4, 2), MaxPairs: 2, Workers: 1}
	var mu sync.Mutex // guards last
	last := map[[2]int][]rules.Move{}
	keeper := match.NewInPlay(nil)
	cfg.OnMove = func(pair, half int, moves []rules.Move) {
		mu.Lock()
		defer mu.Unlock()
		if before := last[[2]int{pair, half}]; before != nil && (len(moves) != len(before)+1 || !slices.Equal(moves[:len(before)], before)) {
			t.Errorf("pair %d half %d: got %d moves after %d, want one more on the same game", pair, half, len(moves), len(before))
		}
		last[[2]int{pair, half}] = slices.Clone(moves)
		keeper.Moved(pair, half, moves)
	}
	var pairs []match.Pair
	if err := match.Play(context.Background(), cfg, func(p match.Pair) bool { pairs = append(pairs, p); return true }); err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		for half, g := range p.Games {
			if got := last[[2]int{p.Index, half}]; !slices.Equal(got, g.Moves) {
				t.Errorf("pair %d half %d: OnMove's last moves are %d, the record's %d: want the same", p.Index, half, len(got), len(g.Moves))
			}
		}
	}

	// Keep pair 1's games as if the match had stopped 6 plies into each,
	// after moves neither player would choose (the first legal move each
	// time: so a game that started again would not play them), and pair 0
	// as finished.
	keeper = match.NewInPlay(nil)
	for half := range 2 {
		keeper.Moved(0, half, cfg.Openings[0].Moves)
		g, err := match.StartGame(v, cfg.Openings[1])
		if err != nil {
			t.Fatal(err)
		}
		moves := slices.Clone(cfg.Openings[1].Moves)
		for _, m := range moves {
			g.Make(m)
		}
		for range 6 + half {
			m := g.GenerateMoves(nil)[0]
			g.Make(m)
			moves = append(moves, m)
		}
		keeper.Moved(1, half, moves)
	}
	keeper.Finished(0)
	unfinished := saveAndRead(t, keeper)
	if len(unfinished) != 2 || unfinished[0].Pair != 1 || unfinished[1].Pair != 1 {
		t.Fatalf("got %+v, want pair 1's two games", unfinished)
	}
	resumed := cfg
	resumed.OnMove = nil
	for _, p := range pairs {
		if p.Index == 0 {
			resumed.Played = []match.Pair{p}
		}
	}
	resumed.Unfinished = unfinished
	var again []match.Pair
	if err := match.Play(context.Background(), resumed, func(p match.Pair) bool { again = append(again, p); return true }); err != nil {
		t.Fatal(err)
	}
	if len(again) != 1 || again[0].Index != 1 {
		t.Fatalf("got %d pairs, want pair 1 alone", len(again))
	}
	for _, u := range unfinished {
		g := again[0].Games[u.Half]
		if len(g.Moves) <= len(u.Moves) || !slices.Equal(g.Moves[:len(u.Moves)], u.Moves) || !g.Outcome.Over() {
			t.Errorf("half %d: got a game of %d moves (%v), want one that goes on from the %d kept", u.Half, len(g.Moves), g.Outcome, len(u.Moves))
		}
	}
	if missing, err := match.ReadInPlay(filepath.Join(t.TempDir(), "none.json")); err != nil || missing != nil {
		t.Errorf("a missing file: got %v, %v; want no games", missing, err)
	}
}

// TestUnfinishedRefused: unfinished games that cannot go on are refused,
// named, the rules' reason under package match's name alone.
func TestUnfinishedRefused(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	book := openings.Book(v, 2, 4, 2)
	cfg := match.Config{Variant: v, A: builtin("a", 20), B: builtin("b", 10), Search: mcts.DefaultConfig(), Openings: book, MaxPairs: 2, Workers: 1}
	g, err := match.StartGame(v, book[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range book[1].Moves {
		g.Make(m)
	}
	legal := g.GenerateMoves(nil)
	opening := slices.Clone(book[1].Moves)
	for _, c := range []struct {
		name string
		u    []match.Unfinished
		want string
	}{
		{"a pair out of range", []match.Unfinished{{Pair: 2, Moves: opening}}, "unfinished game 2/0: want distinct games"},
		{"a half out of range", []match.Unfinished{{Pair: 1, Half: 2, Moves: opening}}, "unfinished game 1/2: want distinct games"},
		{"a game twice", []match.Unfinished{{Pair: 1, Moves: opening}, {Pair: 1, Moves: opening}}, "unfinished game 1/0: want distinct games"},
		{"a played pair", []match.Unfinished{{Pair: 0, Moves: book[0].Moves}}, "unfinished game 0/0: want distinct games"},
		{"not the opening's moves", []match.Unfinished{{Pair: 1, Moves: book[0].Moves}}, "do not begin with its opening's 4"},
		{"an illegal move", []match.Unfinished{{Pair: 1, Moves: append(slices.Clone(opening), legal[0], legal[0])}}, "unfinished game 1/0: move 6"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := cfg
			bad.Played = []match.Pair{{Index: 0}}
			bad.Unfinished = c.u
			if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "rules: ") {
				t.Errorf("got %v, want an error with %q, naming package match alone", err, c.want)
			}
		})
	}
}

// TestUnfinishedEndedGames: OnGameEnd tells of each game's end, and a game
// of an unfinished pair that had ended ends as it did when the match
// resumes: by the rules at its last move, or by its forfeit.
func TestUnfinishedEndedGames(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	cfg := match.Config{Variant: v, A: builtin("a", 20), B: builtin("b", 10), Search: mcts.DefaultConfig(), Openings: openings.Book(v, 1, 4, 3), MaxPairs: 1, Workers: 1}
	var mu sync.Mutex // guards ended
	var ended []match.Game
	cfg.OnGameEnd = func(g match.Game) {
		mu.Lock()
		defer mu.Unlock()
		ended = append(ended, g)
	}
	var first []match.Pair
	if err := match.Play(context.Background(), cfg, func(p match.Pair) bool { first = append(first, p); return true }); err != nil {
		t.Fatal(err)
	}
	if len(first) != 1 || len(ended) != 2 {
		t.Fatalf("got %d pairs and %d games ended, want 1 and 2", len(first), len(ended))
	}
	keeper := match.NewInPlay(nil)
	for _, g := range ended {
		if !slices.Equal(g.Moves, first[0].Games[0].Moves) && !slices.Equal(g.Moves, first[0].Games[1].Moves) {
			t.Errorf("OnGameEnd: got a game of %d moves that the pair does not hold", len(g.Moves))
		}
		keeper.Ended(g)
	}
	// Half 1 as if it had been forfeited on time after its first 8 moves
	// past the opening.
	forfeited := first[0].Games[1]
	forfeited.Moves = forfeited.Moves[:len(cfg.Openings[0].Moves)+8]
	forfeited.Forfeit, forfeited.ForfeitDetail = match.ForfeitTime, "no move within 1s"
	forfeited.Outcome = rules.Outcome{Winner: rules.DefendersWin}
	keeper.Ended(forfeited)
	unfinished := saveAndRead(t, keeper)
	resumed := cfg
	resumed.OnGameEnd, resumed.Unfinished = nil, unfinished
	var again []match.Pair
	if err := match.Play(context.Background(), resumed, func(p match.Pair) bool { again = append(again, p); return true }); err != nil {
		t.Fatal(err)
	}
	if len(again) != 1 {
		t.Fatalf("got %d pairs, want 1", len(again))
	}
	got, want := again[0].Games[0], first[0].Games[0]
	if !slices.Equal(got.Moves, want.Moves) || got.Outcome != want.Outcome {
		t.Errorf("the game that had ended by the rules: got %d moves, %v; want %d, %v", len(got.Moves), got.Outcome, len(want.Moves), want.Outcome)
	}
	got = again[0].Games[1]
	if !slices.Equal(got.Moves, forfeited.Moves) || got.Forfeit != match.ForfeitTime || got.ForfeitDetail != forfeited.ForfeitDetail || got.Outcome.Winner != rules.DefendersWin {
		t.Errorf("the forfeited game: got %d moves, forfeit %q (%s), %v; want %d moves and the forfeit kept", len(got.Moves), got.Forfeit, got.ForfeitDetail, got.Outcome, len(forfeited.Moves))
	}
}

// saveAndRead writes the keeper's games to a file and reads them back.
func saveAndRead(t *testing.T, keeper *match.InPlay) []match.Unfinished {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in-play.json")
	if err := keeper.Save(path); err != nil {
		t.Fatal(err)
	}
	games, err := match.ReadInPlay(path)
	if err != nil {
		t.Fatal(err)
	}
	return games
}
