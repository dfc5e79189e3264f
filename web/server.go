package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	stdnet "net"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"taflab/internal/fileio"
	"taflab/net"
)

// static holds the page: index.html, style.css and the JavaScript modules
// (app.js imports the others); palette.js and palette.css are made from
// chart.Palette (palette.go).
//
//go:embed static
var static embed.FS

// staticTypes are the page's files' Content-Types.
var staticTypes = map[string]string{
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".html": "text/html; charset=utf-8",
}

// Server is the page and its API. It is an http.Handler; create it with New.
type Server struct {
	cfg  Config   // immutable
	data *os.Root // DataDir, or nil; os.Root is safe for concurrent use
	run  *os.Root // RunDir, or nil
	mux  *http.ServeMux

	gamesMu sync.Mutex       // guards games and nextID
	games   map[string]*game // games in progress by id
	nextID  uint64

	csrf http.CrossOriginProtection // immutable after New; safe for concurrent use

	netMu    sync.Mutex              // guards networks and netOrder
	networks map[string]*net.Network // loaded networks by id, at most maxNetworks; a Network is immutable once loaded
	netOrder []string                // networks' ids, the one used least recently first

	searches *limiter // the searches running at once; safe for concurrent use
	reads    *limiter // the requests reading whole files at once; safe for concurrent use
	reviews  *limiter // the reviews running at once (Config.MaxSearches); safe for concurrent use
}

// New checks cfg, opens its folders and returns the server.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, games: map[string]*game{}, networks: map[string]*net.Network{},
		searches: newLimiter("searches", cfg.MaxSearches, cfg.MaxQueue, cfg.QueueWait),
		reads:    newLimiter("file reads", cfg.MaxReads, cfg.MaxQueue, cfg.QueueWait),
		reviews:  newLimiter("reviews", cfg.MaxSearches, cfg.MaxQueue, cfg.QueueWait)}
	s.cfg.OwnNetworks = maps.Clone(cfg.OwnNetworks) // the caller's map may change; s.cfg may not
	// The networks are loaded now, so that a file that is not a network
	// fails the start rather than every request that uses it.
	if cfg.NetFile != "" {
		if _, err := s.network(netFileID); err != nil {
			return nil, fmt.Errorf("web: network file: %v", err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.cfg.OwnNetworks)) {
		if _, err := s.network(ownKeyPrefix + name); err != nil {
			return nil, fmt.Errorf("web: own network of %s: %v", name, err)
		}
	}
	var err error
	if cfg.DataDir != "" {
		if s.data, err = os.OpenRoot(cfg.DataDir); err != nil {
			return nil, fmt.Errorf("web: data folder: %w", err)
		}
	}
	if cfg.RunDir != "" {
		if s.run, err = os.OpenRoot(cfg.RunDir); err != nil {
			return nil, fmt.Errorf("web: run folder: %w", err)
		}
	}
	page, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded folder is part of the build
	}
	m := http.NewServeMux()
	files := http.StripPrefix("/static/", http.FileServerFS(page))
	m.HandleFunc("GET /static/", func(w http.ResponseWriter, r *http.Request) {
		// Modules load only as JavaScript (and nosniff holds the browser to
		// the type): the type is set here, not looked up in the system's
		// table, which may map .js to something else.
		if t, ok := staticTypes[path.Ext(r.URL.Path)]; ok {
			w.Header().Set("Content-Type", t)
		}
		files.ServeHTTP(w, r)
	})
	m.HandleFunc("GET /static/palette.js", servePalette(staticTypes[".js"], paletteJS))
	m.HandleFunc("GET /static/palette.css", servePalette(staticTypes[".css"], paletteCSS))
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		b, _ := fs.ReadFile(page, "index.html")
		w.Write(b)
	})
	m.HandleFunc("GET /api/info", s.handleInfo)
	m.HandleFunc("POST /api/games", s.handleNewGame)
	m.HandleFunc("GET /api/games/{id}", s.handleGame)
	m.HandleFunc("POST /api/games/{id}/move", s.handleMove)
	m.HandleFunc("POST /api/games/{id}/engine", s.handleEngine)
	m.HandleFunc("POST /api/games/{id}/undo", s.handleUndo)
	m.HandleFunc("GET /api/files", s.handleFiles)
	m.HandleFunc("GET /api/file-games", s.handleFileGames)
	m.HandleFunc("GET /api/replay", s.handleReplay)
	m.HandleFunc("GET /api/networks", s.handleNetworks)
	m.HandleFunc("POST /api/analyze", s.handleAnalyze)
	m.HandleFunc("POST /api/review", s.handleReview)
	m.HandleFunc("GET /api/runs", s.handleRuns)
	m.HandleFunc("GET /api/run", s.handleRun)
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errorf(http.StatusNotFound, "no API %s %s", r.Method, r.URL.Path))
	})
	s.mux = m
	return s, nil
}

