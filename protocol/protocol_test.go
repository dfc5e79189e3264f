package protocol

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// openTaflCopenhagen is the rules string OpenTafl sends for its Copenhagen
// (the issue quotes it from OpenTafl's built-in rule sets).
const openTaflCopenhagen = "dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"

const copenhagenStart = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3"

func TestParseBoard(t *testing.T) {
	// An asymmetric position: the rows' order matters.
	asym := "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/2tttt5/"
	tests := []struct {
		name, text string
		inverted   bool
		side       rules.Side
		want       string // taflab notation
		wantErr    string
	}{
		{name: "copenhagen start", text: "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/", side: rules.Attackers, want: copenhagenStart + " a"},
		{name: "rank 1 first", text: asym, side: rules.Defenders, want: "2aaaa5/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 d"},
		{name: "inverted: last rank first", text: asym, inverted: true, side: rules.Attackers, want: "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/2aaaa5 a"},
		{name: "brandub 7x7", text: "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", side: rules.Attackers, want: "3a3/3a3/3d3/aadkdaa/3d3/3a3/3a3 a"},
		{name: "no slashes", text: "3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3", wantErr: "want rows between slashes"},
		{name: "berserk piece", text: "/3t3/3c3/3T3/ttTKTtt/3T3/3t3/3t3/", wantErr: "berserk"},
		{name: "attackers' king", text: "/3t3/3k3/3T3/ttTKTtt/3T3/3t3/3t3/", wantErr: "attackers' king"},
		{name: "short row", text: "/3t3/3t2/3T3/ttTKTtt/3T3/3t3/3t3/", wantErr: "rank 2 \"3t2\" holds 6 squares, want 7"},
		{name: "two kings", text: "/3t3/3K3/3T3/ttTKTtt/3T3/3t3/3t3/", wantErr: "2 kings"},
		{name: "soldier on the throne", text: "/3t3/3t3/3T3/ttTTTtt/3K3/3t3/3t3/", wantErr: "throne"},
		{name: "even size", text: "/8/8/8/3K4/8/8/8/8/", wantErr: "8 rows"},
		{name: "bad letter", text: "/3t3/3t3/3T3/ttTKTtx/3T3/3t3/3t3/", wantErr: "unexpected 'x'"},
		{name: "huge run", text: "/99999999999999999999/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", wantErr: "run of empty squares"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parse := ParseBoard
			if tt.inverted {
				parse = ParseBoardInverted
			}
			p, err := parse(tt.text, tt.side)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "protocol: ") {
					t.Fatalf("got %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.String(); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
			format := FormatBoard
			if tt.inverted {
				format = FormatBoardInverted
			}
			if got := format(p); got != tt.text {
				t.Errorf("written back: got %s, want %s", got, tt.text)
			}
		})
	}
}

