package ratings

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/stats"
)

// Matches are match files read for a fit: Files[i] was read from Paths[i]
// (Paths may be nil for matches that were not read from files).
type Matches struct {
	Paths []string
	Files []match.File
}

// Read finds the match files of cfg.Paths (find) and reads them
// (match.ReadFile), stopped by ctx between files.
func Read(ctx context.Context, cfg Config) (Matches, error) {
	paths, err := find(cfg.Paths, cfg.MaxFiles, cfg.MaxBytes)
	if err != nil {
		return Matches{}, err
	}
	m := Matches{Paths: paths}
	for _, path := range paths {
		if err := ctx.Err(); err != nil {
			return Matches{}, err
		}
		f, err := match.ReadFile(path)
		if err != nil {
			return Matches{}, err
		}
		m.Files = append(m.Files, f)
	}
	return m, nil
}

// find turns paths into match.json files: a file is taken as it is, a
// folder is searched recursively, and a file named twice is taken once.
// Errors name the path; a folder with no match file in it or below is
// one, and so are more than maxFiles files or maxBytes bytes together (0:
// the defaults, DefaultMaxFiles and DefaultMaxBytes).
func find(paths []string, maxFiles int, maxBytes int64) ([]string, error) {
	if len(paths) == 0 {
		return nil, errctx.Errorf("ratings", "no paths: give match folders or %s files", match.FileName)
	}
	if maxFiles == 0 {
		maxFiles = DefaultMaxFiles
	}
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	var files []string
	var total int64
	var limitErr error
	seen := map[string]bool{}
	add := func(path string) {
		key := filepath.Clean(path)
		if abs, err := filepath.Abs(path); err == nil {
			key = abs
		}
		if seen[key] || limitErr != nil {
			return
		}
		seen[key] = true
		files = append(files, path)
		if info, err := os.Stat(path); err == nil {
			total += info.Size()
		}
		switch {
		case len(files) > maxFiles:
			limitErr = errctx.Errorf("ratings", "%s: more than %d match files: rate fewer at a time", path, maxFiles)
		case total > maxBytes:
			limitErr = errctx.Errorf("ratings", "%s: more than %d bytes of match files: rate fewer at a time", path, maxBytes)
		}
	}
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			return nil, errctx.Errorf("ratings", "%w", err)
		}
		if !info.IsDir() {
			if add(path); limitErr != nil {
				return nil, limitErr
			}
			continue
		}
		found := 0
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == match.FileName {
				add(p)
				found++
			}
			return limitErr
		})
		if err != nil && err != limitErr {
			err = errctx.Errorf("ratings", "%w", err)
		}
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, errctx.Errorf("ratings", "%s: no %s in it or below", path, match.FileName)
		}
	}
	return files, nil
}

// Variants lists the rule sets of the matches in the order first met.
func (m Matches) Variants() []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range m.Files {
		if !seen[f.Variant] {
			seen[f.Variant] = true
			out = append(out, f.Variant)
		}
	}
	return out
}

// Of returns the matches of one rule set.
func (m Matches) Of(variant string) Matches {
	var out Matches
	for i, f := range m.Files {
		if f.Variant != variant {
			continue
		}
		if m.Paths != nil {
			out.Paths = append(out.Paths, m.Paths[i])
		}
		out.Files = append(out.Files, f)
	}
	return out
}

// Select returns the matches of variant, or of the one rule set they
// hold when variant is "". Several rule sets and no variant is a
// *SettingError of Variant, and so is a variant none of them holds.
// Variant may name several rule sets, with commas ("copenhagen,
// opentafl-copenhagen": two programs' readings of one game's rules): their
// matches are then rated as one rule set, of that name.
func (m Matches) Select(variant string) (Matches, error) {
	variants := m.Variants()
	if variant == "" && len(variants) > 1 {
		parts := make([]string, len(variants))
		for i, v := range variants {
			parts[i] = fmt.Sprintf("%s (%s)", v, m.Of(v).names())
		}
		return Matches{}, &SettingError{"Variant", "", "the match files hold games of several rule sets: " + strings.Join(parts, "; ") +
			"; ratings are per rule set: choose one, or name several with commas to rate them as one"}
	}
	if variant == "" && len(variants) == 1 {
		variant = variants[0]
	}
	names := strings.Split(variant, ",")
	for i, name := range names {
		names[i] = strings.TrimSpace(name)
		if !slices.Contains(variants, names[i]) {
			return Matches{}, &SettingError{"Variant", strconv.Quote(names[i]), "no match file of that rule set (they hold " + strings.Join(variants, ", ") + ")"}
		}
	}
	var out Matches
	for i, f := range m.Files {
		if !slices.Contains(names, f.Variant) {
			continue
		}
		if m.Paths != nil {
			out.Paths = append(out.Paths, m.Paths[i])
		}
		f.Variant = strings.Join(names, ",") // a copy: one scale, by the caller's choice
		out.Files = append(out.Files, f)
	}
	return out, nil
}

