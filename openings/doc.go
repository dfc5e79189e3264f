// Package openings says where games start: a rule set's opening suite or a
// suite file (LoadSuite), a match's openings (Openings: the suite shuffled,
// or a book of random openings), and the candidate positions of a new
// suite (GatherCandidates) with the header of its file (SuiteBuild). Its
// main use is
//
//	ops, desc, err := openings.Openings("suite", v, pairs, 4, seed) // a match's openings
//
// and, to build a suite (what "eval suite" does),
//
//	cfg := openings.DefaultCandidateConfig()
//	cfg.Variant, cfg.Records = v, "games.csv"
//	cands, err := openings.GatherCandidates(ctx, cfg)
//	entries, st, err := match.BuildSuite(ctx, build, cands.List)
//	header := openings.SuiteBuild{Program: "my-tool", Candidates: cfg, Gathered: cands, Config: build, Stats: st}.Header()
//	data := match.FormatSuite(header, entries)
package openings
