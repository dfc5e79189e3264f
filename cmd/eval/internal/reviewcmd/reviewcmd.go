// Package reviewcmd is "eval review": its flags, help and files over the
// analysis library's review of whole games.
package reviewcmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"taflab/analysis"
	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/datasets"
	"taflab/internal/fileio"
	"taflab/internal/progress"
	"taflab/mcts"
	"taflab/player"
	"taflab/protocol"
	"taflab/rules"
)

const help = `usage: eval review [-net FILE|builtin] [-playouts N] [-game N] [-variant NAME|FILE|otr:RULES]
                   [-no-reuse] [-parallel N] [-inaccuracy P -mistake P -blunder P] [-seed N] [-out DIR] FILE

Reviews whole games (package analysis): every position of a game is
searched, from the start, each search keeping the tree of the move played
(without -no-reuse), and for every ply it reports the win, draw and loss
before and after the move (from the mover's side and the attackers'), the
search's best move and principal variation, what the move lost in win
chance (points from 0 to 100: the expected score, win + draw/2), its label
and its accuracy; over a game, each side's accuracy, where the game turned
(the move after which the winner stayed above 50) and the loser's costliest
move; over a file, each side's and each named player's figures (a match's
two players, from its match.json).

FILE is any games file taflab reads: game records in the archive's CSV
format (archive:copenhagen, the human archive that ships inside taflab;
a match's games.csv, read under its match.json's rules), a self-play
dataset's *.games.arrow, or an OpenTafl game record (*.otg). -variant gives
the rule set of a CSV file that has no match.json beside it (default
copenhagen; an embedded archive's own). -game N reviews the file's Nth game
alone (from 1); by default every game.

Labels: a move that lost at least -blunder points is a blunder, else at
least -mistake a mistake, else at least -inaccuracy an inaccuracy
(defaults 15, 10, 5: lichess's, a drop of 0.3, 0.2, 0.1 in its winning
chances from -1 to +1). Accuracy is lichess's formula: a move's
103.1668 exp(-0.04354 loss) - 2.1669 within 0 to 100, a side's the mean of
the volatility-weighted mean and the harmonic mean of its moves'.

Without -out it prints the report as one JSON object. With -out it writes
into DIR: review.json (the report), review.md (a summary for people: sides,
players, where the games turned, each game's labelled moves), review-N.png
(game N's graph of the attackers' win chance, labelled moves marked) and
game-N.otg (game N as an OpenTafl record, the labels, losses and better
lines as its comments: OpenTafl opens it). Every file is written whole.
The same seed and settings give the same review.

-net defaults to the network that ships for the games' rule set
(networks/NAME.safetensors, in the working folder or beside the
executable: copenhagen-classic's, trained on people's games, for the
archive's), or to copenhagen's (networks/copenhagen.safetensors) when none
ships for it or the games are of several rule sets. -net builtin reviews
with the network-free searcher.

Exit status: 0, 1 when a game could not be reviewed (the others are), 2 for
bad flags or a file that cannot be read, 130 stopped by a signal (the games
reviewed so far are written).

Flags:
`

// flags are the command's settings once the flags are read.
type flags struct {
	net, variant, out, file string
	game                    int
	cfg                     analysis.Config
}

