package web

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"sort"
	"strings"

	"taflab/analysis"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

// Network ids: "builtin" is the network-free searcher (mcts.Heuristic),
// "net" the -net file, "own" the network that ships for the rule set of
// the request (Config.OwnNetworks), "run:REL" a network.safetensors inside
// the run folder.
const (
	builtinID = "builtin"
	netFileID = "net"
	ownID     = "own"
	runPrefix = "run:"
)

// ownKeyPrefix starts the key under which a rule set's own network is kept
// loaded, "own:NAME": "own" names a network for each rule set, and two
// rule sets' networks must not be taken for one another.
const ownKeyPrefix = "own:"

// networkList lists the players the page offers, the built-in searcher
// first, then the one the page chooses by default: the -net file when one
// was given, else each rule set's own network.
func (s *Server) networkList() []NetworkInfo {
	out := []NetworkInfo{{ID: builtinID, Label: "built-in searcher (no network)"}}
	if s.cfg.NetFile != "" {
		out = append(out, NetworkInfo{ID: netFileID, Label: "network " + s.cfg.NetFile})
	}
	if len(s.cfg.OwnNetworks) > 0 {
		out = append(out, NetworkInfo{ID: ownID, Label: "each rule set's own network", Files: s.cfg.OwnNetworks})
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
			out = append(out, NetworkInfo{ID: runPrefix + p, Label: "run " + path.Dir(p)})
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

// networkKey returns the key of the network a player id names for games
// of v (its id, or "own:NAME" for v's own network), or the error that
// refuses the id for v.
func (s *Server) networkKey(id string, v *rules.Variant) (string, error) {
	switch {
	case id == ownID:
		if variants.IsShipped(v) && s.cfg.OwnNetworks[v.Name()] != "" {
			return ownKeyPrefix + v.Name(), nil
		}
		why := "no network ships for " + v.Name()
		if !variants.IsShipped(v) {
			why = "rule set " + v.Name() + " is not one of the embedded rule sets, the only ones with networks of their own"
		}
		others := fmt.Sprintf("the built-in searcher (engine %q) or a network file (eval serve -net FILE, engine %q)", builtinID, netFileID)
		if s.cfg.NetFile != "" {
			others = fmt.Sprintf("the built-in searcher (engine %q) or the network %s (engine %q)", builtinID, s.cfg.NetFile, netFileID)
		}
		return "", errorf(http.StatusUnprocessableEntity, "network %q: %s: play %s with %s", id, why, v.Name(), others)
	case strings.HasPrefix(id, ownKeyPrefix):
		// Only "own" leads to these, for its request's rule set: another
		// rule set's network learnt another rule set's planes.
		return "", errorf(http.StatusBadRequest, "network %q: no such network: %q plays each rule set's own network (GET /api/networks lists them)", id, ownID)
	}
	return id, nil
}

// network loads the network a key (networkKey) names, or returns it
// loaded.
func (s *Server) network(key string) (*net.Network, error) {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if n, ok := s.networks[key]; ok {
		s.netOrder = append(slices.DeleteFunc(s.netOrder, func(o string) bool { return o == key }), key)
		return n, nil
	}
	var data []byte
	var name string
	var err error
	switch {
	case key == netFileID && s.cfg.NetFile != "":
		name = s.cfg.NetFile
		data, err = datasets.ReadFileLimit(s.cfg.NetFile, s.cfg.MaxFileBytes, "a file the server reads") // the file the command line named
		if err != nil {
			return nil, errorf(http.StatusInternalServerError, "%v", err) // the error names the file
		}
	case strings.HasPrefix(key, ownKeyPrefix) && s.cfg.OwnNetworks[strings.TrimPrefix(key, ownKeyPrefix)] != "":
		name = s.cfg.OwnNetworks[strings.TrimPrefix(key, ownKeyPrefix)]
		data, err = datasets.ReadFileLimit(name, s.cfg.MaxFileBytes, "a file the server reads") // a file the command gave
		if err != nil {
			return nil, errorf(http.StatusInternalServerError, "%v", err)
		}
	case strings.HasPrefix(key, runPrefix):
		rel := strings.TrimPrefix(key, runPrefix)
		if path.Base(rel) != "network.safetensors" {
			return nil, errorf(http.StatusBadRequest, "network %q: a run's network is a network.safetensors file", key)
		}
		name = "run/" + rel
		if data, err = s.readFile("run", rel); err != nil {
			return nil, err
		}
	default:
		return nil, errorf(http.StatusBadRequest, "network %q: no such network (GET /api/networks lists them)", key)
	}
	n, _, err := net.LoadBytes(name, data)
	if err != nil {
		return nil, errorf(http.StatusUnprocessableEntity, "%v", err)
	}
	if len(s.networks) >= maxNetworks {
		delete(s.networks, s.netOrder[0])
		s.netOrder = s.netOrder[1:]
	}
	s.networks[key] = n
	s.netOrder = append(s.netOrder, key)
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

// checkEngine loads the network id names for games of v (nil for the
// built-in searcher) and checks that it plays v's board, without building
// an evaluator and its buffers: what a request is refused for before it
// waits for a search slot.
func (s *Server) checkEngine(id string, v *rules.Variant) (*net.Network, error) {
	if id == builtinID || id == "" {
		return nil, nil
	}
	key, err := s.networkKey(id, v)
	if err != nil {
		return nil, err
	}
	n, err := s.network(key)
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
