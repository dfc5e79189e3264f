package web

import (
	"context"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"sort"
	"strings"

	"taflab/analysis"
	"taflab/datasets"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

// Network ids: "builtin" is the network-free searcher (mcts.Heuristic),
// "net" the -net file, "run:REL" a network.safetensors inside the run
// folder.
const (
	builtinID = "builtin"
	netFileID = "net"
	runPrefix = "run:"
)

// networkList lists the players the page offers.
func (s *Server) networkList() []NetworkInfo {
	out := []NetworkInfo{{builtinID, "built-in searcher (no network)"}}
	if s.cfg.NetFile != "" {
		out = append(out, NetworkInfo{netFileID, "network " + s.cfg.NetFile})
	}
	if s.run != nil {
		var found []string
		fs.WalkDir(s.run.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "." || d.Name() == "data") {
				return fs.SkipDir // data/ holds shards, never networks
			}
			if !d.IsDir() && d.Name() == "network.safetensors" && len(found) < 200 {
				found = append(found, p)
			}
			return nil
		})
		sort.Strings(found)
		for _, p := range found {
			out = append(out, NetworkInfo{runPrefix + p, "run " + path.Dir(p)})
		}
	}
	return out
}

func (s *Server) handleNetworks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, s.networkList())
}

// maxNetworks bounds the networks kept loaded: a run folder may hold
// hundreds, and a page may ask for any. One dropped is loaded again when a
// game or an analysis asks for it.
const maxNetworks = 8

// network loads the network an id names, or returns it loaded.
func (s *Server) network(id string) (*net.Network, error) {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if n, ok := s.networks[id]; ok {
		s.netOrder = append(slices.DeleteFunc(s.netOrder, func(o string) bool { return o == id }), id)
		return n, nil
	}
	var data []byte
	var name string
	var err error
	switch {
	case id == netFileID && s.cfg.NetFile != "":
		name = s.cfg.NetFile
		data, err = datasets.ReadFileLimit(s.cfg.NetFile, s.cfg.MaxFileBytes, "a file the server reads") // the file the command line named
		if err != nil {
			return nil, errorf(http.StatusInternalServerError, "%v", err) // the error names the file
		}
	case strings.HasPrefix(id, runPrefix):
		rel := strings.TrimPrefix(id, runPrefix)
		if path.Base(rel) != "network.safetensors" {
			return nil, errorf(http.StatusBadRequest, "network %q: a run's network is a network.safetensors file", id)
		}
		name = "run/" + rel
		if data, err = s.readFile("run", rel); err != nil {
			return nil, err
		}
	default:
		return nil, errorf(http.StatusBadRequest, "network %q: no such network (GET /api/networks lists them)", id)
	}
	n, _, err := net.LoadBytes(name, data)
	if err != nil {
		return nil, errorf(http.StatusUnprocessableEntity, "%v", err)
	}
	if len(s.networks) >= maxNetworks {
		delete(s.networks, s.netOrder[0])
		s.netOrder = s.netOrder[1:]
	}
	s.networks[id] = n
	s.netOrder = append(s.netOrder, id)
	return n, nil
}

// evaluator returns a new evaluator for the player an id names, for games
// of v; each caller gets its own, since an evaluator serves one goroutine at
// a time. A network plays only net.BoardSize boards: another rule set with
// a network is refused (422) rather than failing at its first move.
func (s *Server) evaluator(id string, v *rules.Variant) (mcts.Evaluator, error) {
	n, err := s.checkEngine(id, v)
	switch {
	case err != nil:
		return nil, err
	case n == nil:
		return mcts.NewHeuristic(), nil
	}
	return n.NewInference(1, "net-"+n.Hash()), nil
}

