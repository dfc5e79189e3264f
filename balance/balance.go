// Package balance measures how the rule sets balance: each player plays
// itself under each rule set, and the report gives the attacker, defender
// and draw rates with Wilson intervals, how the games ended, their lengths,
// and whether two rule sets' defender rates differ at a strength. Game
// records (human games, say) get the same report and are compared with the
// self-play of their rule set. Its main use is
//
//	cfg := balance.DefaultConfig()
//	cfg.Variants = []*rules.Variant{variants.MustLoad("copenhagen"), variants.MustLoad("fetlar")}
//	cfg.Strengths = []int{50, 200, 800} // the builtin player at each budget
//	rep, err := balance.Run(ctx, cfg)
//	fmt.Print(rep.Markdown())
//	err = balance.Chart(rep, "balance.png")
//
// Each rule set played by a network made for it, carried on from a
// journal after a stop:
//
//	cfg.Players = []player.Spec{player.NetworkSpec(balance.OwnNetwork, 400)}
//	cfg.Networks = player.ShippedNetworks() // rule-set name -> network file
//	cfg.Journal = filepath.Join(dir, balance.JournalFile)
//
// Games count in the order they were started, not as they finish, so that
// a run that stops early at the precision asked does not favour the short
// games; every game has its own seed, so a run does not depend on the
// number of workers, nor on where it was stopped and carried on.
package balance

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
	"taflab/stats"
)

// Config is a balance study's settings.
type Config struct {
	// Variants are the rule sets, in the report's order; none reports the
	// records only. Default: the embedded ones (variants.Names).
	Variants []*rules.Variant
	// Players play themselves, one run per rule set each. Default:
	// builtin:playouts=200.
	Players []player.Spec
	// Strengths, if set, replace each player's playouts with each of these
	// budgets (1 to mcts.MaxPlayouts, each once): one run per player and
	// budget (Ladder). An engine program has no playouts to replace.
	Strengths []int
	// MaxGames is the most games of a run, at least 1. Default 1000.
	MaxGames int
	// Width stops a run once each of its three intervals is at most this
	// wide and it has MinGames games: 0 to 1, 0 plays every game. Default
	// 0.1.
	Width float64
	// Confidence is the intervals' level, strictly between 0 and 1.
	// Default 0.95.
	Confidence float64
	// MinGames is the games a run plays before it may stop early, 0 or
	// more. Default 50.
	MinGames int
	// Workers play a run's games, each GamesPerWorker at once with their
	// evaluations batched. 0 (the default): one per core for a search, and
	// match's default for an engine program (one worker).
	Workers int
	// GamesPerWorker is the games a worker plays at once. 0 (the
	// default): 8 for a search, and match's default for an engine program
	// (one pair).
	GamesPerWorker int
	// Seed seeds the games: each game's seed mixes it with the rule set's
	// name, the player's name and the game's number. Default 1.
	Seed uint64
	// Suites starts the games from each rule set's opening suite in turn
	// (openings.LoadSuite) instead of its start.
	Suites bool
	// Records are game-record files to report on as well, replayed under
	// RecordsVariant (default copenhagen-classic).
	Records        []RecordFile
	RecordsVariant *rules.Variant
	// Networks are the rule sets' own network files, by rule-set name: a
	// Network player whose Net is OwnNetwork plays each rule set with the
	// file named here (shown that rule set's planes unless the file or
	// the spec names others), so that every rule set is played by a
	// network made for it. A rule set without one is an error.
	Networks map[string]string
	// Journal, if set, is the study's journal file (JournalFile in its
	// folder): every game is kept in it as it finishes, and a study run
	// again with it carries each run on from the games it holds (the
	// same games, seed for seed); a run played before with other rules,
	// player, search, seed or openings is refused. MaxGames, Width and
	// MinGames may change between attempts.
	Journal string
	// Loader loads the players, each network file once; nil: a new one.
	// Pass the one that checked the players (Entries) to load each file
	// once in all.
	Loader *player.Loader
	// Progress, if set, is told of each run's start, of each game it
	// counts and of its end, from one goroutine at a time.
	Progress func(Progress)
}

