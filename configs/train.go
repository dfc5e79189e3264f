package configs

import (
	_ "embed"
	"errors"
	"fmt"

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
	// Seed fixes the data order, the symmetries and the initial weights.
	Seed uint64 `toml:"seed"`
	// Training: the steps (default 1000), the batch size (default 256),
	// the window (default 500000), the checkpoints (default every 100
	// steps), the data's symmetries and value targets, the records, the
	// network and the optimizer.
	Training
}

// Training is what a network trains on and how: the keys a training run
// (train.toml) and the loop's training stage ([train] of loop.toml) share.
type Training struct {
	// Steps is the number of optimizer steps.
	Steps int `toml:"steps"`
	// BatchSize is the number of positions per step.
	BatchSize int `toml:"batch_size"`
	// Window is the number of newest positions trained on.
	Window int `toml:"window"`
	// CheckpointEvery is the number of steps between checkpoints.
	CheckpointEvery int `toml:"checkpoint_every"`
	// Symmetries shows each position in a random board symmetry.
	Symmetries bool `toml:"symmetries"`
	// SearchValueWeight is the share (0 to 1) of each value target taken
	// from the search's value of the position rather than the game's
	// result (net.Sample.SearchWeight). Default 0.
	SearchValueWeight float64 `toml:"search_value_weight"`
	// SurpriseWeight is KataGo's policy surprise weighting, 0 to 1: a
	// self-play position with a full search weighs (1 - SurpriseWeight) +
	// SurpriseWeight times its surprise (its policy target's KL divergence
	// from the network's prior, datasets.PositionRow.Surprise) over the
	// mean surprise of such positions in its batch, so that positions
	// where the search found what the network did not know count more.
	// Positions of unknown surprise (0) weigh 1. Default 0 (all alike);
	// KataGo's is 0.5.
	SurpriseWeight float64 `toml:"surprise_weight"`
	// Records are game records to learn from beside self-play, or alone.
	Records Records `toml:"records"`
	// Network is the architecture of a new network.
	Network net.Config `toml:"network"`
	// Optimizer holds the optimizer and schedule settings.
	Optimizer net.TrainConfig `toml:"optimizer"`
}

// validate reports every key out of range; table is the keys' table in
// the errors: "" for a training run's, "train." for the loop's.
func (t *Training) validate(table string) (errs []error) {
	if t.Steps < 0 {
		errs = append(errs, keyError(table+"steps", t.Steps, "want 0 or more"))
	}
	if t.BatchSize < 1 || t.BatchSize > 1<<16 {
		errs = append(errs, keyError(table+"batch_size", t.BatchSize, "want from 1 to 65536"))
	}
	if t.Window < 1 {
		errs = append(errs, keyError(table+"window", t.Window, "want at least 1"))
	}
	if t.CheckpointEvery < 1 {
		errs = append(errs, keyError(table+"checkpoint_every", t.CheckpointEvery, "want at least 1"))
	}
	if !(t.SearchValueWeight >= 0 && t.SearchValueWeight <= 1) {
		errs = append(errs, keyError(table+"search_value_weight", t.SearchValueWeight, "want 0 to 1"))
	}
	if !(t.SurpriseWeight >= 0 && t.SurpriseWeight <= 1) {
		errs = append(errs, keyError(table+"surprise_weight", t.SurpriseWeight, "want 0 to 1"))
	}
	if err := t.Records.check(); err != nil {
		errs = append(errs, fmt.Errorf("[%srecords]: %w", table, err))
	}
	errs = append(errs, inTable(table+"network", t.Network.Validate())...)
	return append(errs, inTable(table+"optimizer", t.Optimizer.Validate())...)
}

// DefaultTrain returns the embedded training configuration.
func DefaultTrain() Train {
	c, err := parseOver("train.toml (embedded)", trainFile, Train{Training: Training{Network: net.DefaultConfig(), Optimizer: net.DefaultTrainConfig()}})
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
	return parseOver(file, data, DefaultTrain())
}

// Validate reports every key out of range.
func (c *Train) Validate() error { return prefixed(c.check()) }

// check is Validate without the package prefix.
func (c *Train) check() error {
	var errs []error
	bad := func(key string, value any, want string) {
		errs = append(errs, keyError(key, value, want))
	}
	if c.Data == "" && !c.Records.Only() {
		bad("data", `""`, "name the dataset folder (or train on records alone: records.share = 1)")
	}
	if c.Out == "" {
		bad("out", `""`, "name the run folder")
	}
	errs = append(errs, c.Training.validate("")...)
	return errors.Join(errs...)
}

// Records are game records (the archive CSV that eval replay reads) to
// train on: each position's policy target is the move played and its value
// target the recorded result, at a weight. They are replayed through the
// rules of their own rule set, and the network's rule-set planes say which.
type Records struct {
	// File is the record file, or the name of an archive that ships
	// inside taflab (archive.Copenhagen, "archive:copenhagen"); "" for
	// none. Default "".
	File string `toml:"file"`
	// Optional skips a File that does not exist, with a message, instead of
	// failing: for files that may or may not be at hand. Default false.
	Optional bool `toml:"optional"`
	// Variant is the rule set the records were played under: an embedded
	// name or a rule-set file. Default "copenhagen-classic".
	Variant string `toml:"variant"`
	// Share is the share of each batch drawn from the records, 0 to 1; 1
	// trains on the records alone. Default 0.5.
	Share float64 `toml:"share"`
	// ValueWeight weighs the records' value loss (net.Sample.ValueWeight)
	// against self-play's 1: a recorded result is one noisy outcome with no
	// search behind it. Default 0.25.
	ValueWeight float64 `toml:"value_weight"`
	// HoldoutEvery keeps the records on every HoldoutEvery-th line out of
	// training, for measuring the network on games it never saw
	// (eval fit -split heldout); 0 keeps none back. Default 10.
	HoldoutEvery int `toml:"holdout_every"`
}

// Enabled reports whether batches draw on the records.
func (r Records) Enabled() bool { return r.File != "" && r.Share > 0 }

// Only reports whether training uses the records alone.
func (r Records) Only() bool { return r.Enabled() && r.Share >= 1 }

// Validate reports every key out of range.
func (r Records) Validate() error { return prefixed(r.check()) }

// check is Validate without the package prefix.
func (r Records) check() error {
	var errs []error
	bad := func(key string, value any, want string) {
		errs = append(errs, keyError("records."+key, value, want))
	}
	if r.File != "" && r.Variant == "" {
		bad("variant", `""`, "name the records' rule set")
	}
	if !(r.Share >= 0 && r.Share <= 1) {
		bad("share", r.Share, "want 0 to 1")
	}
	if !(r.ValueWeight >= 0 && r.ValueWeight <= 1) {
		bad("value_weight", r.ValueWeight, "want 0 to 1")
	}
	if r.HoldoutEvery < 0 || r.HoldoutEvery == 1 {
		bad("holdout_every", r.HoldoutEvery, "want 0 (none held out) or 2 or more")
	}
	return errors.Join(errs...)
}
