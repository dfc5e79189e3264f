// Package ratings fits Bradley-Terry (logistic Elo) ratings with an
// attackers' advantage term over recorded matches (match.json files, which
// "eval match" and the loop's gates and baselines write), so that a
// player's rating does not depend on the sides it happened to play. Players
// are matched by name across files; players that no chain of games links
// are split into groups, each fitted on its own with its own anchor at 0
// Elo. Its main use is
//
//	cfg := ratings.DefaultConfig()
//	cfg.Paths = []string{"runs/r1"} // match folders, files, or folders above them
//	rep, err := ratings.Run(ctx, cfg)
//	if err != nil { ... }
//	fmt.Print(rep.Markdown())        // one table per group, strongest first
//	err = rep.SaveChart("ratings.png")
//
// and, over matches already read (the loop's summary does this),
//
//	rep, err := ratings.Fit(ratings.Matches{Files: files}, ratings.Config{Anchor: "builtin-200"})
//
// "eval ratings" is the command over Run's parts; ratings.json is Report
// as JSON.
package ratings

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"taflab/internal/errctx"
	"taflab/stats"
)

// Config is a fit to make.
type Config struct {
	// Paths are what Run reads: match folders or match.json files, or
	// folders searched recursively for match.json. Fit ignores them.
	Paths []string
	// Variant is the rule set to fit (its name as the match files write
	// it), or several named with commas, rated as one (Matches.Select);
	// "" for the one the files hold (Run refuses several).
	Variant string
	// Anchor is the player fixed at 0 Elo, and its group is fitted first;
	// "" for the group with the most games, anchored at its first
	// "builtin-*" player, else its first player met. Every other group is
	// anchored that way too.
	Anchor string
	// PriorSD (Elo) puts a normal prior of this standard deviation on
	// every rating, so that a player who won or lost every game is rated
	// all the same; 0 (the default) fits by maximum likelihood.
	PriorSD float64
	// FallbackPriorSD (Elo): when PriorSD is 0 and a group has no
	// maximum-likelihood fit, every group is fitted again with this prior,
	// and Report.PriorSD says so. 0 (the default): the fit fails instead.
	FallbackPriorSD float64
	// AnchorGroupOnly fits only the first group (the anchor's): the other
	// groups are left out of the report.
	AnchorGroupOnly bool
	// MaxFiles and MaxBytes bound what Run reads: at most MaxFiles match
	// files (default 10,000) of at most MaxBytes bytes together (default
	// 1 GiB); 0 means the default.
	MaxFiles int
	MaxBytes int64
}

// The defaults of Config's limits.
const (
	DefaultMaxFiles       = 10_000
	DefaultMaxBytes int64 = 1 << 30
)

// DefaultConfig returns a maximum-likelihood fit with the default limits
// and no paths.
func DefaultConfig() Config {
	return Config{MaxFiles: DefaultMaxFiles, MaxBytes: DefaultMaxBytes}
}

// SettingError is a setting of Config that cannot be used (Validate) or
// that the matches refuse (Select, Fit): Setting is Config's field, Value
// its value as a message shows it ("" when it was not given) and Problem
// what is wrong with it. A command shows it with its own flag's name.
type SettingError struct {
	Setting string // PriorSD, FallbackPriorSD, MaxFiles, MaxBytes, Variant or Anchor
	Value   string
	Problem string
}

func (e *SettingError) Error() string { return "ratings: " + e.Message() }

// Package is the name of the package whose error it is (errctx.MessageOf).
func (e *SettingError) Package() string { return "ratings" }

// Message is the error's text without the package's name.
func (e *SettingError) Message() string {
	if e.Value == "" {
		return e.Problem + " (" + e.Setting + ")"
	}
	return e.Setting + " " + e.Value + ": " + e.Problem
}

// Validate checks that the priors are finite and not negative and the
// limits not negative. Each problem is a *SettingError (joined).
func (c Config) Validate() error {
	var errs []error
	for _, p := range []struct {
		name string
		sd   float64
	}{{"PriorSD", c.PriorSD}, {"FallbackPriorSD", c.FallbackPriorSD}} {
		if !(p.sd >= 0) || math.IsInf(p.sd, 0) {
			errs = append(errs, &SettingError{p.name, fmt.Sprint(p.sd), "want a finite Elo of 0 or more"})
		}
	}
	if c.MaxFiles < 0 {
		errs = append(errs, &SettingError{"MaxFiles", fmt.Sprint(c.MaxFiles), "want 0 (the default) or more"})
	}
	if c.MaxBytes < 0 {
		errs = append(errs, &SettingError{"MaxBytes", fmt.Sprint(c.MaxBytes), "want 0 (the default) or more"})
	}
	return errors.Join(errs...)
}