func TestParseMove(t *testing.T) {
	sq := func(s string) rules.Square {
		q, err := rules.ParseSquare(s)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	tests := []struct {
		text     string
		from, to string
		captures []string
		wantErr  string
	}{
		{text: "e5-e8", from: "e5", to: "e8"},
		{text: "e5-e8xe9", from: "e5", to: "e8", captures: []string{"e9"}},
		{text: "Ke5-e1-", from: "e5", to: "e1"},
		{text: "Ke1-a1--", from: "e1", to: "a1"},
		{text: "a3-e3+", from: "a3", to: "e3"},
		{text: "e3-e4++", from: "e3", to: "e4"},
		{text: "k10-k11", from: "k10", to: "k11"},
		{text: "tk10-k9xTk8/j9", from: "k10", to: "k9", captures: []string{"k8", "j9"}},
		{text: "ce6^e8", wantErr: "berserk"},
		{text: "Ne8=e4xe3", wantErr: "berserk"},
		{text: "---", wantErr: "resignation"},
		{text: "e5e8", wantErr: "want from-to"},
		{text: "e5-z8", wantErr: "to-square"},
		{text: "e0-e8", wantErr: "from-square"},
		{text: "e5-e8xq", wantErr: "captured square"},
		{text: "", wantErr: "want from-to"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			m, caps, err := ParseMove(tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := rules.NewMove(sq(tt.from), sq(tt.to)); m != want {
				t.Errorf("got %v, want %v", m, want)
			}
			var want rules.Bitboard
			for _, c := range tt.captures {
				want = want.With(sq(c))
			}
			if caps != want {
				t.Errorf("captures: got %v, want %v", caps, want)
			}
			if got := FormatMove(m); got != tt.from+"-"+tt.to {
				t.Errorf("written: got %s, want %s", got, tt.from+"-"+tt.to)
			}
		})
	}
}

func TestParseUCIMove(t *testing.T) {
	tests := []struct{ text, want, wantErr string }{
		{text: "e1e2", want: "e1-e2"},
		{text: "a10a11", want: "a10-a11"},
		{text: "k11k1", want: "k11-k1"},
		{text: "d1-d3", want: "d1-d3"},
		{text: "d1-d3xd4", wantErr: "two squares"},
		{text: "e1", wantErr: "two squares"},
		{text: "e1z2", wantErr: "to-square"},
		{text: "e0e2", wantErr: "from-square"},
		{text: "", wantErr: "two squares"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			m, err := ParseUCIMove(tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.String() != tt.want {
				t.Fatalf("got %v, want %v", m, tt.want)
			}
			if got := FormatUCIMove(m); got != strings.ReplaceAll(tt.want, "-", "") {
				t.Errorf("written: got %s, want %s", got, strings.ReplaceAll(tt.want, "-", ""))
			}
		})
	}
}

// TestCompileOpenTaflCopenhagen: OpenTafl's Copenhagen is none of taflab's
// four rule sets: both sides' shieldwalls capture (sw:s), the side that
// repeats loses (tfr:w), no move limit, edge fort (efe:y) and
// encirclement (surf defaults to y), and OpenTafl referees it
// (rules.RefereeOpenTafl).
func TestCompileOpenTaflCopenhagen(t *testing.T) {
	def, err := CompileRules(openTaflCopenhagen)
	if err != nil {
		t.Fatal(err)
	}
	want := rules.Definition{Name: "copenhagen", Size: 11, Start: copenhagenStart + " a",
		Shieldwall: rules.ShieldwallBoth, EdgeFort: true, Encirclement: true, Repetition: rules.RepetitionMoverLoses,
		Referee: rules.RefereeOpenTafl}
	if def != want {
		t.Fatalf("got %+v, want %+v", def, want)
	}
	if _, err := rules.Compile(def); err != nil {
		t.Fatal(err)
	}
}

// TestRulesStringRefuses: a rule set that is not one has no rules string:
// the error names it and the rules' reason, under package protocol's name
// alone.
func TestRulesStringRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*rules.Definition)
		want string
	}{
		{"a size out of range", func(d *rules.Definition) { d.Size = 4 }, "protocol: rule set fetlar: "},
		{"a start that is not a position", func(d *rules.Definition) { d.Start = "x a" }, "protocol: rule set fetlar: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			def := variants.MustLoad("fetlar").Definition()
			c.edit(&def)
			_, err := RulesString(def)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "rules: ") {
				t.Errorf("got %v, want an error starting %q, naming no other package", err, c.want)
			}
		})
	}
}

// TestRulesStringRoundTrip: each shipped rule set has a rules string that
// compiles back to it.
func TestRulesStringRoundTrip(t *testing.T) {
	for _, name := range variants.Names() {
		t.Run(name, func(t *testing.T) {
			want := variants.MustLoad(name).Definition()
			s, err := RulesString(want)
			if err != nil {
				t.Fatal(err)
			}
			got, err := CompileRules(s)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			if got != want {
				t.Fatalf("%s: got %+v, want %+v", s, got, want)
			}
		})
	}
	// A start with the defenders first says atkf:n.
	def := variants.MustLoad("fetlar").Definition()
	def.Start = strings.TrimSuffix(def.Start, " a") + " d"
	s, err := RulesString(def)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "atkf:n") {
		t.Fatalf("got %s, want atkf:n", s)
	}
	if got, err := CompileRules(s); err != nil || got != def {
		t.Fatalf("got %+v, %v, want %+v", got, err, def)
	}
	// A taflab-refereed rule set says so (x-referee:taflab); an
	// OpenTafl-refereed one writes OpenTafl's keys alone and compiles back
	// to OpenTafl's referee.
	if !strings.Contains(s, "x-referee:taflab") {
		t.Fatalf("got %s, want x-referee:taflab", s)
	}
	ot, err := CompileRules(openTaflCopenhagen)
	if err != nil {
		t.Fatal(err)
	}
	s, err = RulesString(ot)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s, "x-referee") {
		t.Fatalf("got %s, want no x-referee key", s)
	}
	if got, err := CompileRules(s); err != nil || got != ot {
		t.Fatalf("%s: got %+v, %v, want %+v", s, got, err, ot)
	}
}

