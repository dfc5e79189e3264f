package rules_test

import (
	"errors"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// openTaflCopenhagen is copenhagen judged by OpenTafl's referee.
func openTaflCopenhagen(t *testing.T) *rules.Variant {
	t.Helper()
	def := variants.MustLoad(rpCop).Definition()
	def.Name, def.Referee = "copenhagen-ot", rules.RefereeOpenTafl
	v, err := rules.Compile(def)
	if err != nil {
		t.Fatalf("compile %s: got %v, want no error", def.Name, err)
	}
	return v
}

// TestCheckStart: a start that is a finished game, or where the side to
// move has no legal move, is refused with the reason; the others start.
func TestCheckStart(t *testing.T) {
	cop := variants.MustLoad(rpCop)
	ot := openTaflCopenhagen(t)
	cases := []struct {
		name           string
		v              *rules.Variant
		att, def, king string
		side           string
		want           string // "" for no error
	}{
		{"the start", cop, "", "", "", "", ""},
		{"no piece but the king", cop, "", "", "f6", "a", "no attacker is left"},
		{"no attacker, defenders to move", cop, "", "e5", "f6", "d", "no attacker is left"},
		{"the king on a corner", cop, "b1", "", "a11", "d", "the king is on a corner"},
		{"the king on a corner, attackers to move", cop, "b1", "", "k1", "a", "the king is on a corner"},
		{"an attacker boxed in", cop, "a2", "a3 b2", "f6", "a", "the attackers have no legal move"},
		{"the king walled in, nothing else", cop, "e6 g6 f5 f7", "", "f6", "d", "the attackers encircle the defenders"},
		{"a small fort, attackers to move", cop, "h9", "d1 e2 f2 g1", "e1", "a", "the defenders hold an edge fort"},
		{"a small fort, defenders to move", cop, "h9", "d1 e2 f2 g1", "e1", "d", ""},
		{"a fort under fetlar (no edge fort)", rpVariant(t, rpFet), "h9", "d1 e2 f2 g1", "e1", "a", ""},
		{"a ring, defenders to move", cop, "b8 d8 c7 b9 d9 c10", "", "c8", "d", "the attackers encircle the defenders"},
		{"a ring, attackers to move", cop, "b8 d8 c7 b9 d9 c10", "", "c8", "a", ""},
		{"the king walled in, attackers to move", cop, "e6 g6 f5 f7", "", "f6", "a", ""},
		{"opentafl: the king walled in, attackers to move", ot, "e6 g6 f5 f7", "", "f6", "a", "no defender has an empty square beside it"},
		{"opentafl: a ring, attackers to move", ot, "b8 d8 c7 b9 d9 c10", "d4", "c8", "a", ""},
		{"opentafl: a sealed ring, attackers to move", ot, "b8 d8 c7 b9 d9 c10 h2", "", "c8", "a", "the attackers encircle the defenders"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.v.Start()
			if c.king != "" {
				var err error
				text := rpNotation(c.att, c.def, c.king, c.side)
				if p, err = rules.ParsePosition(text); err != nil {
					t.Fatalf("ParsePosition(%q): got %v, want no error", text, err)
				}
			}
			err := c.v.CheckStart(p)
			g, gerr := rules.NewGameFromStart(c.v, p)
			switch {
			case c.want == "" && (err != nil || gerr != nil):
				t.Errorf("CheckStart(%s): got %v, NewGameFromStart: %v; want no error", p, err, gerr)
			case c.want == "" && g.Position() != p:
				t.Errorf("NewGameFromStart(%s): got position %s, want the start", p, g.Position())
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "rules: position ")):
				t.Errorf("CheckStart(%s): got %v, want an error naming the position and %q", p, err, c.want)
			case c.want != "" && (gerr == nil || gerr.Error() != err.Error()):
				t.Errorf("NewGameFromStart(%s): got %v, want CheckStart's error", p, gerr)
			}
		})
	}
}

// TestCompileRefusesFinishedStart: a rule set whose start has no legal
// move or is a finished game is refused, naming the key start; Replay
// refuses such a start given for a record.
func TestCompileRefusesFinishedStart(t *testing.T) {
	cases := []struct{ name, variant, start, want string }{
		{"the issue's start: a king alone", rpCop, "11/11/11/11/11/5k5/11/11/11/11/11 a", "no attacker is left"},
		{"the king on a corner", rpCop, "k10/11/11/11/11/11/11/11/11/11/1a9 a", "the king is on a corner"},
		{"attackers with no move", rpCop, rpNotation("a2", "a3 b2", "f6", "a"), "the attackers have no legal move"},
		{"a 9x9 king walled in", rpCop, "3aaa3/4a4/4a4/a3a3a/aaaakaaaa/a3a3a/4a4/4a4/3aaa3 d", "the attackers encircle the defenders"},
		{"a 7x7 king walled in, no encirclement", rpFet, "7/7/3a3/2aka2/3a3/7/7 d", "the defenders have no legal move"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def := variants.MustLoad(c.variant).Definition()
			def.Start = c.start
			p, err := rules.ParsePosition(c.start)
			if err != nil {
				t.Fatalf("ParsePosition(%q): got %v, want no error", c.start, err)
			}
			def.Size = int(p.Size)
			_, err = rules.Compile(def)
			var fe *rules.FieldError
			if !errors.As(err, &fe) || fe.Key != "start" || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Compile(start = %q): got %v, want a FieldError naming start and %q", c.start, err, c.want)
			}
		})
	}
	v := variants.MustLoad(rpCop)
	p, err := rules.ParsePosition("k10/11/11/11/11/11/11/11/11/11/1a9 d")
	if err != nil {
		t.Fatal(err)
	}
	r := rules.Replay(v, p, nil, 3)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "the king is on a corner") || !strings.Contains(r.Err.Error(), "start position") {
		t.Errorf("Replay from a king on a corner: got %v, want a start position error", r.Err)
	}
}
