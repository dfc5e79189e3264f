package mcts

import (
	"errors"
	"fmt"

	"taflab/internal/errctx"
	"taflab/rules"
)

// Config holds every setting of search and self-play move choice. Units and
// defaults are in the field comments; DefaultConfig returns the defaults.
// The toml tags are the keys of run-config files.
type Config struct {
	// Playouts is the number of playouts of a full search (one whose
	// visit distribution is a training target), from 1 to MaxPlayouts.
	// Default 800.
	Playouts int `toml:"playouts"`
	// CheapPlayouts is the number of playouts of a cheap search, used for
	// the moves playout-cap randomization does not pick: no noise, not a
	// training target. From 1 to Playouts. Default 100. Equal to Playouts
	// to turn it off.
	CheapPlayouts int `toml:"cheap_playouts"`
	// TreeBytes is the memory budget of one search's tree, in bytes: a
	// search whose tree reaches it ends early, with the playouts it has,
	// and its best move is read as after any search. A node is 28 bytes
	// and a playout adds one for each legal move of the position it
	// expands (about 110 in a middle game), so a search takes about 3.1
	// KB a playout (TestTreeBytesPerPlayout measures it): the default
	// holds about 85,000 playouts. Default DefaultTreeBytes (256 MiB); 0
	// means the default; else from MinTreeBytes (64 KiB) to MaxTreeBytes
	// (32 GiB). The tree's arena (chunks of 1.5 MiB, arena.go) never grows
	// past the budget and one round's leaves (LeavesPerGame times
	// rules.MaxMoves nodes); with tree reuse the spare arena Advance
	// compacts into is as large as the last tree, so a search that keeps
	// its tree may hold up to about twice the budget.
	TreeBytes int64 `toml:"tree_bytes"`
	// FullSearchProb is the probability that a self-play move gets a full
	// search (KataGo's playout-cap randomization). Default 0.25; 1 makes
	// every search full.
	FullSearchProb float64 `toml:"full_search_prob"`

	// RootSearch is how the root's children are searched and the move and
	// the training target are read: "puct" (PUCT selection, visit counts,
	// the temperature schedule and Dirichlet noise) or "gumbel" (Gumbel
	// root search, gumbel.go: Gumbel-top-k sampling of GumbelActions
	// moves, sequential halving among them, and the improved policy of
	// completed Q values as the target). Default "puct". Interior nodes use
	// PUCT either way.
	RootSearch string `toml:"root_search"`
	// GumbelActions is m, the number of root moves Gumbel root search
	// samples (without replacement, by Gumbel-top-k) and halves down to
	// one. Default 16.
	GumbelActions int `toml:"gumbel_actions"`
	// GumbelCVisit and GumbelCScale set how much the search's values
	// outweigh the priors in Gumbel root search: sigma(q) = (GumbelCVisit +
	// the most visits of a root move) * GumbelCScale * q, with q rescaled
	// to [0, 1] over the root's moves. Defaults 50 and 1 (the paper's;
	// mctx's default scale is 0.1).
	GumbelCVisit float64 `toml:"gumbel_c_visit"`
	GumbelCScale float64 `toml:"gumbel_c_scale"`

	// CPuct scales the exploration term of PUCT. Default 1.25.
	CPuct float64 `toml:"cpuct"`
	// FPUReduction lowers the value assumed for unvisited children below
	// the parent's value, scaled by the square root of the policy mass
	// already visited (Leela Chess Zero). Default 0.25.
	FPUReduction float64 `toml:"fpu_reduction"`
	// RootFPUReduction is FPUReduction at the root. Default 0 (the root's
	// children are tried more widely, with noise in self-play).
	RootFPUReduction float64 `toml:"root_fpu_reduction"`

	// DirichletAlphaTotal is the total concentration of the root noise: the
	// noise of each legal move is Dirichlet with alpha = DirichletAlphaTotal
	// / number of legal moves (KataGo's 0.03 * 361). Default 10.83.
	DirichletAlphaTotal float64 `toml:"dirichlet_alpha_total"`
	// NoiseFraction is the weight of the noise in the root priors of a full
	// search. Default 0.25; 0 turns noise off. Gumbel root search adds no
	// Dirichlet noise (its Gumbel draws are its noise) and ignores both.
	NoiseFraction float64 `toml:"noise_fraction"`

	// TemperatureStart is the move-choice temperature at the first ply:
	// moves are chosen with probability proportional to visits^(1/T).
	// Default 0.8. Gumbel root search has no temperature: its Gumbel draws
	// already sample the move.
	TemperatureStart float64 `toml:"temperature_start"`
	// TemperatureEnd is the temperature the schedule decays to. 0 plays
	// the most visited move. Default 0.2.
	TemperatureEnd float64 `toml:"temperature_end"`
	// TemperatureHalfLife is the number of plies over which the temperature
	// halves its distance to TemperatureEnd. Default 20 plies.
	TemperatureHalfLife float64 `toml:"temperature_half_life"`

	// LeavesPerGame is the number of leaves one game's search may have in
	// flight in a batch, kept apart by virtual loss. Default 4.
	LeavesPerGame int `toml:"leaves_per_game"`
	// VirtualLoss is the number of losses each leaf in flight counts as on
	// its path while it waits for evaluation. Default 1.
	VirtualLoss float64 `toml:"virtual_loss"`
	// TreeReuse keeps the subtree of the move played for the next search.
	// Default true.
	TreeReuse bool `toml:"tree_reuse"`

	// EscapeDepth is how many king moves, the step onto the corner
	// included, the leaf proofs of the king's forced walk to a corner look
	// through (escapeSolver): 1 sees an open line nobody can close, 2 a
	// fork, 3 a threat after which every closing move leaves a fork.
	// Default 3, at most 3.
	EscapeDepth int `toml:"escape_depth"`

	// ForcedPlayouts is k of KataGo's forced playouts with policy target
	// pruning (forced.go): in a search with root noise (self-play's full
	// searches), every root move that has had a playout is given at least
	// sqrt(k * its noised prior * the root's visits), and the training
	// target (Policy) takes back the playouts that were only forced. 0
	// turns both off; KataGo uses 2. From 0 to 10; default 0. Gumbel root
	// search ignores it.
	ForcedPlayouts float64 `toml:"forced_playouts"`

	// TacticalWeight is alpha of implicit minimax backups (Lanctot et al.,
	// 2014; tactics.go): PUCT's value of a child is (1 - alpha) times the
	// search's mean value plus alpha times the child's minimax value over
	// the tree, whose leaves are read by a cheap heuristic (a move that
	// ends the game is +1, -1 or 0 for its mover, else the material
	// balance), so that a weak evaluator neither walks into a capture nor
	// passes one by. Each expansion then makes and unmakes every legal
	// move of the leaf once, which also finds every win in one: about 5 to
	// 7 µs a playout (BenchmarkPlayouts), some 1% of a 6x64 network's
	// evaluation of the leaf. From 0 to 1; default 0 (off: no scan, and
	// the search as without it).
	TacticalWeight float64 `toml:"tactical_weight"`
}

