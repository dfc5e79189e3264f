package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
)

// ModeFile records a run's self-play mode (Mode) as the run starts; its
// loop.toml is the user's config as it was given. A flag may choose the
// mode (train loop -external), and every later start of the run keeps it.
const ModeFile = "mode.json"

// Mode is how a run plays its self-play.
type Mode struct {
	// External: followers play it (selfplay.external), not the loop's
	// own process.
	External bool `json:"selfplay_external"`
}

// ReadMode returns the self-play mode the run in folder run recorded and
// the file that records it: its ModeFile, or, for a run set up before
// there was one, its loop.toml's selfplay.external. where is "" for a run
// that has neither (a new run).
func ReadMode(run string) (m Mode, where string, err error) {
	path := filepath.Join(run, ModeFile)
	data, err := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "a mode file")
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			return Mode{}, "", errctx.Errorf("loop", "%s: %w", path, err)
		}
		return m, path, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return Mode{}, "", errctx.Errorf("loop", "%w", err)
	}
	path = filepath.Join(run, ConfigFile)
	text, err := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "this file")
	if errors.Is(err, os.ErrNotExist) {
		return Mode{}, "", nil
	}
	if err != nil {
		return Mode{}, "", errctx.Errorf("loop", "%w", err)
	}
	own, err := configs.ParseLoop(path, text)
	if err != nil {
		return Mode{}, "", err // configs', naming the file
	}
	return Mode{External: own.SelfPlay.External}, path, nil
}

// checkMode refuses to carry a run on in another self-play mode than the
// one it was started in: the mode it recorded (ReadMode), and, for a run
// set up before the mode was recorded, the mode its generations'
// self-play stages wrote in selfplay.json. Switching would leave a
// generation's games half here, half with followers, and a resumed
// in-process stage would count none of the followers' games.
func checkMode(run string, cfg configs.Loop) error {
	want := cfg.SelfPlay.External
	have, where, err := ReadMode(run)
	if err != nil {
		return err
	}
	if where != "" && have.External != want {
		return modeError(where, have.External, want)
	}
	for g := 1; ; g++ {
		dir := GenDir(run, g)
		if _, err := os.Stat(dir); err != nil {
			break
		}
		if _, err := os.Stat(filepath.Join(dir, "selfplay.json")); err != nil {
			continue
		}
		st, err := readSelfplayStats(dir)
		if err != nil {
			return err
		}
		if st.External != want {
			return modeError(filepath.Join(dir, "selfplay.json"), st.External, want)
		}
	}
	return nil
}

// recordMode writes the run's ModeFile, once.
func recordMode(run string, cfg configs.Loop) error {
	path := filepath.Join(run, ModeFile)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := fileio.WriteJSON(path, Mode{External: cfg.SelfPlay.External}); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	return nil
}

// modeError is checkMode's refusal: an ErrRunKept.
func modeError(where string, have, want bool) error {
	mode := map[bool]string{false: "in the loop's own process", true: "by followers (selfplay -follow)"}
	return &keptError{fmt.Sprintf("loop: %s: selfplay.external = %v: this run plays its self-play %s; it cannot go on with selfplay.external = %v (a run keeps the mode it started in, whatever the %s it is given: start a new run folder)",
		where, have, mode[have], want, ConfigFile)}
}
