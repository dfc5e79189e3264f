package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
	"sync"
	"time"

	"taflab/configs/variants"
	"taflab/mcts"
	"taflab/rules"
)

// game is one game in progress between a person (either side, or both) and
// an engine.
type game struct {
	// Set at creation, then immutable.
	id       string
	v        *rules.Variant
	start    rules.Position
	humans   [2]bool // by rules.Side: the sides a person plays
	engine   string  // "builtin" or a network id
	playouts int

	// newEval makes the engine's evaluator for one search, in the search's
	// slot: the evaluators' buffers (a network's are a megabyte or more)
	// are bounded by the searches that run at once, not by the games kept.
	// Set at creation, then immutable; it is safe for concurrent use.
	newEval func() (mcts.Evaluator, error)

	mu       sync.Mutex // guards the fields below
	g        *rules.Game
	moves    []rules.RecordedMove // the moves made, with the captures the rules made
	version  int                  // counts changes, so a search can tell the game moved on under it
	thinking bool                 // a search for the engine's move is running
	used     time.Time            // the last request that changed the game
}

// variantNames lists the embedded rule sets.
func variantNames() []string { return variants.Names() }

// loadVariant compiles an embedded rule set by name, or a rule-set file's
// text when toml is given.
func loadVariant(name, toml string) (*rules.Variant, error) {
	if toml != "" {
		v, err := variants.Parse("rule-set file", []byte(toml))
		if err != nil {
			status := http.StatusBadRequest
			if errors.Is(err, rules.ErrOver) { // a start that cannot be played
				status = http.StatusUnprocessableEntity
			}
			return nil, errorf(status, "%v", err)
		}
		return v, nil
	}
	if name == "" {
		name = "copenhagen"
	}
	v, err := variants.Load(name)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "variant %q: no such rule set (have %s)", name, strings.Join(variants.Names(), ", "))
	}
	return v, nil
}

// startOf parses a start position under v, or returns v's start for "".
// Either must be a position a game can start from (rules.CheckStart): on
// the board, the king off the corners, a legal move for the side to move.
// A position that is not one of v's is a bad request (400); one that is but
// where the game is already over cannot be played (422).
func startOf(v *rules.Variant, text string) (rules.Position, error) {
	if text == "" {
		if err := v.CheckStart(v.Start()); err != nil {
			return rules.Position{}, errorf(http.StatusUnprocessableEntity, "rule set %s: its start cannot be played: %v", v.Name(), err)
		}
		return v.Start(), nil
	}
	p, err := rules.ParsePosition(text)
	if err != nil {
		return rules.Position{}, errorf(http.StatusBadRequest, "start: %v", err)
	}
	if err := v.CheckStart(p); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, rules.ErrOver) {
			status = http.StatusUnprocessableEntity
		}
		return rules.Position{}, errorf(status, "start: %v", err)
	}
	return p, nil
}

func (s *Server) handleNewGame(w http.ResponseWriter, r *http.Request) {
	var req NewGameRequest
	if err := s.readJSON(r, &req); err != nil {
		writeError(w, err)
		return
	}
	gm, err := s.newGame(req)
	if err != nil {
		writeError(w, err)
		return
	}
	gm.mu.Lock()
	defer gm.mu.Unlock()
	writeJSON(w, gm.state())
}

func (s *Server) newGame(req NewGameRequest) (*game, error) {
	v, err := loadVariant(req.Variant, req.VariantTOML)
	if err != nil {
		return nil, err
	}
	start, err := startOf(v, req.Start)
	if err != nil {
		return nil, err
	}
	gm := &game{v: v, start: start, engine: req.Engine, playouts: req.Playouts, used: time.Now()}
	switch req.Human {
	case "attackers":
		gm.humans[rules.Attackers] = true
	case "defenders":
		gm.humans[rules.Defenders] = true
	case "both":
		gm.humans = [2]bool{true, true}
	default:
		return nil, errorf(http.StatusBadRequest, "human %q: want attackers, defenders or both", req.Human)
	}
	if !gm.humans[0] || !gm.humans[1] {
		if req.Playouts < 1 || req.Playouts > s.cfg.MaxPlayouts {
			return nil, errorf(http.StatusBadRequest, "playouts %d: want 1 to %d", req.Playouts, s.cfg.MaxPlayouts)
		}
		if _, err = s.checkEngine(req.Engine, v); err != nil { // refused now rather than at its first move
			return nil, err
		}
		gm.newEval = func() (mcts.Evaluator, error) { return s.evaluator(req.Engine, v) }
	}
	if gm.g, err = rules.NewGameFrom(v, start); err != nil {
		return nil, errorf(http.StatusBadRequest, "start: %v", err)
	}
	var id [8]byte
	rand.Read(id[:])
	s.gamesMu.Lock()
	defer s.gamesMu.Unlock()
	s.nextID++
	gm.id = fmt.Sprintf("%d-%s", s.nextID, hex.EncodeToString(id[:]))
	if len(s.games) >= s.cfg.MaxGames {
		var oldest *game
		var oldestUsed time.Time // oldest.used, read under its lock
		for _, o := range s.games {
			o.mu.Lock()
			used := o.used
			o.mu.Unlock()
			if oldest == nil || used.Before(oldestUsed) {
				oldest, oldestUsed = o, used
			}
		}
		delete(s.games, oldest.id)
	}
	s.games[gm.id] = gm
	return gm, nil
}

