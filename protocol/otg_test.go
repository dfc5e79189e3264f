package protocol

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// recordsDir holds game records OpenTafl ships (../shared, beside the
// project; never copied into it).
var recordsDir = filepath.Join("..", "..", "shared", "data", "opentafl", "records")

// randomRecord plays random moves of v from its start and returns them as
// a game record with comments on some, and the game.
func randomRecord(t *testing.T, v *rules.Variant, seed uint64, plies int) *GameRecord {
	t.Helper()
	otr, err := RulesString(v.Definition())
	if err != nil {
		t.Fatal(err)
	}
	r := &GameRecord{Tags: []Tag{{"event", "a test"}, {TagAttackers, "net=a.safetensors,playouts=200"}, {TagRules, otr}}}
	rng := rand.New(rand.NewPCG(seed, 3))
	g := rules.NewGame(v)
	for !g.Outcome().Over() && len(r.Moves) < plies {
		moves := g.GenerateMoves(nil)
		g.Make(moves[rng.IntN(len(moves))])
		m, caps := g.LastMove()
		rm := RecordMove{Move: m, Captures: caps}
		if rng.IntN(3) == 0 {
			rm.Comment = "mistake: lost 12.5 points of win chance (61.0% -> 48.5%); best d1-d3 (line: d1-d3 h6-h9)"
		}
		r.Moves = append(r.Moves, rm)
	}
	return r
}

