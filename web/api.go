package web

import (
	"encoding/json"
	"taflab/datasets"

	"taflab/analysis"
)

// The JSON API the page calls: each request body and answer is one of the
// types below, and the page's modules (static/*.js) read no field that they
// do not write (TestPageReadsAPIFields checks it). Every answer is JSON:
//
//	GET  /api/info             Info
//	GET  /api/networks         []NetworkInfo
//	POST /api/games            NewGameRequest -> GameState
//	GET  /api/games/{id}       GameState
//	POST /api/games/{id}/move  MoveRequest -> GameState
//	POST /api/games/{id}/engine               GameState, after the engine's move
//	POST /api/games/{id}/undo                 GameState
//	GET  /api/files            []FileInfo
//	GET  /api/file-games?src=&path=[&variant=][&offset=]  FileGames: GamesPage games from offset, without positions and moves
//	GET  /api/replay?src=&path=&game=[&variant=]          ReplayedGame (at most MaxPlies plies)
//	POST /api/analyze          AnalyzeRequest -> Analysis
//	POST /api/review           ReviewRequest -> ReviewEvent lines (application/x-ndjson), streamed
//	GET  /api/runs             []string, the run folders
//	GET  /api/run?path=        RunReport
//	GET  /static/palette.js    the chart.Palette colours, as a JavaScript module
//	GET  /static/palette.css   the same, as CSS variables
//
// A refused request is answered ErrorReply with its status (and Retry-After
// when the server is busy).

// ErrorReply is the answer to a refused request.
type ErrorReply struct {
	Error string `json:"error"` // for people: what was wrong, and what to do
}

// Info is the answer of GET /api/info: what the server offers, and its load.
type Info struct {
	Variants    []string `json:"variants"`     // the embedded rule sets' names
	Data        bool     `json:"data"`         // whether a data folder is served (Config.DataDir)
	Run         bool     `json:"run"`          // whether a run folder is served (Config.RunDir)
	Net         bool     `json:"net"`          // whether a network file is offered for every rule set (Config.NetFile)
	MaxPlayouts int      `json:"max_playouts"` // the most playouts a search may ask for (Config.MaxPlayouts)
	Searches    Load     `json:"searches"`     // the searches running and queued
	Reads       Load     `json:"reads"`        // the file reads running and queued
}

// Load is how busy one of the server's bounded resources is.
type Load struct {
	Running int `json:"running"`
	Waiting int `json:"waiting"`
	Max     int `json:"max"`
}

// NetworkInfo is a player the page offers: the built-in searcher, the
// network file, each rule set's own network, or a network of the run
// folder. GET /api/networks lists the built-in searcher first and the
// page's default player second: the network file when the server has one,
// else each rule set's own network.
type NetworkInfo struct {
	ID    string `json:"id"`    // "builtin", "net", "own" or "run:REL" (a network.safetensors in the run folder)
	Label string `json:"label"` // for people
	// Files is, for "own" only, the network file that plays each embedded
	// rule set, by the rule set's name (Config.OwnNetworks): a game or an
	// analysis of a rule set absent from it is refused "own" (422).
	Files map[string]string `json:"files,omitempty"`
}

// NewGameRequest is the body of POST /api/games.
type NewGameRequest struct {
	Variant     string `json:"variant"`      // an embedded rule set's name
	VariantTOML string `json:"variant_toml"` // or a rule-set file's text
	Start       string `json:"start"`        // a start position in notation; "" for the rule set's
	Human       string `json:"human"`        // "attackers", "defenders" or "both"
	Engine      string `json:"engine"`       // "builtin" or a network id (GET /api/networks); "own" plays the rule set's own network
	Playouts    int    `json:"playouts"`     // the engine's playouts a move
}

// MoveRequest is the body of POST /api/games/{id}/move: a person's move,
// "c3-c1" (captures written after it are ignored: the rules make them).
type MoveRequest struct {
	Move string `json:"move"`
}

// GameState is what the page shows of a game in progress.
type GameState struct {
	ID           string      `json:"id"`
	Board        BoardInfo   `json:"board"`
	Start        string      `json:"start"`     // the start position, in notation
	Position     string      `json:"position"`  // the position now
	ToMove       string      `json:"to_move"`   // "attackers" or "defenders"
	Ply          int         `json:"ply"`       // the moves made
	Moves        []string    `json:"moves"`     // the moves made, with their captures
	LastMove     *MoveInfo   `json:"last_move"` // null before the first move
	Legal        []string    `json:"legal"`     // the legal moves, "c3-c1"; none once the game is over
	Outcome      OutcomeInfo `json:"outcome"`
	Humans       []string    `json:"humans"`         // the sides a person plays
	Engine       string      `json:"engine"`         // the engine's network id; "" when a person plays both sides
	Playouts     int         `json:"playouts"`       // the engine's playouts a move
	EngineToMove bool        `json:"engine_to_move"` // whether the page should ask for the engine's move
	Thinking     bool        `json:"thinking"`       // whether a search for the engine's move runs
	Record       string      `json:"record"`         // the game in the archive's CSV format
	Version      int         `json:"version"`        // counts the game's changes
}

// BoardInfo is a rule set as the page draws it.
type BoardInfo struct {
	Variant string   `json:"variant"` // the rule set's name
	Size    int      `json:"size"`    // squares a side
	Throne  string   `json:"throne"`  // the throne's square, "f6"
	Corners []string `json:"corners"`
}

