// Package rules is the hnefatafl game engine: board, legal moves, captures,
// every ending of the supported rule sets, and the notation for squares,
// moves, positions and game records.
//
// A rule set is data (a [Definition]), compiled once into an immutable
// [*Variant] that any number of games share. A [Game] is one game in
// progress; its hot paths (move generation, make and unmake) allocate
// nothing:
//
//	v, err := rules.Compile(def) // def from configs, or rules.Definition{...}
//	if err != nil { ... }
//	g := rules.NewGame(v)
//	moves := make([]rules.Move, 0, rules.MaxMoves)
//	for g.Outcome().Winner == rules.NoWinner {
//		moves = g.GenerateMoves(moves[:0])
//		g.Make(moves[rng.IntN(len(moves))])
//	}
//	fmt.Println(g.Outcome(), g.Position())
//
// The package imports nothing else of this module; configs turns rule-set
// files into Definitions, and search, networks and datasets build on Game.
//
// Which reading of the rules each point takes is in the comments where the
// point is decided, citing ../shared/spec/variants.md (the authority) and the
// seed documents it names.
package rules
