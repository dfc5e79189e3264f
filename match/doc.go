// Package match plays two players against each other in game pairs (each
// opening twice, sides swapped, since the two sides of hnefatafl are not
// alike), many games at once with the evaluations of each player batched
// across games, and stops as soon as a sequential test decides.
//
//	mf := match.Folder{Dir: "runs/m"} // the match's folder: its journal, files and clean-up
//	rc := match.RunConfig{Match: match.Config{Variant: v, A: a, B: b, Openings: ops, MaxPairs: 200}, Test: sprt}
//	if err := mf.Open(&rc.Match, match.ResumeAny); err != nil { ... }
//	file, res, err := mf.Play(ctx, rc)
//
// Its parts, one job a file: the players (player.go: a search, or an engine
// program the match referees), a match's settings and their checks
// (config.go), the scheduler that plays the games (play.go, worker.go), the
// order in which the sequential test counts the pairs (order.go), a match
// played to its end with its playout ladder (run.go, ladder.go), the match
// file (file.go), the run files that let a match resume (journal.go) and
// the folder that holds them all (folder.go). Where the pairs start is
// package openings'.
//
// A player is a search budget with an evaluator (a network's, or the
// built-in one); player.Parse turns a spec such as "net=FILE,playouts=200" into one. A
// player may also be an engine program (Player.NewProgram, a Program): the
// match's rules referee its moves, and an illegal move, a move past its
// time allowance or a failure of the program loses that game for it
// (Game.Forfeit) while the match goes on.
package match
