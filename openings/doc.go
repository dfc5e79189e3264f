// Package openings says where games start: opening suites (the file
// format, ParseSuite and FormatSuite; a rule set's own suite or a suite
// file, LoadSuite), books of random openings (NewBook), a match's
// openings (Openings: the suite shuffled, or a book), and the building of
// a new suite: its candidate positions (GatherCandidates), their
// measurement (BuildSuite) and the header of its file (SuiteBuild). Its
// main use is
//
//	ops, desc, err := openings.Openings("suite", v, pairs, 4, seed) // a match's openings
//
// and, to build a suite (what "eval suite" does),
//
//	cfg := openings.DefaultCandidateConfig()
//	cfg.Variant, cfg.Records = v, "games.csv"
//	cands, err := openings.GatherCandidates(ctx, cfg)
//	entries, st, err := openings.BuildSuite(ctx, build, cands.List)
//	header := openings.SuiteBuild{Program: "my-tool", Candidates: cfg, Gathered: cands, Config: build, Stats: st}.Header()
//	data := openings.FormatSuite(header, entries)
package openings