// Report is a fit: ratings.json. The first group of players (the only one
// when games link them all) is at the top level, the others in
// OtherGroups.
type Report struct {
	Variant  string   `json:"variant"`
	Files    []string `json:"files"`
	PriorSD  float64  `json:"prior_sd"`
	AllGames int      `json:"all_games"` // of every group
	// Clashes names the players that the files give one name to different
	// players (networks or budgets), each rated as one player all the same
	// (Matches.Clashes; Run fills it, Fit does not).
	Clashes []string `json:"clashes,omitempty"`
	// SelfGames names the games of a player against itself that the fit
	// left out (Matches.SelfGames; Run fills it, Fit does not).
	SelfGames   []string `json:"self_games,omitempty"`
	OtherGroups []Group  `json:"other_groups"`
	Group
	// FirstMet lists every player in the order the games first met them
	// (the chart's order); not in ratings.json.
	FirstMet []string `json:"-"`
}

// Group is the fit of one group of players that games link: its ratings
// are relative to its anchor and not comparable with another group's.
type Group struct {
	Games           int      `json:"games"`
	Anchor          string   `json:"anchor"`
	SideAdvantage   float64  `json:"side_advantage"` // attackers' Elo bonus
	SideAdvantageSE float64  `json:"side_advantage_se"`
	SideAdvantage95 float64  `json:"side_advantage_ci95"`
	Dispersion      *float64 `json:"dispersion"` // null with no more games than parameters
	SEScale         float64  `json:"se_scale"`   // sqrt(dispersion) if above 1, else 1
	LogLikelihood   float64  `json:"log_likelihood"`
	Players         []Player `json:"players"` // strongest first
}

// Player is one rated player.
type Player struct {
	Name       string  `json:"name"`
	Generation *int    `json:"generation"` // parsed from the name (generation), or null
	Elo        float64 `json:"elo"`
	SE         float64 `json:"se"`   // the fit's standard error (0 for the anchor)
	CI95       float64 `json:"ci95"` // 1.96·SE·the dispersion scale
	Games      int     `json:"games"`
	Points     float64 `json:"points"`
	Score      float64 `json:"score"` // points per game
	Anchor     bool    `json:"anchor"`
}

// FitError is a group of players whose ratings could not be fitted (a
// player won or lost every game, say: a prior fits them anyway).
type FitError struct {
	Group, Of int      // the group, from 1, of Of groups
	Players   []string // the group's players
	Err       error    // stats.FitRatingsWith's error
}

func (e *FitError) Error() string { return "ratings: " + e.Message() }

// Package is the name of the package whose error it is (errctx.MessageOf).
func (e *FitError) Package() string { return "ratings" }

// Message is the error's text without the package's name.
func (e *FitError) Message() string {
	where := ""
	if e.Of > 1 {
		where = fmt.Sprintf("group %d of %d (%s): ", e.Group, e.Of, strings.Join(e.Players, ", "))
	}
	return where + e.Err.Error()
}

func (e *FitError) Unwrap() error { return e.Err }

// Run reads the match files of cfg.Paths, takes the games of cfg.Variant
// and fits them (Fit), with the name clashes among the files (also on a
// *FitError). An error that is not a *FitError is the input's: a setting
// that cannot be used or that the matches refuse (a *SettingError: several
// rule sets and no Variant, an unknown Anchor), a path that cannot be read,
// a malformed match file, past the limits, no games.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	m, err := Read(ctx, cfg)
	if err != nil {
		return Report{}, err
	}
	if m, err = m.Select(cfg.Variant); err != nil {
		return Report{}, err
	}
	rep, err := Fit(m, cfg)
	rep.Clashes, rep.SelfGames = m.Clashes(), m.SelfGames()
	return rep, err
}