// HTTPServer returns an http.Server for s with the Config's timeouts, and
// headers of at most 64 KiB; the caller sets its address or gives it a
// listener.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s, ReadHeaderTimeout: s.cfg.ReadHeaderTimeout, ReadTimeout: s.cfg.ReadTimeout,
		WriteTimeout: s.cfg.WriteTimeout, IdleTimeout: s.cfg.IdleTimeout, MaxHeaderBytes: 64 << 10}
}

// Close releases the folders the server holds open.
func (s *Server) Close() error {
	var errs []error
	for _, r := range []*os.Root{s.data, s.run} {
		if r != nil {
			errs = append(errs, r.Close())
		}
	}
	return errors.Join(errs...)
}

// ServeHTTP implements http.Handler. Besides the page's own headers, it
// refuses a Host that is not a loopback one (unless Config.AnyHost) and a
// state-changing request from another site's page (a cross-site POST could
// otherwise undo or play in a game).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:")
	if !s.cfg.AnyHost && !loopbackHost(r.Host) {
		writeError(w, errorf(http.StatusForbidden, "Host %q: this server answers only to a loopback address (localhost, 127.0.0.1, [::1]); eval serve -addr serves another", r.Host))
		return
	}
	if err := s.csrf.Check(r); err != nil {
		writeError(w, errorf(http.StatusForbidden, "%s %s: %v: only the page itself may change a game", r.Method, r.URL.Path, err))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// loopbackHost reports whether a request's Host (name or address, with or
// without a port) names this machine's loopback interface.
func loopbackHost(host string) bool {
	if h, _, err := stdnet.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := stdnet.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpError is an error with the HTTP status it answers.
type httpError struct {
	status     int
	msg        string
	retryAfter int  // seconds, for a Retry-After header; 0 for none
	closeConn  bool // close the connection after the answer (a bad request body)
}

func (e *httpError) Error() string { return e.msg }

func errorf(status int, format string, a ...any) error { return httpErrorf(status, format, a...) }

func httpErrorf(status int, format string, a ...any) *httpError {
	return &httpError{status: status, msg: fmt.Sprintf(format, a...)}
}

// writeError answers ErrorReply with the error's status (500 for
// an error that carries none).
func writeError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var he *httpError
	if errors.As(err, &he) {
		status = he.status
		if he.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(he.retryAfter))
		}
		if he.closeConn {
			w.Header().Set("Connection", "close")
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(ErrorReply{Error: err.Error()})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// readJSON decodes a request body of at most MaxBody bytes into v,
// refusing unknown fields and trailing data. It reads the body to its end
// (so that the server notices at once when the client goes away), and an
// error from it closes the connection after the answer, instead of reading
// on what is left of a bad or trickled body.
func (s *Server) readJSON(r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return errorf(http.StatusUnsupportedMediaType, "request body: Content-Type %q, want application/json", ct)
	}
	body := http.MaxBytesReader(nil, r.Body, s.cfg.MaxBody)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		var rest []byte
		if rest, err = io.ReadAll(io.MultiReader(dec.Buffered(), body)); err == nil && len(bytes.TrimSpace(rest)) > 0 {
			err = errors.New("data after the JSON object")
		}
	}
	if err == nil {
		return nil
	}
	he := s.bodyError(err)
	he.closeConn = true
	return he
}

// bodyError is the answer to an error reading a request body.
func (s *Server) bodyError(err error) *httpError {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return httpErrorf(http.StatusRequestEntityTooLarge, "request body: more than %d bytes", s.cfg.MaxBody)
	}
	if errors.Is(err, io.EOF) {
		return httpErrorf(http.StatusBadRequest, "request body: empty, want a JSON object")
	}
	var ne stdnet.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return httpErrorf(http.StatusRequestTimeout, "request body: not received within %v", s.cfg.ReadTimeout)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "playouts" {
		return httpErrorf(http.StatusBadRequest, "playouts %s: want a whole number, at most %d", strings.TrimPrefix(te.Value, "number "), s.cfg.MaxPlayouts)
	}
	return httpErrorf(http.StatusBadRequest, "request body: %v", err)
}

