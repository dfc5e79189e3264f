package openings

import (
	"context"
	"fmt"
	"math/rand/v2"

	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/match"
	"taflab/rules"
)

// A book is a list of random openings from a rule set's start: the starts
// of a match's game pairs where no suite is wanted (Openings "random"),
// and random candidates of a new suite (RandomStarts).

// MaxBookPlies is the most random moves of a Book opening
// (configs.MaxOpeningPlies, which bounds gate.opening_plies): random games
// last about 390 plies, and much longer openings would often find no way
// on without ending the game.
const MaxBookPlies = configs.MaxOpeningPlies

// bookAttempts is how many openings in a row NewBook may abandon (a random
// move that ends the game is taken back and another tried, 100 times the
// plies at most) before it gives up.
const bookAttempts = 1000

// NewBook returns n openings of the given number of random legal moves from
// the start (none of which ends the game), the same for the same seed: the
// starts of a match's game pairs, so that games differ. plies must be from
// 0 (every opening the start) to MaxBookPlies and n 0 or more; it fails,
// rather than loop for ever, when bookAttempts openings in a row find no
// way on, and stops with ctx's error when ctx is done.
func NewBook(ctx context.Context, v *rules.Variant, n, plies int, seed uint64) ([]match.Opening, error) {
	if plies < 0 || plies > MaxBookPlies {
		return nil, errctx.Errorf("openings", "book: %d plies: want from 0 to %d", plies, MaxBookPlies)
	}
	if n < 0 {
		return nil, errctx.Errorf("openings", "book: %d openings: want 0 or more", n)
	}
	rng := rand.New(rand.NewPCG(seed, 0xb00c))
	book := make([]match.Opening, 0, n)
	g := rules.NewGame(v)
	var moves []rules.Move
	for failed, attempt := 0, 0; len(book) < n; attempt++ {
		if attempt%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		g.Reset()
		var opening []rules.Move
		for tries := 0; len(opening) < plies && tries < 100*plies; tries++ {
			moves = g.GenerateMoves(moves[:0])
			if len(moves) == 0 {
				// Only a start can have no move (a move's position with none
				// is over), and rules.Compile refuses such a start.
				return nil, errctx.Errorf("openings", "book: %s: the %v have no legal move", g.Position(), g.ToMove())
			}
			m := moves[rng.IntN(len(moves))]
			g.Make(m)
			if g.Outcome().Over() {
				g.Unmake() // an opening leaves the game to the players
				continue
			}
			opening = append(opening, m)
		}
		if len(opening) == plies {
			book = append(book, match.Opening{Moves: opening})
			failed = 0
		} else if failed++; failed >= bookAttempts {
			return nil, errctx.Errorf("openings", "book: no opening of %d random plies found in %d tries: the random games of %s end first", plies, bookAttempts, v.Name())
		}
	}
	return book, nil
}

// Book is NewBook for arguments known to be good (plies from 0 to
// MaxBookPlies, n 0 or more, as the tests and the commands' checked flags
// give it). It panics on NewBook's error, a programmer error: code that
// passes a user's numbers calls NewBook.
func Book(v *rules.Variant, n, plies int, seed uint64) []match.Opening {
	book, err := NewBook(context.Background(), v, n, plies, seed)
	if err != nil {
		panic(err)
	}
	return book
}

// RandomStarts returns n start positions, each the rule set's start after
// plies random legal moves none of which ends the game (Book's openings,
// the same for the same seed), as suite candidates. It panics where Book
// does; code that passes a user's numbers calls NewRandomStarts.
func RandomStarts(v *rules.Variant, n, plies int, seed uint64) []SuiteCandidate {
	out, err := NewRandomStarts(context.Background(), v, n, plies, seed)
	if err != nil {
		panic(err)
	}
	return out
}

// NewRandomStarts is RandomStarts with NewBook's errors: plies from 0 to
// MaxBookPlies, n 0 or more, an error rather than an endless search where
// random games end before plies, and ctx's error when ctx is done.
func NewRandomStarts(ctx context.Context, v *rules.Variant, n, plies int, seed uint64) ([]SuiteCandidate, error) {
	book, err := NewBook(ctx, v, n, plies, seed)
	if err != nil {
		return nil, err
	}
	out := make([]SuiteCandidate, 0, n)
	g := rules.NewGame(v)
	for i, o := range book {
		g.Reset()
		for _, m := range o.Moves {
			g.Make(m)
		}
		out = append(out, SuiteCandidate{Position: g.Position(),
			Source: fmt.Sprintf("random opening %d of seed %d, %d plies", i, seed, plies)})
	}
	return out, nil
}
