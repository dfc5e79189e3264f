package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
)

// isRun reports whether folder rel of the run root looks like a loop run.
func (s *Server) isRun(rel string) bool {
	for _, name := range []string{"summary.json", "manifest.json", "gen-001"} {
		if _, err := s.run.Stat(path.Join(rel, name)); err == nil {
			return true
		}
	}
	return false
}

// handleRuns lists the run folders: -run itself when it is one, else its
// subfolders that are.
func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	out := []string{}
	if s.run == nil {
		writeJSON(w, out)
		return
	}
	if s.isRun(".") {
		out = append(out, ".")
	}
	entries, _ := fs.ReadDir(s.run.FS(), ".")
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && s.isRun(e.Name()) {
			out = append(out, e.Name())
		}
	}
	writeJSON(w, out)
}

// handleRun returns a run's summary and its balance and ratings reports.
func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	if s.run == nil {
		writeError(w, errorf(http.StatusNotFound, "run: the server was started without -run"))
		return
	}
	rel, err := cleanRel(r.URL.Query().Get("path"))
	if err != nil {
		writeError(w, err)
		return
	}
	if st, err := s.run.Stat(rel); err != nil {
		writeError(w, rootError("run", rel, err))
		return
	} else if !st.IsDir() {
		writeError(w, errorf(http.StatusBadRequest, "run/%s: not a folder", rel))
		return
	}
	release, err := s.reads.acquire(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	rep := RunReport{Path: rel, Summary: json.RawMessage("null"), Hosts: json.RawMessage("null"), Balance: []ReportFile{}, Ratings: []ReportFile{}, Errors: []string{}}
	var total int64 // the bytes read so far, at most MaxRunBytes
	readJSONFile := func(p string) (json.RawMessage, bool) {
		st, err := s.run.Stat(p)
		if err != nil {
			rep.Errors = append(rep.Errors, rootError("run", p, err).Error())
			return nil, false
		}
		if total+st.Size() > s.cfg.MaxRunBytes {
			rep.Errors = append(rep.Errors, fmt.Sprintf("run/%s: %d bytes: not read, as the run's files would pass the %d bytes the server reads for one request", p, st.Size(), s.cfg.MaxRunBytes))
			return nil, false
		}
		b, err := s.readFile("run", p)
		total += int64(len(b))
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
			return nil, false
		}
		if !json.Valid(b) {
			rep.Errors = append(rep.Errors, "run/"+p+": not valid JSON")
			return nil, false
		}
		return b, true
	}
	if _, err := s.run.Stat(path.Join(rel, "summary.json")); err == nil {
		if b, ok := readJSONFile(path.Join(rel, "summary.json")); ok {
			if err := runSummary(b, &rep); err != nil {
				rep.Errors = append(rep.Errors, "run/"+path.Join(rel, "summary.json")+": "+err.Error())
			}
		}
	}
	var found []string
	fs.WalkDir(s.run.FS(), rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != rel && (strings.HasPrefix(d.Name(), ".") || d.Name() == "data" || d.Name() == "train") {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && (d.Name() == "balance.json" || d.Name() == "ratings.json") && len(found) < 100 {
			found = append(found, p)
		}
		return nil
	})
	sort.Strings(found)
	for _, p := range found {
		if b, ok := readJSONFile(p); ok {
			if path.Base(p) == "balance.json" {
				rep.Balance = append(rep.Balance, ReportFile{p, b})
			} else {
				rep.Ratings = append(rep.Ratings, ReportFile{p, b})
			}
		}
	}
	writeJSON(w, rep)
}

// runSummary puts summary.json's generations and hosts into rep. The loop
// wrote a bare array of generations until it added the worker hosts; it now
// writes {"generations": [...], "hosts": [...]}, and runs of both kinds are
// on disk.
func runSummary(b json.RawMessage, rep *RunReport) error {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		rep.Summary = b
		return nil
	}
	var s struct {
		Generations json.RawMessage `json:"generations"`
		Hosts       json.RawMessage `json:"hosts"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want an array of generations or an object with \"generations\": %v", err)
	}
	if t := bytes.TrimSpace(s.Generations); len(t) == 0 || t[0] != '[' {
		return errors.New("no \"generations\" array")
	}
	rep.Summary = s.Generations
	if len(s.Hosts) > 0 {
		rep.Hosts = s.Hosts
	}
	return nil
}