// root returns the folder a request's src names: "data" or "run".
func (s *Server) root(src string) (*os.Root, error) {
	switch src {
	case "data":
		if s.data == nil {
			return nil, errorf(http.StatusNotFound, "src data: the server was started without -data")
		}
		return s.data, nil
	case "run":
		if s.run == nil {
			return nil, errorf(http.StatusNotFound, "src run: the server was started without -run")
		}
		return s.run, nil
	}
	return nil, errorf(http.StatusBadRequest, "src %q: want data, run or archive", src)
}

// cleanRel checks a path relative to a served folder: slash-separated, no
// "..", ".", empty or absolute element. os.Root refuses those too, and
// symbolic links that lead out; this gives the clearer message first.
func cleanRel(rel string) (string, error) {
	if rel == "" {
		return "", errorf(http.StatusBadRequest, "path: empty")
	}
	if strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") || strings.Contains(rel, ":") && len(rel) > 1 && rel[1] == ':' {
		return "", errorf(http.StatusForbidden, "path %q: absolute paths are refused: give a path inside the served folder", rel)
	}
	for _, el := range strings.Split(rel, "/") {
		if el == ".." {
			return "", errorf(http.StatusForbidden, "path %q: \"..\" is refused: only files inside the served folder are served", rel)
		}
	}
	if rel != "." && !fs.ValidPath(rel) {
		return "", errorf(http.StatusBadRequest, "path %q: not a clean relative path", rel)
	}
	return path.Clean(rel), nil
}

// openFile opens a regular file inside a served folder, refusing one of
// more than Config.MaxFileBytes.
func (s *Server) openFile(src, rel string) (*os.File, error) {
	root, err := s.root(src)
	if err != nil {
		return nil, err
	}
	if rel, err = cleanRel(rel); err != nil {
		return nil, err
	}
	f, err := fileio.OpenIn(root, rel) // a FIFO is refused, never waited on
	if errors.Is(err, fileio.ErrNotRegular) {
		return nil, errorf(http.StatusBadRequest, "%s/%s: not a regular file: the server reads files only", src, rel)
	}
	if err != nil {
		return nil, rootError(src, rel, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, rootError(src, rel, err)
	}
	if st.Size() > s.cfg.MaxFileBytes {
		f.Close()
		return nil, errorf(http.StatusRequestEntityTooLarge, "%s/%s: %d bytes, more than the %d the server reads of a file", src, rel, st.Size(), s.cfg.MaxFileBytes)
	}
	return f, nil
}

// readFile reads a regular file inside a served folder whole.
func (s *Server) readFile(src, rel string) ([]byte, error) {
	f, err := s.openFile(src, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return s.readAll(src, rel, f)
}

// readAll reads what openFile opened, within Config.MaxFileBytes.
func (s *Server) readAll(src, rel string, f io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, s.cfg.MaxFileBytes+1))
	if err != nil {
		return nil, rootError(src, rel, err)
	}
	if int64(len(b)) > s.cfg.MaxFileBytes { // it grew since Stat
		return nil, errorf(http.StatusRequestEntityTooLarge, "%s/%s: more than the %d bytes the server reads of a file", src, rel, s.cfg.MaxFileBytes)
	}
	return b, nil
}

// rootError turns an os.Root error into an answer: a path that escapes the
// folder (through a symbolic link) is forbidden, a missing one not found.
func rootError(src, rel string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorf(http.StatusNotFound, "%s/%s: no such file", src, rel)
	case strings.Contains(err.Error(), "path escapes from parent"):
		return errorf(http.StatusForbidden, "%s/%s: leads outside the served folder (a symbolic link?): refused", src, rel)
	case errors.Is(err, fs.ErrPermission):
		return errorf(http.StatusForbidden, "%s/%s: permission denied", src, rel)
	}
	return errorf(http.StatusBadRequest, "%s/%s: %v", src, rel, unwrapPath(err))
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (s *Server) handleInfo(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, Info{
		Variants:    variantNames(),
		Data:        s.data != nil,
		Run:         s.run != nil,
		Net:         s.cfg.NetFile != "",
		MaxPlayouts: s.cfg.MaxPlayouts,
		Searches:    Load{Running: s.searches.running(), Waiting: s.searches.queued(), Max: s.cfg.MaxSearches},
		Reads:       Load{Running: s.reads.running(), Waiting: s.reads.queued(), Max: s.cfg.MaxReads},
	})
}
