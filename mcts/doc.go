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
// Config.TacticalWeight > 0 (off by default) adds implicit minimax backups
// (Lanctot, Winands, Pepels and Sturtevant, "Monte Carlo Tree Search with
// Heuristic Evaluations using Implicit Minimax Backups", 2014; tactics.go):
// every node also keeps a minimax value over the tree, read at its leaves by
// a cheap heuristic (a move that ends the game, else the material), and
// PUCT mixes it into each child's value, so that a weak evaluator neither
// walks into a capture nor passes one by. The expansion's scan of every
// move also proves every win in one, forts and encirclements included.
//
// The package declares the Evaluator it needs and never imports a network:
// Heuristic is the built-in, network-free evaluator, and networks implement
// the same interface elsewhere.
//
// Limits. A search takes from 1 to MaxPlayouts (1<<24) playouts
// (CheckPlayouts; Config.Validate, Runner.Search and, through Runner.Step,
// Search.Start refuse others with an error). Its memory is its tree: one
// 28-byte node for each legal move of each position it expands, about 110
// nodes and 3.1 KB a playout in a middle game, heap included
// (TestTreeBytesPerPlayout measures it and fails past 3.4 KB of nodes or
// 4 KB of heap a playout); that is 1 node per 28 bytes, about 340
// playouts per MiB.
// Config.TreeBytes (default 256 MiB, about 85,000 playouts) is the
// budget: a search whose tree reaches it ends early with its best move.
// A position whose side to move has no legal move though the game goes on
// (a start rules.Variant.CheckStart refuses) is an error, not a search.
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
