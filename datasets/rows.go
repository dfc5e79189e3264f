package datasets

import (
	"fmt"
	"math"
	"strings"

	"taflab/rules"
)

// PositionRow is one searched position of a self-play game.
type PositionRow struct {
	GameID  string
	Ply     int32  // moves made before this position; 0 is the start
	RuleSet string // the rule set's name; every row of a file has the file's
	// Position is the board; its ToMove is the side to move, the point of
	// view of RootValue and Result.
	Position rules.Position
	// Policy is the search's visit distribution over the legal moves, in
	// any order; moves with no visits may be left out, and the slice may be
	// empty. Rows read from a file share one backing array: do not append
	// to or modify a row's Policy.
	Policy     []rules.MoveProb
	FullSearch bool    // the search had its full budget (not a reduced, fast one)
	RootValue  float32 // the search's value for the side to move, -1 to +1
	Result     int8    // the game's final result for the side to move: +1 win, 0 draw, -1 loss
	Reason     rules.Reason
	// Surprise is how much the search's policy target differs from the
	// network's prior at the root: their KL divergence in nats, 0 or more
	// (KataGo's policy surprise, which training may weigh positions by);
	// 0 when not known (a cheap search, the built-in evaluator, a file of
	// schema version 2).
	Surprise float32
}

// GameRow is one self-play game.
type GameRow struct {
	GameID    string
	RuleSet   string
	Moves     []string // every move in notation with its captures, such as "g3-e3xe2"
	Winner    rules.Winner
	Reason    rules.Reason
	Length    int32  // plies played: len(Moves)
	Seed      uint64 // the game's random seed
	Evaluator string // what evaluated the search's leaves: a network's id, "random", ...
	// Start is the position the game started from in notation (an opening
	// suite's), "" for the rule set's start; Moves are played from it.
	Start string
	// AttackerPlayouts and DefenderPlayouts are the two sides' full-search
	// budgets: equal, or one side given odds (asymmetric playouts); 0 when
	// not known.
	AttackerPlayouts, DefenderPlayouts int32
}

// names maps the values of a rules enum to their names and back.
type names []string

// enumNames collects the names String gives to 0, 1, 2, ... up to the first
// value it calls invalid.
func enumNames(str func(uint8) string) names {
	var ns names
	for v := 0; v < 256; v++ {
		s := str(uint8(v))
		if strings.HasPrefix(s, "invalid(") {
			break
		}
		ns = append(ns, s)
	}
	return ns
}

func (ns names) lookup(s string) (uint8, bool) {
	for i, n := range ns {
		if n == s {
			return uint8(i), true
		}
	}
	return 0, false
}

var (
	sideNames   = names{rules.Attackers.String(), rules.Defenders.String()}
	reasonNames = enumNames(func(v uint8) string { return rules.Reason(v).String() })
	winnerNames = enumNames(func(v uint8) string { return rules.Winner(v).String() })
)

// boards[size] is every square of a size x size board.
var boards [rules.MaxSize + 1]rules.Bitboard

func init() {
	for size := rules.MinSize; size <= rules.MaxSize; size += 2 {
		for r := range size {
			for f := range size {
				boards[size] = boards[size].With(rules.NewSquare(f, r))
			}
		}
	}
}

// onBoard reports whether square s is on a size x size board.
func onBoard(s rules.Square, size int) bool {
	return int(s) < rules.MaxSize*rules.MaxSize && s.File() < size && s.Rank() < size
}

