package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"taflab/configs"
	"taflab/internal/fileio"
)

// externalKey matches a line that sets selfplay.external inside the
// [selfplay] table, keeping any comment after the value.
var externalKey = regexp.MustCompile(`^(\s*external\s*=\s*)(true|false)(\s*(#.*)?)$`)

// WithExternal returns a loop config's text with selfplay.external set to
// external, so that the run's loop.toml records the mode a flag chose
// (train loop -external) and a resumed run, or a repeat of it from its
// loop.toml, plays the same way. The text is edited, not written anew, so
// its comments stay: the key's line in [selfplay] gets the value, else a
// line is added under [selfplay], else a [selfplay] table at the end. Text
// that already says so is returned as it is. The result is parsed again
// and must differ from text in that key alone; if it cannot be done (a
// layout the edit does not know), the error asks to set the key in the
// file.
func WithExternal(text []byte, external bool) ([]byte, error) {
	before, err := configs.ParseLoop(ConfigFile, text)
	if err != nil {
		return nil, fmt.Errorf("loop: %w", err)
	}
	if before.SelfPlay.External == external {
		return text, nil
	}
	value := strconv.FormatBool(external)
	lines := strings.SplitAfter(string(text), "\n")
	table, header, set := "", -1, false
	for i, l := range lines {
		body := strings.TrimSpace(strings.SplitN(l, "#", 2)[0])
		if strings.HasPrefix(body, "[") {
			table = strings.TrimSpace(strings.Trim(body, "[]"))
			if table == "selfplay" {
				header = i
			}
			continue
		}
		if table != "selfplay" {
			continue
		}
		if m := externalKey.FindStringSubmatch(strings.TrimRight(l, "\r\n")); m != nil {
			lines[i] = m[1] + value + m[3] + l[len(strings.TrimRight(l, "\r\n")):]
			set = true
			break
		}
	}
	switch {
	case set:
	case header >= 0:
		line := "external = " + value + "\n"
		lines = append(lines[:header+1], append([]string{line}, lines[header+1:]...)...)
	default:
		if n := len(lines); lines[n-1] != "" && !strings.HasSuffix(lines[n-1], "\n") {
			lines[n-1] += "\n"
		}
		lines = append(lines, "\n[selfplay]\nexternal = "+value+"\n")
	}
	out := []byte(strings.Join(lines, ""))
	after, err := configs.ParseLoop(ConfigFile, out)
	want := before
	want.SelfPlay.External = external
	if err != nil || !reflect.DeepEqual(after, want) {
		return nil, fmt.Errorf("loop: cannot record selfplay.external = %s in the config's text: set it in the config file", value)
	}
	return out, nil
}

// checkMode refuses to carry a run on in another self-play mode than the
// one it was started in: its loop.toml's selfplay.external, and, for a run
// set up before the mode was recorded there, the mode its generations'
// self-play stages wrote in selfplay.json. Switching would leave a
// generation's games half here, half with followers, and a resumed
// in-process stage would count none of the followers' games.
func checkMode(run string, cfg configs.Loop) error {
	want := cfg.SelfPlay.External
	path := filepath.Join(run, ConfigFile)
	if text, err := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "this file"); err == nil {
		own, err := configs.ParseLoop(path, text)
		if err != nil {
			return fmt.Errorf("loop: %w", err)
		}
		if own.SelfPlay.External != want {
			return modeError(path, own.SelfPlay.External, want)
		}
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

func modeError(where string, have, want bool) error {
	mode := map[bool]string{false: "in the loop's own process", true: "by followers (selfplay -follow)"}
	return fmt.Errorf("loop: %s: selfplay.external = %v: this run plays its self-play %s; it cannot go on with selfplay.external = %v (a run keeps its mode: start a new run folder)",
		where, have, mode[have], want)
}
