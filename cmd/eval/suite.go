package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/datasets"
	"taflab/internal/fileio"
	"taflab/internal/progress"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
)

const suiteHelp = `usage: eval suite -variant NAME|FILE|otr:RULES [-records FILE [-records-variant NAME|FILE|otr:RULES]]
                  [-plies A-B] [-every N] [-winner attackers|defenders] [-random N] [-random-plies N]
                  [-candidates SUITE]
                  [-player PLAYER] [-games N] [-min R] [-max R] [-size N] [-seed S]
                  [-workers N] [-games-per-worker N] -out FILE

Builds an opening suite for a rule set: start positions (position notation,
one a line, with a comment) from which equal players win as either side,
for matches, gates, ratings and balance runs (see match.ParseSuite). From
the rule set's start the defenders win nearly every game between engines of
this strength, so a match from there splits every game pair and cannot
tell two players apart; fishtest answers the same problem in chess with
unbalanced-opening books.

Candidates:
  - human prefixes (-records FILE, the archive CSV that "eval replay" reads,
    replayed under -records-variant, default copenhagen-classic): in each
    game, the position after k moves for k in -plies (A-B, or one number;
    default 8-40) every -every plies (from A), each replayed under the
    rule set of -variant from its start. A prefix that is illegal there or
    where the game is already over there is skipped, with the rest of that
    game. With an even A and -every, the attackers are to move. -winner
    takes only the games that side won.
  - -random N positions of -random-plies random legal moves from the start
    (none of them ending the game; at most 100 plies: a rule set where
    random moves cannot go on that long without ending the game is an
    error, not a wait).
  - -candidates SUITE: the positions of a suite file, to measure again (a
    second pass with more games, say: a position kept on few games may have
    been lucky).
Duplicate positions are dropped (the first source is kept), and so are
positions that cannot be played (the king on a corner, no move).

Measure: the reference player (-player, default builtin:playouts=200) plays
itself -games games from each candidate, every move a full search with the
self-play root noise and move-choice temperature (0.8 falling to 0.2), so
that the games differ; the defender rate is the defenders' wins over the
games (a draw is not a win).

Selection: the candidates are shuffled by -seed and measured in that order;
the suite is the first -size of them (0: no limit) whose defender rate lies
within [-min, -max] (inclusive), in that order, so that any first part of
the suite is a random sample of the positions that passed. The build stops
as soon as it has them. With the built-in player the suite is the same for
a seed whatever -workers; a network player's random board symmetries make
its games differ between runs.

Output: the suite, written to -out whole or not at all, with a header that
says how it was built (the command line, the player, the filter, the
candidates by source, the defender-rate histogram) and a comment per
position ("human line 123, ply 20; defenders 3/8"); and one summary line.
"eval match" and the other commands read it back.

Exit status: 0 done, 1 failed (no candidate passed: nothing is written), 2
bad input (bad flags, an unknown rule set, a missing or malformed record
file, no candidates), 130 stopped by a signal (nothing is written).

Flags:
`

// suiteOptions are the suite subcommand's settings, checked.
type suiteOptions struct {
	variant           *rules.Variant
	records           string
	recVariant        *rules.Variant
	winner            rules.Winner // NoWinner: any
	candidates        string
	plyLo, plyHi      int
	every             int
	random, randPlies int
	player            match.Player
	games             int
	min, max          float64
	size              int
	seed              uint64
	workers           int
	perWorker         int
	out               string
	args              []string
}

// suiteCandidates are a build's candidates with what the report needs.
type suiteCandidates struct {
	list []match.SuiteCandidate
	kind []string // per candidate: "human ply 8", "random 6 plies"
	// The human prefixes: games read, and prefixes skipped because the
	// moves are illegal under the target rule set or the game is over.
	humanGames, illegal, finished int
}

func runSuite(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runSuiteCtx(ctx, args, stdout, stderr)
}

