package balance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"reflect"
	"strings"

	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/rules"
)

// JournalFile is a study's journal in its folder ("eval balance -out"):
// Config.Journal names it there.
const JournalFile = "games.jsonl"

// A study's journal keeps every game as it finishes, so that a study
// stopped at any point (even killed) carries on where it stopped, with the
// games of each run it has and the CPU time they took. A line is an entry
// as JSON, a tab and the CRC-32C (Castagnoli) of the JSON in 8 hex digits,
// as match's journal of pairs: a run's identity when it first starts (what
// makes its games: the rules, the player, the search, the seed and the
// openings), each finished game of a searching player, each finished pair
// of an engine program, and the time of a run's attempt past its last
// game. Reading it back checks every checksum, replays every game under
// its rule set from its start, and refuses a run whose identity has
// changed, naming the line; a last line cut short (a killed write) is
// dropped and cut from the file.

var journalCRC = crc32.MakeTable(crc32.Castagnoli)

// journalEntry is one line of a journal: one of its fields is set.
type journalEntry struct {
	Run  *runIdentity `json:"run,omitempty"`
	Game *journalGame `json:"game,omitempty"`
	Pair *journalPair `json:"pair,omitempty"`
	Time *journalTime `json:"time,omitempty"`
}

// runKey names a run of a study: a rule set and a player.
type runKey struct{ Variant, Player string }

// runIdentity is what makes a run's games: two runs of one identity play
// the same games from the same seeds.
type runIdentity struct {
	Variant string           `json:"variant"`
	Player  string           `json:"player"`
	Rules   rules.Definition `json:"rules"`
	// Evaluator is a searching player's evaluator ID (the network's hash
	// and the planes it is shown; "heuristic" for the network-free one),
	// Search its search settings; Engine an engine program's command.
	Evaluator string       `json:"evaluator,omitempty"`
	Search    *mcts.Config `json:"search,omitempty"`
	Engine    string       `json:"engine,omitempty"`
	Seed      uint64       `json:"seed"`
	// Openings is "start", or "suite " and the SHA-256 of the suite's
	// positions in order.
	Openings string `json:"openings"`
}

// runTime is CPU and wall time a run spent: the process's CPU seconds
// (all threads, user and system; an engine program's own are not
// counted) and the seconds of wall time.
type runTime struct {
	CPU  float64 `json:"cpu_seconds"`
	Wall float64 `json:"seconds"`
}

// journalGame is a searching player's finished game: its number in its
// run, its start ("" the rule set's), its moves and how it ended, and the
// time the run spent since its previous line.
type journalGame struct {
	Variant string `json:"variant"`
	Player  string `json:"player"`
	Index   int    `json:"index"`
	Start   string `json:"start,omitempty"`
	Moves   string `json:"moves"`
	Winner  string `json:"winner"`
	Ending  string `json:"ending"`
	runTime
}

// journalPair is an engine program's finished pair of games, and the time
// the run spent since its previous line.
type journalPair struct {
	Variant string     `json:"variant"`
	Player  string     `json:"player"`
	Pair    match.Pair `json:"pair"`
	runTime
}

// journalTime is an attempt's time past a run's last game line.
type journalTime struct {
	Variant string `json:"variant"`
	Player  string `json:"player"`
	runTime
}

// lineOf is an entry read back with its line's number.
type lineOf[T any] struct {
	line  int
	entry T
}

// journal is a study's journal file, read back and open for appending.
// It is used by one goroutine at a time (the runs are played in turn).
type journal struct {
	path  string
	f     *os.File
	runs  map[runKey]lineOf[runIdentity]
	games map[runKey][]lineOf[journalGame]
	pairs map[runKey][]lineOf[journalPair]
	times map[runKey]runTime // every line's time, summed
}

// openJournal reads the journal at path (none: a new one) and opens it
// for appending. Lines are checked as they are read; the games are
// replayed when their run begins.
func openJournal(path string) (*journal, error) {
	j := &journal{path: path, runs: map[runKey]lineOf[runIdentity]{}, games: map[runKey][]lineOf[journalGame]{},
		pairs: map[runKey][]lineOf[journalPair]{}, times: map[runKey]runTime{}}
	data, err := fileio.ReadFileLimit(path, fileio.MaxRunFileBytes, "a journal")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errctx.Errorf("balance", "%w", err)
	}
	good := 0 // bytes of whole lines
	for line := 1; good < len(data); line++ {
		end := bytes.IndexByte(data[good:], '\n')
		if end < 0 {
			break // the torn tail of a killed write
		}
		e, err := parseJournalLine(data[good : good+end])
		if err == nil {
			err = j.take(line, e)
		}
		if err != nil {
			return nil, errctx.Errorf("balance", "%s: line %d: %w", path, line, err)
		}
		good += end + 1
	}
	if good < len(data) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, errctx.Errorf("balance", "%w", err)
		}
	}
	if j.f, err = fileio.OpenAppend(path); err != nil {
		return nil, errctx.Errorf("balance", "%w", err)
	}
	return j, nil
}

