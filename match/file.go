package match

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/rules"
	"taflab/stats"
)

// FileName is the name of a match's result file in its folder.
const FileName = "match.json"

// File is what a match leaves in its folder (match.json): the players,
// the test and its report, and every game, so that ratings can be fitted
// over many matches later.
type File struct {
	Variant string `json:"variant"`
	// Rules are the rule set's own, when it is not a shipped one (a file
	// of the user's, an OpenTafl rules string), so that the games can be
	// replayed under them; nil for a shipped rule set.
	Rules    *rules.Definition `json:"rules,omitempty"`
	A        PlayerInfo        `json:"a"`
	B        PlayerInfo        `json:"b"`
	SPRT     stats.SPRT        `json:"sprt"`
	Report   stats.Report      `json:"report"`
	Decision string            `json:"decision"` // stats.Decision.Verdict: "H1", "H0" or "none" (Decided)
	Stopped  string            `json:"stopped"`  // "decided", "max-pairs" or "interrupted"
	Finished time.Time         `json:"finished"`
	Openings string            `json:"openings,omitempty"` // where the pairs started
	// Odds places A on B's playout ladder, when one was climbed.
	Odds  *OddsInfo  `json:"odds,omitempty"`
	Games []FileGame `json:"games"`
}

// OddsInfo is a match's playout odds: B's ladder, and the multiple of its
// playouts B needs to score level with A.
type OddsInfo struct {
	Rungs []RungInfo `json:"rungs"`
	// Text is stats.Odds.String(), e.g. "2.6x [1.7x, 4.1x]".
	Text       string  `json:"text"`
	Multiplier float64 `json:"multiplier"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
}

// RungInfo is one rung of a ladder.
type RungInfo struct {
	Multiplier int     `json:"multiplier"`
	Player     string  `json:"player"`
	Pairs      int     `json:"pairs"`
	Counts     [5]int  `json:"counts"`
	Elo        float64 `json:"elo"`
	EloLo      float64 `json:"elo_lo"`
	EloHi      float64 `json:"elo_hi"`
}

// NewRungInfo describes a rung of a climbed ladder.
func NewRungInfo(r Rung) RungInfo {
	return RungInfo{Multiplier: r.Multiplier, Player: r.Player, Pairs: r.Report.Pairs,
		Counts: r.Report.Counts, Elo: r.Report.Elo, EloLo: r.Report.EloLo, EloHi: r.Report.EloHi}
}

// Point returns the rung as stats.PlayoutOdds reads it.
func (r RungInfo) Point() stats.LadderPoint {
	return stats.LadderPoint{Multiplier: float64(r.Multiplier), Elo: r.Elo, Lo: r.EloLo, Hi: r.EloHi}
}

// NewOddsInfo describes the odds of a match against a climbed ladder.
func NewOddsInfo(rungs []Rung, odds stats.Odds) *OddsInfo {
	info := &OddsInfo{Text: odds.String(), Multiplier: odds.Multiplier, Lo: odds.Lo, Hi: odds.Hi}
	for _, r := range rungs {
		info.Rungs = append(info.Rungs, NewRungInfo(r))
	}
	return info
}

// PlayerInfo names a player of a match.
type PlayerInfo struct {
	Name     string `json:"name"`
	Playouts int    `json:"playouts"`
	Network  string `json:"network,omitempty"`
	Engine   string `json:"engine,omitempty"` // an engine program's command
}

// FileGame is one game of a match.
type FileGame struct {
	Pair     int    `json:"pair"`
	Attacker string `json:"attacker"`
	Defender string `json:"defender"`
	Winner   string `json:"winner"` // "attackers", "defenders" or "draw"
	Reason   string `json:"reason"`
	Plies    int    `json:"plies"`
	Moves    string `json:"moves"`           // notation, with captures
	Start    string `json:"start,omitempty"` // the start position, if not the rule set's
	// Forfeit is why an engine program lost the game outside the rules
	// ("illegal-move", "timeout", "crash"; Reason says the same), and
	// Detail what happened.
	Forfeit string `json:"forfeit,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// AttackerScore returns the attacker's score: 1, 0.5 or 0.
func (g FileGame) AttackerScore() float64 {
	switch g.Winner {
	case "attackers":
		return 1
	case "defenders":
		return 0
	}
	return 0.5
}

// NewFile describes a finished match.
func NewFile(v *rules.Variant, a, b Player, test stats.SPRT, res Result) File {
	rep := res.Report
	for _, x := range []*float64{&rep.LLR, &rep.Elo, &rep.EloLo, &rep.EloHi, &rep.LOS} {
		if math.IsNaN(*x) || math.IsInf(*x, 0) {
			*x = 0 // no pairs yet: JSON has no NaN
		}
	}
	f := File{Variant: v.Name(), SPRT: test, Report: rep, Stopped: res.Stopped, Finished: time.Now().UTC(),
		A: PlayerInfo{a.Name, a.Playouts, a.Network, a.Command}, B: PlayerInfo{b.Name, b.Playouts, b.Network, b.Command}}
	if !variants.IsShipped(v) {
		def := v.Definition()
		f.Rules = &def
	}
	f.Decision = res.Report.Decision.Verdict()
	var buf []byte
	for _, p := range res.Pairs {
		for _, g := range p.Games {
			attacker, defender := a.Name, b.Name
			if !g.AAttacks {
				attacker, defender = b.Name, a.Name
			}
			var moves []string
			for i, m := range g.Moves {
				buf = rules.AppendMove(buf[:0], m, g.Captures[i])
				moves = append(moves, string(buf))
			}
			start := ""
			if g.Start.Size != 0 {
				start = g.Start.String()
			}
			reason := g.Outcome.Reason.String()
			if g.Forfeit != "" {
				reason = g.Forfeit
			}
			f.Games = append(f.Games, FileGame{Pair: p.Index, Attacker: attacker, Defender: defender,
				Winner: g.Outcome.Winner.String(), Reason: reason, Plies: len(g.Moves),
				Moves: strings.Join(moves, " "), Start: start, Forfeit: g.Forfeit, Detail: g.ForfeitDetail})
		}
	}
	return f
}

// ReadFile reads a match.json (the file, or the folder holding it).
func ReadFile(path string) (File, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, FileName)
	}
	data, err := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "a match file")
	if err != nil {
		return File{}, errctx.Errorf("match", "match file: %w", err)
	}
	var f File
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return File{}, errctx.Errorf("match", "match file %s: %w", path, err)
	}
	if f.Rules != nil {
		if f.Rules.Name != f.Variant {
			return File{}, errctx.Errorf("match", "match file %s: rules named %q for variant %q", path, f.Rules.Name, f.Variant)
		}
		if _, err := rules.Compile(*f.Rules); err != nil {
			return File{}, errctx.Key("match", "match file "+path+": rules", err)
		}
	}
	for i, g := range f.Games {
		if g.Attacker == "" || g.Defender == "" || (g.Winner != "attackers" && g.Winner != "defenders" && g.Winner != "draw") {
			return File{}, errctx.Errorf("match", "match file %s: game %d: attacker %q, defender %q, winner %q: not a finished game", path, i, g.Attacker, g.Defender, g.Winner)
		}
	}
	return f, nil
}

