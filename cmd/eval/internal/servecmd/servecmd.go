// Package servecmd is "eval serve": its flags, help, the listener and the
// shutdown on a signal, over the web library.
package servecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	stdnet "net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"taflab/cmd/internal/cli"
	"taflab/player"
	"taflab/web"
)

const help = `usage: eval serve [-addr HOST:PORT] [-run DIR] [-data DIR] [-net FILE|none]

Serves taflab's web page: play against the built-in searcher or a network
(any rule set, either side, by mouse or keyboard), replay the human games
that ship inside taflab and the games in -data and -run (self-play
datasets, match games.csv, game-record files, OpenTafl .otg records) and
review any of them move by move, see a network's value and policy for a
position, and read a run folder's generations, ratings and balance as
charts. The page is built into the binary. Only files inside -data and
-run are served.

Each rule set with a network of its own (networks/NAME.safetensors, in
the working folder or beside the executable: copenhagen's, trained by
self-play, and copenhagen-classic's, trained on people's games) is played
and analysed with it by default ("own network" on the page). -net FILE
offers that file too, for every rule set, and makes it the default; -net
none offers no network, only the built-in searcher (and -run's networks).

It listens on the loopback address unless -addr names another, and then
warns: anyone who reaches that address can use the page. Ctrl-C stops it.

The network files (-net and the rule sets' own) are read at the start: one
that is not a network fails it. A network plays only 11x11 boards; a game
or an analysis of another rule set with it is refused, with the built-in
searcher offered instead, and so is "own network" for a rule set that has
none (a rule-set file that differs from the embedded ones has none).
At most -max-searches searches run at once (each until its page goes
away), and one request reads files at a time; others wait up to 10 s, then
are answered 503. A request's body is at most 1 MiB and must arrive within
30 s; a file read is at most -max-file-bytes, and a run's reports at most
16 MiB together. The Go runtime's soft memory limit is 448 MiB unless
GOMEMLIMIT sets another: with the default limits the server stays under
512 MiB.

Flags:
`

// Ranges are eval serve's numeric flags' documented ranges, which Flags
// declares them with.
var Ranges = cli.Ranges{
	"max-playouts":   cli.IntRange(1, web.PlayoutsLimit, ""),
	"max-searches":   cli.IntRange(1, 256, ""),
	"max-file-bytes": cli.IntRange(1024, 1<<40, ""),
}

// Flags defines eval serve's flags into cfg and addr.
func Flags(cfg *web.Config, addr *string, stderr io.Writer) *cli.Flags {
	fs := cli.NewFlags("eval serve", help, stderr)
	cli.Precision(fs.FlagSet)
	fs.StringVar(addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (loopback by default)")
	fs.StringVar(&cfg.RunDir, "run", "", "a run `folder` of the loop, or a folder of them")
	fs.StringVar(&cfg.DataDir, "data", "", "a `folder` of games to replay (*.games.arrow, *.csv)")
	fs.StringVar(&cfg.NetFile, "net", "", "a network `file` to play against and analyse with for every rule set, or none for no network (default: each rule set's own network, where one ships)")
	fs.IntVar(&cfg.MaxPlayouts, "max-playouts", cfg.MaxPlayouts, Ranges["max-playouts"], "the most `playouts` a request may ask (a search takes about 3 KB a playout, and ends early at 128 MiB)")
	fs.IntVar(&cfg.MaxSearches, "max-searches", cfg.MaxSearches, Ranges["max-searches"], "the `searches` that run at once; more wait briefly, then are answered 503 (busy)")
	fs.Int64Var(&cfg.MaxFileBytes, "max-file-bytes", cfg.MaxFileBytes, Ranges["max-file-bytes"], "the largest games file, report or network read, in `bytes` (listing a games file's games takes about 11 times its size)")
	fs.Document()
	return fs
}

// Run runs "eval serve" with its arguments until a signal, and returns the
// exit status: 130 once a signal stopped it (as every command), 2 for bad
// flags, 1 for a server that could not start or failed.
func Run(args []string, stdout, stderr io.Writer) int {
	cfg, addr, code, done := parse(args, stdout, stderr)
	if done {
		return code
	}
	loopback, err := IsLoopback(addr)
	if err != nil {
		fmt.Fprintf(stderr, "eval serve: %v\n", err)
		return 2
	}
	if !loopback {
		fmt.Fprintf(stderr, "eval serve: warning: -addr %s is not a loopback address: anyone who reaches it can play, read the served folders and run searches\n", addr)
	}
	cfg.AnyHost = !loopback // on loopback, Host names that lead elsewhere are refused (DNS rebinding)
	srv, err := web.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "eval serve: %v\n", err)
		return 2
	}
	defer srv.Close()
	cfg.SetMemoryLimit() // a soft limit: the GC works harder near it, rather than let the heap double
	ln, err := stdnet.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "eval serve: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hs := srv.HTTPServer() // with read, write and idle timeouts
	// Requests' contexts end with a signal: a running search stops at once
	// (answered 503) rather than holding the shutdown up.
	hs.BaseContext = func(stdnet.Listener) context.Context { return ctx }
	shutDown := make(chan struct{})
	go func() {
		defer close(shutDown)
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shut) // waits for the answers in progress
	}()
	fmt.Fprintf(stdout, "eval serve: http://%s/\n", ln.Addr()) // once a signal is caught
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "eval serve: %v\n", err)
		return 1
	}
	<-shutDown
	return 130 // stopped by a signal, as every command
}

// parse reads eval serve's arguments into a Config and the address to
// listen on; done is true when the command ends here, with exit status
// code (bad flags, or -h).
func parse(args []string, stdout, stderr io.Writer) (cfg web.Config, addr string, code int, done bool) {
	cfg = web.DefaultConfig()
	fs := Flags(&cfg, &addr, stderr)
	if code, done := fs.Parse(args, nil, nil, stdout, stderr); done {
		return cfg, addr, code, true
	}
	offerNetworks(&cfg, player.ShippedNetworks)
	return cfg, addr, 0, false
}

// offerNetworks sets the networks the page offers from -net's value in
// cfg.NetFile: for "none", none; else the networks that ship for the
// embedded rule sets (shipped, which looks for them on the disk), each
// playing its own rule set, beside the -net file if one was given.
func offerNetworks(cfg *web.Config, shipped func() map[string]string) {
	if cfg.NetFile == "none" {
		cfg.NetFile, cfg.OwnNetworks = "", nil
		return
	}
	cfg.OwnNetworks = shipped()
}

// IsLoopback reports whether a listening address HOST:PORT stays on this
// machine; an empty host listens on every address, so it does not.
func IsLoopback(addr string) (bool, error) {
	host, _, err := stdnet.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("-addr %q: %v", addr, err)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := stdnet.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}
