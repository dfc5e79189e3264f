// Package matchcmd is "eval match": its flags, help, progress and the
// match folder, over match.Run, and the gate's best-network pointer.
package matchcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/internal/fileio"
	"taflab/internal/progress"
	"taflab/loop"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/player"
	"taflab/stats"
)

const help = `usage: eval match -a PLAYER -b PLAYER [-variant NAME|FILE|otr:RULES] [-max-games N]
                  [-openings suite|random|FILE] [-odds 2,4,8 [-odds-pairs N]]
                  [-elo0 E0 -elo1 E1 -alpha A -beta B] [-gate [-best FILE]] -out DIR

Plays player A (the candidate) against player B in game pairs: each opening
is played twice with the sides swapped, because the two sides of hnefatafl
are not alike. The openings are the rule set's opening suite (-openings
suite, the default: start positions where equal players split their
results, since from the start the defenders win nearly every game between
engines and every pair would split 1-1; each shipped rule set has one, a
rule set of your own needs a suite file or random; -openings suite:NAME
plays the shipped rule set NAME's suite under -variant, another reading of
its rules such as OpenTafl's rules string), a book of short random starts
(-openings random), or a suite file. The pentanomial
SPRT over the pairs (as Stockfish's fishtest does it: H0 Elo(A-B) = elo0
against H1 = elo1) stops the match as soon as it decides. A PLAYER is
"builtin:playouts=800" (the network-free searcher) or
"net=FILE,playouts=200", either with ",root=gumbel" for Gumbel root search
and ",tactics=W" for implicit minimax backups of material and game ends
with weight W (0 to 1, mcts's TacticalWeight), a network with
",planes=NAME" to show it the input planes of the embedded rule set NAME
whatever is played (by default those its file names, if any), or an engine
program: "otep:cmd=COMMAND,movetime=MS" (OpenTafl's engine
protocol) or "uci:cmd=COMMAND,movetime=MS" or ",nodes=N" (TaflZero's), with
",limit=MS" its allowance per move (default the move time plus a second).
The rules referee an engine's moves: an illegal move, a move past its
allowance or a crash loses that game (games.csv ends its moves with
illegal-move, timeout or crash; match.json and match.md say what happened),
and the engine is restarted for the next game.

-odds climbs B's playout ladder after the match (B at 2, 4, 8 times its
playouts against B, -odds-pairs pairs each) and reports the playout odds:
how many times its playouts B needs to score level with A.

It prints the test's state as it goes and at the end: the log-likelihood
ratio and its bounds, the decision, the Elo difference with a 95% interval
and the results split by side; and writes into -out: match.json (players,
test, report, every game), games.csv (the games as game records, which
"eval replay" checks) and match.md. With -gate, an accepted H1 promotes A:
the best-network pointer (-best, default OUT/best.json) then names A's
network. Bad input (a missing network, a network of another input encoding,
an unknown rule set, nonsense test settings) is an error before any game.
While it plays, OUT/pairs.jsonl keeps every finished pair: a match
stopped by a signal or a crash carries on with -resume and the same flags,
playing only the pairs it had not finished (for a long match against a
slow engine, over several sittings); the file goes once the match is done.
In a match with an engine program, whose games can take hours,
OUT/in-play.json also keeps the games of the unfinished pairs (written
every 10 s, and when the match stops or fails), and -resume carries those
games on from their moves rather than from their starts; a game that had
ended, by the rules or a forfeit, ends as it did.
Exit status: 0 done (whatever the decision), 1 failed, 2 bad input, 130
stopped by a signal (what was played is written).

Flags:
`

// JournalFile is the file in a match's folder that holds its finished pairs
// while it runs (match.AppendPair), for -resume.
const JournalFile = "pairs.jsonl"

// InPlayFile is the file in a match's folder that holds the moves of its
// games in play (match.InPlay) while a match with an engine program runs,
// for -resume.
const InPlayFile = "in-play.json"

// inPlayEvery is how often the games in play are written (a variable for
// the tests).
var inPlayEvery = 10 * time.Second

