// Package analysis tells what a player makes of a position and of a whole
// game, for people who study games: `eval analyze`, `eval review` and the
// web page all call it.
//
// A position's analysis (Analyze) is an evaluator's own view (a network's
// win, draw and loss and its move priors) and a search's: its value, its
// best move with the principal variation, its moves by visits. A game's
// review (ReviewGame, or a Reviewer a position at a time) searches every
// position from the start, each search reusing the tree of the move played
// (Config.Search.TreeReuse), and for every ply gives the mover's and the
// attackers' win, draw and loss before and after the move, the best move
// and its line, what the move lost in win chance, its label (inaccuracy,
// mistake, blunder, at Config.Thresholds) and its accuracy; over the game,
// each side's accuracy and where the game turned. Its arithmetic (win
// chance, thresholds, accuracy) is lichess's published one, in score.go.
// A review takes no random choice but an evaluator's board symmetries,
// which it draws from Config.Seed: the same seed, settings and evaluator
// give the same review.
//
//	cfg := analysis.DefaultConfig() // 400 playouts a position, lichess's thresholds
//	games, err := datasets.LoadGames("games.csv", datasets.GameOptions{}) // or a game of one's own
//	rev, err := analysis.ReviewGame(ctx, &cfg, evaluator, &games[0], nil)
//	for _, p := range rev.Plies {
//		fmt.Println(p.Ply, p.Move, p.Loss, p.Label, p.Best)
//	}
//
// The evaluator is any mcts.Evaluator; one that also has a network's
// win/draw/loss head (net.Inference) gives the draw share of every value.
// Markdown and PNG reports of reviews are in report.go and chart.go.
package analysis