// parseJournalLine reads a line: its checksum, then its entry.
func parseJournalLine(text []byte) (journalEntry, error) {
	var e journalEntry
	tab := bytes.LastIndexByte(text, '\t')
	if tab < 0 || len(text)-tab-1 != 8 {
		return e, errors.New("no checksum at its end")
	}
	var sum uint32
	if _, err := fmt.Sscanf(string(text[tab+1:]), "%08x", &sum); err != nil {
		return e, fmt.Errorf("%q is not a checksum", text[tab+1:])
	}
	if got := crc32.Checksum(text[:tab], journalCRC); got != sum {
		return e, fmt.Errorf("the checksum is %08x, the line's own %08x: the line was changed or damaged", sum, got)
	}
	if err := json.Unmarshal(text[:tab], &e); err != nil {
		return e, err
	}
	return e, nil
}

// take files an entry read back from line.
func (j *journal) take(line int, e journalEntry) error {
	switch {
	case e.Run != nil:
		k := runKey{e.Run.Variant, e.Run.Player}
		if _, dup := j.runs[k]; dup {
			return fmt.Errorf("run %s %s begins a second time", k.Variant, k.Player)
		}
		j.runs[k] = lineOf[runIdentity]{line, *e.Run}
	case e.Game != nil:
		k := runKey{e.Game.Variant, e.Game.Player}
		if _, ok := j.runs[k]; !ok {
			return fmt.Errorf("a game of run %s %s before the run begins", k.Variant, k.Player)
		}
		j.games[k] = append(j.games[k], lineOf[journalGame]{line, *e.Game})
		j.addTime(k, e.Game.runTime)
	case e.Pair != nil:
		k := runKey{e.Pair.Variant, e.Pair.Player}
		if _, ok := j.runs[k]; !ok {
			return fmt.Errorf("a pair of run %s %s before the run begins", k.Variant, k.Player)
		}
		j.pairs[k] = append(j.pairs[k], lineOf[journalPair]{line, *e.Pair})
		j.addTime(k, e.Pair.runTime)
	case e.Time != nil:
		j.addTime(runKey{e.Time.Variant, e.Time.Player}, e.Time.runTime)
	default:
		return errors.New("an entry of no kind")
	}
	return nil
}

// addTime adds time to a run's.
func (j *journal) addTime(k runKey, t runTime) {
	s := j.times[k]
	s.CPU += t.CPU
	s.Wall += t.Wall
	j.times[k] = s
}

// priorRun is what the journal holds of a run: its games (a searching
// player's, by number; an engine's pairs) and the time they took.
type priorRun struct {
	games map[int]played
	pairs []match.Pair
	time  runTime
}

// begin starts run id: a run the journal holds must have the same
// identity (an error naming what changed), and its games are replayed
// under v and returned; a new run's identity is written.
func (j *journal) begin(id runIdentity, v *rules.Variant) (priorRun, error) {
	k := runKey{id.Variant, id.Player}
	prior := priorRun{games: map[int]played{}, time: j.times[k]}
	have, ok := j.runs[k]
	if !ok {
		j.runs[k] = lineOf[runIdentity]{0, id}
		return prior, j.append(journalEntry{Run: &id})
	}
	if changed := identityChanges(have.entry, id); len(changed) > 0 {
		return prior, errctx.Errorf("balance", "%s: line %d: run %s %s was played with other %s: give the study another folder",
			j.path, have.line, k.Variant, k.Player, strings.Join(changed, ", "))
	}
	for _, g := range j.games[k] {
		pg, err := replayJournalGame(v, g.entry)
		if err != nil {
			return prior, errctx.Key("balance", fmt.Sprintf("%s: line %d: game %d of %s %s", j.path, g.line, g.entry.Index, k.Variant, k.Player), err)
		}
		if _, dup := prior.games[g.entry.Index]; dup {
			return prior, errctx.Errorf("balance", "%s: line %d: game %d of %s %s a second time", j.path, g.line, g.entry.Index, k.Variant, k.Player)
		}
		prior.games[g.entry.Index] = pg
	}
	seen := map[int]bool{}
	for _, p := range j.pairs[k] {
		if err := replayPair(v, p.entry.Pair, seen); err != nil {
			return prior, errctx.Key("balance", fmt.Sprintf("%s: line %d: pair %d of %s %s", j.path, p.line, p.entry.Pair.Index, k.Variant, k.Player), err)
		}
		prior.pairs = append(prior.pairs, p.entry.Pair)
	}
	return prior, nil
}