// MaxPlayouts is the most playouts one search may be given (Config.Playouts,
// Search.Start, Runner.Search, and every flag, config key, request or
// protocol line that sets a search's playouts): 1<<24 = 16,777,216. Visit
// counts are 32-bit and enter the selection arithmetic as float32, exact up
// to 2^24; and the memory budget (Config.TreeBytes) ends a search long
// before, at about 85,000 playouts by default.
const MaxPlayouts = 1 << 24

// CheckPlayouts reports a playout count outside [1, MaxPlayouts], with an
// error naming the value and the range, or nil. Commands call it where
// they parse a count (a flag, a config key, a request, a protocol line).
func CheckPlayouts(n int) error {
	if n < 1 || n > MaxPlayouts {
		return errctx.Errorf("mcts", "playouts %d: want from 1 to %d", n, MaxPlayouts)
	}
	return nil
}

// The range and default of Config.TreeBytes, in bytes.
const (
	DefaultTreeBytes = 256 << 20 // 256 MiB
	MinTreeBytes     = 64 << 10  // 64 KiB: a few expansions
	MaxTreeBytes     = 32 << 30  // 32 GiB: node indices stay within 31 bits
)

// The values of Config.RootSearch.
const (
	RootPUCT   = "puct"
	RootGumbel = "gumbel"
)

// DefaultConfig returns the default settings.
func DefaultConfig() Config {
	return Config{
		Playouts:            800,
		CheapPlayouts:       100,
		TreeBytes:           DefaultTreeBytes,
		FullSearchProb:      0.25,
		RootSearch:          RootPUCT,
		GumbelActions:       16,
		GumbelCVisit:        50,
		GumbelCScale:        1,
		CPuct:               1.25,
		FPUReduction:        0.25,
		RootFPUReduction:    0,
		DirichletAlphaTotal: 10.83,
		NoiseFraction:       0.25,
		TemperatureStart:    0.8,
		TemperatureEnd:      0.2,
		TemperatureHalfLife: 20,
		LeavesPerGame:       4,
		VirtualLoss:         1,
		TreeReuse:           true,
		EscapeDepth:         maxEscapeDepth,
		TacticalWeight:      0,
	}
}