// Run runs "eval match" with its arguments and returns the exit status:
// 130 when ctx stops it (what was played is written).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := cli.NewFlagSet("eval match", help, stderr)
	variantArg := fs.String("variant", "copenhagen", "rule set: an embedded `name`, a rule-set file or otr:RULES (an OpenTafl rules string)")
	aSpec := fs.String("a", "", "the candidate `player`")
	bSpec := fs.String("b", "", "the reference `player`")
	maxGames := fs.Int("max-games", 400, "stop after this many `games` (pairs of two) if the test has not decided")
	elo0 := fs.Float64("elo0", 0, "the SPRT's H0: Elo(A-B) = `elo0`")
	elo1 := fs.Float64("elo1", 30, "the SPRT's H1: Elo(A-B) = `elo1`")
	alpha := fs.Float64("alpha", 0.05, "the false-accept rate of H1 (`alpha`)")
	beta := fs.Float64("beta", 0.05, "the false-accept rate of H0 (`beta`)")
	gate := fs.Bool("gate", false, "promote A (write the best-network pointer) if the test accepts H1")
	best := fs.String("best", "", "the best-network pointer `file` (default OUT/best.json)")
	out := fs.String("out", "", "the match `folder`")
	openingsSpec := fs.String("openings", "suite", "where pairs start: `suite` (the rule set's opening suite), suite:NAME (a shipped rule set's), random, or a suite file")
	openingPlies := fs.Int("opening-plies", 4, "random moves of each opening of -openings random (`plies`)")
	seed := fs.Uint64("seed", 1, "`seed` of the opening book, or of the suite's order")
	oddsSpec := fs.String("odds", "", "comma-separated playout `multipliers` of B's ladder, e.g. 2,4,8 (\"\": no odds)")
	oddsPairs := fs.Int("odds-pairs", 20, "game `pairs` per rung of the ladder")
	workers := fs.Int("workers", 0, "worker goroutines (`N`); 0 = one per core")
	resume := fs.Bool("resume", false, "carry on the interrupted match in -out, given the same flags: its finished pairs count and are not played again (against an engine program, its games begun go on from their moves)")
	if code, done := cli.ParseRanged(fs, args, nil, nil, stdout, stderr); done {
		return code
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "eval match: "+format+"\n", a...)
		return 2
	}
	switch {
	case *aSpec == "" || *bSpec == "":
		return bad("-a and -b are required")
	case *out == "":
		return bad("-out is required")
	case *maxGames < 2:
		return bad("-max-games %d: want at least 2 (one pair)", *maxGames)
	case *openingPlies < 0 || *workers < 0:
		return bad("-opening-plies %d, -workers %d: want 0 or more", *openingPlies, *workers)
	case *oddsPairs < 1:
		return bad("-odds-pairs %d: want at least 1", *oddsPairs)
	}
	multipliers, err := cli.ParseInts(*oddsSpec, 2)
	if err != nil {
		return bad("-odds: %v", err)
	}
	test := stats.SPRT{Elo0: *elo0, Elo1: *elo1, Alpha: *alpha, Beta: *beta}
	if err := test.Validate(); err != nil {
		return bad("%v", err)
	}
	v, err := configs.LoadVariant(*variantArg)
	if err != nil {
		return bad("-variant: %v", err)
	}
	a, err := player.Parse(*aSpec)
	if err != nil {
		return bad("-a: %v", err)
	}
	b, err := player.Parse(*bSpec)
	if err != nil {
		return bad("-b: %v", err)
	}
	if a.Name == b.Name {
		b.Name += "-b" // the same player on both sides: keep the names apart in ratings
	}
	if *gate && a.Network == "" {
		return bad("-gate promotes a network: -a must be net=FILE,...")
	}
	pairs := *maxGames / 2
	openings, openingsDesc, err := openings.OpeningsCtx(ctx, *openingsSpec, v, pairs, *openingPlies, *seed)
	if err != nil && ctx.Err() != nil {
		fmt.Fprintln(stderr, "eval match: stopped while drawing the openings; nothing played")
		return 130
	}
	if err != nil {
		return bad("-openings: %v", err)
	}
	// The journal of finished pairs (match.AppendPair) lets an interrupted
	// match carry on with -resume; it is removed once the match is done.
	// The flags that make the match are kept beside it and must be given
	// again.
	journal, identityFile := filepath.Join(*out, JournalFile), filepath.Join(*out, JournalFile+".flags")
	identity := fmt.Sprintf("-variant %q -a %q -b %q -max-games %d -openings %q -opening-plies %d -seed %d -elo0 %g -elo1 %g -alpha %g -beta %g\n",
		*variantArg, *aSpec, *bSpec, *maxGames, *openingsSpec, *openingPlies, *seed, *elo0, *elo1, *alpha, *beta)
	var played []match.Pair
	_, statErr := os.Stat(journal)
	switch {
	case *resume && statErr != nil:
		return bad("-resume: no interrupted match in %s (no %s)", *out, JournalFile)
	case !*resume && statErr == nil:
		return bad("-out %s holds an interrupted match (%s): -resume to carry it on, or another -out", *out, JournalFile)
	case *resume:
		kept, err := fileio.ReadFileLimit(identityFile, fileio.MaxConfigBytes, "the match's flags")
		if err != nil {
			return bad("-resume: %v", err)
		}
		if string(kept) != identity {
			return bad("-resume: the match in %s was started with %sand this one has %sgive the same flags, or another -out", *out, kept, identity)
		}
		if played, err = match.ReadPairs(journal); err != nil {
			return bad("-resume: %v", err)
		}
	}
	// The games in play are kept where a player is an engine program:
	// its games can take hours, and cannot be replayed exactly anyway. A
	// match of searches alone plays an interrupted game again from its
	// start, so that the match resumed is the match played in one go.
	inPlayPath := filepath.Join(*out, InPlayFile)
	keepInPlay := a.NewEngine != nil || b.NewEngine != nil
	var unfinished []match.Unfinished
	if *resume && keepInPlay {
		kept, err := match.ReadInPlay(inPlayPath)
		if err != nil {
			return bad("-resume: %v", err)
		}
		finished := map[int]bool{}
		for _, p := range played {
			finished[p.Index] = true
		}
		for _, u := range kept {
			if !finished[u.Pair] { // its pair ended after the file was written
				unfinished = append(unfinished, u)
			}
		}
	}
	inPlay := match.NewInPlay(unfinished)
	cfg := match.Config{Variant: v, A: a, B: b, Search: mcts.DefaultConfig(), Workers: *workers,
		Openings: openings, MaxPairs: pairs, Played: played, Unfinished: unfinished}
	if keepInPlay {
		cfg.OnMove, cfg.OnGameEnd = inPlay.Moved, inPlay.Ended
	}
	var journalFile *os.File
	var journalErr error  // the first failed write; the match goes on
	var bar *progress.Bar // made once the match starts
	rc := match.RunConfig{Match: cfg, Test: test, Openings: openingsDesc, Odds: multipliers, OddsPairs: *oddsPairs,
		OnPair: func(p match.Pair, r stats.Report) {
			if journalErr == nil {
				journalErr = match.AppendPair(journalFile, p)
			}
			inPlay.Finished(p.Index)
			bar.Update(r.Pairs, fmt.Sprintf("LLR %.2f (%.2f, %.2f), Elo %.0f [%.0f, %.0f]", r.LLR, r.Lower, r.Upper, r.Elo, r.EloLo, r.EloHi))
		},
		OnLadder: func(res match.Result) {
			inPlay.Forget() // the match is over: what is left is pairs played after its decision
			bar.Finish()
			fmt.Fprintf(stdout, "eval match: %s\n", res.Report)
			fmt.Fprintf(stdout, "eval match: playout odds: %s at %v times its playouts against itself, %d pairs each\n", b.Name, multipliers, *oddsPairs)
		},
		OnRung: func(r match.Rung) {
			fmt.Fprintf(stdout, "eval match: %s: Elo %.0f [%.0f, %.0f] over %d pairs\n", r.Player, r.Report.Elo, r.Report.EloLo, r.Report.EloHi, r.Report.Pairs)
		}}
	if err := cfg.CheckUnfinished(); err != nil {
		return bad("-resume: %s: %v (remove the file to play its games again from their starts)", inPlayPath, err)
	}
	if err := rc.Validate(); err != nil {
		var le *match.LadderError
		switch {
		case errors.As(err, &le) && le.Engine:
			return bad("-odds climbs B's playout ladder: -b must search (builtin or net), not be an engine program")
		case errors.As(err, &le) && le.Multiplier >= 2:
			return bad("-odds %s: %d times B's %d playouts is more than %d, the most a search may have", *oddsSpec, le.Multiplier, le.Playouts, cli.MaxPlayouts)
		}
		return bad("%v", err)
	}
	if *best == "" {
		*best = filepath.Join(*out, "best.json")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "eval match: -out: %v\n", err)
		return 1
	}
	if !*resume {
		if err := fileio.WriteFile(identityFile, []byte(identity)); err != nil {
			fmt.Fprintf(stderr, "eval match: %v\n", err)
			return 1
		}
		if err := os.Remove(inPlayPath); err != nil && !errors.Is(err, os.ErrNotExist) { // another match's
			fmt.Fprintf(stderr, "eval match: %v\n", err)
			return 1
		}
	}
	if journalFile, err = os.OpenFile(journal, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
		fmt.Fprintf(stderr, "eval match: %v\n", err)
		return 1
	}
	defer journalFile.Close()
	if *resume {
		inPlayNote := ""
		if keepInPlay {
			inPlayNote = fmt.Sprintf(", and %d games begun go on from their moves", len(unfinished))
		}
		fmt.Fprintf(stdout, "eval match: resuming: %d finished pairs of %s count%s\n", len(played), journal, inPlayNote)
	}
	fmt.Fprintf(stdout, "eval match: %s (A) against %s (B), %s, up to %d pairs from %s; SPRT H0 %g, H1 %g, alpha %g, beta %g\n",
		a.Name, b.Name, v.Name(), pairs, openingsDesc, test.Elo0, test.Elo1, test.Alpha, test.Beta)
	bar = progress.New(stdout, pairs, "pairs", 10*time.Second)
	var inPlayErr error // the first failed write of the games in play: the saver's until saving.Wait returns
	stopSaving, saving := make(chan struct{}), sync.WaitGroup{}
	if keepInPlay {
		saving.Go(func() {
			tick := time.NewTicker(inPlayEvery)
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
					if err := inPlay.Save(inPlayPath); err != nil && inPlayErr == nil {
						inPlayErr = err
						fmt.Fprintf(stderr, "eval match: the games in play: %v (finished pairs are kept all the same)\n", err)
					}
				case <-stopSaving:
					return
				}
			}
		})
	}
	file, res, err := match.Run(ctx, rc)
	close(stopSaving)
	saving.Wait()
	bar.Finish()
	interrupted := errors.Is(err, context.Canceled)
	if keepInPlay {
		// Done: the games are in the match files. Stopped or failed: the
		// journal stays for -resume, and so do the games begun.
		var final error
		if err == nil {
			if final = os.Remove(inPlayPath); errors.Is(final, os.ErrNotExist) {
				final = nil
			}
		} else {
			final = inPlay.Save(inPlayPath)
		}
		if final != nil && inPlayErr == nil {
			fmt.Fprintf(stderr, "eval match: the games in play: %v (finished pairs are kept all the same)\n", final)
		}
	}
	var oddsErr *match.OddsError
	switch {
	case errors.As(err, &oddsErr):
		fmt.Fprintf(stderr, "eval match: odds: %v\n", oddsErr.Err)
		return 1
	case err != nil && !interrupted:
		fmt.Fprintf(stderr, "eval match: %v\n", err)
		return 1
	case file.Odds != nil:
		fmt.Fprintf(stdout, "eval match: playout odds: %s needs %s its playouts to score level with %s\n", b.Name, file.Odds.Text, a.Name)
	}
	if werr := match.WriteFiles(*out, file); werr != nil {
		fmt.Fprintf(stderr, "eval match: %v\n", werr)
		return 1
	}
	if journalErr != nil {
		fmt.Fprintf(stderr, "eval match: %s: %v (the match files hold every game)\n", journal, journalErr)
		return 1
	}
	if !interrupted {
		journalFile.Close()
		for _, f := range []string{journal, identityFile} {
			if err := os.Remove(f); err != nil {
				fmt.Fprintf(stderr, "eval match: %v\n", err)
				return 1
			}
		}
	}
	fmt.Fprintf(stdout, "eval match: %s\n", res.Report)
	fmt.Fprintf(stdout, "eval match: %s after %d pairs (%s); written to %s\n", match.DecisionText(file.Decision), res.Report.Pairs, res.Stopped, *out)
	if *gate {
		promoted, err := loop.Promote(*best, a.Network, *out, file)
		if err != nil {
			fmt.Fprintf(stderr, "eval match: %v\n", err)
			return 1
		}
		if promoted {
			fmt.Fprintf(stdout, "eval match: promoted %s: %s\n", a.Network, *best)
		}
	}
	if interrupted {
		return 130
	}
	return 0
}