// identityChanges names the fields in which two identities differ.
func identityChanges(a, b runIdentity) []string {
	var out []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		x, _ := json.Marshal(va.Field(i).Interface())
		y, _ := json.Marshal(vb.Field(i).Interface())
		if !bytes.Equal(x, y) {
			out = append(out, strings.Split(va.Type().Field(i).Tag.Get("json"), ",")[0])
		}
	}
	return out
}

// replayJournalGame replays a searching player's game under v: each move
// legal, and the rules ending it on its last move as the line says.
func replayJournalGame(v *rules.Variant, g journalGame) (played, error) {
	start := v.Start()
	if g.Start != "" {
		var err error
		if start, err = rules.ParsePosition(g.Start); err != nil {
			return played{}, err
		}
	}
	var moves []rules.Move
	for _, text := range strings.Fields(g.Moves) {
		m, _, err := rules.ParseMove(text)
		if err != nil {
			return played{}, err
		}
		moves = append(moves, m)
	}
	out, err := replayMoves(v, start, moves)
	if err != nil {
		return played{}, err
	}
	if !out.Over() || out.Winner.String() != g.Winner || out.Reason.String() != g.Ending {
		return played{}, fmt.Errorf("it ends %v by the rules, the line says %s by %s", out, g.Winner, g.Ending)
	}
	return played{winner: out.Winner, ending: g.Ending, plies: len(moves)}, nil
}

// replayPair replays an engine program's pair under v: each game's moves
// legal from its start, and its ending the rules' or a forfeit while the
// rules had not ended it. seen holds the pairs replayed before.
func replayPair(v *rules.Variant, p match.Pair, seen map[int]bool) error {
	if p.Index < 0 || seen[p.Index] {
		return errors.New("a pair out of range or given twice")
	}
	seen[p.Index] = true
	for half, g := range p.Games {
		start := g.Start
		if start.Size == 0 {
			start = v.Start()
		}
		out, err := replayMoves(v, start, g.Moves)
		switch {
		case err != nil:
			return errctx.Key("balance", fmt.Sprintf("game %d", half+1), err)
		case g.Forfeit == "" && out != g.Outcome:
			return fmt.Errorf("game %d ends %v by the rules, the line says %v", half+1, out, g.Outcome)
		case g.Forfeit != "" && out.Over():
			return fmt.Errorf("game %d: a forfeit (%s) of a game the rules ended (%v)", half+1, g.Forfeit, out)
		}
	}
	return nil
}

// replayMoves plays moves from start under v and returns how the rules
// left the game; a move after the rules ended it is an error.
func replayMoves(v *rules.Variant, start rules.Position, moves []rules.Move) (rules.Outcome, error) {
	game, err := rules.NewGameFromStart(v, start)
	if err != nil {
		return rules.Outcome{}, err
	}
	for i, m := range moves {
		if game.Outcome().Over() {
			return rules.Outcome{}, fmt.Errorf("ply %d: %s after the rules ended the game (%v)", i+1, m, game.Outcome())
		}
		if err := game.Play(m); err != nil {
			return rules.Outcome{}, errctx.Key("balance", fmt.Sprintf("ply %d", i+1), err)
		}
	}
	return game.Outcome(), nil
}

// append writes an entry as a line with its checksum and flushes it to
// the disk, so that a game counted is a game kept.
func (j *journal) append(e journalEntry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return errctx.Errorf("balance", "%w", err)
	}
	line = fmt.Appendf(line, "\t%08x\n", crc32.Checksum(line, journalCRC))
	if _, err := j.f.Write(line); err != nil {
		return errctx.Errorf("balance", "%s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return errctx.Errorf("balance", "%s: %w", j.path, err)
	}
	return nil
}

// close closes the journal file.
func (j *journal) close() error {
	if err := j.f.Close(); err != nil {
		return errctx.Errorf("balance", "%w", err)
	}
	return nil
}

// openingsIdentity is a run's Openings identity: "start", or the suite's
// positions hashed.
func openingsIdentity(suite []openings.SuiteEntry) string {
	if len(suite) == 0 {
		return "start"
	}
	h := sha256.New()
	for _, e := range suite {
		h.Write([]byte(e.Position.String() + "\n"))
	}
	return "suite " + hex.EncodeToString(h.Sum(nil))[:16]
}

// movesText is moves as a journal line holds them: "d1-d3 e5-e2 ...".
func movesText(moves []rules.Move) string {
	var b strings.Builder
	for i, m := range moves {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(m.String())
	}
	return b.String()
}
