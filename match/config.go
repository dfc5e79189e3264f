package match

import (
	"errors"
	"fmt"
	"slices"

	"taflab/internal/errctx"
	"taflab/mcts"
	"taflab/rules"
)

// Config is a match's settings.
type Config struct {
	Variant *rules.Variant
	A, B    Player
	// Search holds the search settings of both players; matches play the
	// most visited move (no noise, no temperature).
	Search mcts.Config
	// Openings are the starts of the game pairs, played in order and
	// cycled; none means every pair starts from the rule set's start.
	Openings []Opening
	// MaxPairs bounds the number of game pairs.
	MaxPairs int
	// Workers is the number of worker goroutines; 0 means one per core.
	Workers int
	// GamesPerWorker is the number of games a worker plays at once.
	GamesPerWorker int
	// Played are the finished pairs of an earlier run of this same match
	// that was interrupted: Play does not play their indices again and
	// RunSPRT counts them first, so a resumed match loses no finished game.
	// Their indices are distinct and below MaxPairs.
	Played []Pair
	// Unfinished are the games of unfinished pairs that an interrupted run
	// of this same match had begun (OnMove and OnGameEnd told of them):
	// each goes on from its moves instead of from its start, and one that
	// had ended ends as it did. Their pairs are not among Played, and no
	// game comes twice.
	Unfinished []Unfinished
	// OnMove, if set, is told of every move a player makes: the game's
	// pair and half and its moves so far from its start (the opening's
	// among them), which it must not keep past the call. OnGameEnd, if
	// set, is told of every game that ends, before its pair does. The
	// workers call both from their goroutines, so they must be safe for
	// concurrent use.
	OnMove    func(pair, half int, moves []rules.Move)
	OnGameEnd func(g Game)
}

// Unfinished is a game of a pair an interrupted match left unfinished.
type Unfinished struct {
	Pair int `json:"pair"`
	Half int `json:"half"` // 0: A attacks, 1: B attacks
	// Moves are the game's moves from its start, the opening's among
	// them; the last may end it.
	Moves []rules.Move `json:"moves"`
	// Forfeit keeps a game that had ended by a forfeit (Game.Forfeit):
	// it ends so again, rather than going on.
	Forfeit *Forfeit `json:"forfeit,omitempty"`
}

// Forfeit is how a game ended outside the rules.
type Forfeit struct {
	Reason string       `json:"reason"` // ForfeitIllegal, ForfeitTime or ForfeitCrash
	Detail string       `json:"detail"`
	Winner rules.Winner `json:"winner"` // the side of the player that did not forfeit
}

