package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/match"
	"taflab/mcts"
	"taflab/stats"
)

// someFinishedPairs plays n pairs of two tiny builtin searchers.
func someFinishedPairs(t *testing.T, n int) []match.Pair {
	t.Helper()
	v := variants.MustLoad("copenhagen")
	a, _ := cli.ParsePlayer("builtin:playouts=8")
	b, _ := cli.ParsePlayer("builtin:playouts=4")
	cfg := match.Config{Variant: v, A: a, B: b, Search: mcts.DefaultConfig(), Openings: match.Book(v, n, 6, 9), MaxPairs: n, Workers: 1}
	res, err := match.RunSPRT(context.Background(), cfg, stats.SPRT{Elo0: 0, Elo1: 1, Alpha: 1e-9, Beta: 1e-9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Pairs
}

func writeJournal(t *testing.T, path string, pairs []match.Pair, tail string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		if err := appendPair(f, p); err != nil {
			t.Fatal(err)
		}
	}
	f.WriteString(tail)
	f.Close()
}

func TestReadPairs(t *testing.T) {
	pairs := someFinishedPairs(t, 2)
	dir := t.TempDir()
	tests := []struct {
		name    string
		tail    string
		want    int    // pairs read
		wantErr string // "" for none
	}{
		{"whole", "", 2, ""},
		{"torn last line", `{"Index":7,"Games":[{"Pai`, 2, ""},
		{"bad line", "{\"Index\":7,\"Games\":oops}\n", 0, "line 3"},
		{"unfinished game", "{\"Index\":7}\n", 0, "line 3: pair 7 holds an unfinished"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+PairsJournalSuffix)
			writeJournal(t, path, pairs, tt.tail)
			got, err := readPairs(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("got error %v, want one naming %s and %q", err, path, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want {
				t.Fatalf("got %d pairs, want %d", len(got), tt.want)
			}
			// A torn tail is cut, so that appended pairs start a line.
			again, err := readPairs(path)
			if err != nil || len(again) != tt.want {
				t.Fatalf("read again: got %d pairs, %v; want %d and no error", len(again), err, tt.want)
			}
		})
	}
	if got, err := readPairs(filepath.Join(dir, "none"+PairsJournalSuffix)); got != nil || err != nil {
		t.Errorf("missing journal: got %v, %v; want no pairs and no error", got, err)
	}
}

// TestPlayMatchKeepsJournaledPairs resumes a match whose journal holds two
// finished pairs: the match files hold those two games as they were and the
// pairs it still had to play, and the journal is gone.
func TestPlayMatchKeepsJournaledPairs(t *testing.T) {
	kept := someFinishedPairs(t, 2)
	kept[1].Index = 3 // any of the match's indices may be the finished ones
	for i := range kept[1].Games {
		kept[1].Games[i].Pair = 3
	}
	dir := filepath.Join(t.TempDir(), "gate")
	writeJournal(t, dir+PairsJournalSuffix, kept, "")
	cfg := configs.DefaultLoop()
	cfg.SelfPlay.Workers = 1
	v := variants.MustLoad("copenhagen")
	a, _ := cli.ParsePlayer("builtin:playouts=8")
	b, _ := cli.ParsePlayer("builtin:playouts=4")
	test := stats.SPRT{Elo0: 0, Elo1: 1, Alpha: 1e-9, Beta: 1e-9}
	if err := playMatch(context.Background(), dir, cfg, v, a, b, 5, test, 1); err != nil {
		t.Fatal(err)
	}
	f, err := cli.ReadMatchFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(f.Games), 10; got != want {
		t.Fatalf("got %d games, want %d", got, want)
	}
	byPair := map[int][]string{}
	for _, g := range f.Games {
		byPair[g.Pair] = append(byPair[g.Pair], g.Moves)
	}
	if len(byPair) != 5 {
		t.Errorf("got pairs %v, want 0 to 4", len(byPair))
	}
	keptFile := cli.NewMatchFile(v, a, b, test, match.Result{Pairs: kept})
	for _, g := range keptFile.Games {
		found := false
		for _, m := range byPair[g.Pair] {
			found = found || m == g.Moves
		}
		if !found {
			t.Errorf("pair %d: got its games played again, want the journal's kept", g.Pair)
		}
	}
	if _, err := os.Stat(dir + PairsJournalSuffix); !os.IsNotExist(err) {
		t.Errorf("got journal still there (%v), want it removed", err)
	}
}

func TestBestName(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ run, net, want string }{
		{"runs/lc", filepath.Join(wd, "runs/lc/gen-001/train/network.safetensors"), "gen-001"},
		{filepath.Join(wd, "runs/lc"), filepath.Join(wd, "runs/lc/gen-012/train/network.safetensors"), "gen-012"},
		{"runs/lc", "/elsewhere/mine.safetensors", "mine.safetensors"},
	}
	for _, tt := range tests {
		if got := bestName(tt.run, tt.net); got != tt.want {
			t.Errorf("bestName(%q, %q): got %q, want %q", tt.run, tt.net, got, tt.want)
		}
	}
}
