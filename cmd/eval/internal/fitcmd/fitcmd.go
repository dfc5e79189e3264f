// Package fitcmd is "eval fit": its flags, help and report over the fit
// library.
package fitcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"taflab/archive"
	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/datasets"
	"taflab/fit"
	"taflab/internal/errctx"
	"taflab/internal/progress"
	"taflab/net"
	"taflab/rules"
)

const help = `usage: eval fit [-net FILE] [-records FILE] [-variant NAME|FILE|otr:RULES] [-split all|train|heldout]
                [-holdout-every N] [-search-playouts N] [-workers N]

Measures how well predictors match the moves people played and the results
of their games, over the positions of a game-record file (the archive CSV),
by default archive:copenhagen: the 876 expert games of copenhagen-classic
that ship inside taflab. The predictors: uniform choice over the legal moves
(its expected figures), the network-free searcher at -search-playouts (its
best move first, the rest by visits), and with -net the network's policy
(moves ranked by logit) and value head.

Per predictor: top-1 and top-5 move-prediction accuracy, over all positions
and by side to move; for the network, the value head's log loss against the
results (mean -log P(result for the side to move) over the positions of
games with a result) beside that of the constant predictor that always says
the games' own attacker, defender and draw rates. Each figure has a 95%
interval with games as clusters (a cluster-robust ratio estimator: the
positions of one game are not independent).

-split picks the records: heldout (default) the records that training on
game records holds out (those whose line is a multiple of -holdout-every,
as records.holdout_every of the training config: 0 holds none out, so
-split heldout is then an error; else 2 or more), train the others, all
every record. The report is the same whatever the
number of workers.

Prints one JSON object on standard output:

  {"records": FILE, "variant": NAME, "split": S, "holdout_every": N,
   "net": FILE|"", "search_playouts": N,
   "games": G, "positions": P, "games_with_result": G, "positions_with_result": P,
   "result_rates": {"attackers": A, "defenders": D, "draws": R},
   "constant_log_loss": ESTIMATE|null,
   "predictors": [{"name": "uniform"|"builtin:playouts=N"|"net-HASH",
                   "top1": ESTIMATE, "top5": ESTIMATE,
                   "attackers": {"top1": ESTIMATE, "top5": ESTIMATE}, "defenders": {...},
                   "value_log_loss": ESTIMATE|null,
                   "value_log_loss_minus_constant": ESTIMATE|null}, ...]}

with ESTIMATE = {"mean": M, "ci95": [LO, HI]|null, "positions": P, "games": G},
and one readable line per predictor on standard error. Exit status: 0, 1 on
a failed run, 2 for bad flags, a missing or bad record file (the error names
its line and ply; a line of more than 1 MiB or a file of more than 256 MiB
is refused, naming the line) or a network file that cannot be used, 130 stopped by a
signal.

Flags:
`

// Output is the command's JSON report: the fit library's report with
// what was measured.
type Output struct {
	Records        string `json:"records"`
	Variant        string `json:"variant"`
	Split          string `json:"split"`
	HoldoutEvery   int    `json:"holdout_every"`
	Net            string `json:"net"`
	SearchPlayouts int    `json:"search_playouts"`
	*fit.Report
}

// options are the flags of eval fit.
type options struct {
	netFile, records, variant, split string
	every, playouts, workers         int
}

// Run runs "eval fit" with its arguments and returns the exit status: 130
// when ctx stops it.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fs := cli.NewFlags("eval fit", help, stderr)
	cli.Precision(fs.FlagSet)
	fs.StringVar(&o.netFile, "net", "", "the network `file` (none: the baselines only)")
	fs.StringVar(&o.records, "records", archive.Copenhagen, "the game-record `file` (archive CSV), or an archive that ships inside taflab")
	fs.StringVar(&o.variant, "variant", "copenhagen-classic", "rule set of the records: an embedded `name`, a rule-set file or otr:RULES (an OpenTafl rules string)")
	fs.StringVar(&o.split, "split", "heldout", "the `part` of the records to measure: all, train or heldout")
	fs.IntVar(&o.every, "holdout-every", 10, cli.IntRange(0, 1_000_000, "0: none held out; 1 is refused"), "one record in `N` is held out (its line is a multiple of N); 0 = none")
	fs.IntVar(&o.playouts, "search-playouts", 200, cli.IntRange(0, cli.MaxPlayouts, "0: leave the searcher out"), "the network-free searcher's `playouts` per position (0: leave it out)")
	fs.IntVar(&o.workers, "workers", 0, cli.WorkersRange, "worker goroutines (`N`); 0 = one per core")
	if code, done := fs.Parse(args, nil, nil, stdout, stderr); done {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "eval fit: "+format+"\n", a...)
		return code
	}
	switch {
	case o.records == "":
		return fail(2, "-records is empty: name a game-record file or %s", archive.Copenhagen)
	case o.split != "all" && o.split != "train" && o.split != "heldout":
		return fail(2, "-split %q: want all, train or heldout", o.split)
	case o.every == 1:
		return fail(2, "-holdout-every %d: want 0 (none held out) or 2 or more", o.every)
	case o.every == 0 && o.split == "heldout":
		return fail(2, "-split heldout: -holdout-every 0 holds no record out")
	}
	v, network, games, code, msg := o.load(ctx)
	if code != 0 {
		return fail(code, "%s", msg)
	}
	return o.measure(ctx, v, network, games, stdout, stderr, fail)
}