func TestCompileRules(t *testing.T) {
	base := "dim:11 name:Test atkf:y tfr:w sw:s efe:y "
	start := "start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
	starti := "starti:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
	accepted := []struct {
		name, otr string
		check     func(rules.Definition) bool
	}{
		{"defaults spelled out", base + "esc:c ka:y ks:s kj:n nj:c cj:j cor:a1,k1,a11,k11, cen:f6 corh:tcnkTCNK cenh:tcnk cenhe:tcnkTCNK corp:K cenp:tcnkTCNK cors:K cens:K swf:y ber:n spd:-1 afor: dfor: " + start,
			func(d rules.Definition) bool { return d.Shieldwall == rules.ShieldwallBoth }},
		{"starti", base + starti, func(d rules.Definition) bool { return d.Start == copenhagenStart+" a" }},
		{"no surround", base + "surf:n " + start, func(d rules.Definition) bool { return !d.Encirclement }},
		{"repetitions ignored", "dim:11 tfr:i " + start, func(d rules.Definition) bool {
			return d.Repetition == rules.RepetitionNone && d.Name == "opentafl" && d.Shieldwall == rules.ShieldwallNone && !d.EdgeFort
		}},
		{"defenders first", "dim:11 atkf:n tfr:w " + start, func(d rules.Definition) bool { return strings.HasSuffix(d.Start, " d") }},
		{"ks:y is strong", base + "ks:y " + start, func(d rules.Definition) bool { return !d.KingCapturedOnEdge }},
		{"ks:m is the king captured on the edge", base + "ks:m " + start, func(d rules.Definition) bool { return d.KingCapturedOnEdge }},
		{"draw by repetition (the default)", "dim:11 " + start, func(d rules.Definition) bool { return d.Repetition == rules.RepetitionDraw }},
		{"keys in any order", start + " tfr:w dim:11", func(d rules.Definition) bool { return d.Size == 11 }},
		{"name with underscores", "dim:11 tfr:w name:Fetlar_Hnefatafl " + start, func(d rules.Definition) bool { return d.Name == "fetlar_hnefatafl" }},
		{"brandub-sized board", "dim:7 tfr:w start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", func(d rules.Definition) bool { return d.Size == 7 }},
		{"taflab's keys", base + "x-swside:a x-swwins:y x-tfr:d x-kedge:y x-np:100 " + start, func(d rules.Definition) bool {
			return d.Shieldwall == rules.ShieldwallAttackers && d.ShieldwallWins && d.Repetition == rules.RepetitionDefendersLose && d.KingCapturedOnEdge && d.NoProgressMoves == 100
		}},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			def, err := CompileRules(tt.otr)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(def) {
				t.Fatalf("got %+v", def)
			}
			if _, err := rules.Compile(def); err != nil {
				t.Fatal(err)
			}
		})
	}
	refused := []struct{ name, otr, key, text string }{
		{"empty", "   ", "", "empty"},
		{"not key:value", "dim:11 tfr:w bogus " + start, "", "not key:value"},
		{"unknown key", base + "zz:y " + start, "zz", "unknown key"},
		{"twice", base + "efe:n " + start, "efe", "given twice"},
		{"no dim", "tfr:w " + start, "dim", "missing"},
		{"bad dim", "dim:x tfr:w " + start, "dim", "odd sizes"},
		{"13x13", "dim:13 tfr:w " + start, "dim", "odd sizes"},
		{"dim and start disagree", "dim:9 tfr:w " + start, "start", "11 rows, but dim:9"},
		{"no start", "dim:11 tfr:w", "start", "missing"},
		{"start and starti", base + start + " " + starti, "starti", "given with start"},
		{"bad start", "dim:11 tfr:w start:/3t3/", "start", "rows"},
		{"bad starti", "dim:11 tfr:w starti:/x/", "starti", "want"},
		{"repeater wins", "dim:11 tfr:l " + start, "tfr", "repeating side wins"},
		{"edge escape", base + "esc:e " + start, "esc", "esc:c"},
		{"unarmed king", base + "ka:n " + start, "ka", "ka:y"},
		{"hammer-only king", base + "ka:h " + start, "ka", "ka:y"},
		{"weak king", base + "ks:n " + start, "ks", "strong king"},
		{"weak king, OpenTafl's letter", base + "ks:w " + start, "ks", "strong king"},
		{"king strong only at the throne", base + "ks:c " + start, "ks", "middleweight"},
		{"middleweight king, corners not hostile to him", base + "ks:m corh:tT " + start, "ks", "K in corh"},
		{"middleweight king and x-kedge:n", base + "ks:m x-kedge:n " + start, "x-kedge", "contradicts ks:m"},
		{"king jumps", base + "kj:r " + start, "kj", "kj:n"},
		{"berserk", base + "ber:c " + start, "ber", "ber:n"},
		{"speed limit", base + "spd:3 " + start, "spd", "spd:-1"},
		{"fortress", base + "afor:a2, " + start, "afor", "no fortresses"},
		{"moved corners", base + "cor:b2,k1,a11,k11 " + start, "cor", "four corners"},
		{"no corners", base + "cor: " + start, "cor", "four corners"},
		{"two centres", base + "cen:f6,f7 " + start, "cen", "centre square"},
		{"corner square off the board", base + "cor:a1,k1,a11,z11 " + start, "cor", "not a square"},
		{"weak shieldwall", "dim:11 tfr:w sw:w " + start, "sw", "weak shieldwalls"},
		{"unflanked shieldwall", base + "swf:n " + start, "swf", "swf:y"},
		{"bad yes-no", base + "surf:maybe " + start, "surf", "want y or n"},
		{"throne not hostile", base + "cenhe: " + start, "cenhe", "with t in it"},
		{"throne hostile to defenders when occupied", base + "cenh:tT " + start, "cenh", "without T"},
		{"soldiers stop on corners", base + "cors:tK " + start, "cors", "without t"},
		{"bad piece symbol", base + "corh:tTx " + start, "corh", "not a piece symbol"},
		{"bad knight jump", base + "nj:q " + start, "nj", "want n, r, j or c"},
		{"attackers-only without shieldwall", "dim:11 tfr:w x-swside:a " + start, "x-swside", "needs sw:s"},
		{"sweep wins without shieldwall", "dim:11 tfr:w x-swwins:y " + start, "x-swwins", "shieldwall"},
		{"defenders lose without tfr:w", "dim:11 tfr:i x-tfr:d " + start, "x-tfr", "needs tfr:w"},
		{"bad move limit", base + "x-np:-3 " + start, "x-np", "want 0"},
		{"unknown referee", base + "x-referee:fifa " + start, "x-referee", "want taflab or opentafl"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileRules(tt.otr)
			var re *RulesError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a *RulesError", err)
			}
			if re.Key != tt.key || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("got key %q, %v; want key %q and %q", re.Key, err, tt.key, tt.text)
			}
			if tt.key != "" && !strings.Contains(err.Error(), "key "+tt.key+":") {
				t.Errorf("got %v, want the key named", err)
			}
		})
	}
}

