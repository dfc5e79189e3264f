package configs

import (
	_ "embed"
	"errors"
	"fmt"

	"taflab/configs/internal/strict"
	"taflab/net"
)

//go:embed train.toml
var trainFile []byte

// Train is a training run's configuration. The toml tags are the keys of
// train.toml, which documents each one; DefaultTrain returns its values.
type Train struct {
	// Data is the dataset folder. Default "data/selfplay".
	Data string `toml:"data"`
	// Out is the run folder. Default "runs/train".
	Out string `toml:"out"`
	// Steps is the number of optimizer steps. Default 1000.
	Steps int `toml:"steps"`
	// BatchSize is the number of positions per step. Default 256.
	BatchSize int `toml:"batch_size"`
	// Window is the number of newest positions trained on. Default 500000.
	Window int `toml:"window"`
	// CheckpointEvery is the number of steps between checkpoints. Default 100.
	CheckpointEvery int `toml:"checkpoint_every"`
	// Seed fixes the data order, the symmetries and the initial weights.
	Seed uint64 `toml:"seed"`
	// Symmetries shows each position in a random board symmetry.
	Symmetries bool `toml:"symmetries"`
	// SearchValueWeight is the share (0 to 1) of each value target taken
	// from the search's value of the position rather than the game's
	// result (net.Sample.SearchWeight). Default 0.
	SearchValueWeight float64 `toml:"search_value_weight"`
	// Network is the architecture of a new network.
	Network net.Config `toml:"network"`
	// Optimizer holds the optimizer and schedule settings.
	Optimizer net.TrainConfig `toml:"optimizer"`
}

// DefaultTrain returns the embedded training configuration.
func DefaultTrain() Train {
	c, err := parseTrainOver("train.toml (embedded)", trainFile, Train{Network: net.DefaultConfig(), Optimizer: net.DefaultTrainConfig()})
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return c
}

// TrainFile returns the embedded configuration file, for users to copy.
func TrainFile() []byte { return trainFile }

// ParseTrain reads a training configuration file over the embedded one:
// keys the file leaves out keep their embedded values. Unknown keys, values
// of the wrong type and values out of range are refused, naming the key and
// file.
func ParseTrain(file string, data []byte) (Train, error) {
	return parseTrainOver(file, data, DefaultTrain())
}

func parseTrainOver(file string, data []byte, c Train) (Train, error) {
	if _, err := strict.Decode("configs: ", file, data, &c); err != nil {
		return Train{}, err
	}
	if err := c.Validate(); err != nil {
		return Train{}, fmt.Errorf("configs: %s: %w", file, err)
	}
	return c, nil
}

// Validate reports every key out of range.
func (c *Train) Validate() error {
	var errs []error
	bad := func(key string, value any, want string) {
		errs = append(errs, fmt.Errorf("configs: %s = %v: %s", key, value, want))
	}
	if c.Data == "" {
		bad("data", `""`, "name the dataset folder")
	}
	if c.Out == "" {
		bad("out", `""`, "name the run folder")
	}
	if c.Steps < 0 {
		bad("steps", c.Steps, "want 0 or more")
	}
	if c.BatchSize < 1 || c.BatchSize > 1<<16 {
		bad("batch_size", c.BatchSize, "want from 1 to 65536")
	}
	if c.Window < 1 {
		bad("window", c.Window, "want at least 1")
	}
	if c.CheckpointEvery < 1 {
		bad("checkpoint_every", c.CheckpointEvery, "want at least 1")
	}
	if !(c.SearchValueWeight >= 0 && c.SearchValueWeight <= 1) {
		bad("search_value_weight", c.SearchValueWeight, "want 0 to 1")
	}
	if err := c.Network.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("[network]: %w", err))
	}
	if err := c.Optimizer.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("[optimizer]: %w", err))
	}
	return errors.Join(errs...)
}