// lookup finds the game a request's path names.
func (s *Server) lookup(r *http.Request) (*game, error) {
	id := r.PathValue("id")
	s.gamesMu.Lock()
	defer s.gamesMu.Unlock()
	gm, ok := s.games[id]
	if !ok {
		return nil, errorf(http.StatusNotFound, "game %q: no such game (the server keeps the %d played most recently; start a new one)", id, s.cfg.MaxGames)
	}
	return gm, nil
}

func (s *Server) handleGame(w http.ResponseWriter, r *http.Request) {
	gm, err := s.lookup(r)
	if err != nil {
		writeError(w, err)
		return
	}
	gm.mu.Lock()
	defer gm.mu.Unlock()
	writeJSON(w, gm.state())
}

// handleMove plays a person's move: {"move": "c3-c1"} (captures written
// after it are ignored: the rules make them).
func (s *Server) handleMove(w http.ResponseWriter, r *http.Request) {
	gm, err := s.lookup(r)
	if err != nil {
		writeError(w, err)
		return
	}
	var req MoveRequest
	if err := s.readJSON(r, &req); err != nil {
		writeError(w, err)
		return
	}
	m, _, err := rules.ParseMove(req.Move)
	if err != nil {
		writeError(w, errorf(http.StatusBadRequest, "move %q: %v", req.Move, err))
		return
	}
	gm.mu.Lock()
	defer gm.mu.Unlock()
	switch {
	case gm.g.Outcome().Over():
		writeError(w, errorf(http.StatusConflict, "move %s: the game is over (%s)", m, gm.g.Outcome()))
		return
	case gm.thinking:
		writeError(w, errorf(http.StatusConflict, "move %s: the engine is thinking", m))
		return
	case !gm.humans[gm.g.ToMove()]:
		writeError(w, errorf(http.StatusConflict, "move %s: it is the engine's move (%s)", m, gm.g.ToMove()))
		return
	case len(gm.moves) >= MaxPlies:
		writeError(w, errorf(http.StatusConflict, "move %s: the game has %d plies, the most the page plays: start a new one", m, len(gm.moves)))
		return
	}
	if err := gm.g.Play(m); err != nil {
		writeError(w, errorf(http.StatusUnprocessableEntity, "%v", err))
		return
	}
	gm.played()
	writeJSON(w, gm.state())
}

// played records the move just made on gm.g; gm.mu is held.
func (gm *game) played() {
	m, captured := gm.g.LastMove()
	gm.moves = append(gm.moves, rules.RecordedMove{Move: m, Captures: captured})
	gm.version++
	gm.used = time.Now()
}

