package match

import "taflab/rules"

// Game is one finished game of a match.
type Game struct {
	Pair     int  // the pair's number, from 0
	AAttacks bool // player A had the attackers
	// Start is the position the game started from, the zero Position for
	// the rule set's start; Moves are played from it, the opening's first.
	Start     rules.Position
	Moves     []rules.Move
	Captures  []rules.Bitboard
	Outcome   rules.Outcome
	OpeningOf int // the opening's index in the book
	// Forfeit is why an engine lost the game outside the rules
	// (ForfeitIllegal, ForfeitTime, ForfeitCrash), "" if the rules ended
	// it; Outcome.Winner is then its opponent's side and Outcome.Reason
	// rules.NotOver. ForfeitDetail says what happened.
	Forfeit       string
	ForfeitDetail string
}

// ScoreA returns player A's score in the game: 1, 0.5 or 0.
func (g *Game) ScoreA() float64 {
	switch g.Outcome.Winner {
	case rules.Draw, rules.NoWinner:
		return 0.5
	case rules.AttackersWin:
		if g.AAttacks {
			return 1
		}
	case rules.DefendersWin:
		if !g.AAttacks {
			return 1
		}
	}
	return 0
}

// Pair is a finished game pair: the same opening with sides swapped.
type Pair struct {
	Index int
	Games [2]Game // Games[0]: A attacks; Games[1]: B attacks
}

// ScoreA returns player A's score in the pair: 0, 0.5, 1, 1.5 or 2.
func (p *Pair) ScoreA() float64 { return p.Games[0].ScoreA() + p.Games[1].ScoreA() }
