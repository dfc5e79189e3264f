// Package web is taflab's local web page: play a game against the built-in
// searcher or a network, replay the games the project writes and reads
// (self-play datasets, a match's games.csv, game-record files), see what a
// network thinks of a position, and read a run folder's generations as
// charts. The page (HTML, CSS and JavaScript modules that the browser
// loads as they are, static/app.js first) is embedded in the binary:
// nothing is built or fetched at run time. Its modules read the JSON API
// of api.go's types, and its colours are chart.Palette's, which the server
// serves as palette.js and palette.css (palette.go), so that the page and
// the PNG charts draw a series alike.
//
// Its main use is `go run ./cmd/eval serve`, which wires flags to a Config:
//
//	cfg := web.DefaultConfig()
//	cfg.DataDir, cfg.RunDir = "data", "runs/loop"
//	cfg.OwnNetworks = player.ShippedNetworks() // rule set name -> its own network file
//	srv, err := web.New(cfg)
//	if err != nil { ... }
//	hs := srv.HTTPServer() // the Config's read, write and idle timeouts
//	hs.Addr = "127.0.0.1:8080"
//	hs.ListenAndServe()
//
// The server reads files only inside the folders it was given, through
// os.Root: a path with "..", an absolute path or a symbolic link leading
// out is refused. Every game in progress lives on the server and is guarded
// by its own mutex, so any number of requests at once see and change it one
// at a time; a search runs without the lock and is played only if the game
// did not change meanwhile.
//
// A player is the built-in searcher, a network file for every rule set
// (NetFile), the network of a request's own rule set (OwnNetworks: the one
// that learnt that rule set's input planes) or a run folder's network. The
// server reads networks only from the files its Config names and the run
// folder; it searches no other folder for them.
//
// Its load is bounded (Config): at most MaxSearches searches run at once
// (others queue briefly, then are answered 503 with Retry-After), each of
// at most MaxPlayouts and each stopped when its client goes away; at most
// MaxReads requests read whole files at once, a file at most MaxFileBytes
// and a run's reports at most MaxRunBytes together; a request body at most
// MaxBody, arriving within ReadTimeout. A start where the game is already
// over, and a network on a board it does not play, are refused (422).
package web