// Fit fits the games of m, all of one rule set, group by group (see
// Config). Report.Files are m.Paths. On a *FitError the report holds the
// groups fitted before; an unknown Anchor is a *SettingError.
func Fit(m Matches, cfg Config) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	variants := m.Variants()
	switch {
	case len(variants) > 1:
		return Report{}, errctx.Errorf("ratings", "the matches hold games of several rule sets (%s): fit one at a time", strings.Join(variants, ", "))
	case len(variants) == 0:
		return Report{}, errctx.Errorf("ratings", "no matches")
	}
	games := m.Results()
	if len(games) == 0 {
		return Report{}, errctx.Errorf("ratings", "no games in %s", m.names())
	}
	players := m.Players()
	if cfg.Anchor != "" && !slices.Contains(players, cfg.Anchor) {
		return Report{}, &SettingError{"Anchor", strconv.Quote(cfg.Anchor), "no such player (players: " + strings.Join(players, ", ") + ")"}
	}
	groups := split(games, cfg.Anchor)
	if cfg.AnchorGroupOnly {
		groups = groups[:1]
	}
	rep := Report{Variant: variants[0], Files: m.Paths, PriorSD: cfg.PriorSD, AllGames: len(games), OtherGroups: []Group{},
		FirstMet: players}
	err := rep.fit(groups, cfg.PriorSD)
	var fe *FitError
	if errors.As(err, &fe) && cfg.PriorSD == 0 && cfg.FallbackPriorSD > 0 {
		rep.PriorSD = cfg.FallbackPriorSD
		err = rep.fit(groups, cfg.FallbackPriorSD)
	}
	return rep, err
}

// fit fits each group into the report, the first at the top level.
func (r *Report) fit(groups []group, priorSD float64) error {
	r.Group, r.OtherGroups = Group{}, []Group{}
	for i, g := range groups {
		fit, err := stats.FitRatingsWith(g.games, g.anchor, stats.FitOptions{PriorSD: priorSD})
		if err != nil {
			return &FitError{Group: i + 1, Of: g.of, Players: g.players, Err: err}
		}
		if i == 0 {
			r.Group = newGroup(fit)
		} else {
			r.OtherGroups = append(r.OtherGroups, newGroup(fit))
		}
	}
	return nil
}

// group is the games of one group of players that games link.
type group struct {
	games   []stats.Result
	players []string // in order of first appearance
	anchor  string
	of      int // the number of groups
}

// split splits the games by stats.Groups, in the order Config.Anchor
// documents (the group of anchor, else the one with the most games, then
// the rest as first met), each with its anchor: anchor if in the group,
// else its first builtin-* player, else its first player. The games keep
// their order.
func split(games []stats.Result, anchor string) []group {
	groups := stats.Groups(games)
	of := map[string]int{}
	out := make([]group, len(groups))
	for i, players := range groups {
		out[i] = group{players: players, anchor: players[0], of: len(groups)}
		for _, name := range players {
			of[name] = i
		}
		for _, name := range players {
			if strings.HasPrefix(name, "builtin-") {
				out[i].anchor = name
				break
			}
		}
	}
	for _, g := range games {
		i := of[g.Attacker]
		out[i].games = append(out[i].games, g)
	}
	first := 0
	for i := range out {
		if anchor != "" && of[anchor] == i {
			out[i].anchor = anchor
			first = i
			break
		}
		if anchor == "" && len(out[i].games) > len(out[first].games) {
			first = i
		}
	}
	return append([]group{out[first]}, append(out[:first:first], out[first+1:]...)...)
}

// newGroup turns a fit into the report of its group.
func newGroup(r stats.Ratings) Group {
	scale := r.SEScale()
	var disp *float64
	if !math.IsNaN(r.Dispersion) {
		d := r.Dispersion
		disp = &d
	}
	rep := Group{Games: r.Games, Anchor: r.Anchor,
		SideAdvantage: r.SideAdvantage, SideAdvantageSE: r.SideAdvantageSE, SideAdvantage95: 1.96 * r.SideAdvantageSE * scale,
		Dispersion: disp, SEScale: scale, LogLikelihood: r.LogLikelihood}
	for _, p := range r.Players {
		q := Player{Name: p.Name, Elo: p.Elo, SE: p.SE, CI95: 1.96 * p.SE * scale, Games: p.Games, Points: p.Points,
			Anchor: p.Name == r.Anchor}
		if g, ok := generation(p.Name); ok {
			q.Generation = &g
		}
		if p.Games > 0 {
			q.Score = p.Points / float64(p.Games)
		}
		rep.Players = append(rep.Players, q)
	}
	return rep
}