// runSuiteCtx is runSuite stopped by ctx instead of a signal.
func runSuiteCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, code := parseSuiteFlags(args, stdout, stderr)
	if o == nil {
		return code
	}
	cands, err := suiteCandidateList(ctx, o)
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(stderr, "eval suite: stopped while gathering the candidates; nothing written\n")
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "eval suite: %v\n", err)
		return 2
	}
	if len(cands.list) == 0 {
		fmt.Fprintf(stderr, "eval suite: no candidates: give -records, -candidates or -random\n")
		return 2
	}

	started := time.Now()
	var bar *progress.Bar
	cfg := match.SuiteConfig{Variant: o.variant, Reference: o.player, Games: o.games,
		MinDefenderRate: o.min, MaxDefenderRate: o.max, Size: o.size, Seed: o.seed,
		Workers: o.workers, GamesPerWorker: o.perWorker,
		Progress: func(p match.SuiteProgress) {
			if bar == nil {
				bar = progress.New(stdout, p.TotalGames, "games", 10*time.Second)
			}
			bar.Update(p.Games, fmt.Sprintf("%d candidates measured, %d kept", p.Tried, p.Kept))
		}}
	fmt.Fprintf(stdout, "eval suite: %s: %d candidates, %s against itself, %d games each\n",
		o.variant.Name(), len(cands.list), o.player.Name, o.games)
	entries, st, err := match.BuildSuite(ctx, cfg, cands.list)
	if bar != nil {
		bar.Finish()
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintf(stderr, "eval suite: stopped after %d candidates; nothing written\n", st.Tried)
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "eval suite: %v\n", err)
		return 1
	}
	if len(entries) == 0 {
		fmt.Fprintf(stderr, "eval suite: none of the %d candidates tried had a defender rate within [%g, %g]; nothing written\n",
			st.Tried, o.min, o.max)
		for _, h := range suiteHeader(o, cands, st)[4:] {
			fmt.Fprintf(stderr, "eval suite: %s\n", h)
		}
		return 1
	}
	data := match.FormatSuite(suiteHeader(o, cands, st), entries)
	if _, err := match.ParseSuite(o.out, data, o.variant); err != nil {
		fmt.Fprintf(stderr, "eval suite: the suite does not read back: %v\n", err)
		return 1
	}
	if err := fileio.WriteFile(o.out, data); err != nil {
		fmt.Fprintf(stderr, "eval suite: -out: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "eval suite: %s: %d positions written to %s (%d candidates tried, %d games; mean defender rate %.2f tried, %.2f kept; %s)\n",
		o.variant.Name(), len(entries), o.out, st.Tried, st.Games, st.MeanBefore, st.MeanAfter,
		time.Since(started).Round(time.Second))
	return 0
}

