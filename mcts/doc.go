// Package mcts is Monte Carlo tree search over the rules core, written for
// many games at once: each game's search collects several leaves (virtual
// loss keeps them apart), the leaves of all games go to the Evaluator in one
// batch, and the results are backed up. PUCT selection with a first-play
// urgency reduction, Dirichlet noise at the root scaled to the number of
// legal moves, a temperature schedule, tree reuse between moves,
// playout-cap randomization and exact (proven) terminal values follow
// KataGo and Leela Chess Zero.
//
// Config.RootSearch = "gumbel" replaces PUCT at the root by Gumbel root
// search (Danihelka et al., ICLR 2022; gumbel.go): Gumbel-top-k sampling of
// a few moves, sequential halving of the playouts among them, and the
// improved policy of completed Q values as the training target.
//
// The package declares the Evaluator it needs and never imports a network:
// Heuristic is the built-in, network-free evaluator, and networks implement
// the same interface elsewhere.
//
// Self-play of many games on one worker:
//
//	cfg := mcts.DefaultConfig()
//	p, err := mcts.NewSelfPlayer(cfg, variant, mcts.NewHeuristic(), 16 /* games at once */)
//	err = p.Play(ctx, games /* a GameSource */, func(r *mcts.GameRecord) { ... })
//
// Searching one position:
//
//	s := mcts.NewSearch(&cfg, game, seed)
//	r := mcts.NewRunner(mcts.NewHeuristic())
//	err := r.Search(s, 800)
//	best := s.BestMove()
package mcts
