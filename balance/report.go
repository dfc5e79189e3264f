package balance

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"taflab/internal/errctx"
	"taflab/internal/fileio"

	"taflab/match"
	"taflab/stats"
)

// Report is a balance study's figures; its JSON is balance.json.
type Report struct {
	// Command is the command that made the report, if a command did: how
	// to make it again.
	Command     string          `json:"command,omitempty"`
	Variants    []string        `json:"variants"`
	Players     []string        `json:"players"`
	MaxGames    int             `json:"max_games"`
	Width       float64         `json:"width"`
	Confidence  float64         `json:"confidence"`
	MinGames    int             `json:"min_games"`
	Seed        uint64          `json:"seed"`
	Search      SearchSettings  `json:"search"`
	Interrupted bool            `json:"interrupted"`
	Runs        []RunReport     `json:"runs"`
	Comparisons []Comparison    `json:"comparisons"`
	Records     []RecordsReport `json:"records"`
	Baselines   []Baseline      `json:"baselines"`
	// ByPlayouts says that the runs are of one player at several budgets:
	// the chart's x is then playouts. Not in the JSON: a report read back
	// is charted one category per player.
	ByPlayouts bool `json:"-"`
}

// SearchSettings are the search settings that shape the games.
type SearchSettings struct {
	FullSearchProb      float64 `json:"full_search_prob"`
	NoiseFraction       float64 `json:"noise_fraction"`
	TemperatureStart    float64 `json:"temperature_start"`
	TemperatureEnd      float64 `json:"temperature_end"`
	TemperatureHalfLife float64 `json:"temperature_half_life"`
}

// Rate is a rate with its Wilson interval.
type Rate struct {
	Wins  int     `json:"wins"`
	Games int     `json:"games"`
	Rate  float64 `json:"rate"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

func newRate(p stats.Proportion) Rate {
	return Rate{Wins: p.Successes, Games: p.N, Rate: p.P, Lo: p.Lo, Hi: p.Hi}
}

// String formats the rate as "0.412 [0.371, 0.455]".
func (r Rate) String() string { return fmt.Sprintf("%.3f [%.3f, %.3f]", r.Rate, r.Lo, r.Hi) }

// Summary is what a run's or a record file's games came to: the three
// rates, the endings and the lengths in plies of the games with a result.
type Summary struct {
	Attackers Rate           `json:"attackers"`
	Defenders Rate           `json:"defenders"`
	Draws     Rate           `json:"draws"`
	Endings   map[string]int `json:"endings"`
	Lengths   match.Lengths  `json:"lengths"`
}

// summarize reports the games of a tally.
func summarize(t *match.Tally, confidence float64) Summary {
	r := t.Outcomes().Rates(confidence)
	endings := maps.Clone(t.Endings)
	if endings == nil {
		endings = map[string]int{}
	}
	return Summary{Attackers: newRate(r.Attacker), Defenders: newRate(r.Defender), Draws: newRate(r.Draw),
		Endings: endings, Lengths: t.LengthSummary()}
}

// Outcomes returns the counts behind the rates.
func (s Summary) Outcomes() stats.Outcomes {
	return stats.Outcomes{AttackerWins: s.Attackers.Wins, DefenderWins: s.Defenders.Wins, Draws: s.Draws.Wins}
}

// RunReport is one rule set at one strength.
type RunReport struct {
	Variant string `json:"variant"`
	Player  string `json:"player"`
	Network string `json:"network,omitempty"`
	// Evaluator is a searching player's evaluator: the network's hash
	// and the planes it is shown ("net-HASH", "net-HASH-as-NAME"), or the
	// network-free one's.
	Evaluator string `json:"evaluator,omitempty"`
	Playouts  int    `json:"playouts"`
	// RootSearch is "gumbel" for a player with Gumbel root search, which
	// has no root noise or temperature; "" for the search of "search".
	RootSearch string `json:"root_search,omitempty"`
	Openings   string `json:"openings"` // "start", or the suite the games started from
	Games      int    `json:"games"`
	Stopped    string `json:"stopped"` // "precision", "max-games" or "interrupted"
	Summary
	// Seconds and CPUSeconds are the run's wall and processor time, over
	// every attempt of a study carried on from its journal: the
	// process's CPU time (all threads), not an engine program's own.
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	// Engine is an engine player's command; Forfeits counts the games one
	// of its instances lost outside the rules (also among Endings, as
	// "forfeit-" and the reason), and FirstForfeit says what happened in
	// the first.
	Engine       string `json:"engine,omitempty"`
	Forfeits     int    `json:"forfeits,omitempty"`
	FirstForfeit string `json:"first_forfeit,omitempty"`
}

// Comparison is the test of two rule sets' defender rates at one
// strength.
type Comparison struct {
	Player string  `json:"player"`
	A      string  `json:"a"`
	B      string  `json:"b"`
	Diff   float64 `json:"diff"` // defender rate of A minus that of B
	Z      float64 `json:"z"`
	P      float64 `json:"p"`
	PHolm  float64 `json:"p_holm"`
}

// RecordsReport is the report of a game-record file.
type RecordsReport struct {
	File    string `json:"file"`
	Variant string `json:"variant"`
	Games   int    `json:"games"`   // every game of the file
	Ongoing int    `json:"ongoing"` // left out of the rates and lengths
	Summary
	// Disagree counts the games the rules end on the last recorded move
	// with another winner than the record states.
	Disagree int `json:"rules_disagree"`
	// Illegal counts the games with a move the rules refuse; FirstError
	// names the first.
	Illegal    int    `json:"illegal"`
	FirstError string `json:"first_error,omitempty"`
}

// Baseline compares a record file's defender rate with a self-play run's
// of the same rule set.
type Baseline struct {
	File    string  `json:"file"`
	Variant string  `json:"variant"`
	Player  string  `json:"player"`
	Diff    float64 `json:"diff"` // records minus self-play
	Z       float64 `json:"z"`
	P       float64 `json:"p"`
}

// The files of a study's folder besides its journal (JournalFile).
const (
	JSONFile     = "balance.json"
	MarkdownFile = "balance.md"
	ChartFile    = "balance.png"
)

// WriteFiles writes the report into folder dir, each file whole:
// JSONFile, MarkdownFile and ChartFile.
func WriteFiles(dir string, rep Report) error {
	return errors.Join(
		fileio.WriteJSON(filepath.Join(dir, JSONFile), rep),
		fileio.WriteFile(filepath.Join(dir, MarkdownFile), []byte(rep.Markdown())),
		Chart(rep, filepath.Join(dir, ChartFile)),
	)
}

// CheckResume refuses to start a study in folder dir when it holds a
// study's games (its journal) unless resume, and to resume one where it
// holds none.
func CheckResume(dir string, resume bool) error {
	_, err := os.Stat(filepath.Join(dir, JournalFile))
	switch {
	case err == nil && !resume:
		return errctx.Errorf("balance", "%s holds a study's games (%s): -resume to carry it on, or give another -out", dir, JournalFile)
	case err != nil && resume:
		return errctx.Errorf("balance", "-resume: %s holds no study's games (%s) to carry on", dir, JournalFile)
	}
	return nil
}