// handleEngine searches for the engine's move and plays it. The search runs
// without the game's lock, so other requests read the game meanwhile; the
// move is played only if the game is still where the search started.
func (s *Server) handleEngine(w http.ResponseWriter, r *http.Request) {
	gm, err := s.lookup(r)
	if err != nil {
		writeError(w, err)
		return
	}
	gm.mu.Lock()
	var refuse error
	switch {
	case gm.g.Outcome().Over():
		refuse = errorf(http.StatusConflict, "engine: the game is over (%s)", gm.g.Outcome())
	case gm.humans[gm.g.ToMove()]:
		refuse = errorf(http.StatusConflict, "engine: it is the person's move (%s)", gm.g.ToMove())
	case gm.thinking:
		refuse = errorf(http.StatusConflict, "engine: already thinking")
	case len(gm.moves) >= MaxPlies:
		refuse = errorf(http.StatusConflict, "engine: the game has %d plies, the most the page plays: start a new one", len(gm.moves))
	}
	if refuse != nil {
		gm.mu.Unlock()
		writeError(w, refuse)
		return
	}
	gm.thinking = true
	version := gm.version
	moves := append([]rules.RecordedMove(nil), gm.moves...)
	gm.mu.Unlock()
	cleared := false // set under gm.mu with thinking cleared; read only by this goroutine
	defer func() {
		// Whatever happens below, even a panic, the game does not stay
		// thinking for ever.
		if !cleared {
			gm.mu.Lock()
			gm.thinking = false
			gm.mu.Unlock()
		}
	}()

	answer := s.noDeadline(w)
	m, err := s.engineMove(r.Context(), gm, moves)
	answer()

	gm.mu.Lock()
	defer gm.mu.Unlock()
	gm.thinking, cleared = false, true
	if err != nil {
		var he *httpError
		if !errors.As(err, &he) {
			err = errorf(http.StatusInternalServerError, "engine: %v", err)
		}
		writeError(w, err)
		return
	}
	if gm.version != version {
		writeError(w, errorf(http.StatusConflict, "engine: the game changed during the search; ask again"))
		return
	}
	if err := gm.g.Play(m); err != nil {
		writeError(w, errorf(http.StatusInternalServerError, "engine: %v", err))
		return
	}
	gm.played()
	writeJSON(w, gm.state())
}

// engineMove searches for the engine's move in one of the server's search
// slots, until ctx is done. A panic in the search (a bug, not the input) is
// answered 500 and frees the slot.
func (s *Server) engineMove(ctx context.Context, gm *game, moves []rules.RecordedMove) (m rules.Move, err error) {
	defer func() {
		if p := recover(); p != nil {
			m, err = rules.NoMove, errorf(http.StatusInternalServerError, "engine: the search failed: %v", p)
		}
	}()
	release, err := s.searches.acquire(ctx)
	if err != nil {
		return rules.NoMove, err
	}
	defer release()
	return gm.search(ctx, moves, s.cfg.TreeBytes)
}