// Validate reports every setting out of range, naming its key.
func (c *Config) Validate() error {
	var errs []error
	check := func(ok bool, key, format string, args ...any) {
		if !ok {
			errs = append(errs, errctx.Errorf("mcts", "%s = %v: %s", key, args[0], fmt.Sprintf(format, args[1:]...)))
		}
	}
	check(c.Playouts >= 1 && c.Playouts <= MaxPlayouts, "playouts", "want from 1 to %d", c.Playouts, MaxPlayouts)
	check(c.TreeBytes == 0 || c.TreeBytes >= MinTreeBytes && c.TreeBytes <= MaxTreeBytes, "tree_bytes", "want 0 (the default, %d) or from %d to %d bytes", c.TreeBytes, DefaultTreeBytes, MinTreeBytes, MaxTreeBytes)
	check(c.CheapPlayouts >= 1 && c.CheapPlayouts <= c.Playouts, "cheap_playouts", "want from 1 to playouts (%d)", c.CheapPlayouts, c.Playouts)
	check(c.FullSearchProb >= 0 && c.FullSearchProb <= 1, "full_search_prob", "want a probability from 0 to 1", c.FullSearchProb)
	check(c.RootSearch == RootPUCT || c.RootSearch == RootGumbel, "root_search", "want %q or %q", c.RootSearch, RootPUCT, RootGumbel)
	check(c.GumbelActions >= 1, "gumbel_actions", "want at least 1", c.GumbelActions)
	check(c.GumbelCVisit >= 0, "gumbel_c_visit", "want 0 or more", c.GumbelCVisit)
	check(c.GumbelCScale > 0, "gumbel_c_scale", "want more than 0", c.GumbelCScale)
	check(c.CPuct > 0, "cpuct", "want more than 0", c.CPuct)
	check(c.FPUReduction >= 0 && c.FPUReduction <= 2, "fpu_reduction", "want from 0 to 2", c.FPUReduction)
	check(c.RootFPUReduction >= 0 && c.RootFPUReduction <= 2, "root_fpu_reduction", "want from 0 to 2", c.RootFPUReduction)
	check(c.DirichletAlphaTotal > 0, "dirichlet_alpha_total", "want more than 0", c.DirichletAlphaTotal)
	check(c.NoiseFraction >= 0 && c.NoiseFraction <= 1, "noise_fraction", "want from 0 to 1", c.NoiseFraction)
	check(c.TemperatureStart >= 0, "temperature_start", "want 0 or more", c.TemperatureStart)
	check(c.TemperatureEnd >= 0, "temperature_end", "want 0 or more", c.TemperatureEnd)
	check(c.TemperatureHalfLife > 0, "temperature_half_life", "want more than 0 plies", c.TemperatureHalfLife)
	check(c.LeavesPerGame >= 1 && c.LeavesPerGame <= 64, "leaves_per_game", "want from 1 to 64", c.LeavesPerGame)
	check(c.VirtualLoss >= 0 && c.VirtualLoss <= 10, "virtual_loss", "want from 0 to 10", c.VirtualLoss)
	check(c.TacticalWeight >= 0 && c.TacticalWeight <= 1, "tactical_weight", "want from 0 to 1", c.TacticalWeight)
	check(c.ForcedPlayouts >= 0 && c.ForcedPlayouts <= 10, "forced_playouts", "want from 0 to 10", c.ForcedPlayouts)
	check(c.EscapeDepth >= 1 && c.EscapeDepth <= maxEscapeDepth, "escape_depth", "want from 1 to %d king moves", c.EscapeDepth, maxEscapeDepth)
	return errors.Join(errs...)
}

// TreeBudget returns the tree's memory budget in bytes: TreeBytes, or
// DefaultTreeBytes for 0.
func (c *Config) TreeBudget() int64 {
	if c.TreeBytes == 0 {
		return DefaultTreeBytes
	}
	return c.TreeBytes
}

// RoundBytes returns the tree memory one round of a game's search may add
// past its budget: LeavesPerGame leaves' expansions of rules.MaxMoves
// nodes each.
func (c *Config) RoundBytes() int64 {
	return int64(max(c.LeavesPerGame, 1)) * rules.MaxMoves * int64(nodeBytes)
}

// treeNodes returns the nodes the memory budget holds.
func (c *Config) treeNodes() int { return int(max(c.TreeBudget(), MinTreeBytes) / int64(nodeBytes)) }