// Decided returns the match's decision (Decision read back with
// stats.ParseVerdict; stats.Continue for a word it does not know).
func (f *File) Decided() stats.Decision {
	d, _ := stats.ParseVerdict(f.Decision)
	return d
}

// WriteFiles writes a match's folder: match.json, games.csv (the
// games as game records, which eval replay checks; a game from an opening
// suite has its start position as a fifth field) and match.md.
func WriteFiles(dir string, f File) error {
	if err := fileio.WriteJSON(filepath.Join(dir, FileName), f); err != nil {
		return errctx.Errorf("match", "%w", err)
	}
	var csv strings.Builder
	for _, g := range f.Games {
		result := map[string]string{"attackers": "Black", "defenders": "White", "draw": "Draw"}[g.Winner]
		var captures [2]int // by side: the soldiers each side took
		mover := rules.Attackers
		if p, err := rules.ParsePosition(g.Start); g.Start != "" && err == nil {
			mover = p.ToMove
		}
		for _, m := range strings.Fields(g.Moves) {
			captures[mover] += strings.Count(m, "x")
			mover = mover.Opponent()
		}
		moves := g.Moves
		if g.Forfeit != "" {
			// The record's word for a game lost outside the rules.
			moves = strings.TrimSpace(moves + " " + g.Forfeit)
		}
		fmt.Fprintf(&csv, "%s,%d,%d,%s", moves, captures[rules.Attackers], captures[rules.Defenders], result)
		if g.Start != "" {
			csv.WriteString("," + g.Start)
		}
		csv.WriteByte('\n')
	}
	if err := fileio.WriteFile(filepath.Join(dir, "games.csv"), []byte(csv.String())); err != nil {
		return errctx.Errorf("match", "%w", err)
	}
	r := f.Report
	md := fmt.Sprintf(`# Match: %s against %s (%s)

| | |
| --- | --- |
| decision | %s (%s) |
| pairs | %d |
| LLR | %.2f (bounds %.2f, %.2f; H0 %g, H1 %g, alpha %g, beta %g) |
| Elo (A - B) | %.1f [%.1f, %.1f] |
| LOS | %.1f%% |
| pentanomial 0-2 | %v |
| A as attackers W/D/L | %d/%d/%d |
| A as defenders W/D/L | %d/%d/%d |
`, f.A.Name, f.B.Name, f.Variant, f.Decided().Text(), f.Stopped, r.Pairs, r.LLR, r.Lower, r.Upper,
		f.SPRT.Elo0, f.SPRT.Elo1, f.SPRT.Alpha, f.SPRT.Beta, r.Elo, r.EloLo, r.EloHi, 100*r.LOS, r.Counts,
		r.AsAttacker.Wins, r.AsAttacker.Draws, r.AsAttacker.Losses, r.AsDefender.Wins, r.AsDefender.Draws, r.AsDefender.Losses)
	if f.Openings != "" {
		md += fmt.Sprintf("| openings | %s |\n", f.Openings)
	}
	forfeits := ""
	for _, g := range f.Games {
		if g.Forfeit != "" {
			loser := g.Attacker
			if g.Winner == "attackers" {
				loser = g.Defender
			}
			forfeits += fmt.Sprintf("| %d | %s | %s after %d plies | %s |\n", g.Pair, loser, g.Forfeit, g.Plies, strings.ReplaceAll(g.Detail, "|", "/"))
		}
	}
	if forfeits != "" {
		md += "\nGames lost outside the rules (engine programs):\n\n| pair | lost by | reason | detail |\n| --- | --- | --- | --- |\n" + forfeits
	}
	if o := f.Odds; o != nil {
		md += fmt.Sprintf("| playout odds | B needs %s its playouts to score level with A |\n", o.Text)
		md += "\nB's playout ladder (B at k times its playouts against B):\n\n| k | pairs | pentanomial 0-2 | Elo |\n| --- | --- | --- | --- |\n"
		for _, r := range o.Rungs {
			md += fmt.Sprintf("| %d | %d | %v | %.1f [%.1f, %.1f] |\n", r.Multiplier, r.Pairs, r.Counts, r.Elo, r.EloLo, r.EloHi)
		}
	}
	if len(f.Games) > 0 {
		md += winsTable(f)
	}
	if err := fileio.WriteFile(filepath.Join(dir, "match.md"), []byte(md)); err != nil {
		return errctx.Errorf("match", "%w", err)
	}
	return nil
}
