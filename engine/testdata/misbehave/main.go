// Command misbehave is an engine program for the tests of external
// players: -mode good plays (engine.Serve with the built-in searcher),
// hang greets and then never answers, illegal answers every request for a
// move with a move from an empty square, exit plays two moves and exits
// when asked for the third, longline answers a request for a move with a
// 2 MB line, and deaf (OTEP only) greets and then neither reads its input
// nor exits; chatty (OTEP) plays as good does, but goes on writing after
// each move, as OpenTafl's engine does: status lines for 60 ms, then a
// stray move line that answers nothing; fragile (OTEP) is chatty, and
// crashes as OpenTafl's engine can when told of a game's end or a new
// game's rules while it is still writing (saying so on standard output and
// standard error). The exit mode says why it exits
// before it does. -protocol is otep or uci; -log FILE (good mode) writes
// every line it receives to FILE.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"taflab/configs/variants"
	"taflab/engine"
	"taflab/mcts"
)

func main() {
	mode := flag.String("mode", "good", "good, hang, illegal, exit, longline, deaf, chatty or fragile")
	proto := flag.String("protocol", "otep", "otep or uci")
	logFile := flag.String("log", "", "write the input to this file (good mode)")
	flag.Parse()
	switch *mode {
	case "deaf":
		fmt.Println("hello")
		for { // until killed; a bare select{} would be a deadlock the runtime ends
			time.Sleep(time.Hour)
		}
	case "hang", "illegal", "longline":
		if *proto == engine.OTEP {
			fmt.Println("hello")
		}
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			cmd, _, _ := strings.Cut(sc.Text(), " ")
			switch {
			case cmd == "uci":
				fmt.Println("uciok")
			case *mode == "hang":
			case *mode == "longline" && (cmd == "play" || cmd == "go"):
				fmt.Println(strings.Repeat("x", 2<<20))
			case cmd == "play":
				fmt.Println("move a1-a2")
			case cmd == "go":
				fmt.Println("bestmove a1a2")
			}
		}
		return // the host closed the input
	}
	in := io.Reader(os.Stdin)
	talk := &chatty{}
	if *mode == "exit" || *mode == "fragile" {
		r, w := io.Pipe()
		go func() {
			sc := bufio.NewScanner(os.Stdin)
			asked := 0
			for sc.Scan() {
				cmd, _, _ := strings.Cut(sc.Text(), " ")
				if *mode == "exit" && (cmd == "play" || cmd == "go") {
					if asked++; asked == 3 {
						talk.println("fatal: asked for a third move")
						os.Exit(3)
					}
				}
				if *mode == "fragile" && (cmd == "finish" || cmd == "rules") && talk.busy.Load() {
					talk.println("Exception: " + cmd + " arrived while still writing after a move")
					fmt.Fprintln(os.Stderr, "Exception: "+cmd+" arrived while still writing after a move")
					os.Exit(1)
				}
				fmt.Fprintln(w, sc.Text())
			}
			w.Close()
		}()
		in = r
	}
	if *logFile != "" {
		f, err := os.Create(*logFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		in = io.TeeReader(in, f)
	}
	cfg := engine.DefaultConfig()
	cfg.Protocol, cfg.Variant, cfg.Playouts = *proto, variants.MustLoad("copenhagen"), 30
	var out io.Writer = os.Stdout
	if *mode == "chatty" || *mode == "fragile" {
		out = talk
	}
	if err := engine.Serve(context.Background(), in, out, cfg, mcts.NewHeuristic()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// chatty writes to standard output, and after each write that holds a
// move goes on writing, from a goroutine of its own: three status lines 20
// ms apart, then a stray move line.
type chatty struct {
	mu   sync.Mutex  // guards standard output
	busy atomic.Bool // still writing after a move
}

// println writes a line to standard output.
func (c *chatty) println(line string) {
	c.mu.Lock()
	fmt.Println(line)
	c.mu.Unlock()
}

func (c *chatty) Write(p []byte) (int, error) {
	move := bytes.HasPrefix(p, []byte("move ")) || bytes.Contains(p, []byte("\nmove "))
	if move {
		c.busy.Store(true) // before the host can read the move and answer
	}
	c.mu.Lock()
	n, err := os.Stdout.Write(p)
	c.mu.Unlock()
	if move {
		go func() {
			for i := range 3 {
				time.Sleep(20 * time.Millisecond)
				c.println(fmt.Sprintf("status still thinking about the last move (%d)", i+1))
			}
			time.Sleep(20 * time.Millisecond)
			c.println("move a1-a2")
			c.busy.Store(false)
		}()
	}
	return n, err
}