// parseSuiteFlags reads and checks every flag. It returns nil and the exit
// status when the command should stop: 0 after -h, 2 for bad input.
func parseSuiteFlags(args []string, stdout, stderr io.Writer) (*suiteOptions, int) {
	fs := cli.NewFlagSet("eval suite", suiteHelp, stderr)
	variantArg := fs.String("variant", "", "the rule set of the suite: an embedded `name`, a rule-set file or otr:RULES (an OpenTafl rules string)")
	records := fs.String("records", "", "game-record `file` whose prefixes are candidates")
	recVariant := fs.String("records-variant", "copenhagen-classic", "rule set the records were played under: an embedded `name`, a rule-set file or otr:RULES")
	plies := fs.String("plies", "8-40", "human prefixes after `A-B` moves (or one number)")
	winner := fs.String("winner", "", "take only the human games that `side` won: attackers or defenders (\"\": any)")
	candidates := fs.String("candidates", "", "a suite `file` whose positions are candidates too")
	every := fs.Int("every", 4, "a human prefix every `N` plies from A")
	random := fs.Int("random", 100, "`N` random openings as candidates")
	randPlies := fs.Int("random-plies", 6, "`plies` of random moves in each random opening")
	playerFlag := fs.String("player", "builtin:playouts=200", "the reference `player`, playing itself")
	games := fs.Int("games", 8, "`games` per candidate")
	minRate := fs.Float64("min", 0.2, "keep candidates whose defender rate is at least `R`")
	maxRate := fs.Float64("max", 0.8, "keep candidates whose defender rate is at most `R`")
	size := fs.Int("size", 100, "the most `positions` kept (0: every one that passes)")
	seed := fs.Uint64("seed", 1, "`seed` of the random openings, the order of the candidates and the games")
	workers := fs.Int("workers", 0, "worker goroutines (`N`); 0 = one per core")
	perWorker := fs.Int("games-per-worker", 8, "`games` each worker plays at once")
	out := fs.String("out", "", "the suite `file` to write")
	if code, done := cli.ParseRanged(fs, args, nil, nil, stdout, stderr); done {
		return nil, code
	}
	bad := func(format string, a ...any) (*suiteOptions, int) {
		fmt.Fprintf(stderr, "eval suite: "+format+"\n", a...)
		return nil, 2
	}
	o := &suiteOptions{records: *records, candidates: *candidates, every: *every, random: *random, randPlies: *randPlies, games: *games,
		min: *minRate, max: *maxRate, size: *size, seed: *seed, workers: *workers, perWorker: *perWorker, out: *out, args: args}
	var err error
	switch {
	case *variantArg == "":
		return bad("-variant is required: the suite is for one rule set")
	case *out == "":
		return bad("-out is required")
	case *every < 1:
		return bad("-every %d: want at least 1", *every)
	case *random < 0:
		return bad("-random %d: want 0 or more", *random)
	case *randPlies < 1:
		return bad("-random-plies %d: want at least 1", *randPlies)
	case *games < 1:
		return bad("-games %d: want at least 1", *games)
	case !(*minRate >= 0 && *minRate <= 1):
		return bad("-min %v: want a rate from 0 to 1", *minRate)
	case !(*maxRate >= 0 && *maxRate <= 1):
		return bad("-max %v: want a rate from 0 to 1", *maxRate)
	case *minRate > *maxRate:
		return bad("-min %v is above -max %v", *minRate, *maxRate)
	case *size < 0:
		return bad("-size %d: want 0 (no limit) or more", *size)
	case *workers < 0:
		return bad("-workers %d: want 0 (one per core) or more", *workers)
	case *perWorker < 1:
		return bad("-games-per-worker %d: want at least 1", *perWorker)
	}
	switch *winner {
	case "":
	case "attackers":
		o.winner = rules.AttackersWin
	case "defenders":
		o.winner = rules.DefendersWin
	default:
		return bad("-winner %q: want attackers or defenders", *winner)
	}
	if o.plyLo, o.plyHi, err = parsePlyRange(*plies); err != nil {
		return bad("-plies %q: %v", *plies, err)
	}
	if info, err := os.Stat(o.out); err == nil && info.IsDir() {
		return bad("-out %s: a folder; want a file", o.out)
	}
	if info, err := os.Stat(filepath.Dir(o.out)); err != nil || !info.IsDir() {
		return bad("-out %s: its folder %s does not exist", o.out, filepath.Dir(o.out))
	}
	if o.variant, err = configs.LoadVariant(*variantArg); err != nil {
		return bad("-variant: %v", err)
	}
	if o.recVariant, err = configs.LoadVariant(*recVariant); err != nil {
		return bad("-records-variant: %v", err)
	}
	if o.player, err = player.Parse(*playerFlag); err != nil {
		return bad("-player: %v", err)
	}
	if o.records != "" && o.recVariant.Start() != o.variant.Start() {
		return bad("-records: games of %s's start, and %s starts elsewhere: its prefixes would all be illegal",
			o.recVariant.Name(), o.variant.Name())
	}
	cfg := match.SuiteConfig{Variant: o.variant, Reference: o.player, Games: o.games,
		MinDefenderRate: o.min, MaxDefenderRate: o.max, Size: o.size}
	if err := cfg.Validate(); err != nil {
		return bad("%v", err)
	}
	return o, 0
}

// parsePlyRange reads "A-B" or "A": 0 <= A <= B.
func parsePlyRange(s string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(s, "-")
	if !isRange {
		b = a
	}
	lo, errA := strconv.Atoi(strings.TrimSpace(a))
	hi, errB := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case errA != nil || errB != nil:
		return 0, 0, errors.New("want a range of plies such as 8-40, or one number")
	case lo < 0 || hi < lo:
		return 0, 0, errors.New("want 0 <= A <= B")
	}
	return lo, hi, nil
}