// TestGameRecordRoundTrip: a record written and read again is the same
// record, tags, moves, captures and comments, in every rule set and with
// an odd number of moves.
func TestGameRecordRoundTrip(t *testing.T) {
	for _, name := range variants.Names() {
		for _, plies := range []int{0, 1, 7, 80} {
			r := randomRecord(t, variants.MustLoad(name), uint64(plies)+1, plies)
			data, err := FormatGameRecord(r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseGameRecord(data)
			if err != nil {
				t.Fatalf("%s, %d plies: %v\n%s", name, plies, err, data)
			}
			if len(r.Moves) == 0 {
				r.Moves = nil
			}
			if !reflect.DeepEqual(got, r) {
				t.Errorf("%s, %d plies: read back\n%+v\nwant\n%+v\nfrom\n%s", name, plies, got, r, data)
			}
		}
	}
}

func TestGameRecordTags(t *testing.T) {
	r := &GameRecord{Tags: []Tag{{"event", "x"}, {TagRules, "dim:11 start:/11/"}}}
	r.SetTag(TagResult, "1")
	r.SetTag("event", "y")
	want := []Tag{{"event", "y"}, {TagResult, "1"}, {TagRules, "dim:11 start:/11/"}}
	if !reflect.DeepEqual(r.Tags, want) {
		t.Errorf("got %v, want %v", r.Tags, want)
	}
	if r.Tag(TagResult) != "1" || r.Tag("site") != "" {
		t.Errorf("Tag: got %q and %q, want 1 and nothing", r.Tag(TagResult), r.Tag("site"))
	}
}

func TestGameRecordErrors(t *testing.T) {
	const rulesTag = "[rules:" + openTaflCopenhagen + "]\n"
	read := []struct {
		name, text, want string
	}{
		{"no rules", "[event:x]\n\n1. d1-d3\n", "line 3: no rules tag"},
		{"tag not closed", "[event:x\n" + rulesTag, "line 1: tag"},
		{"tag without key", "[:x]\n" + rulesTag, "line 1: tag"},
		{"turn out of order", rulesTag + "\n1. d1-d3 h6-h9\n3. d3-d1\n", "line 4: turn 3: want turn 2"},
		{"no turn number", rulesTag + "\nd1-d3 h6-h9\n", "line 3"},
		{"bad move", rulesTag + "\n1. d1-d3 h6\n", "line 3: turn 1"},
		{"berserk", rulesTag + "\n1. d1^d3\n", "berserk"},
		{"comment open", rulesTag + "\n1. d1-d3 h6-h9\n[a comment\n\n", "line 4: a comment that is never closed"},
		{"after resigning", rulesTag + "\n1. d1-d3 ---\n2. h6-h9\n", "line 4: turn 2 after a resignation"},
	}
	for _, c := range read {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseGameRecord([]byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	m, _, _ := ParseMove("d1-d3")
	write := []struct {
		name string
		r    GameRecord
		want string
	}{
		{"no rules", GameRecord{Tags: []Tag{{"event", "x"}}}, "no rules tag"},
		{"bracket in a tag", GameRecord{Tags: []Tag{{"event", "x]"}, {TagRules, openTaflCopenhagen}}}, "tag event"},
		{"1. in a tag", GameRecord{Tags: []Tag{{"start-comment", "see 1. d1-d3"}, {TagRules, openTaflCopenhagen}}}, "tag start-comment"},
		{"bar in a comment", GameRecord{Tags: []Tag{{TagRules, openTaflCopenhagen}}, Moves: []RecordMove{{Move: m, Comment: "a|b"}}}, "move 1: comment"},
	}
	for _, c := range write {
		t.Run("write "+c.name, func(t *testing.T) {
			_, err := FormatGameRecord(&c.r)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

// TestGameRecordResignation: a resignation ends the principal line.
func TestGameRecordResignation(t *testing.T) {
	r, err := ParseGameRecord([]byte("[rules:" + openTaflCopenhagen + "]\n\n1. d1-d3 h6-h9\n2. ---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Moves) != 2 || !r.Resigned {
		t.Errorf("got %d moves, resigned %v; want 2 and a resignation", len(r.Moves), r.Resigned)
	}
}

// TestOpenTaflRecords reads the game records OpenTafl ships: their tags,
// their rules, every move of their principal lines (legal, with the
// captures written as the rules make them) and the comments on them;
// variations are counted. A record whose rules taflab cannot play (a 7x7
// puzzle with a corner moved, a soldier on a7) is read, and its rules refused naming the key.
func TestOpenTaflRecords(t *testing.T) {
	if _, err := os.Stat(recordsDir); err != nil {
		t.Skipf("OpenTafl's records: %v (they are in ../shared beside the project)", err)
	}
	cases := []struct {
		file              string
		plies, variations int
		attackers, result string
		comment           int    // a ply with a comment
		commentStarts     string // how it begins
		rulesKey          string // the key CompileRules refuses, or ""
		firstMover        rules.Side
	}{
		{"realgamelog.otg", -1, 0, "Tim Millar", "-1", 1, "Black starts with d1-d3", "", rules.Attackers},
		{"Fish-Nasa-2015-Fetlar.otg", 39, 7, "Nasa", "-1", 24, "This is Nasa's major mistake", "", rules.Defenders},
		{"Copenhagen-Escape-Puzzle.otg", 18, 12, "", "?", 0, "", "starti", rules.Attackers},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(recordsDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			r, err := ParseGameRecord(data)
			if err != nil {
				t.Fatal(err)
			}
			if c.plies >= 0 && len(r.Moves) != c.plies || r.Variations != c.variations {
				t.Errorf("got %d moves and %d variation turns, want %d and %d", len(r.Moves), r.Variations, c.plies, c.variations)
			}
			if r.Tag(TagAttackers) != c.attackers || r.Tag(TagResult) != c.result {
				t.Errorf("tags: got attackers %q, result %q; want %q, %q", r.Tag(TagAttackers), r.Tag(TagResult), c.attackers, c.result)
			}
			if c.comment > 0 && !strings.HasPrefix(r.Moves[c.comment-1].Comment, c.commentStarts) {
				t.Errorf("ply %d's comment: got %q, want it to start %q", c.comment, clip(r.Moves[c.comment-1].Comment), c.commentStarts)
			}
			def, err := CompileRules(r.Tag(TagRules))
			if c.rulesKey != "" {
				if re := (*RulesError)(nil); !errors.As(err, &re) || re.Key != c.rulesKey {
					t.Errorf("rules: got %v, want them refused at key %s", err, c.rulesKey)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			v, err := rules.Compile(def)
			if err != nil {
				t.Fatal(err)
			}
			if v.Start().ToMove != c.firstMover {
				t.Errorf("got the %s first, want the %s", v.Start().ToMove, c.firstMover)
			}
			g := rules.NewGame(v)
			for i, m := range r.Moves {
				if err := g.Play(m.Move); err != nil {
					t.Fatalf("ply %d: %v", i+1, err)
				}
				if _, caps := g.LastMove(); caps != m.Captures.Without(g.Position().King) {
					t.Errorf("ply %d %s: written captures %v, the rules' %v", i+1, m.Move, m.Captures, caps)
				}
			}
		})
	}
}

// FuzzParseGameRecord: any input is read or refused with an error, never a
// panic; a record read and written again reads back the same.
func FuzzParseGameRecord(f *testing.F) {
	f.Add([]byte("[rules:" + openTaflCopenhagen + "]\n\n1. d1-d3 h6-h9\n[a|b]\n2. Kf6-c6 a8-c8xb8\n12b.1.1a. ..... d2-c2\n[x]\n"))
	f.Add([]byte("[event:x]\n[rules:dim:11]\n1. ---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseGameRecord(data)
		if err != nil {
			return
		}
		out, err := FormatGameRecord(r)
		if err != nil {
			return // a tag or comment OpenTafl could not read
		}
		back, err := ParseGameRecord(out)
		if err != nil {
			t.Fatalf("%q written as %q: %v", data, out, err)
		}
		if len(back.Moves) != len(r.Moves) {
			t.Fatalf("%q: %d moves read back, want %d", data, len(back.Moves), len(r.Moves))
		}
	})
}

// TestGameRecordCaptureCap: a move that takes more than four pieces (a
// shieldwall) is written with four, all OpenTafl's notation holds; the
// rules make the captures when the record is replayed.
func TestGameRecordCaptureCap(t *testing.T) {
	m, caps, err := ParseMove("a5-a6xb2/b3/b4/b5")
	if err != nil {
		t.Fatal(err)
	}
	caps = caps.With(rules.NewSquare(1, 5)) // b6
	r := &GameRecord{Tags: []Tag{{TagRules, openTaflCopenhagen}}, Moves: []RecordMove{{Move: m, Captures: caps}}}
	data, err := FormatGameRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "1. a5-a6xb2/b3/b4/b5\n") {
		t.Errorf("got\n%s\nwant the move with its first four captures", data)
	}
}
