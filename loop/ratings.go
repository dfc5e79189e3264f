package loop

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"taflab/match"
	"taflab/ratings"
)

// RunRatings is one Bradley-Terry fit (stats.FitRatings, with the
// attackers' advantage) over every gate and baseline game of a run played
// at the baseline's playouts, anchored at the network-free searcher. The
// baseline alone rates each generation on a few games against one
// opponent, whose score saturates once a network is far stronger; the
// gates add each generation's games against the best network before it,
// so the fit places the generations against each other as well.
type RunRatings struct {
	Anchor        string  `json:"anchor"` // the network-free searcher, at 0 Elo
	Games         int     `json:"games"`
	SideAdvantage float64 `json:"side_advantage"` // the attackers' Elo bonus
	SideCI95      float64 `json:"side_advantage_ci95"`
	// PriorSD is the normal prior (Elo) the fit needed because the games
	// have no maximum-likelihood fit (stats.FitRatings says when: a player
	// won or lost every game, say); 0 for maximum likelihood.
	PriorSD float64 `json:"prior_sd"`
	// Players holds every player of the fit, generation 0, the anchor and
	// the outside players among them, strongest first.
	Players []RatedPlayer `json:"players"`
	// OutsidePlayers names the outside players (baseline.outside) among
	// Players; OtherRules those of them whose games were of another rule
	// set than the run's, counted in the fit as the run's.
	OutsidePlayers []string `json:"outside_players,omitempty"`
	OtherRules     []string `json:"other_rules,omitempty"`
}

// RatedPlayer is one player of RunRatings.
type RatedPlayer struct {
	Name  string  `json:"name"`
	Elo   float64 `json:"elo"`
	CI95  float64 `json:"ci95"` // 1.96 standard errors, times sqrt(dispersion) when above 1
	Games int     `json:"games"`
}

// Describe says in a sentence what the fit rests on: its games, its
// anchor, the attackers' advantage and any prior.
func (r *RunRatings) Describe() string {
	text := fmt.Sprintf("Ratings: a Bradley-Terry fit over %d %s games at the baseline's playouts, %s = 0; "+
		"the attackers' advantage %+.0f ± %.0f Elo.", r.Games, r.kinds(), r.Anchor, r.SideAdvantage, r.SideCI95)
	if r.PriorSD > 0 {
		text += fmt.Sprintf(" The games have no maximum-likelihood fit (a player won or lost every game, say), so every rating has a normal prior of SD %.0f Elo.", r.PriorSD)
	}
	if outside := r.Outside(); len(outside) > 0 {
		parts := make([]string, len(outside))
		for i, p := range outside {
			parts[i] = fmt.Sprintf("%s %.0f ± %.0f (%d games)", p.Name, p.Elo, p.CI95, p.Games)
		}
		text += " The outside players on this scale: " + strings.Join(parts, ", ") + "."
		if len(r.OtherRules) > 0 {
			text += " The games against " + strings.Join(r.OtherRules, ", ") + " were played under baseline.outside's variant " +
				"(gen-NNN/outside/NAME/variant.toml) and count as the run's rule set's."
		}
	}
	return text
}

// Outside returns the outside players of the fit (baseline.outside),
// strongest first.
func (r *RunRatings) Outside() []RatedPlayer {
	var out []RatedPlayer
	for _, p := range r.Players {
		if slices.Contains(r.OutsidePlayers, p.Name) {
			out = append(out, p)
		}
	}
	return out
}

// ByGeneration lists the generations' ratings in generation order, then
// the outside players', on one line.
func (r *RunRatings) ByGeneration() string {
	var gens []RatedPlayer
	for _, p := range r.Players {
		if _, ok := ParseGenName(p.Name); ok {
			gens = append(gens, p)
		}
	}
	sort.Slice(gens, func(i, j int) bool { return gens[i].Name < gens[j].Name })
	parts := make([]string, len(gens))
	for i, p := range gens {
		parts[i] = fmt.Sprintf("%s %.0f ± %.0f", p.Name, p.Elo, p.CI95)
	}
	line := fmt.Sprintf("ratings over the run's %s games (%s = 0): %s", r.kinds(), r.Anchor, strings.Join(parts, ", "))
	for i, p := range r.Outside() {
		sep := ", "
		if i == 0 {
			sep = "; outside players: "
		}
		line += fmt.Sprintf("%s%s %.0f ± %.0f", sep, p.Name, p.Elo, p.CI95)
	}
	return line
}

// kinds names the kinds of match the fit rests on.
func (r *RunRatings) kinds() string {
	if len(r.Outside()) > 0 {
		return "gate, baseline and outside"
	}
	return "gate and baseline"
}

// ratingsPriorSD is the prior a run's rating fit falls back on when the
// maximum-likelihood ratings do not exist, as eval ratings' -prior-sd
// suggests.
const ratingsPriorSD = 400

// fitRunRatings fits RunRatings over the generations' gate and baseline
// games (matches[g-1] is generation g's), or returns nil when no baseline
// has been played. Only games at the baseline's playouts count (a gate at
// other playouts rates other players), and only players a chain of games
// links to the network-free searcher.
func fitRunRatings(matches []genMatches) (*RunRatings, error) {
	anchor, playouts, variant := "", 0, ""
	for _, m := range matches {
		if m.baseline != nil {
			anchor, playouts, variant = m.baseline.B.Name, m.baseline.B.Playouts, m.baseline.Variant
			break
		}
	}
	var outside, otherRules []string
	if anchor == "" {
		return nil, nil
	}
	var files []match.File
	for _, m := range matches {
		for _, f := range []*match.File{m.gate, m.baseline} {
			if f != nil && f.A.Playouts == playouts && f.B.Playouts == playouts {
				files = append(files, *f)
			}
		}
		for _, om := range m.outside {
			f := *om.file
			if f.A.Playouts != playouts { // the generation at the baseline's playouts
				continue
			}
			if !slices.Contains(outside, f.B.Name) {
				outside = append(outside, f.B.Name)
			}
			if om.otherRules && !slices.Contains(otherRules, f.B.Name) {
				otherRules = append(otherRules, f.B.Name)
			}
			f.Variant = variant // one fit needs one rule set's name
			files = append(files, f)
		}
	}
	r, err := ratings.Fit(ratings.Matches{Files: files},
		ratings.Config{Anchor: anchor, AnchorGroupOnly: true, FallbackPriorSD: ratingsPriorSD})
	if err != nil {
		return nil, within("ratings over the run's games", err)
	}
	out := &RunRatings{Anchor: r.Anchor, Games: r.Games, SideAdvantage: r.SideAdvantage, SideCI95: r.SideAdvantage95, PriorSD: r.PriorSD,
		OutsidePlayers: outside, OtherRules: otherRules}
	for _, p := range r.Players {
		out.Players = append(out.Players, RatedPlayer{Name: p.Name, Elo: p.Elo, CI95: p.CI95, Games: p.Games})
	}
	return out, nil
}