// search runs the engine's search after moves from the start, its tree
// within treeBytes; only the request that set thinking calls it.
func (gm *game) search(ctx context.Context, moves []rules.RecordedMove, treeBytes int64) (rules.Move, error) {
	g, err := rules.NewGameFrom(gm.v, gm.start)
	if err != nil {
		return rules.NoMove, err
	}
	for _, m := range moves {
		g.Make(m.Move) // replayed from the start, so repetition sees the whole game
	}
	if !g.HasMove() {
		return rules.NoMove, errorf(http.StatusConflict, "engine: the %s have no legal move", g.ToMove())
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", gm.id, len(moves))
	cfg := mcts.DefaultConfig()
	cfg.TreeBytes = treeBytes
	search := mcts.NewSearch(&cfg, g, h.Sum64())
	eval, err := gm.newEval()
	if err != nil {
		return rules.NoMove, err
	}
	if err := runSearch(ctx, mcts.NewRunner(eval), search, gm.playouts); err != nil {
		return rules.NoMove, err
	}
	m := search.BestMove()
	if m == rules.NoMove {
		return m, fmt.Errorf("the search found no move")
	}
	return m, nil
}

// handleUndo takes back the last move, and the engine's reply before it so
// that it is a person's move again.
func (s *Server) handleUndo(w http.ResponseWriter, r *http.Request) {
	gm, err := s.lookup(r)
	if err != nil {
		writeError(w, err)
		return
	}
	gm.mu.Lock()
	defer gm.mu.Unlock()
	if gm.thinking {
		writeError(w, errorf(http.StatusConflict, "undo: the engine is thinking"))
		return
	}
	if len(gm.moves) == 0 {
		writeError(w, errorf(http.StatusConflict, "undo: no move to take back"))
		return
	}
	n := len(gm.moves) - 1
	toMove := gm.start.ToMove
	if n%2 == 1 {
		toMove = toMove.Opponent()
	}
	for n > 0 && !gm.humans[toMove] {
		n--
		toMove = toMove.Opponent()
	}
	if !gm.humans[toMove] {
		writeError(w, errorf(http.StatusConflict, "undo: no move of the person's to take back"))
		return
	}
	gm.moves = gm.moves[:n]
	if err := gm.g.ResetTo(gm.start); err != nil {
		writeError(w, errorf(http.StatusInternalServerError, "undo: %v", err))
		return
	}
	for _, m := range gm.moves {
		gm.g.Make(m.Move)
	}
	gm.version++
	gm.used = time.Now()
	writeJSON(w, gm.state())
}

func newBoardInfo(v *rules.Variant) BoardInfo {
	return BoardInfo{Variant: v.Name(), Size: v.Size(), Throne: v.Throne().String(), Corners: squares(v.Corners())}
}

func squares(b rules.Bitboard) []string {
	out := []string{}
	for b.Any() {
		out = append(out, b.PopFirst().String())
	}
	return out
}

func newMoveInfo(m rules.RecordedMove) *MoveInfo {
	return &MoveInfo{Move: m.String(), From: m.Move.From().String(), To: m.Move.To().String(), Captures: squares(m.Captures)}
}

// reasonText says in words why a game ended.
var reasonText = map[rules.Reason]string{
	rules.KingEscaped:  "the king reached a corner",
	rules.KingCaptured: "the king was captured",
	rules.Shieldwall:   "a shieldwall was captured",
	rules.EdgeFort:     "the king built an edge fort",
	rules.Encirclement: "the attackers encircled every defender",
	rules.Repetition:   "a position came about for the third time (repetition)",
	rules.NoMoves:      "the side to move had no legal move",
	rules.NoProgress:   "the move limit without a capture was reached",
}

func newOutcomeInfo(o rules.Outcome) OutcomeInfo {
	if !o.Over() {
		return OutcomeInfo{Winner: o.Winner.String()}
	}
	text := "Draw: " + reasonText[o.Reason] + "."
	if o.Winner != rules.Draw {
		text = fmt.Sprintf("The %s win: %s (ply %d).", o.Winner, reasonText[o.Reason], o.Ply)
	}
	return OutcomeInfo{Over: true, Winner: o.Winner.String(), Reason: o.Reason.String(), Ply: int(o.Ply), Text: text}
}

// state describes the game; gm.mu is held.
func (gm *game) state() GameState {
	st := GameState{ID: gm.id, Board: newBoardInfo(gm.v), Start: gm.start.String(), Position: gm.g.Position().String(),
		ToMove: gm.g.ToMove().String(), Ply: gm.g.Ply(), Moves: []string{}, Legal: []string{},
		Outcome: newOutcomeInfo(gm.g.Outcome()), Humans: []string{}, Engine: gm.engine, Playouts: gm.playouts,
		Thinking: gm.thinking, Version: gm.version}
	for _, m := range gm.moves {
		st.Moves = append(st.Moves, m.String())
	}
	if n := len(gm.moves); n > 0 {
		st.LastMove = newMoveInfo(gm.moves[n-1])
	}
	if !st.Outcome.Over {
		for _, m := range gm.g.GenerateMoves(nil) {
			st.Legal = append(st.Legal, m.String())
		}
		st.EngineToMove = !gm.humans[gm.g.ToMove()]
	}
	for _, side := range []rules.Side{rules.Attackers, rules.Defenders} {
		if gm.humans[side] {
			st.Humans = append(st.Humans, side.String())
		}
	}
	if gm.humans[0] && gm.humans[1] {
		st.Engine, st.Playouts = "", 0
	}
	st.Record = recordLine(gm.start, gm.v.Start(), gm.moves, gm.g.Outcome())
	return st
}

// recordLine writes a game in the archive's CSV format:
// moves,attacker_captures,defender_captures,result[,start], the start only
// when it is not the rule set's.
func recordLine(start, variantStart rules.Position, moves []rules.RecordedMove, o rules.Outcome) string {
	var b strings.Builder
	var captures [2]int
	mover := start.ToMove
	for i, m := range moves {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(m.String())
		captures[mover] += m.Captures.Count()
		mover = mover.Opponent()
	}
	result := rules.ResultOngoing
	switch o.Winner {
	case rules.AttackersWin:
		result = rules.ResultBlack
	case rules.DefendersWin:
		result = rules.ResultWhite
	case rules.Draw:
		result = rules.ResultDraw
	}
	fmt.Fprintf(&b, ",%d,%d,%s", captures[rules.Attackers], captures[rules.Defenders], result)
	if start != variantStart {
		b.WriteString("," + start.String())
	}
	return b.String()
}