// suiteCandidateList reads the human prefixes and draws the random
// openings.
func suiteCandidateList(ctx context.Context, o *suiteOptions) (*suiteCandidates, error) {
	c := &suiteCandidates{}
	if o.records != "" {
		games, err := datasets.ReadRecordGamesCtx(ctx, o.records, o.recVariant)
		if err != nil {
			return nil, fmt.Errorf("-records: %s", strings.TrimPrefix(err.Error(), "datasets: "))
		}
		g := rules.NewGame(o.variant)
		for _, rg := range games {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if o.winner != rules.NoWinner && rg.Winner != o.winner {
				continue
			}
			c.humanGames++
			if len(rg.Positions) == 0 {
				continue
			}
			if err := g.ResetTo(rg.Positions[0]); err != nil { // a record's own start
				c.illegal += skipped(0, len(rg.Moves), o)
				continue
			}
			for k := 0; k <= o.plyHi && k <= len(rg.Moves); k++ {
				if k >= o.plyLo && (k-o.plyLo)%o.every == 0 {
					c.list = append(c.list, match.SuiteCandidate{Position: g.Position(),
						Source: fmt.Sprintf("human line %d, ply %d", rg.Line, k)})
					c.kind = append(c.kind, fmt.Sprintf("human ply %d", k))
				}
				if k == len(rg.Moves) || k == o.plyHi {
					break
				}
				if err := g.Play(rg.Moves[k]); err != nil {
					c.illegal += skipped(k+1, len(rg.Moves), o)
					break
				}
				if g.Outcome().Over() {
					c.finished += skipped(k+1, len(rg.Moves), o)
					break
				}
			}
		}
	}
	if o.candidates != "" {
		entries, err := openings.LoadSuite(o.candidates, o.variant)
		if err != nil {
			return nil, fmt.Errorf("-candidates: %s", strings.TrimPrefix(err.Error(), "cli: "))
		}
		for _, e := range entries {
			source := "suite " + filepath.Base(o.candidates)
			if from, _, ok := strings.Cut(e.Comment, ";"); ok && from != "" {
				source = from // the position's first source, without its old measure
			}
			c.list = append(c.list, match.SuiteCandidate{Position: e.Position, Source: source})
			c.kind = append(c.kind, "from "+filepath.Base(o.candidates))
		}
	}
	starts, err := match.NewRandomStarts(ctx, o.variant, o.random, o.randPlies, o.seed)
	if err != nil {
		return nil, fmt.Errorf("-random %d, -random-plies %d: %w", o.random, o.randPlies, err)
	}
	for _, r := range starts {
		c.list = append(c.list, r)
		c.kind = append(c.kind, fmt.Sprintf("random %d plies", o.randPlies))
	}
	return c, nil
}

// skipped counts the prefixes from ply k to the game's last (moves) that
// the range would have taken.
func skipped(k, moves int, o *suiteOptions) int {
	n := 0
	for j := max(k, o.plyLo); j <= min(o.plyHi, moves); j++ {
		if (j-o.plyLo)%o.every == 0 {
			n++
		}
	}
	return n
}