// Validate reports a setting that cannot be played.
func (c *Config) Validate() error {
	var errs []error
	if c.Variant == nil {
		errs = append(errs, errctx.Errorf("match", "no rule set"))
	}
	for _, p := range []*Player{&c.A, &c.B} {
		if p.NewProgram != nil {
			if p.MoveLimit <= 0 {
				errs = append(errs, errctx.Errorf("match", "player %s: an engine needs a move time allowance", p.Name))
			}
			continue
		}
		if err := mcts.CheckPlayouts(p.Playouts); err != nil {
			errs = append(errs, errctx.Errorf("match", "player %s: playouts = %d: want from 1 to %d", p.Name, p.Playouts, mcts.MaxPlayouts))
		}
		if p.NewEvaluator == nil {
			errs = append(errs, errctx.Errorf("match", "player %s: no evaluator", p.Name))
		}
	}
	if c.MaxPairs < 1 {
		errs = append(errs, errctx.Errorf("match", "max pairs = %d: want at least 1", c.MaxPairs))
	}
	if c.Variant != nil {
		for i, o := range c.Openings {
			if err := checkOpening(c.Variant, o); err != nil {
				errs = append(errs, errctx.Key("match", fmt.Sprintf("opening %d", i), err))
				break
			}
		}
	}
	seen := map[int]bool{}
	for _, p := range c.Played {
		if p.Index < 0 || p.Index >= c.MaxPairs || seen[p.Index] {
			errs = append(errs, errctx.Errorf("match", "played pair %d: want distinct pairs from 0 to %d", p.Index, c.MaxPairs-1))
			break
		}
		seen[p.Index] = true
	}
	if err := c.CheckUnfinished(); err != nil {
		errs = append(errs, err)
	}
	if c.Workers < 0 || c.GamesPerWorker < 0 {
		errs = append(errs, errctx.Errorf("match", "workers = %d, games per worker = %d: want 0 or more", c.Workers, c.GamesPerWorker))
	}
	if err := c.Search.Validate(); err != nil {
		errs = append(errs, err)
	}
	for _, p := range []*Player{&c.A, &c.B} {
		if p.Search != nil {
			if err := p.Search.Validate(); err != nil {
				errs = append(errs, errctx.Key("match", "player "+p.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// Opening is where a game pair starts: a position (an opening suite's, or
// the zero Position for the rule set's start), then moves played for the
// players (a random book's) before they search.
type Opening struct {
	Start rules.Position
	Moves []rules.Move
}

// StartsAtStart reports whether the opening starts from the rule set's
// start.
func (o Opening) StartsAtStart() bool { return o.Start.Size == 0 }

// startGame sets up a game at an opening's start position.
func startGame(v *rules.Variant, o Opening) (*rules.Game, error) {
	if o.StartsAtStart() {
		return rules.NewGame(v), nil
	}
	return rules.NewGameFrom(v, o.Start)
}

// CheckUnfinished reports the first of c.Unfinished that cannot go on (part
// of Validate): a pair out of range or among Played, a game given twice,
// moves that do not begin with its opening's, that are not legal, or that
// end the game before the last, or a forfeit of no side's win.
func (c *Config) CheckUnfinished() error {
	played := map[int]bool{}
	for _, p := range c.Played {
		played[p.Index] = true
	}
	games := map[[2]int]bool{}
	for _, u := range c.Unfinished {
		if u.Pair < 0 || u.Pair >= c.MaxPairs || played[u.Pair] || u.Half < 0 || u.Half > 1 || games[[2]int{u.Pair, u.Half}] {
			return errctx.Errorf("match", "unfinished game %d/%d: want distinct games of pairs from 0 to %d that are not played", u.Pair, u.Half, c.MaxPairs-1)
		}
		games[[2]int{u.Pair, u.Half}] = true
		if c.Variant == nil {
			continue
		}
		o := c.opening(u.Pair)
		if len(u.Moves) < len(o.Moves) || !slices.Equal(u.Moves[:len(o.Moves)], o.Moves) {
			return errctx.Errorf("match", "unfinished game %d/%d: its moves do not begin with its opening's %d", u.Pair, u.Half, len(o.Moves))
		}
		last := len(u.Moves) - 1
		if err := checkOpening(c.Variant, Opening{Start: o.Start, Moves: u.Moves[:max(last, len(o.Moves))]}); err != nil {
			return errctx.Key("match", fmt.Sprintf("unfinished game %d/%d", u.Pair, u.Half), err)
		}
		if last >= len(o.Moves) { // the last move may end the game
			g, _ := startGame(c.Variant, o)
			for _, m := range u.Moves[:last] {
				g.Make(m)
			}
			if err := g.Play(u.Moves[last]); err != nil {
				return errctx.Key("match", fmt.Sprintf("unfinished game %d/%d: move %d", u.Pair, u.Half, last+1), err)
			}
		}
		if f := u.Forfeit; f != nil && f.Winner != rules.AttackersWin && f.Winner != rules.DefendersWin {
			return errctx.Errorf("match", "unfinished game %d/%d: a forfeit won by %v: want the attackers or the defenders", u.Pair, u.Half, f.Winner)
		}
	}
	return nil
}

// opening returns the opening of a pair.
func (c *Config) opening(pair int) Opening {
	if len(c.Openings) == 0 {
		return Opening{}
	}
	return c.Openings[pair%len(c.Openings)]
}

// checkOpening reports why an opening cannot be played under v, or nil.
func checkOpening(v *rules.Variant, o Opening) error {
	if !o.StartsAtStart() {
		if err := v.CheckStart(o.Start); err != nil {
			return err
		}
	}
	g, err := startGame(v, o)
	if err != nil {
		return err
	}
	for i, m := range o.Moves {
		if err := g.Play(m); err != nil {
			return errctx.Key("match", fmt.Sprintf("move %d", i+1), err)
		}
		if g.Outcome().Over() {
			return fmt.Errorf("move %d %s ends the game", i+1, m)
		}
	}
	return nil
}