// Progress is how far a run has come.
type Progress struct {
	Variant, Player string
	Games           int // counted so far
	MaxGames        int
	Rates           stats.OutcomeRates // of the games counted
	Engine          bool               // the player is an engine program
	Forfeits        int                // an engine program's forfeits so far
	Done            bool               // the run has ended: the last call of the run
}

// DefaultConfig returns the defaults: every embedded rule set, the builtin
// player at 200 playouts, up to 1000 games a run stopping at intervals 0.1
// wide (95%) after at least 50 games.
func DefaultConfig() Config {
	var vs []*rules.Variant
	for _, name := range variants.Names() {
		vs = append(vs, variants.MustLoad(name))
	}
	return Config{Variants: vs, Players: []player.Spec{player.BuiltinSpec(200)}, MaxGames: 1000, Width: 0.1,
		Confidence: 0.95, MinGames: 50, Seed: 1, RecordsVariant: variants.MustLoad("copenhagen-classic")}
}

// Validate checks the settings, without loading anything.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, errctx.Errorf("balance", format, a...)) }
	if c.MaxGames < 1 {
		bad("MaxGames %d: want at least 1", c.MaxGames)
	}
	if !(c.Width >= 0 && c.Width <= 1) {
		bad("Width %v: want an interval width from 0 to 1 (0: never stop early)", c.Width)
	}
	if !(c.Confidence > 0 && c.Confidence < 1) {
		bad("Confidence %v: want a level strictly between 0 and 1, such as 0.95", c.Confidence)
	} else if c.Width > 0 {
		if err := c.precisionStop().Validate(); err != nil {
			bad("%v", err)
		}
	}
	if c.MinGames < 0 || c.Workers < 0 || c.GamesPerWorker < 0 {
		bad("MinGames %d, Workers %d, GamesPerWorker %d: want 0 or more", c.MinGames, c.Workers, c.GamesPerWorker)
	}
	for i, n := range c.Strengths {
		if n < 1 || n > mcts.MaxPlayouts || slices.Contains(c.Strengths[:i], n) {
			bad("Strengths %v: %d is not a playout budget from 1 to %d given once", c.Strengths, n, mcts.MaxPlayouts)
		}
	}
	names := map[string]bool{}
	for _, v := range c.Variants {
		if v == nil || names[v.Name()] {
			bad("Variants: want each rule set once, none nil")
			break
		}
		names[v.Name()] = true
	}
	switch {
	case len(c.Variants) > 0 && len(c.Players) == 0:
		bad("no Players to play the rule sets")
	case len(c.Variants) == 0 && len(c.Records) == 0:
		bad("no Variants and no Records: nothing to report")
	case len(c.Records) > 0 && c.RecordsVariant == nil:
		bad("Records without a RecordsVariant")
	}
	return errors.Join(errs...)
}

// precisionStop is the rule that stops a run early; nil with Width 0.
func (c Config) precisionStop() *stats.PrecisionStop {
	if c.Width == 0 {
		return nil
	}
	return &stats.PrecisionStop{Width: c.Width, Confidence: c.Confidence, MinGames: c.MinGames}
}

// Ladder returns each spec at each of strengths (Spec.WithPlayouts), spec
// by spec, or the specs as they are for no strengths. An engine program
// has no playouts to replace: an error.
func Ladder(specs []player.Spec, strengths []int) ([]player.Spec, error) {
	if len(strengths) == 0 {
		return specs, nil
	}
	var out []player.Spec
	for _, s := range specs {
		if s.Kind == player.Program {
			return nil, errctx.Errorf("balance", "player %s is an engine program, which has no playouts to replace", s.Name)
		}
		for _, n := range strengths {
			out = append(out, s.WithPlayouts(n))
		}
	}
	return out, nil
}

