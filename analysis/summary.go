package analysis

import "slices"

// Reviewed is one game of a file's review: where it is in its file, who
// played it, and its review (nil when it could not be reviewed: Error says
// why).
type Reviewed struct {
	Index     int     `json:"index"` // in its file, from 0
	Label     string  `json:"label"` // "game 3", "line 12"
	Attackers string  `json:"attackers,omitempty"`
	Defenders string  `json:"defenders,omitempty"`
	Error     string  `json:"error,omitempty"`
	Review    *Review `json:"review,omitempty"`
}

// Summary sums up the reviews of many games: each side's moves, labels and
// mean accuracy, each player's where the games name them (a match), and
// where each decided game turned.
type Summary struct {
	Games     int  `json:"games"`  // the games reviewed
	Failed    int  `json:"failed"` // the games that could not be
	Attackers Side `json:"attackers"`
	Defenders Side `json:"defenders"`
	// Players are the players the games name (a match's two), each over
	// the games and sides they played, by name.
	Players []Player `json:"players"`
	// Turns list each decided game's turn and decisive move.
	Turns []GameTurn `json:"turns"`
}

// Player sums up one player's moves over the games it played.
type Player struct {
	Name string `json:"name"`
	// Games counts its games; As its moves as attackers and as defenders,
	// and All over both (Accuracy the mean of its games' accuracies).
	Games     int  `json:"games"`
	All       Side `json:"all"`
	Attackers Side `json:"attackers"`
	Defenders Side `json:"defenders"`
}

// GameTurn is where a decided game turned, and its decisive move.
type GameTurn struct {
	Label    string  `json:"label"`
	Winner   string  `json:"winner"`
	Turn     *Moment `json:"turn"`
	Decisive *Moment `json:"decisive"`
}

// sideSum adds up sides, its accuracy the mean of the ones that have one.
type sideSum struct {
	Side
	loss, accuracy float64
	accuracies     int
}

func (s *sideSum) add(x Side) {
	s.Moves += x.Moves
	s.Inaccuracies += x.Inaccuracies
	s.Mistakes += x.Mistakes
	s.Blunders += x.Blunders
	s.loss += x.MeanLoss * float64(x.Moves)
	if x.Accuracy != nil {
		s.accuracy += *x.Accuracy
		s.accuracies++
	}
}

func (s *sideSum) side() Side {
	out := s.Side
	if out.Moves > 0 {
		out.MeanLoss = round(s.loss/float64(out.Moves), 2)
	}
	if s.accuracies > 0 {
		a := round(s.accuracy/float64(s.accuracies), 2)
		out.Accuracy = &a
	}
	return out
}

// Summarize sums up reviewed games.
func Summarize(games []Reviewed) Summary {
	var out Summary
	var att, def sideSum
	type player struct {
		games         int
		all, att, def sideSum
	}
	players := map[string]*player{}
	get := func(name string) *player {
		if players[name] == nil {
			players[name] = &player{}
		}
		return players[name]
	}
	for _, g := range games {
		r := g.Review
		if r == nil {
			out.Failed++
			continue
		}
		out.Games++
		att.add(r.Attackers)
		def.add(r.Defenders)
		if g.Attackers != "" {
			p := get(g.Attackers)
			p.games++
			p.att.add(r.Attackers)
			p.all.add(r.Attackers)
		}
		if g.Defenders != "" {
			p := get(g.Defenders)
			if g.Defenders != g.Attackers {
				p.games++
			}
			p.def.add(r.Defenders)
			p.all.add(r.Defenders)
		}
		if r.Turn != nil {
			out.Turns = append(out.Turns, GameTurn{Label: g.Label, Winner: r.Winner, Turn: r.Turn, Decisive: r.Decisive})
		}
	}
	out.Attackers, out.Defenders = att.side(), def.side()
	out.Players = []Player{}
	for name, p := range players {
		out.Players = append(out.Players, Player{Name: name, Games: p.games, All: p.all.side(), Attackers: p.att.side(), Defenders: p.def.side()})
	}
	slices.SortFunc(out.Players, func(a, b Player) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	if out.Turns == nil {
		out.Turns = []GameTurn{}
	}
	return out
}