// The fuzzers check that no input makes a parser panic, and that what
// parses writes back to what parses the same.
func FuzzCompileRules(f *testing.F) {
	f.Add(openTaflCopenhagen)
	f.Add("dim:7 ks:n cenhe: cenh: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/")
	f.Add("dim:11 tfr:w x-swside:a x-swwins:y x-np:100 starti:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/")
	f.Add("dim:9 cor:a1,i1,a9,i9, cen:e5 tfr:i start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/")
	f.Fuzz(func(t *testing.T, otr string) {
		def, err := CompileRules(otr)
		if err != nil {
			return
		}
		if _, err := rules.Compile(def); err != nil {
			t.Fatalf("%q compiled to a definition the rules refuse: %v", otr, err)
		}
		s, err := RulesString(def)
		if err != nil {
			t.Fatal(err)
		}
		back, err := CompileRules(s)
		if err != nil || back != def {
			t.Fatalf("%q: written as %q, read back as %+v, %v; want %+v", otr, s, back, err, def)
		}
	})
}

func FuzzParseBoard(f *testing.F) {
	f.Add("/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/")
	f.Add("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/")
	f.Add("/7/7/7/3K3/7/7/7/")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParseBoard(text, rules.Defenders)
		if err != nil {
			return
		}
		q, err := ParseBoard(FormatBoard(p), rules.Defenders)
		if err != nil || q != p {
			t.Fatalf("%q: written as %q, read back as %v, %v", text, FormatBoard(p), q, err)
		}
	})
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"e5-e8", "Ke1-a1--", "tk10-k9xTk8/j9", "e1e2", "a10a11", "---"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if m, _, err := ParseMove(text); err == nil {
			if back, _, err := ParseMove(FormatMove(m)); err != nil || back != m {
				t.Fatalf("%q: written as %q, read back as %v, %v", text, FormatMove(m), back, err)
			}
		}
		if m, err := ParseUCIMove(text); err == nil {
			if back, err := ParseUCIMove(FormatUCIMove(m)); err != nil || back != m {
				t.Fatalf("%q: written as %q, read back as %v, %v", text, FormatUCIMove(m), back, err)
			}
		}
	})
}