// checkPosition checks a row's values against the rule set: the board's
// size, the pieces on it, the moves of the policy, the ranges of the numbers.
func checkPosition(def *rules.Definition, r *PositionRow) error {
	if r.GameID == "" {
		return fmt.Errorf("empty game id")
	}
	if r.Ply < 0 {
		return fmt.Errorf("ply %d", r.Ply)
	}
	if r.RuleSet != def.Name {
		return fmt.Errorf("rule set %q in a file of rule set %q", r.RuleSet, def.Name)
	}
	p := &r.Position
	size := int(p.Size)
	if size != def.Size {
		return fmt.Errorf("a %dx%d position under rule set %s, which plays on %dx%d", size, size, def.Name, def.Size, def.Size)
	}
	board := boards[size]
	if !onBoard(p.King, size) {
		return fmt.Errorf("king on square index %d, off the %dx%d board", p.King, size, size)
	}
	if !p.Attackers.SubsetOf(board) || !p.Defenders.SubsetOf(board) {
		return fmt.Errorf("a piece off the %dx%d board", size, size)
	}
	if p.Attackers.Intersects(p.Defenders) || p.Attackers.Or(p.Defenders).Has(p.King) {
		return fmt.Errorf("two pieces on one square")
	}
	if p.ToMove != rules.Attackers && p.ToMove != rules.Defenders {
		return fmt.Errorf("side to move %d", p.ToMove)
	}
	for _, mp := range r.Policy {
		from, to := mp.Move.From(), mp.Move.To()
		if !onBoard(from, size) || !onBoard(to, size) || from == to ||
			from.File() != to.File() && from.Rank() != to.Rank() {
			return fmt.Errorf("policy move %#04x (%s) is no move on a %dx%d board", uint16(mp.Move), mp.Move, size, size)
		}
		if !(mp.Prob >= 0 && mp.Prob <= 1) {
			return fmt.Errorf("policy move %s has probability %v", mp.Move, mp.Prob)
		}
	}
	if !(r.RootValue >= -1 && r.RootValue <= 1) {
		return fmt.Errorf("root value %v, want -1 to +1", r.RootValue)
	}
	if r.Result < -1 || r.Result > 1 {
		return fmt.Errorf("result %d, want -1, 0 or +1", r.Result)
	}
	if !(r.Surprise >= 0 && r.Surprise <= math.MaxFloat32) {
		return fmt.Errorf("policy surprise %v, want 0 or more", r.Surprise)
	}
	if int(r.Reason) >= len(reasonNames) {
		return fmt.Errorf("reason %d", r.Reason)
	}
	return nil
}

// checkGame checks a game row against the rule set.
func checkGame(def *rules.Definition, g *GameRow) error {
	if g.GameID == "" {
		return fmt.Errorf("empty game id")
	}
	if g.RuleSet != def.Name {
		return fmt.Errorf("rule set %q in a file of rule set %q", g.RuleSet, def.Name)
	}
	if int(g.Length) != len(g.Moves) {
		return fmt.Errorf("length %d but %d moves", g.Length, len(g.Moves))
	}
	for i, text := range g.Moves {
		m, captures, err := rules.ParseMove(text)
		if err != nil {
			return fmt.Errorf("move %d: %v", i+1, err)
		}
		if !onBoard(m.From(), def.Size) || !onBoard(m.To(), def.Size) || !captures.SubsetOf(boards[def.Size]) {
			return fmt.Errorf("move %d %q: off the %dx%d board", i+1, text, def.Size, def.Size)
		}
	}
	if g.Start != "" {
		p, err := rules.ParsePosition(g.Start)
		if err != nil {
			return fmt.Errorf("start: %v", err)
		}
		if int(p.Size) != def.Size {
			return fmt.Errorf("start %q: a %dx%d board in a file of %dx%d games", g.Start, p.Size, p.Size, def.Size, def.Size)
		}
	}
	if g.AttackerPlayouts < 0 || g.DefenderPlayouts < 0 {
		return fmt.Errorf("playouts %d and %d: want 0 or more", g.AttackerPlayouts, g.DefenderPlayouts)
	}
	if int(g.Winner) >= len(winnerNames) {
		return fmt.Errorf("winner %d", g.Winner)
	}
	if int(g.Reason) >= len(reasonNames) {
		return fmt.Errorf("reason %d", g.Reason)
	}
	return nil
}
