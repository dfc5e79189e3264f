package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"taflab/configs"
	"taflab/match"
	"taflab/player"
	"taflab/rules"
)

// OutsideDir is the folder of a generation's matches against the outside
// players (baseline.outside): gen-NNN/outside/NAME, one per player.
const OutsideDir = "outside"

// outsidePlayer is one of baseline.outside, read once per run.
type outsidePlayer struct {
	spec    player.Spec
	name    string         // its match player's name; names its match folder
	variant *rules.Variant // the rule set of its games
	games   int
}

// outsideName is what an outside player's name may be: it names a folder.
var outsideName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// readOutside reads baseline.outside: each player's spec, its name (a
// folder's name, unique, neither a generation's nor the baseline's) and the
// rule set of its games. It starts no program.
func readOutside(cfg configs.Loop, v *rules.Variant) ([]outsidePlayer, error) {
	var out []outsidePlayer
	seen := map[string]bool{}
	baseline, err := new(player.Loader).Load(player.BuiltinSpec(cfg.Baseline.Playouts))
	if err != nil {
		return nil, err
	}
	for i, o := range cfg.Baseline.Outside {
		key := fmt.Sprintf("baseline.outside[%d]", i)
		spec, err := player.ParseSpec(o.Player)
		if err != nil {
			return nil, within(key+".player", err)
		}
		p, err := new(player.Loader).Load(spec)
		if err != nil {
			return nil, within(key+".player", err)
		}
		switch _, isGen := ParseGenName(p.Name); {
		case !outsideName.MatchString(p.Name):
			return nil, fmt.Errorf("loop: %s.player: name %q: want letters, digits, '.', '_' and '-' (it names the match folder); set name=", key, p.Name)
		case isGen || p.Name == baseline.Name:
			return nil, fmt.Errorf("loop: %s.player: name %q is the run's own player's; set another name=", key, p.Name)
		case seen[p.Name]:
			return nil, fmt.Errorf("loop: %s.player: name %q: another outside player has it; give each its own name=", key, p.Name)
		}
		seen[p.Name] = true
		ov := v
		if o.Variant != "" {
			if ov, err = configs.LoadVariant(o.Variant); err != nil {
				return nil, within(key+".variant", err)
			}
		}
		out = append(out, outsidePlayer{spec: spec, name: p.Name, variant: ov, games: o.Games})
	}
	return out, nil
}

// stage names the done marker of a generation's match against o.
func (o outsidePlayer) stage() string { return OutsideDir + "-" + o.name }

// outsideDone reports whether generation folder dir has played every
// outside player.
func outsideDone(dir string, outside []outsidePlayer) bool {
	for _, o := range outside {
		if !done(dir, o.stage()) {
			return false
		}
	}
	return true
}

// outsideStages rates generation g's candidate against each outside player
// it has not played yet: a fixed number of pairs at the baseline's
// playouts, on the gate's openings (in games of another rule set than the
// run's, "suite" is the run's suite; outsideCandidate says which planes the
// network is shown).
func outsideStages(ctx context.Context, dir string, cfg configs.Loop, v *rules.Variant, g int, candidate string, players *player.Loader, outside []outsidePlayer, log io.Writer) error {
	for i, o := range outside {
		if done(dir, o.stage()) {
			continue
		}
		a, err := outsideCandidate(players, candidate, cfg.Baseline.Playouts, GenName(g), v, o.variant)
		if err != nil {
			return err
		}
		mcfg := cfg
		if cfg.Gate.Openings == "suite" && o.variant.Definition() != v.Definition() {
			// The run's suite, its positions played under the other
			// reading of the rules.
			mcfg.Gate.Openings = "suite:" + v.Name()
		}
		b, err := players.Load(o.spec)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, OutsideDir), 0o755); err != nil {
			return fmt.Errorf("loop: %w", err)
		}
		fmt.Fprintf(log, "loop: generation %d: rating against %s, %d games of %s\n", g, o.name, o.games, o.variant.Name())
		seed := GenSeed(cfg.Seed, g) + 2 + uint64(i)
		if _, err := playMatch(ctx, filepath.Join(dir, OutsideDir, o.name), mcfg, o.variant, a, b, o.games/2, match.FixedPairs, seed); err != nil {
			return err
		}
		if err := mark(dir, o.stage()); err != nil {
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

// readOutsideMatches reads generation folder dir's outside matches, in the
// order of their names; one that cannot be read is left out, as readMatch
// does.
func readOutsideMatches(dir string) []*match.File {
	entries, err := os.ReadDir(filepath.Join(dir, OutsideDir))
	if err != nil {
		return nil
	}
	var out []*match.File
	for _, e := range entries {
		if e.IsDir() {
			if f := readMatch(dir, filepath.Join(OutsideDir, e.Name())); f != nil {
				out = append(out, f)
			}
		}
	}
	return out
}