// MoveInfo is a move as the rules made it.
type MoveInfo struct {
	Move     string   `json:"move"` // with its captures, "g3-e3xe2"
	From     string   `json:"from"`
	To       string   `json:"to"`
	Captures []string `json:"captures"` // the captured pieces' squares
}

// OutcomeInfo is how a game ended, or that it goes on.
type OutcomeInfo struct {
	Over   bool   `json:"over"`
	Winner string `json:"winner"` // "attackers", "defenders", "draw" or "none"
	Reason string `json:"reason"` // rules.Reason's name, "" while the game goes on
	Ply    int    `json:"ply"`
	Text   string `json:"text"` // for people
}

// FileInfo is a games file the page can replay.
type FileInfo struct {
	Src  string `json:"src"`  // "data", "run", or "archive" (taflab's own game records: Path names one)
	Path string `json:"path"` // relative to the folder, slash-separated
	Kind string `json:"kind"` // "dataset" (*.games.arrow), "records" (*.csv) or "opentafl" (*.otg)
}

// FileGames is the answer of GET /api/file-games: a page of a file's
// games, at most GamesPage of them from Offset.
type FileGames struct {
	Total  int            `json:"total"`  // the games the file holds
	Offset int            `json:"offset"` // Games[0]'s index in the file
	Games  []ReplayedGame `json:"games"`  // without positions and moves
}

// ReplayedGame is a game of a file, replayed through the rules.
type ReplayedGame struct {
	Index     int               `json:"index"`          // the game's place in the file, from 0
	Line      int               `json:"line,omitempty"` // a record's line in its file
	Label     string            `json:"label"`          // for people: "game 3" or "line 12"
	Board     BoardInfo         `json:"board"`
	Start     string            `json:"start"`
	Positions []string          `json:"positions,omitempty"` // before the first move, then after each
	Moves     []*MoveInfo       `json:"moves,omitempty"`     // as the rules made them
	Written   []string          `json:"written,omitempty"`   // as the file writes them
	Plies     int               `json:"plies"`
	Outcome   OutcomeInfo       `json:"outcome"`            // as the rules end the game
	Recorded  string            `json:"recorded"`           // the winner (and reason) the file states
	Mismatch  int               `json:"capture_mismatches"` // moves whose written captures differ from the rules'
	Error     string            `json:"error,omitempty"`    // why the replay stopped early
	Info      *datasets.Details `json:"info,omitempty"`     // a dataset's game only
}

// AnalyzeRequest is the body of POST /api/analyze: a game given by its rule
// set, start and moves (so that repetition counts as in the game), the
// network, and a search's playouts (0 for none).
type AnalyzeRequest struct {
	Variant     string   `json:"variant"`
	VariantTOML string   `json:"variant_toml"`
	Start       string   `json:"start"`
	Moves       []string `json:"moves"`
	Network     string   `json:"network"`  // a network id; "" for the built-in searcher
	Playouts    int      `json:"playouts"` // 0: evaluate only
	Top         int      `json:"top"`      // the moves to list, 1 to 100; 0 for 8
}

// Analysis is the answer of POST /api/analyze: the analysis of the
// position (package analysis: the evaluator's win, draw and loss, value and
// move priors, and a search's), the board it is on and the network id.
type Analysis struct {
	Board   BoardInfo `json:"board"`
	Network string    `json:"network"`
	analysis.Position
}

// ReviewRequest is the body of POST /api/review: a game to review, a
// file's (Src, Path and Game as GET /api/replay takes them, Variant for a
// CSV file's rule set) or one played on the page (GameID), the network,
// and each position's playouts.
type ReviewRequest struct {
	Src      string `json:"src"`
	Path     string `json:"path"`
	Game     int    `json:"game"`
	Variant  string `json:"variant"`
	GameID   string `json:"game_id"`
	Network  string `json:"network"`  // a network id; "" for the built-in searcher
	Playouts int    `json:"playouts"` // each position's search, 1 to Config.MaxPlayouts
}

// ReviewEvent is a line of POST /api/review's answer: the first holds the
// game replayed (as GET /api/replay answers) and its plies (Total); then a
// line a ply (package analysis's review of it) as each is reviewed, not
// always in order; the last holds the review's summary (each side's
// figures, the turn; its plies left out), or an error that stopped it.
type ReviewEvent struct {
	Game   *ReplayedGame    `json:"game,omitempty"`
	Total  int              `json:"total,omitempty"`
	Ply    *analysis.Ply    `json:"ply,omitempty"`
	Review *analysis.Review `json:"review,omitempty"`
	Error  string           `json:"error,omitempty"`
}

// RunReport is the answer of GET /api/run: a run folder's files, passed on
// as their writers wrote them.
type RunReport struct {
	Path    string          `json:"path"`
	Summary json.RawMessage `json:"summary"` // summary.json's generations (loop.GenSummary each); null if absent
	Hosts   json.RawMessage `json:"hosts"`   // summary.json's self-play by worker host (loop.HostThroughput each); null if absent
	Balance []ReportFile    `json:"balance"` // every balance.json in the run (balance.Report each)
	Ratings []ReportFile    `json:"ratings"` // every ratings.json in the run (ratings.Report each)
	Errors  []string        `json:"errors"`  // files that could not be read
}

// ReportFile is a report of a run: its path in the run folder and the
// report as its command wrote it.
type ReportFile struct {
	Path   string          `json:"path"`
	Report json.RawMessage `json:"report"`
}
