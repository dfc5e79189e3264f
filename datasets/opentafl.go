package datasets

import (
	"fmt"
	"strings"

	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/protocol"
	"taflab/rules"
)

// This file reads and writes games as OpenTafl game records (.otg).

// openTaflResults are an OpenTafl record's result tags by winner ("?" for
// none).
var openTaflResults = map[rules.Winner]string{rules.AttackersWin: "1", rules.DefendersWin: "-1", rules.Draw: "0"}

// readOpenTafl reads the game of an OpenTafl record; name labels it in
// errors.
func readOpenTafl(name string, data []byte) (Game, error) {
	rec, err := protocol.ParseGameRecord(data)
	if err != nil {
		return Game{}, errctx.Key("datasets", name, err)
	}
	v, start, err := openTaflRules(rec)
	if err != nil {
		return Game{}, errctx.Key("datasets", name, err)
	}
	g := Game{Variant: v, Start: start, Record: rec, Attackers: rec.Tag(protocol.TagAttackers), Defenders: rec.Tag(protocol.TagDefenders),
		Recorded: rec.Tag(protocol.TagResult)}
	for w, text := range openTaflResults {
		if text == g.Recorded {
			g.Winner = w
		}
	}
	if g.Recorded == "" {
		g.Recorded = "no result"
	}
	for _, m := range rec.Moves {
		g.Moves = append(g.Moves, rules.RecordedMove{Move: m.Move, Captures: m.Captures})
	}
	return g, nil
}

// openTaflRules compiles a record's rules string (variants.FromOpenTafl),
// and its start: the position tag's board if it has one, else the rules
// string's start. A rules string that is a shipped rule set's but for its
// start (taflab writes a game from an opening suite so, as OpenTafl starts
// a record from its rules' start) is that rule set.
func openTaflRules(rec *protocol.GameRecord) (*rules.Variant, rules.Position, error) {
	def, err := protocol.CompileRules(rec.Tag(protocol.TagRules))
	if err != nil {
		return nil, rules.Position{}, err
	}
	v, err := variants.FromOpenTafl(def)
	if err != nil {
		return nil, rules.Position{}, err
	}
	start := v.Start()
	if text := rec.Tag(protocol.TagPosition); text != "" {
		if start, err = protocol.ParseBoard(text, start.ToMove); err != nil {
			return nil, rules.Position{}, errctx.Key("datasets", "position tag", err)
		}
	}
	base := strings.TrimPrefix(v.Name(), variants.OpenTaflPrefix)
	if shipped, err := variants.Load(base); err == nil {
		def := v.Definition()
		def.Name, def.Start = base, shipped.Definition().Start
		if variants.Differences(def) == nil {
			v = shipped
		}
	}
	return v, start, nil
}

// OpenTaflRecord returns a game as an OpenTafl game record: tags (the
// caller's, then the result and how the game ended, the rule set's name
// as variant), the rules string of v with the game's start (OpenTafl
// starts a record from its rules' start: a record of a game from an
// opening suite is read back by ReadGames as v, from that start, through
// its position tag), and the moves with the captures the rules make, each
// with comments[i] if given ('|', '[' and ']', which OpenTafl's reader
// cannot take in a comment, become '/', '(' and ')').
func OpenTaflRecord(v *rules.Variant, start rules.Position, moves []rules.Move, tags []protocol.Tag, comments []string) (*protocol.GameRecord, error) {
	def := v.Definition()
	def.Start = start.String()
	otr, err := protocol.RulesString(def)
	if err != nil {
		return nil, errctx.Key("datasets", "rules string", err)
	}
	g, err := rules.NewGameFrom(v, start)
	if err != nil {
		return nil, errctx.Key("datasets", "start", err)
	}
	r := &protocol.GameRecord{Tags: append(append([]protocol.Tag(nil), tags...), protocol.Tag{Key: protocol.TagRules, Value: otr})}
	safe := strings.NewReplacer("|", "/", "[", "(", "]", ")")
	for i, m := range moves {
		if err := g.Play(m); err != nil {
			return nil, errctx.Key("datasets", fmt.Sprintf("ply %d", i+1), err)
		}
		_, caps := g.LastMove()
		rm := protocol.RecordMove{Move: m, Captures: caps}
		if i < len(comments) {
			rm.Comment = safe.Replace(comments[i])
		}
		r.Moves = append(r.Moves, rm)
	}
	result, ok := openTaflResults[g.Outcome().Winner]
	if !ok {
		result = "?"
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