// TestOpenTaflKeys: each key whose meaning taflab maps, with the line of
// OpenTafl's opentafl-notation-spec.txt (section 3, "Explanatory notes") or
// RulesSerializer.java that defines it, and what the key must compile to.
// The keys are given alone on OpenTafl's Fetlar example string, so that
// every other key keeps OpenTafl's default.
func TestOpenTaflKeys(t *testing.T) {
	// The spec's Fetlar example: "11x11, defenders go first, all others as
	// default."
	const fetlar = "dim:11 atkf:n start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
	withKey := func(kv string) string { return strings.Replace(fetlar, "atkf:n", "atkf:n "+kv, 1) }
	tests := []struct {
		name, otr, source string
		want              func(d *rules.Definition) // edits OpenTafl's Fetlar into what the key means
	}{
		{"defaults", fetlar, `surf: "Defaults to "y" (yes)"; tfr: "If "d", the game is a draw (default)"; sw: "Defaults to "n" (none)"; efe: "Defaults to "n" (no)"; ks: "Defaults to "y" (yes)"`,
			func(d *rules.Definition) {}},
		{"surf:n", withKey("surf:n"), `surf: "(surrounding fatal) if a side is surrounded entirely by pieces from the other side, should that side lose?"`,
			func(d *rules.Definition) { d.Encirclement = false }},
		{"efe:y", withKey("efe:y"), `efe: "(edge fort escape) Does the king's side win if he is surrounded against the edge of the board by friendly pieces"`,
			func(d *rules.Definition) { d.EdgeFort = true }},
		{"sw:s", withKey("sw:s"), `shieldwall-mode: ""s": strong shieldwalls, corners may close a shieldwall position"`,
			func(d *rules.Definition) { d.Shieldwall = rules.ShieldwallBoth }},
		{"tfr:w", withKey("tfr:w"), `tfr: "if "w", the player forced to respond wins"`,
			func(d *rules.Definition) { d.Repetition = rules.RepetitionMoverLoses }},
		{"tfr:i", withKey("tfr:i"), `tfr: "If "i", threefold repetitions are ignored."`,
			func(d *rules.Definition) { d.Repetition = rules.RepetitionNone }},
		{"tfr:d", withKey("tfr:d"), `tfr: "If "d", the game is a draw (default)."`,
			func(d *rules.Definition) { d.Repetition = rules.RepetitionDraw }},
		{"ks:m", withKey("ks:m"), `RulesSerializer.getKingModeForString: "m" -> KING_MIDDLEWEIGHT; Rules.java: "all of his adjacent spaces must be hostile for him to be captured"`,
			func(d *rules.Definition) { d.KingCapturedOnEdge = true }},
		{"ks:s", withKey("ks:s"), `RulesSerializer.getKingModeForString: "s" or "y" -> KING_STRONG`,
			func(d *rules.Definition) {}},
		{"cor and cen by name", withKey("cor:a1,k1,a11,k11, cen:f6"), `cor: "Defaults to "default": the four physical corner spaces"; cen: "the physical center space"`,
			func(d *rules.Definition) {}},
		{"atkf:y", strings.Replace(fetlar, "atkf:n", "atkf:y", 1), `atkf: "should the attacking side go first? Defaults to "y" (yes)"`,
			func(d *rules.Definition) { d.Start = strings.TrimSuffix(d.Start, " d") + " a" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := rules.Definition{Name: "opentafl", Size: 11, Start: copenhagenStart + " d", Encirclement: true, Repetition: rules.RepetitionDraw,
				Referee: rules.RefereeOpenTafl}
			tt.want(&want)
			got, err := CompileRules(tt.otr)
			if err != nil {
				t.Fatalf("%s (%s): got %v, want no error", tt.otr, tt.source, err)
			}
			if got != want {
				t.Fatalf("%s (%s): got %+v, want %+v", tt.otr, tt.source, got, want)
			}
		})
	}
}