// checkEngine loads the network id names (nil for the built-in searcher)
// and checks that it plays v's board, without building an evaluator and
// its buffers: what a request is refused for before it waits for a search
// slot.
func (s *Server) checkEngine(id string, v *rules.Variant) (*net.Network, error) {
	if id == builtinID || id == "" {
		return nil, nil
	}
	n, err := s.network(id)
	if err != nil {
		return nil, err
	}
	if v.Size() != net.BoardSize {
		return nil, errorf(http.StatusUnprocessableEntity, "network %q plays %dx%d boards, and %s is %dx%d: choose the built-in searcher (engine %q) for it",
			id, net.BoardSize, net.BoardSize, v.Name(), v.Size(), v.Size(), builtinID)
	}
	return n, nil
}

func (s *Server) handleAnalyze(w http.ResponseWriter, r *http.Request) {
	var req AnalyzeRequest
	if err := s.readJSON(r, &req); err != nil {
		writeError(w, err)
		return
	}
	answer := s.noDeadline(w)
	rep, err := s.analyze(r.Context(), req)
	answer()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, rep)
}

// analyze checks req, then evaluates and searches in one of the search
// slots, until ctx is done.
func (s *Server) analyze(ctx context.Context, req AnalyzeRequest) (rep *Analysis, err error) {
	if req.Playouts < 0 || req.Playouts > s.cfg.MaxPlayouts {
		return nil, errorf(http.StatusBadRequest, "playouts %d: want 0 to %d", req.Playouts, s.cfg.MaxPlayouts)
	}
	if req.Top == 0 {
		req.Top = 8
	}
	if req.Top < 1 || req.Top > 100 {
		return nil, errorf(http.StatusBadRequest, "top %d: want 1 to 100", req.Top)
	}
	v, err := loadVariant(req.Variant, req.VariantTOML)
	if err != nil {
		return nil, err
	}
	start, err := startOf(v, req.Start)
	if err != nil {
		return nil, err
	}
	g, err := rules.NewGameFrom(v, start)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "start: %v", err)
	}
	game := &datasets.Game{Variant: v, Start: start, Moves: make([]rules.RecordedMove, 0, len(req.Moves))}
	for i, text := range req.Moves {
		m, captures, err := rules.ParseMove(text)
		if err != nil {
			return nil, errorf(http.StatusBadRequest, "moves[%d] %q: %v", i, text, err)
		}
		if err := g.Play(m); err != nil {
			return nil, errorf(http.StatusUnprocessableEntity, "moves[%d]: %v", i, err)
		}
		game.Moves = append(game.Moves, rules.RecordedMove{Move: m, Captures: captures})
	}
	if g.Outcome().Over() {
		return nil, errorf(http.StatusConflict, "the game is over (%s): nothing to analyse", g.Outcome())
	}
	if !g.HasMove() {
		return nil, errorf(http.StatusUnprocessableEntity, "the %s have no legal move: nothing to analyse", g.ToMove())
	}
	if req.Network == "" {
		req.Network = builtinID
	}
	if _, err := s.checkEngine(req.Network, v); err != nil { // refused before it waits for a slot
		return nil, err
	}
	release, err := s.searches.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	defer func() {
		if p := recover(); p != nil { // a bug, not the input: answer it, and free the slot
			rep, err = nil, errorf(http.StatusInternalServerError, "analysis failed: %v", p)
		}
	}()
	eval, err := s.evaluator(req.Network, v)
	if err != nil {
		return nil, err
	}
	cfg := analysis.DefaultConfig()
	cfg.Playouts, cfg.Top = req.Playouts, req.Top
	cfg.Search.TreeBytes = s.cfg.TreeBytes
	pos, err := analysis.Analyze(ctx, &cfg, eval, game)
	if err != nil {
		if ctx.Err() != nil {
			return nil, canceled(ctx)
		}
		return nil, errorf(http.StatusInternalServerError, "%v", err)
	}
	if pos.Search != nil && pos.Search.Visits == 0 {
		return nil, errorf(http.StatusInternalServerError, "the search ran no playout")
	}
	return &Analysis{Board: newBoardInfo(v), Network: req.Network, Position: *pos}, nil
}