func parseFlags(args []string, stdout, stderr io.Writer) (*flags, int) {
	fs := cli.NewFlags("eval review", help, stderr)
	f := &flags{cfg: analysis.DefaultConfig()}
	fs.StringVar(&f.net, "net", "", "the network `file`, or builtin (default: the shipped network)")
	fs.StringVar(&f.variant, "variant", "", "the rule set of CSV records without a match.json (`name`, FILE or otr:RULES; default copenhagen)")
	fs.StringVar(&f.out, "out", "", "write review.json, review.md, review-N.png and game-N.otg into `DIR`")
	fs.IntVar(&f.game, "game", 0, cli.IntRange(0, 1_000_000, "0: every game"), "review the file's game `N` alone, from 1")
	fs.IntVar(&f.cfg.Playouts, "playouts", f.cfg.Playouts, cli.PlayoutsRange, "search each position to this many root `visits`")
	fs.IntVar(&f.cfg.Parallel, "parallel", f.cfg.Parallel, cli.IntRange(1, 64, ""), "search this many stretches of a game side by side, in one batch")
	fs.IntVar(&f.cfg.PVMoves, "pv", f.cfg.PVMoves, cli.IntRange(1, 100, ""), "the most `moves` of a principal variation")
	noReuse := fs.Bool("no-reuse", false, "search every position afresh, without the tree of the move before")
	fs.Float64Var(&f.cfg.Thresholds.Inaccuracy, "inaccuracy", f.cfg.Thresholds.Inaccuracy, cli.Range{Min: 0, Max: 100, MinOpen: true, Note: "at most -mistake"}, "`points` of win chance lost from which a move is an inaccuracy")
	fs.Float64Var(&f.cfg.Thresholds.Mistake, "mistake", f.cfg.Thresholds.Mistake, cli.Range{Min: 0, Max: 100, Note: "at most -blunder"}, "`points` of win chance lost from which a move is a mistake")
	fs.Float64Var(&f.cfg.Thresholds.Blunder, "blunder", f.cfg.Thresholds.Blunder, cli.Range{Min: 0, Max: 100}, "`points` of win chance lost from which a move is a blunder")
	fs.Uint64Var(&f.cfg.Seed, "seed", f.cfg.Seed, cli.FullUint64, "the `seed` of the network's board symmetries")
	cli.Precision(fs.FlagSet)
	fs.Document()
	if err := fs.FlagSet.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, 2
	}
	if err := fs.CheckRanges(); err != nil {
		fmt.Fprintf(stderr, "eval review: %v\n", err)
		return nil, 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "eval review: want one games file after the flags, got %d arguments\n", fs.NArg())
		return nil, 2
	}
	f.file = fs.Arg(0)
	f.cfg.Search.TreeReuse = !*noReuse
	if err := f.cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "eval review: %v\n", err)
		return nil, 2
	}
	return f, 0
}

// Run runs "eval review" with its arguments, stopped by ctx (exit status
// 130, what was reviewed written), and returns the exit status.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, code := parseFlags(args, stdout, stderr)
	if f == nil {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "eval review: "+format+"\n", a...)
		return code
	}
	var opt datasets.GameOptions
	if f.variant != "" {
		v, err := configs.LoadVariant(f.variant)
		if err != nil {
			return fail(2, "-variant: %v", err)
		}
		opt.Variant = v
	}
	games, err := datasets.LoadGames(f.file, opt)
	if err != nil {
		return fail(2, "%v", err)
	}
	if f.game > len(games) {
		return fail(2, "-game %d: %s has %d games", f.game, f.file, len(games))
	}
	if f.game > 0 {
		games = games[f.game-1 : f.game]
	}
	eval, netFile, err := player.AnalysisEvaluator(f.net, gamesVariant(games), 0)
	if err != nil {
		return fail(2, "-net: %v", err)
	}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return fail(2, "-out: %v", err)
		}
	}
	reviewed, failed := reviewAll(ctx, &f.cfg, eval, games, stderr)
	rep := analysis.NewReport(f.file, eval.ID()+" ("+netFile+")", &f.cfg, reviewed)
	if err := write(f.out, rep, games, stdout); err != nil {
		return fail(1, "%v", err)
	}
	switch {
	case ctx.Err() != nil:
		return fail(130, "stopped: %d of %d games reviewed (written)", rep.Summary.Games, len(games))
	case failed > 0:
		return 1
	}
	return 0
}

// reviewAll reviews games in order until ctx is done, with a progress bar
// by plies; it returns the reviewed games (those not reached left out) and
// how many failed.
func reviewAll(ctx context.Context, cfg *analysis.Config, eval mcts.Evaluator, games []datasets.Game, stderr io.Writer) ([]analysis.Reviewed, int) {
	total := 0
	for _, g := range games {
		total += len(g.Moves)
	}
	bar := progress.New(stderr, total, "plies", 10*time.Second)
	defer bar.Finish()
	done, failed := 0, 0
	var out []analysis.Reviewed
	for _, g := range games {
		if ctx.Err() != nil {
			break
		}
		r := analysis.Reviewed{Index: g.Index, Label: g.Label(), Attackers: g.Attackers, Defenders: g.Defenders}
		rev, err := reviewGame(ctx, cfg, eval, g, func(analysis.Ply) { done++; bar.Update(done, r.Label) })
		switch {
		case ctx.Err() != nil:
			return out, failed // the game cut short is left out
		case err != nil:
			r.Error = err.Error()
			failed++
			fmt.Fprintf(stderr, "eval review: %s: %v\n", r.Label, err)
		default:
			r.Review = rev
		}
		done += len(g.Moves) - reviewedPlies(rev)
		out = append(out, r)
	}
	return out, failed
}

