package loop

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"taflab/configs"
	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/internal/tomlbound"
	"taflab/net"
	"taflab/openings"
	"taflab/rules"
	"time"

	"github.com/BurntSushi/toml"
)

// Setting a run up: what it records as it starts, once, and what it
// refuses to change.

// checkConfig refuses to carry a run on with another config text than its
// own loop.toml (the one it was set up with); name names the text.
func checkConfig(run string, configText []byte, name string) error {
	own := filepath.Join(run, ConfigFile)
	have, err := fileio.ReadFileLimit(own, tomlbound.MaxBytes, "a TOML file")
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errctx.Errorf("loop", "the run's config: %w", err)
	}
	if !bytes.Equal(have, configText) {
		if name == "" {
			name = "the config given"
		}
		return &keptError{fmt.Sprintf("loop: %s differs from the run's own %s: a run keeps its config (start a new run folder)", name, own)}
	}
	return nil
}

// setUp records what the run uses, once: the config, the rule set and the
// manifest. A run folder with another rule set is refused.
func setUp(run string, cfg configs.Loop, configText []byte, v *rules.Variant) error {
	// What a later stage reads is checked before any work: the openings of
	// the gates and of self-play.
	if _, _, err := openings.Openings(cfg.Gate.Openings, v, 1, cfg.Gate.OpeningPlies, 0); err != nil {
		return within("gate.openings", err)
	}
	if cfg.SelfPlay.Mix.Suite == "" && cfg.SelfPlay.Mix.SuiteShare > 0 {
		if _, err := openings.LoadSuite("", v); err != nil {
			return within("selfplay.mix.suite", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(run, DataDir), 0o755); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	if cfg.SelfPlay.Mix.Suite != "" && cfg.SelfPlay.Mix.SuiteShare > 0 {
		if err := copySuite(run, cfg.SelfPlay.Mix.Suite, v); err != nil {
			return err
		}
	}
	if err := recordVariant(run, v); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(run, ConfigFile)); errors.Is(err, os.ErrNotExist) {
		if err := fileio.WriteFile(filepath.Join(run, ConfigFile), configText); err != nil {
			return errctx.Errorf("loop", "%w", err)
		}
	}
	if err := recordMode(run, cfg); err != nil {
		return err
	}
	return writeManifest(run, cfg, v)
}

// recordVariant writes the run's rule set (VariantFile), once; a run
// folder that holds another one is refused.
func recordVariant(run string, v *rules.Variant) error {
	def, err := variantTOML(v)
	if err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	variantPath := filepath.Join(run, VariantFile)
	old, err := fileio.ReadFileLimit(variantPath, tomlbound.MaxBytes, "a TOML file")
	if err != nil {
		if err := fileio.WriteFile(variantPath, []byte(def)); err != nil {
			return errctx.Errorf("loop", "%w", err)
		}
		return nil
	}
	if string(old) == def {
		return nil
	}
	var was rules.Definition
	if _, err := tomlbound.Decode(old, &was); err == nil && was.Name != v.Name() {
		if was.Name = v.Name(); was == v.Definition() {
			// The same rules under an older build's name (an OpenTafl
			// rules string's, before such names had
			// variants.OpenTaflPrefix).
			return errctx.Errorf("loop", "%s: this run's rules are %s's under another name, which an older build gave them: change its name to %q to carry the run on",
				variantPath, v.Name(), v.Name())
		}
	}
	return errctx.Errorf("loop", "%s: this run plays another rule set than %s", variantPath, v.Name())
}

// writeManifest writes the run's manifest (ManifestFile), once: versions,
// seed, start, and the command that repeats the run.
func writeManifest(run string, cfg configs.Loop, v *rules.Variant) error {
	repeat := "go run ./cmd/train loop -run NEWDIR -config " + filepath.Join(run, ConfigFile)
	if cfg.SelfPlay.External {
		repeat += " -external"
	}
	manifestPath := filepath.Join(run, ManifestFile)
	if _, err := os.Stat(manifestPath); err == nil {
		return nil
	}
	m := map[string]any{
		"started": time.Now().UTC(), "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
		"cores": runtime.NumCPU(), "seed": cfg.Seed, "variant": v.Name(), "input_encoding": net.InputEncoding,
		"dataset_schema_version": datasets.SchemaVersion,
		"repeat":                 repeat + " (with -variant's file: " + filepath.Join(run, VariantFile) + ")",
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		m["module"] = info.Main.Path + "@" + info.Main.Version
		for _, s := range info.Settings {
			if strings.HasPrefix(s.Key, "vcs.") {
				m[s.Key] = s.Value
			}
		}
		deps := map[string]string{}
		for _, d := range info.Deps {
			deps[d.Path] = d.Version
		}
		m["dependencies"] = deps
	}
	if err := fileio.WriteJSON(manifestPath, m); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	return nil
}

// variantTOML is the rule set as VariantFile holds it.
func variantTOML(v *rules.Variant) (string, error) {
	var def strings.Builder
	err := toml.NewEncoder(&def).Encode(v.Definition())
	return def.String(), err
}

// copySuite copies the suite file that selfplay.mix.suite names (read
// from the loop's working folder, as every path of the config is) into
// the run folder as SuiteFile, once, after checking it. A run whose copy
// differs from the file is refused; a file no longer there (the run folder
// moved) leaves the copy to be used.
func copySuite(run, file string, v *rules.Variant) error {
	path := filepath.Join(run, SuiteFile)
	have, haveErr := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "this file")
	data, err := fileio.ReadFileLimit(file, fileio.MaxConfigBytes, "this file")
	if err != nil {
		if haveErr == nil && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return errctx.Errorf("loop", "selfplay.mix.suite: %w", err)
	}
	if haveErr == nil {
		if !bytes.Equal(have, data) {
			return errctx.Errorf("loop", "selfplay.mix.suite: %s differs from this run's copy %s: a run keeps its suite (start a new run folder)", file, path)
		}
		return nil
	}
	if _, err := openings.ParseSuite(file, data, v); err != nil {
		return within("selfplay.mix.suite", err)
	}
	if err := fileio.WriteFile(path, data); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	return nil
}
