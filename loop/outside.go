package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
)

// OutsideDir is the folder of a generation's matches against the outside
// players (baseline.outside): gen-NNN/outside/NAME, one per player.
const OutsideDir = "outside"

// outsidePlayer is one of baseline.outside, read once per run.
type outsidePlayer struct {
	key     string // "baseline.outside[i]", for errors
	spec    player.Spec
	name    string         // its match player's name; names its match folder
	variant *rules.Variant // the rule set of its games
	// otherRules: variant is another rule set than the run's (another
	// program's reading of its rules, say).
	otherRules bool
	openings   string // the gate's openings as these games read them (outsideOpenings)
	games      int
}

// outsideName is what an outside player's name may be: it names a folder.
var outsideName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// readOutside reads baseline.outside before the run does any work: each
// player's spec, its name (a folder's name, unique, neither a
// generation's nor the baseline's), the rule set of its games (of the
// run's board) and their openings. It starts no program.
func readOutside(cfg configs.Loop, v *rules.Variant) ([]outsidePlayer, error) {
	var out []outsidePlayer
	seen := map[string]bool{}
	players := new(player.Loader)
	baseline, err := players.Load(player.BuiltinSpec(cfg.Baseline.Playouts))
	if err != nil {
		return nil, err
	}
	for i, o := range cfg.Baseline.Outside {
		key := fmt.Sprintf("baseline.outside[%d]", i)
		spec, err := player.ParseSpec(o.Player)
		if err != nil {
			return nil, within(key+".player", err)
		}
		p, err := players.Load(spec)
		if err != nil {
			return nil, within(key+".player", err)
		}
		switch _, isGen := ParseGenName(p.Name); {
		case !outsideName.MatchString(p.Name):
			return nil, errctx.Errorf("loop", "%s.player: name %q: want letters, digits, '.', '_' and '-' (it names the match folder); set name=", key, p.Name)
		case isGen || p.Name == baseline.Name:
			return nil, errctx.Errorf("loop", "%s.player: name %q is the run's own player's; set another name=", key, p.Name)
		case seen[p.Name]:
			return nil, errctx.Errorf("loop", "%s.player: name %q: another outside player has it; give each its own name=", key, p.Name)
		}
		seen[p.Name] = true
		op := outsidePlayer{key: key, spec: spec, name: p.Name, variant: v, games: o.Games}
		if o.Variant != "" {
			if op.variant, err = configs.LoadVariant(o.Variant); err != nil {
				return nil, within(key+".variant", err)
			}
			if op.variant.Size() != v.Size() {
				return nil, errctx.Errorf("loop", "%s.variant: a %dx%d rule set for a run on %dx%d boards, whose networks play no other", key, op.variant.Size(), op.variant.Size(), v.Size(), v.Size())
			}
		}
		op.otherRules = op.variant.Definition() != v.Definition()
		op.openings = outsideOpenings(cfg.Gate.Openings, v, op.otherRules)
		if _, _, err := openings.Openings(op.openings, op.variant, 1, cfg.Gate.OpeningPlies, 0); err != nil {
			return nil, within(key+": gate.openings", err)
		}
		out = append(out, op)
	}
	return out, nil
}

// outsideOpenings is the gate's openings spec for games of an outside
// player: in games of another rule set than the run's, "suite" is the run's
// suite, its positions played under the other reading of the rules.
func outsideOpenings(gate string, v *rules.Variant, otherRules bool) string {
	if gate == "suite" && otherRules {
		return "suite:" + v.Name()
	}
	return gate
}

// playOutside rates the generation's candidate against outside player o,
// the i-th: a fixed number of pairs at the baseline's playouts, on the
// gate's openings (outsideOpenings; outsideCandidate says which planes the
// network is shown). A match of another rule set than the run's keeps it
// in its folder as VariantFile, which the summary reads.
func (g *generation) playOutside(ctx context.Context, i int, o outsidePlayer) error {
	a, err := outsideCandidate(g.players, g.candidate(), g.run.cfg.Baseline.Playouts, g.name(), g.run.variant, o.variant)
	if err != nil {
		return err
	}
	b, err := g.players.Load(o.spec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(g.dir, OutsideDir), 0o755); err != nil {
		return err
	}
	under := "the run's rules"
	if o.otherRules {
		under = "the rules of " + o.key + ".variant"
	}
	g.logf("rating against %s, %d games under %s", o.name, o.games, under)
	matchDir := filepath.Join(g.dir, OutsideDir, o.name)
	if _, err := g.run.playMatch(ctx, matchDir, o.variant, o.openings, a, b, o.games/2, match.FixedPairs, g.seed(seedOutside+uint64(i))); err != nil {
		return err
	}
	if o.otherRules {
		def, err := variantTOML(o.variant)
		if err != nil {
			return err
		}
		if err := fileio.WriteFile(filepath.Join(matchDir, VariantFile), []byte(def)); err != nil {
			return err
		}
	}
	return nil
}

// outsideCandidate is the candidate network's player, named name, in
// games of rule set played: a network that names no rule set of its own
// (net.Network.PlanesOf) is shown the run's planes, the only ones it
// learnt, when played is another reading of the run's rules.
func outsideCandidate(players *player.Loader, candidate string, playouts int, name string, run, played *rules.Variant) (match.Player, error) {
	a, err := players.Load(player.NetworkSpec(candidate, playouts))
	if err != nil {
		return a, err
	}
	a.Name = name
	if played.Definition() != run.Definition() {
		n, err := players.Network(candidate)
		if err != nil {
			return a, err
		}
		if n.PlanesOf() == nil {
			a.NewEvaluator = player.Evaluators(n, 1, run)
		}
	}
	return a, nil
}

// outsideMatch is a generation's match against an outside player.
type outsideMatch struct {
	file *match.File
	// otherRules: played under another rule set than the run's (its
	// folder holds that rule set as VariantFile).
	otherRules bool
}

// readOutsideMatches reads generation folder dir's outside matches, in the
// order of their names; one that cannot be read is left out, as readMatch
// does.
func readOutsideMatches(dir string) []outsideMatch {
	entries, err := os.ReadDir(filepath.Join(dir, OutsideDir))
	if err != nil {
		return nil
	}
	var out []outsideMatch
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(OutsideDir, e.Name())
		if f := readMatch(dir, sub); f != nil {
			_, err := os.Stat(filepath.Join(dir, sub, VariantFile))
			out = append(out, outsideMatch{file: f, otherRules: err == nil})
		}
	}
	return out
}