// load reads the rule set, the network and the records of the split: on
// a refusal, the exit status and what to say.
func (o *options) load(ctx context.Context) (v *rules.Variant, network *net.Network, games []datasets.Game, code int, msg string) {
	v, err := configs.LoadVariant(o.variant)
	if err != nil {
		return nil, nil, nil, 2, fmt.Sprintf("-variant: %v", err)
	}
	if o.netFile != "" {
		if v.Size() != net.BoardSize {
			return nil, nil, nil, 2, fmt.Sprintf("-variant %s: the network plays %dx%d boards, not %dx%d", v.Name(), net.BoardSize, net.BoardSize, v.Size(), v.Size())
		}
		if network, _, err = net.Load(o.netFile); err != nil {
			return nil, nil, nil, 2, fmt.Sprintf("-net: %v", err)
		}
	}
	games, err = datasets.ReadRecordGamesCtx(ctx, o.records, v)
	if err != nil && ctx.Err() != nil {
		return nil, nil, nil, 130, fmt.Sprintf("stopped while reading -records %s", o.records)
	}
	if err != nil {
		return nil, nil, nil, 2, "-records: " + errctx.Message(err)
	}
	train, heldOut := datasets.SplitRecords(games, o.every)
	switch o.split {
	case "train":
		games = train
	case "heldout":
		games = heldOut
	}
	if len(games) == 0 {
		return nil, nil, nil, 2, fmt.Sprintf("-split %s: none of the %d records of %s is in it (-holdout-every %d)", o.split, len(train)+len(heldOut), o.records, o.every)
	}
	return v, network, games, 0, ""
}

// measure measures the predictors on the games and prints the report.
func (o *options) measure(ctx context.Context, v *rules.Variant, network *net.Network, games []datasets.Game, stdout, stderr io.Writer, fail func(int, string, ...any) int) int {
	label := map[string]string{"all": "all records", "train": "training records", "heldout": "held-out"}[o.split]
	preds := []fit.Predictor{fit.Uniform()}
	if o.playouts > 0 {
		preds = append(preds, fit.Builtin(o.playouts))
	}
	if network != nil {
		preds = append(preds, fit.Network(network, "net-"+network.Hash()[:6]))
	}
	opts := fit.Options{Workers: o.workers}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		progress := progress.New(stderr, len(games), "games", 10*time.Second)
		defer progress.Finish()
		opts.Progress = func(done, total int) { progress.Update(done, "") }
	}
	rep, err := fit.Measure(ctx, v, games, preds, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fail(130, "stopped")
		}
		return fail(1, "%v", err)
	}
	out := Output{Records: o.records, Variant: v.Name(), Split: o.split, HoldoutEvery: o.every,
		Net: o.netFile, SearchPlayouts: o.playouts, Report: rep}
	for _, p := range rep.Predictors {
		fmt.Fprintf(stderr, "eval fit: %s\n", fitLine(rep, &p, label))
	}
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}

// fitLine is a predictor's figures in one readable line.
func fitLine(rep *fit.Report, p *fit.PredictorReport, label string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %s positions of %s games): top-1 %s (attackers %s, defenders %s), top-5 %s (attackers %s, defenders %s)",
		p.Name, label, thousands(rep.Positions), thousands(rep.Games),
		percentCI(p.Top1), percent(p.Attackers.Top1), percent(p.Defenders.Top1),
		percentCI(p.Top5), percent(p.Attackers.Top5), percent(p.Defenders.Top5))
	if p.ValueLogLoss != nil {
		fmt.Fprintf(&b, "; value log loss %.3f%s", p.ValueLogLoss.Mean, ci(p.ValueLogLoss, 1, "%.3f"))
		if rep.ConstantLogLoss != nil {
			d := p.ValueMinusConstant
			fmt.Fprintf(&b, " (constant rates: %.3f; difference %+.3f%s)", rep.ConstantLogLoss.Mean, d.Mean, ci(d, 1, "%+.3f"))
			for i, pv := range p.ValueByPly {
				sep := ", "
				if i == 0 {
					sep = "; difference by ply: "
				}
				fmt.Fprintf(&b, "%s%v %+.3f%s", sep, pv.Plies, pv.MinusConstant.Mean, ci(&pv.MinusConstant, 1, "%+.3f"))
			}
		}
	}
	return b.String()
}

func percent(e fit.Estimate) string {
	if e.Positions == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*e.Mean)
}

func percentCI(e fit.Estimate) string { return percent(e) + ci(&e, 100, "%.1f") }

// ci writes an interval as " [lo, hi]", scaled, or nothing without one.
func ci(e *fit.Estimate, scale float64, format string) string {
	if e.CI95 == nil {
		return ""
	}
	return fmt.Sprintf(" ["+format+", "+format+"]", scale*e.CI95[0], scale*e.CI95[1])
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
