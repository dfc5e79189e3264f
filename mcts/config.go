package mcts

import (
	"errors"
	"fmt"
)

// Config holds every setting of search and self-play move choice. Units and
// defaults are in the field comments; DefaultConfig returns the defaults.
// The toml tags are the keys of run-config files.
type Config struct {
	// Playouts is the number of playouts of a full search (one whose
	// visit distribution is a training target). Default 800.
	Playouts int `toml:"playouts"`
	// CheapPlayouts is the number of playouts of a cheap search, used for
	// the moves playout-cap randomization does not pick: no noise, not a
	// training target. Default 100. Equal to Playouts to turn it off.
	CheapPlayouts int `toml:"cheap_playouts"`
	// FullSearchProb is the probability that a self-play move gets a full
	// search (KataGo's playout-cap randomization). Default 0.25; 1 makes
	// every search full.
	FullSearchProb float64 `toml:"full_search_prob"`

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
	// search. Default 0.25; 0 turns noise off.
	NoiseFraction float64 `toml:"noise_fraction"`

	// TemperatureStart is the move-choice temperature at the first ply:
	// moves are chosen with probability proportional to visits^(1/T).
	// Default 0.8.
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
}

// DefaultConfig returns the default settings.
func DefaultConfig() Config {
	return Config{
		Playouts:            800,
		CheapPlayouts:       100,
		FullSearchProb:      0.25,
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
	}
}

// Validate reports every setting out of range, naming its key.
func (c *Config) Validate() error {
	var errs []error
	check := func(ok bool, key, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf("mcts: %s = %v: %s", key, args[0], fmt.Sprintf(format, args[1:]...)))
		}
	}
	check(c.Playouts >= 1, "playouts", "want at least 1", c.Playouts)
	check(c.CheapPlayouts >= 1 && c.CheapPlayouts <= c.Playouts, "cheap_playouts", "want from 1 to playouts (%d)", c.CheapPlayouts, c.Playouts)
	check(c.FullSearchProb >= 0 && c.FullSearchProb <= 1, "full_search_prob", "want a probability from 0 to 1", c.FullSearchProb)
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
	return errors.Join(errs...)
}