// TestOpenTaflRepetition plays a shuttle into the third occurrence of a
// position under each tfr value: OpenTafl's GameState judges the position
// after the turn has passed and, for THIRD_REPETITION_WINS (tfr:w), gives
// the win to the side now to move, so the side whose move repeated loses,
// whichever side it is.
func TestOpenTaflRepetition(t *testing.T) {
	// Attackers on c3, defenders on i3, the king on f9; each side shuttles
	// one step and back, so the start stands for the third time after 8
	// moves, brought about by the side that moves second.
	shuttle := []string{"c3-c4", "i3-i4", "c4-c3", "i4-i3", "c3-c4", "i3-i4", "c4-c3", "i4-i3"}
	tests := []struct {
		tfr   string
		first rules.Side
		want  rules.Winner
	}{
		{"w", rules.Attackers, rules.AttackersWin}, // the defenders repeat and lose
		{"w", rules.Defenders, rules.DefendersWin}, // the attackers repeat and lose
		{"d", rules.Attackers, rules.Draw},
		{"d", rules.Defenders, rules.Draw},
		{"i", rules.Attackers, rules.NoWinner},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("tfr:%s %v first", tt.tfr, tt.first), func(t *testing.T) {
			def, err := CompileRules(strings.Replace(openTaflCopenhagen, "tfr:w", "tfr:"+tt.tfr, 1))
			if err != nil {
				t.Fatal(err)
			}
			v, err := rules.Compile(def)
			if err != nil {
				t.Fatal(err)
			}
			side := "a"
			moves := slices.Clone(shuttle)
			if tt.first == rules.Defenders {
				side = "d"
				for i := range moves { // the defenders' piece moves first
					moves[i] = shuttle[i^1]
				}
			}
			p, err := rules.ParsePosition("11/11/5k5/11/11/11/11/11/2a5d2/11/11 " + side)
			if err != nil {
				t.Fatal(err)
			}
			g, err := rules.NewGameFrom(v, p)
			if err != nil {
				t.Fatal(err)
			}
			for i, text := range moves {
				if g.Outcome().Over() {
					t.Fatalf("over before move %d: %v", i+1, g.Outcome())
				}
				m, _, err := rules.ParseMove(text)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.Play(m); err != nil {
					t.Fatalf("move %d %s: %v", i+1, text, err)
				}
			}
			o := g.Outcome()
			if o.Winner != tt.want {
				t.Fatalf("got %v, want %v", o, tt.want)
			}
			if o.Over() && (o.Reason != rules.Repetition || o.Ply != 8) {
				t.Fatalf("got %v, want the repetition on ply 8", o)
			}
		})
	}
}