func reviewedPlies(rev *analysis.Review) int {
	if rev == nil {
		return 0
	}
	return len(rev.Plies)
}

// reviewGame replays a file's game through the rules (moves after its end
// left out) and reviews it.
func reviewGame(ctx context.Context, cfg *analysis.Config, eval mcts.Evaluator, g datasets.Game, onPly func(analysis.Ply)) (*analysis.Review, error) {
	if g.Err != nil {
		return nil, g.Err
	}
	res := rules.Replay(g.Variant, g.Start, g.Moves, g.Line)
	if res.Err != nil {
		return nil, res.Err
	}
	g.Moves = res.Moves
	return analysis.ReviewGame(ctx, cfg, eval, &g, onPly)
}

// write prints the report as JSON, or writes it into dir with its
// Markdown, each game's graph and each game as an OpenTafl record.
func write(dir string, rep *analysis.Report, games []datasets.Game, stdout io.Writer) error {
	if dir == "" {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	byIndex := map[int]datasets.Game{}
	for _, g := range games {
		byIndex[g.Index] = g
	}
	charts := map[int]string{}
	for _, r := range rep.Games {
		if r.Review == nil {
			continue
		}
		name := fmt.Sprintf("review-%03d.png", r.Index+1)
		if err := analysis.WriteChart(filepath.Join(dir, name), rep.File+", "+r.Label, r.Review); err != nil {
			return err
		}
		charts[r.Index] = name
		if err := writeOpenTafl(filepath.Join(dir, fmt.Sprintf("game-%03d.otg", r.Index+1)), byIndex[r.Index], r); err != nil {
			return err
		}
	}
	if err := fileio.WriteJSON(filepath.Join(dir, "review.json"), rep); err != nil {
		return err
	}
	return fileio.WriteFile(filepath.Join(dir, "review.md"), rep.Markdown(func(i int) string { return charts[i] }))
}

// writeOpenTafl writes a reviewed game as an OpenTafl record, each labelled
// move's comment saying what it lost and the better line.
func writeOpenTafl(path string, g datasets.Game, r analysis.Reviewed) error {
	var moves []rules.Move
	comments := make([]string, len(r.Review.Plies))
	for i, p := range r.Review.Plies {
		m, _, err := rules.ParseMove(p.Move)
		if err != nil {
			return err
		}
		moves = append(moves, m)
		comments[i] = p.Comment()
	}
	tags := []protocol.Tag{{Key: "event", Value: "taflab review of " + r.Label}, {Key: "annotator", Value: "taflab eval review, " + r.Review.Evaluator},
		{Key: protocol.TagStartComment, Value: fmt.Sprintf("Reviewed at %d playouts a position: accuracy attackers %s, defenders %s", r.Review.Playouts, acc(r.Review.Attackers.Accuracy), acc(r.Review.Defenders.Accuracy))}}
	if g.Attackers != "" {
		tags = append(tags, protocol.Tag{Key: protocol.TagAttackers, Value: g.Attackers})
	}
	if g.Defenders != "" {
		tags = append(tags, protocol.Tag{Key: protocol.TagDefenders, Value: g.Defenders})
	}
	rec, err := datasets.OpenTaflRecord(g.Variant, g.Start, moves, tags, comments)
	if err != nil {
		return err
	}
	data, err := protocol.FormatGameRecord(rec)
	if err != nil {
		return err
	}
	return fileio.WriteFile(path, data)
}

func acc(a *float64) string {
	if a == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *a)
}

// gamesVariant returns the rule set every game is of, nil when they are of
// several (or there are none).
func gamesVariant(games []datasets.Game) *rules.Variant {
	var v *rules.Variant
	for i := range games {
		switch {
		case v == nil:
			v = games[i].Variant
		case games[i].Variant.Definition() != v.Definition():
			return nil
		}
	}
	return v
}