// OwnNetwork is the Net of a Network player spec ("net=own,playouts=400")
// that plays each rule set with its own network (Config.Networks).
const OwnNetwork = "own"

// ParseNetworks reads rule sets' own networks, "NAME=FILE,..." (NAME a
// rule set's name, not its file's), into networks.
func ParseNetworks(text string, networks map[string]string) error {
	for _, part := range strings.Split(text, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, file, ok := strings.Cut(part, "=")
		if !ok || name == "" || file == "" {
			return errctx.Errorf("balance", "%q is not NAME=FILE (a rule set's name and its network file)", part)
		}
		networks[name] = file
	}
	return nil
}

// Entry is one run of a study: a rule set, and the player that plays
// itself under it.
type Entry struct {
	Variant *rules.Variant
	Player  match.Player
}

// Entries returns the study's runs in order, each player (Ladder) under
// each rule set, loaded by c.Loader: a network file is read once,
// whatever the budgets. A missing network (a rule set without its own for
// an OwnNetwork player), one of another encoding, two players of one name
// or settings its search refuses is an error.
func (c Config) Entries() ([]Entry, error) {
	specs, err := Ladder(c.Players, c.Strengths)
	if err != nil {
		return nil, err
	}
	l := c.Loader
	if l == nil {
		l = new(player.Loader)
	}
	var out []Entry
	seen := map[runKey]bool{}
	for _, s := range specs {
		for _, v := range c.Variants {
			p, err := c.load(l, s, v)
			if err != nil {
				return nil, err
			}
			k := runKey{v.Name(), p.Name}
			if seen[k] {
				return nil, errctx.Errorf("balance", "%q gives player %s a second time", s.String(), p.Name)
			}
			seen[k] = true
			out = append(out, Entry{Variant: v, Player: p})
		}
	}
	return out, nil
}

// load loads spec s as the player of rule set v: for an OwnNetwork spec,
// with v's own network, named "own" and its budget.
func (c Config) load(l *player.Loader, s player.Spec, v *rules.Variant) (match.Player, error) {
	own := s.Kind == player.Network && s.Net == OwnNetwork
	if own {
		file, ok := c.Networks[v.Name()]
		if !ok {
			return match.Player{}, errctx.Errorf("balance", "player %q: rule set %s has no network of its own (Networks)", s.String(), v.Name())
		}
		s.Net = file
	}
	p, err := l.Load(s)
	if err != nil {
		return p, within(fmt.Sprintf("player %q", s.String()), err)
	}
	if own {
		n, err := l.Network(s.Net)
		if err != nil {
			return p, within(fmt.Sprintf("player %q", s.String()), err)
		}
		// Loader names it FILE-HASH-PLAYOUTS...: the same name for every
		// rule set's own network.
		p.Name = OwnNetwork + strings.TrimPrefix(p.Name, strings.TrimSuffix(filepath.Base(s.Net), ".safetensors")+"-"+n.Hash()[:6])
	}
	if p.NewProgram == nil { // an engine searches as it will
		search := p.SelfPlaySearch(mcts.DefaultConfig())
		if err := search.Validate(); err != nil {
			return p, within("player "+p.Name, err)
		}
	}
	return p, nil
}