// Results returns the results of the matches' games, in order, as the fit
// takes them: every game's but those of a player against itself (under one
// name), which say nothing of how it compares with another (SelfGames
// names them).
func (m Matches) Results() []stats.Result {
	var games []stats.Result
	for _, f := range m.Files {
		for _, g := range f.Games {
			if g.Attacker != g.Defender {
				games = append(games, stats.Result{Attacker: g.Attacker, Defender: g.Defender, Score: g.AttackerScore()})
			}
		}
	}
	return games
}

// SelfGames describes the games the fit leaves out because a player
// plays itself in them (one name on both sides), by file and player:
// "runs/m/match.json: 4 games of gen-001 against itself, left out".
func (m Matches) SelfGames() []string {
	var out []string
	for i, f := range m.Files {
		file := fmt.Sprintf("match %d", i+1)
		if m.Paths != nil {
			file = m.Paths[i]
		}
		count := map[string]int{}
		var order []string
		for _, g := range f.Games {
			if g.Attacker == g.Defender {
				if count[g.Attacker] == 0 {
					order = append(order, g.Attacker)
				}
				count[g.Attacker]++
			}
		}
		for _, name := range order {
			out = append(out, fmt.Sprintf("%s: %d games of %s against itself, left out of the fit (they say nothing of how it compares with another player)", file, count[name], name))
		}
	}
	return out
}

// Players lists the players of the games in the order first met.
func (m Matches) Players() []string {
	var players []string
	seen := map[string]bool{}
	for _, g := range m.Results() {
		for _, name := range []string{g.Attacker, g.Defender} {
			if !seen[name] {
				seen[name] = true
				players = append(players, name)
			}
		}
	}
	return players
}

// names names the matches for errors: their paths, or how many.
func (m Matches) names() string {
	if len(m.Paths) == 0 {
		return fmt.Sprintf("%d matches", len(m.Files))
	}
	return strings.Join(m.Paths, ", ")
}

// Clashes finds the player names that the matches give to different
// players: players are matched by name, so two runs' gen-001 (different
// networks) or one network at two budgets under one name would be rated
// as one player. A network is told by its file's contents (the same file
// written as a relative and an absolute path is one network), or by its
// path when it cannot be read. Each clash is described with the files
// where each player appears.
func (m Matches) Clashes() []string {
	sums := map[string]string{} // absolute path → contents' hash, or the path
	identity := func(p match.PlayerInfo) string {
		id := fmt.Sprintf("%d playouts", p.Playouts)
		switch {
		case p.Engine != "":
			id += ", engine " + p.Engine
		case p.Network != "":
			abs, err := filepath.Abs(p.Network)
			if err != nil {
				abs = p.Network
			}
			if _, ok := sums[abs]; !ok {
				sums[abs] = "network " + p.Network
				if b, err := fileio.ReadFileLimit(abs, fileio.MaxRunFileBytes, "this file"); err == nil {
					sums[abs] = fmt.Sprintf("network %x", sha256.Sum256(b))
				}
			}
			id += ", " + sums[abs]
		}
		return id
	}
	type seen struct {
		id, player, file string
	}
	byName := map[string][]seen{}
	var order []string
	for i, f := range m.Files {
		file := fmt.Sprintf("match %d", i+1)
		if m.Paths != nil {
			file = m.Paths[i]
		}
		for _, p := range []match.PlayerInfo{f.A, f.B} {
			if p.Name == "" {
				continue
			}
			if byName[p.Name] == nil {
				order = append(order, p.Name)
			}
			byName[p.Name] = append(byName[p.Name], seen{identity(p), describePlayer(p), file})
		}
	}
	var out []string
	for _, name := range order {
		var parts []string
		ids := map[string]int{}
		for _, s := range byName[name] {
			if _, ok := ids[s.id]; !ok {
				ids[s.id] = len(parts)
				parts = append(parts, s.player+" in "+s.file)
			} else {
				parts[ids[s.id]] += ", " + s.file
			}
		}
		if len(parts) > 1 {
			out = append(out, fmt.Sprintf("%q names %d different players, rated as one: %s", name, len(parts), strings.Join(parts, "; ")))
		}
	}
	return out
}

// describePlayer says what a match file's player is.
func describePlayer(p match.PlayerInfo) string {
	switch {
	case p.Engine != "":
		return fmt.Sprintf("engine %s at %d playouts", p.Engine, p.Playouts)
	case p.Network != "":
		return fmt.Sprintf("network %s at %d playouts", p.Network, p.Playouts)
	}
	return fmt.Sprintf("the built-in searcher at %d playouts", p.Playouts)
}

// generationRE finds a generation number in a player's name: gen-3, gen003,
// gen_12, generation-4.
var generationRE = regexp.MustCompile(`(?i)gen(?:eration)?[-_]?(\d+)`)

// generation returns the generation number in a player's name: gen-3,
// gen003, gen_12, generation-4.
func generation(name string) (int, bool) {
	m := generationRE.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}
