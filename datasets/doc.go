// Package datasets stores self-play as Apache Arrow files and reads it back
// for training: one row per searched position (the search's visit
// distribution, the root value and the game's result, the targets a
// policy/value network learns), and one row per game in a companion table.
//
// # Files
//
// A shard is two Arrow IPC files (the random-access "file" format, magic
// ARROW1, readable by pyarrow, arrow-js, DuckDB and the other Arrow
// implementations) in one directory:
//
//	NAME.positions.arrow   one row per searched position
//	NAME.games.arrow       one row per game
//
// NAME comes from the caller; ShardName makes names that start with a UTC time
// stamp, so that sorting names sorts shards by age, and that never clash
// across workers. Each file holds one rule set, and is written whole or not at
// all: it is written to a temporary file in the same directory (a name that
// starts with '.' and does not end in .arrow), synced, then renamed into
// place; the games file is renamed first, so a positions file never appears
// without its games.
//
// Positions columns, none nullable: game_id utf8, ply int32, rule_set utf8,
// side_to_move utf8 ("attackers" or "defenders"), attackers_lo,
// attackers_hi, defenders_lo, defenders_hi uint64 (the two words of each
// rules.Bitboard), king uint8 (square index), board_size uint8, position utf8
// (position notation, for people: the reader checks it against the
// bitboards), policy list<struct<move uint16, prob float32>> (the visit
// distribution over the legal moves, sparse), full_search bool, root_value
// float32 and result int8 (+1 win, 0 draw, -1 loss), both from the side to
// move's view, reason utf8 (why the game ended, rules.Reason's name), and
// from schema version 3 policy_surprise float32 (the policy target's KL
// divergence from the network's prior, nats; 0 unknown). Version 2 files,
// without it, are read too.
//
// Games columns, none nullable: game_id utf8, rule_set utf8, moves
// list<utf8> (notation with captures, such as "g3-e3xe2"), winner utf8
// (rules.Winner's name), reason utf8, length int32 (plies), seed uint64,
// evaluator utf8, start utf8 (the position the game started from, in
// notation, "" for the rule set's start: an opening suite's start, from
// which the moves are played), attacker_playouts and defender_playouts int32
// (each side's full-search budget: equal, or one side given odds).
//
// Square index = rank*11 + file (a1 = 0, b1 = 1, a2 = 11); a move is a
// uint16 with the from-square in bits 0-7 and the to-square in bits 8-15;
// bit i of a bitboard (lo holds bits 0-63, hi bits 64-127) is square i.
//
// The schema metadata holds the schema version (SchemaVersion), the table
// ("positions" or "games"), the rule set's name and its full definition as
// TOML (the format of configs/variants/*.toml), the number of rows, the
// layouts above in words, and a CRC-32C of the whole file (KeyChecksum). See
// the Key* constants.
//
// # Reading
//
// ReadPositionsFile and ReadGamesFile check everything they can: the magic,
// the checksum (before the Arrow library parses anything: it trusts the
// lengths in a file and can exhaust memory on a corrupt one), the schema
// version, the table, every column's name and type, the Arrow buffers, and
// every value (squares on the board, known names, probabilities and values in
// range, the position string against the bitboards, the row count). A file
// that fails any check is refused with an error naming it; corrupt input
// never panics.
//
// # Games
//
// Game is taflab's one type of a finished game. LoadGames (a file by its
// name, or an embedded archive) and ReadGames (a reader, a page of games
// at a time) read every games file as Games, each game as the file writes
// it: game records in the archive's CSV format (a match's games.csv under
// the rules and with the players of the match.json beside it), a dataset's
// games table, an OpenTafl record (.otg; OpenTaflRecord writes one).
// ReadRecordGames and ReadRecordSet replay game records strictly through
// the rules, for training:
//
//	games, err := datasets.LoadGames("runs/vs-builtin/games.csv", datasets.GameOptions{})
//	for _, g := range games {
//		if g.Err != nil { ... } // a game that could not be read; the others are there
//		moves := g.Moves       // as the file writes them, from g.Start under g.Variant
//	}
//
// OpenWindow loads the newest positions of a directory of shards for
// training and serves them shuffled, in an order fixed by a seed, the set of
// shards and an offset, so that training can stop and resume at the exact
// same place. It holds the window in memory: 11x11 positions with about 40
// policy entries each take about 350 bytes; 2 million of them load in about
// 6 s here.
//
// # Example
//
//	name := datasets.ShardName(time.Now(), worker, seq) // worker: unique, such as host-pid
//	if err := datasets.WriteShard(dir, name, def, positions, games); err != nil {
//		return err
//	}
//	...
//	w, err := datasets.OpenWindow(dir, 500_000, seed)
//	if err != nil {
//		return err
//	}
//	w.SetOffset(resumeOffset)
//	batch := make([]datasets.PositionRow, 256)
//	for step := 0; step < steps; step++ {
//		w.Next(batch)
//		train(batch)
//	}
//	saveCheckpoint(w.Offset())
package datasets