// Run plays every player against itself under every rule set, reports the
// record files, and compares. It returns the report of the games played
// so far also when a run fails or ctx is done, then with the error (ctx's
// when stopped, and the report's Interrupted set). A config that Validate,
// Entries, the opening suites or the journal refuse is an error before
// any game, with the zero Report.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	if cfg.Loader == nil {
		cfg.Loader = new(player.Loader)
	}
	var entries []Entry
	if len(cfg.Variants) > 0 {
		var err error
		if entries, err = cfg.Entries(); err != nil {
			return Report{}, err
		}
	}
	for _, v := range cfg.Variants {
		if _, err := suite(cfg, v); err != nil {
			return Report{}, err
		}
	}
	var j *journal
	if cfg.Journal != "" && len(entries) > 0 {
		var err error
		if j, err = openJournal(cfg.Journal); err != nil {
			return Report{}, err
		}
		defer j.close()
	}
	def := mcts.DefaultConfig()
	rep := Report{MaxGames: cfg.MaxGames, Width: cfg.Width, Confidence: cfg.Confidence, MinGames: cfg.MinGames, Seed: cfg.Seed,
		Search: SearchSettings{FullSearchProb: 1, NoiseFraction: def.NoiseFraction, TemperatureStart: def.TemperatureStart,
			TemperatureEnd: def.TemperatureEnd, TemperatureHalfLife: def.TemperatureHalfLife},
		Variants: []string{}, Players: []string{}, Runs: []RunReport{}, Comparisons: []Comparison{}, Records: []RecordsReport{},
		Baselines:  []Baseline{},
		ByPlayouts: len(cfg.Players) == 1 && cfg.Players[0].Kind != player.Program}
	for _, v := range cfg.Variants {
		rep.Variants = append(rep.Variants, v.Name())
	}
	for _, e := range entries {
		if !slices.Contains(rep.Players, e.Player.Name) {
			rep.Players = append(rep.Players, e.Player.Name)
		}
	}
	for _, rf := range cfg.Records {
		rep.Records = append(rep.Records, ReportRecords(rf, cfg.RecordsVariant, cfg.Confidence))
	}

	var runErr error
	for _, e := range entries {
		run, err := playRun(ctx, &cfg, e.Variant, e.Player, j)
		if run.Games > 0 || !errors.Is(err, context.Canceled) {
			rep.Runs = append(rep.Runs, run)
		}
		if err != nil {
			rep.Interrupted = errors.Is(err, context.Canceled)
			runErr = err
			break
		}
	}
	rep.compare()
	return rep, runErr
}

// suite returns the opening suite of v when the games start from it, nil
// when they start from v's start.
func suite(cfg Config, v *rules.Variant) ([]openings.SuiteEntry, error) {
	if !cfg.Suites {
		return nil, nil
	}
	s, err := openings.LoadSuite("", v)
	if err != nil {
		return nil, within(v.Name(), err)
	}
	return s, nil
}

// compare fills the pairwise comparisons of the rule sets at each strength
// and the comparisons of each record file with the self-play runs of its
// rule set.
func (rep *Report) compare() {
	for _, name := range rep.Players {
		var runs []RunReport
		var sets []stats.Outcomes
		for _, r := range rep.Runs {
			if r.Player == name {
				runs = append(runs, r)
				sets = append(sets, r.Outcomes())
			}
		}
		for _, c := range stats.CompareDefenderRates(sets) {
			rep.Comparisons = append(rep.Comparisons, Comparison{Player: name, A: runs[c.A].Variant, B: runs[c.B].Variant,
				Diff: c.Diff, Z: c.Z, P: c.P, PHolm: c.PHolm})
		}
	}
	for _, rec := range rep.Records {
		for _, r := range rep.Runs {
			if r.Variant != rec.Variant {
				continue
			}
			o := rec.Outcomes()
			z, p := stats.TwoProportion(o.DefenderWins, o.Games(), r.Defenders.Wins, r.Games)
			diff := 0.0
			if o.Games() > 0 && r.Games > 0 {
				diff = rec.Defenders.Rate - r.Defenders.Rate
			}
			rep.Baselines = append(rep.Baselines, Baseline{File: rec.File, Variant: rec.Variant, Player: r.Player, Diff: diff, Z: z, P: p})
		}
	}
}

// seconds rounds a duration in seconds to a thousandth.
func seconds(s float64) float64 { return math.Round(s*1000) / 1000 }

// within puts another package's error under a key of balance's input:
// "balance: KEY: MESSAGE" (errctx.Key).
func within(key string, err error) error { return errctx.Key("balance", key, err) }
