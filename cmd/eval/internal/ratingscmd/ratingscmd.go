// Package ratingscmd is "eval ratings": its flags, help and output over
// the ratings library.
package ratingscmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"taflab/cmd/internal/cli"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/ratings"
)

const help = `usage: eval ratings [-variant NAME[,NAME...]] [-anchor PLAYER] [-prior-sd ELO] [-out DIR] PATH ...

Ratings across many players (networks, budgets): a Bradley-Terry (logistic
Elo) fit with an attackers' advantage term over every game of the matches
given, so that a player's rating does not depend on the sides it happened to
play. PATHs are match folders or match.json files ("eval match" writes
them), or folders searched recursively for match.json. Players are matched
by name across files; a name the files give to different players (two
runs' gen-001, which are different networks, or one network at two budgets)
is rated as one player, with a warning naming the files.

Ratings are per rule set: the games of one rule set are fitted at a time.
When the files hold games of several rule sets the command refuses them
unless -variant names the one to fit (the others are then left out), or
several with commas, to rate them as one: two programs' readings of the
same game (-variant copenhagen,opentafl-copenhagen rates OpenTafl, playing
under its own rules, beside networks rated under taflab's).

The anchor (-anchor; default the first "builtin-*" player, else the first
player met) is fixed at 0 Elo. When a player won or lost every game the
maximum-likelihood ratings do not exist; -prior-sd 400, say, fits them
anyway with a normal prior of that standard deviation on every rating.

Players that no chain of games links (a run folder's final-25 and final-800
matches, say, each a network against the searcher at its own budget) have no
rating relative to each other, with a prior or without. The players are then
split into such groups and each group is fitted on its own with its own
anchor: first the group of -anchor, else the group with the most games, then
the others in the order they were first met. Each group's anchor is -anchor
if it is in the group, else the group's first "builtin-*" player, else its
first player met.

Printed, and with -out written as ratings.md: a Markdown table (one per
group), strongest
first, of each player's Elo, its 95% interval half-width (1.96 standard
errors, multiplied by sqrt(dispersion) when the fit's dispersion is above 1:
the scores vary more than the model allows; below 1 the intervals are kept,
which is conservative), games (against other players) and score; then the
attackers' advantage with its interval. With -out also ratings.json (the
same figures: the first group at the top level, the others in
"other_groups") and ratings.png (the first group): rating with its 95%
interval by generation
(players named like gen-3 or gen003 in generation order, after the players
without a generation in the order they were first met).

Limits: at most 10,000 match files of at most 1 GiB together, each at most
64 MiB.

Exit status: 0 done, 1 the fit failed (it says why), 2 bad input (no PATH, an
unreadable or malformed match file, named; a mix of rule sets; an unknown
anchor; past the limits).

Flags:
`

// flags are the flags of ratings.Config's settings.
var flags = map[string]string{"PriorSD": "-prior-sd", "Variant": "-variant", "Anchor": "-anchor"}

// Run runs "eval ratings" with its arguments and returns the exit status.
// It reads at most maxFiles match files of at most maxBytes bytes together
// (0: ratings' defaults).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, maxFiles int, maxBytes int64) int {
	fset := cli.NewFlags("eval ratings", help, stderr)
	variant := fset.String("variant", "", "fit only the matches of this rule set (`name` as the match files write it), or of several named with commas, rated as one")
	anchor := fset.String("anchor", "", "the `player` fixed at 0 Elo (default the first builtin-*, else the first player)")
	priorSD := fset.Float64("prior-sd", 0, cli.Range{Min: 0, Max: 100_000, Note: "0: no prior"}, "a normal prior of this `SD` (Elo) on every rating; 0 = none (maximum likelihood)")
	out := fset.String("out", "", "write ratings.md, ratings.json and ratings.png into this `folder`")
	fset.Document()
	if err := fset.FlagSet.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if err := fset.CheckRanges(); err != nil {
		fmt.Fprintf(stderr, "eval ratings: %v\n", err)
		return 2
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "eval ratings: "+format+"\n", a...)
		return 2
	}
	if fset.NArg() == 0 {
		return bad("no PATH: give match folders or match.json files")
	}
	cfg := ratings.Config{Paths: fset.Args(), Variant: *variant, Anchor: *anchor, PriorSD: *priorSD, MaxFiles: maxFiles, MaxBytes: maxBytes}
	rep, err := ratings.Run(ctx, cfg)
	var fe *ratings.FitError
	if err == nil || errors.As(err, &fe) {
		for _, c := range slices.Concat(rep.Clashes, rep.SelfGames) {
			fmt.Fprintf(stderr, "eval ratings: warning: %s\n", c)
		}
	}
	var se *ratings.SettingError
	switch {
	case fe != nil:
		hint := ""
		if *priorSD == 0 {
			hint = " (try -prior-sd 400)"
		}
		fmt.Fprintf(stderr, "eval ratings: %s%s\n", fe.Message(), hint)
		return 1
	case errors.As(err, &se) && flags[se.Setting] != "":
		if se.Value == "" {
			return bad("%s with %s", se.Problem, flags[se.Setting])
		}
		return bad("%s %s: %s", flags[se.Setting], se.Value, se.Problem)
	case err != nil:
		return bad("%s", errctx.MessageOf("ratings", err))
	}
	md := rep.Markdown()
	fmt.Fprint(stdout, md)
	if *out == "" {
		return 0
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "eval ratings: -out: %v\n", err)
		return 1
	}
	if err := errors.Join(
		fileio.WriteFile(filepath.Join(*out, "ratings.md"), []byte(md)),
		fileio.WriteJSON(filepath.Join(*out, "ratings.json"), rep),
		rep.SaveChart(filepath.Join(*out, "ratings.png")),
	); err != nil {
		fmt.Fprintf(stderr, "eval ratings: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "\neval ratings: written to %s\n", *out)
	return 0
}