// suiteHeader says how the suite was built.
func suiteHeader(o *suiteOptions, c *suiteCandidates, st match.SuiteStats) []string {
	// The search BuildSuite gives the reference: its own (root=gumbel) or
	// the default self-play one.
	search := o.player.SelfPlaySearch(mcts.Config{})
	root := fmt.Sprintf("root noise %g, temperature %g to %g (half-life %g plies)",
		search.NoiseFraction, search.TemperatureStart, search.TemperatureEnd, search.TemperatureHalfLife)
	if search.RootSearch == mcts.RootGumbel {
		root = fmt.Sprintf("Gumbel root search (%d sampled moves, c_visit %g, c_scale %g), no temperature",
			search.GumbelActions, search.GumbelCVisit, search.GumbelCScale)
	}
	loK, hiK := -1, -1
	for k := 0; k <= o.games; k++ {
		if r := float64(k) / float64(o.games); r >= o.min && r <= o.max {
			if loK < 0 {
				loK = k
			}
			hiK = k
		}
	}
	limit := "every one that passed"
	if o.size > 0 {
		limit = fmt.Sprintf("the first %d that passed", o.size)
	}
	player := o.player.Name
	if o.player.Network != "" {
		player += " (" + o.player.Network + ")"
	}
	h := []string{
		fmt.Sprintf("%s: opening suite built by eval suite", o.variant.Name()),
		"command: eval suite " + shellJoin(o.args),
		fmt.Sprintf("reference: %s against itself, %d games a position; every move a full search of %d playouts, %s; seed %d",
			player, o.games, search.Playouts, root, o.seed),
		fmt.Sprintf("filter: defender rate within [%g, %g] (%d to %d wins of %d); candidates in an order shuffled by the seed, %s, in that order",
			o.min, o.max, loK, hiK, o.games, limit),
	}
	var parts []string
	if o.records != "" {
		won := ""
		if o.winner != rules.NoWinner {
			won = ", those the " + map[rules.Winner]string{rules.AttackersWin: "attackers", rules.DefendersWin: "defenders"}[o.winner] + " won"
		}
		parts = append(parts, fmt.Sprintf("%d human prefixes (%s, %d games%s under %s; plies %d-%d every %d, replayed under %s, %d prefixes illegal and %d over there skipped)",
			countKind(c, "human"), o.records, c.humanGames, won, o.recVariant.Name(), o.plyLo, o.plyHi, o.every, o.variant.Name(), c.illegal, c.finished))
	}
	if o.candidates != "" {
		parts = append(parts, fmt.Sprintf("%d positions of the suite %s", countKind(c, "from "), o.candidates))
	}
	if o.random > 0 {
		parts = append(parts, fmt.Sprintf("%d random openings of %d plies", o.random, o.randPlies))
	}
	h = append(h, fmt.Sprintf("candidates: %s; %d duplicates and %d unplayable dropped", strings.Join(parts, ", "), st.Duplicates, st.Unplayable))
	h = append(h, fmt.Sprintf("measured: %d candidates (%d games), %d kept; mean defender rate %s measured, %s kept",
		st.Tried, st.Games, st.Kept, fmtRate(st.MeanBefore), fmtRate(st.MeanAfter)))
	h = append(h, "defender wins (of "+strconv.Itoa(o.games)+"): measured "+histText(st.Before)+"; kept "+histText(st.After))
	// By source kind, in the order the kinds first appear.
	var kinds []string
	offered, tried, kept, wins := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	for _, k := range c.kind {
		if offered[k] == 0 {
			kinds = append(kinds, k)
		}
		offered[k]++
	}
	for _, r := range st.Results {
		k := c.kind[r.Candidate]
		tried[k]++
		wins[k] += r.DefenderWins
		if r.Kept {
			kept[k]++
		}
	}
	h = append(h, "by source: offered, measured, kept (kept/measured), mean defender rate measured")
	for _, k := range kinds {
		share, mean := "-", "-"
		if tried[k] > 0 {
			share = fmt.Sprintf("%.0f%%", 100*float64(kept[k])/float64(tried[k]))
			mean = fmtRate(float64(wins[k]) / float64(tried[k]*o.games))
		}
		h = append(h, fmt.Sprintf("  %-16s %6d %6d %6d (%s) %s", k, offered[k], tried[k], kept[k], share, mean))
	}
	return h
}

// countKind counts the candidates whose kind starts with prefix.
func countKind(c *suiteCandidates, prefix string) int {
	n := 0
	for _, k := range c.kind {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}

// histText writes a histogram of wins as "0:3 1:5 ...".
func histText(h []int) string {
	parts := make([]string, len(h))
	for k, n := range h {
		parts[k] = fmt.Sprintf("%d:%d", k, n)
	}
	return strings.Join(parts, " ")
}

// fmtRate writes a rate, "-" for none.
func fmtRate(r float64) string {
	if math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%.3f", r)
}

// shellJoin writes arguments as a shell would read them back.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
