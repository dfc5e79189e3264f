package gamefile

import (
	"fmt"
	"strings"

	"taflab/protocol"
	"taflab/rules"
)

// OpenTaflRecord returns a game as an OpenTafl game record: tags (the
// caller's, then the result and how the game ended, the rule set's name
// as variant), the rules string of v with the game's start (OpenTafl
// starts a record from its rules' start: a record of a game from an
// opening suite is read back by ReadFile as v, from that start, through
// its position tag), and the moves with the captures the rules make, each
// with comments[i] if given ('|', '[' and ']', which OpenTafl's reader
// cannot take in a comment, become '/', '(' and ')').
func OpenTaflRecord(v *rules.Variant, start rules.Position, moves []rules.Move, tags []protocol.Tag, comments []string) (*protocol.GameRecord, error) {
	def := v.Definition()
	def.Start = start.String()
	otr, err := protocol.RulesString(def)
	if err != nil {
		return nil, fmt.Errorf("gamefile: %w", err)
	}
	g, err := rules.NewGameFrom(v, start)
	if err != nil {
		return nil, fmt.Errorf("gamefile: start: %w", err)
	}
	r := &protocol.GameRecord{Tags: append(append([]protocol.Tag(nil), tags...), protocol.Tag{Key: protocol.TagRules, Value: otr})}
	safe := strings.NewReplacer("|", "/", "[", "(", "]", ")")
	for i, m := range moves {
		if err := g.Play(m); err != nil {
			return nil, fmt.Errorf("gamefile: ply %d: %w", i+1, err)
		}
		_, caps := g.LastMove()
		rm := protocol.RecordMove{Move: m, Captures: caps}
		if i < len(comments) {
			rm.Comment = safe.Replace(comments[i])
		}
		r.Moves = append(r.Moves, rm)
	}
	result := "?"
	switch o := g.Outcome(); o.Winner {
	case rules.AttackersWin:
		result = "1"
	case rules.DefendersWin:
		result = "-1"
	case rules.Draw:
		result = "0"
	}
	r.SetTag(protocol.TagResult, result)
	if o := g.Outcome(); o.Over() {
		r.SetTag("termination", o.String())
	}
	r.SetTag("variant", v.Name())
	if start != v.Start() {
		r.SetTag(protocol.TagPosition, protocol.FormatBoard(start))
	}
	return r, nil
}
