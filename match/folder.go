package match

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/stats"
)

// The run files of a match folder: what a match keeps while it runs, so
// that an interrupted match carries on where it stopped.
const (
	// JournalFile is the journal of finished pairs (AppendPair), one a
	// line; Folder.Journal names another place for it.
	JournalFile = "pairs.jsonl"
	// IdentitySuffix names the file beside the journal that keeps what
	// makes the match (Folder.Identity), such as pairs.jsonl.flags.
	IdentitySuffix = ".flags"
	// InPlayFile keeps the moves of the games in play (InPlay), with
	// Folder.KeepInPlay.
	InPlayFile = "in-play.json"
)

// Resume says what Folder.Open makes of an earlier run's journal.
type Resume int

const (
	// ResumeAny carries on whatever the journal holds; without one the
	// match is new (the loop's matches).
	ResumeAny Resume = iota
	// StartNew starts a new match: a journal there is ErrUnfinishedMatch.
	StartNew
	// ResumeOnly carries on an interrupted match: no journal is
	// ErrNoJournal ("eval match -resume").
	ResumeOnly
)

// ErrUnfinishedMatch is Open's refusal to start a new match in a folder
// that holds an interrupted one (StartNew).
var ErrUnfinishedMatch = errctx.Errorf("match", "the folder holds an interrupted match")

// ErrNoJournal is Open's refusal to resume a match in a folder that holds
// no interrupted one (ResumeOnly).
var ErrNoJournal = errctx.Errorf("match", "the folder holds no interrupted match")

// IdentityError is a resumed match that is not the match its folder holds:
// Kept is the Identity the folder's match was started with, Given this
// one's.
type IdentityError struct{ Kept, Given string }

func (e *IdentityError) Error() string {
	return fmt.Sprintf("match: the match was started as %q, not %q", e.Kept, e.Given)
}

// InPlayError is a file of games in play that cannot go on: Path names it,
// Err says why (Config.CheckUnfinished's error).
type InPlayError struct {
	Path string
	Err  error
}

func (e *InPlayError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }

func (e *InPlayError) Unwrap() error { return e.Err }

// JournalError is a failed write of the journal of finished pairs: the
// match was played and its files written, but Path may miss pairs.
type JournalError struct {
	Path string
	Err  error
}

func (e *JournalError) Error() string { return fmt.Sprintf("match: %s: %v", e.Path, e.Err) }

func (e *JournalError) Unwrap() error { return e.Err }

// Folder owns a match folder's life: Open reads what an earlier run of
// the match left there (its finished pairs, and with KeepInPlay the games
// it had begun) into the match's config, and Play plays the match, keeping
// the journal and the games in play as it goes, writes the match's files
// (WriteFiles) when it ends and removes the run files. "eval match" and
// the loop's matches play through it.
//
//	mf := match.Folder{Dir: "runs/m"}
//	if err := mf.Open(&rc.Match, match.ResumeAny); err != nil { ... }
//	file, res, err := mf.Play(ctx, rc)
//
// A Folder plays one match, from one goroutine.
type Folder struct {
	// Dir is the match's folder: match.json, games.csv and match.md.
	Dir string
	// Journal is the journal of finished pairs; "" means Dir/JournalFile.
	Journal string
	// Identity, if not "", says what makes the match (the flags of a
	// command, say): a new match keeps it beside the journal
	// (IdentitySuffix) until it is done, and a resumed one must have the
	// same (IdentityError).
	Identity string
	// KeepInPlay keeps the moves of the games in play in Dir/InPlayFile,
	// every InPlayEvery (0: 10 s) and when the match stops or fails, so
	// that a resumed match carries them on from their moves (for games
	// against engine programs, which take long and cannot be replayed
	// exactly). The file goes once the match is done.
	KeepInPlay  bool
	InPlayEvery time.Duration
	// OnInPlayError, if set, is told of the first failed write of the
	// games in play; the match goes on.
	OnInPlayError func(error)
	// WriteStopped writes the files of a match that ctx stopped too
	// (Result.Stopped "interrupted"), keeping the run files for a resume;
	// else a stopped match writes none.
	WriteStopped bool

	resumed bool         // Open found an earlier run's journal
	lock    *fileio.Lock // the folder's, held from Open to the end of Play (or Close)
}

// Close releases the folder's lock (Open takes it, Play's end releases
// it): for a caller that does not play after Open. A second call does
// nothing.
func (f *Folder) Close() error {
	err := f.lock.Unlock()
	f.lock = nil
	return err
}

// journal returns the journal's path.
func (f *Folder) journal() string {
	if f.Journal != "" {
		return f.Journal
	}
	return filepath.Join(f.Dir, JournalFile)
}

// inPlayPath returns the path of the games in play.
func (f *Folder) inPlayPath() string { return filepath.Join(f.Dir, InPlayFile) }

// Open takes the lock of the folder that holds the journal (Dir, or the
// folder of Journal: one process at a time plays a match there; another
// is refused with fileio.ErrLocked, naming it), then
// reads what an earlier run of the match left there, as resume says: the
// finished pairs into cfg.Played, each line of the journal checked
// (CheckJournal: its checksum, and its games replayed under cfg's rules
// from their openings; a line that fails is an error naming it) and,
// with KeepInPlay, the games of unfinished pairs into cfg.Unfinished,
// which must be able to go on from their moves (an *InPlayError if not).
// A resumed match with an Identity must have the one kept (an
// *IdentityError if not). It writes nothing but that folder and its lock
// file; on an error the lock is released.
func (f *Folder) Open(cfg *Config, resume Resume) (err error) {
	held := filepath.Dir(f.journal()) // Dir, or the folder of a journal kept beside it
	if err := os.MkdirAll(held, 0o755); err != nil {
		return errctx.Errorf("match", "%w", err)
	}
	if f.lock == nil {
		if f.lock, err = fileio.LockDir(held, "a match"); err != nil {
			return errctx.Errorf("match", "match folder %w", err)
		}
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	journal := f.journal()
	_, statErr := os.Stat(journal)
	f.resumed = statErr == nil
	switch {
	case resume == ResumeOnly && !f.resumed:
		return ErrNoJournal
	case resume == StartNew && f.resumed:
		return ErrUnfinishedMatch
	case !f.resumed:
		return nil
	}
	if f.Identity != "" {
		kept, err := fileio.ReadFileLimit(journal+IdentitySuffix, fileio.MaxConfigBytes, "the match's flags")
		if err != nil {
			return err
		}
		if string(kept) != f.Identity {
			return &IdentityError{Kept: string(kept), Given: f.Identity}
		}
	}
	played, err := ReadPairs(journal)
	if err != nil {
		return err
	}
	if err := cfg.CheckJournal(journal, played); err != nil {
		return err
	}
	cfg.Played = played
	if !f.KeepInPlay {
		return nil
	}
	kept, err := ReadInPlay(f.inPlayPath())
	if err != nil {
		return err
	}
	finished := map[int]bool{}
	for _, p := range played {
		finished[p.Index] = true
	}
	cfg.Unfinished = nil
	for _, u := range kept {
		if !finished[u.Pair] { // its pair ended after the file was written
			cfg.Unfinished = append(cfg.Unfinished, u)
		}
	}
	if err := cfg.CheckUnfinished(); err != nil {
		return &InPlayError{Path: f.inPlayPath(), Err: err}
	}
	return nil
}

// Resumed reports whether Open found an interrupted match to carry on.
func (f *Folder) Resumed() bool { return f.resumed }

// Play plays the match of rc (Run) into the folder, rc.Match as Open left
// it: it appends each finished pair to the journal and keeps the games in
// play (KeepInPlay), then writes the match's files and removes the run
// files. A new match first removes the games in play an earlier match
// left. Stopped by ctx it returns ctx's error, with the files written if
// WriteStopped, and keeps the run files; a match that fails keeps them too
// and writes no files. A journal that could not be written is a
// *JournalError once the files are written.
func (f *Folder) Play(ctx context.Context, rc RunConfig) (File, Result, error) {
	defer f.Close() // the folder is free once the match's files are written
	journal := f.journal()
	jf, err := f.start()
	if err != nil {
		return File{}, Result{}, err
	}
	defer jf.Close()
	inPlay := NewInPlay(rc.Match.Unfinished)
	if f.KeepInPlay {
		rc.Match.OnMove, rc.Match.OnGameEnd = inPlay.Moved, inPlay.Ended
	}
	var journalErr error // the first failed write; the match goes on
	onPair, onLadder := rc.OnPair, rc.OnLadder
	rc.OnPair = func(p Pair, r stats.Report) {
		if journalErr == nil {
			journalErr = AppendPair(jf, p)
		}
		inPlay.Finished(p.Index)
		if onPair != nil {
			onPair(p, r)
		}
	}
	rc.OnLadder = func(res Result) {
		inPlay.Forget() // the match is over: what is left is pairs played after its decision
		if onLadder != nil {
			onLadder(res)
		}
	}
	saver := f.saveInPlay(inPlay)
	file, res, err := Run(ctx, rc)
	saver.stop(err)
	stopped := errors.Is(err, context.Canceled)
	if (err != nil && !stopped) || (stopped && !f.WriteStopped) {
		return file, res, err
	}
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		return File{}, res, errctx.Errorf("match", "%w", err)
	}
	if werr := WriteFiles(f.Dir, file); werr != nil {
		return File{}, res, werr
	}
	if journalErr != nil {
		return file, res, &JournalError{Path: journal, Err: journalErr}
	}
	if !stopped {
		jf.Close()
		if werr := f.removeRunFiles(); werr != nil {
			return file, res, werr
		}
	}
	return file, res, err
}

// start makes the folder ready for the match and opens its journal: the
// journal's folder made, and for a new match its Identity kept and the
// games in play of an earlier match removed.
func (f *Folder) start() (*os.File, error) {
	journal := f.journal()
	if err := os.MkdirAll(filepath.Dir(journal), 0o755); err != nil {
		return nil, errctx.Errorf("match", "%w", err)
	}
	if !f.resumed {
		if f.Identity != "" {
			if err := fileio.WriteFile(journal+IdentitySuffix, []byte(f.Identity)); err != nil {
				return nil, errctx.Errorf("match", "%w", err)
			}
		}
		if err := os.Remove(f.inPlayPath()); err != nil && !errors.Is(err, os.ErrNotExist) { // another match's
			return nil, errctx.Errorf("match", "%w", err)
		}
	}
	jf, err := fileio.OpenAppend(journal) // a regular file only: a FIFO is refused, never waited on
	if err != nil {
		return nil, errctx.Errorf("match", "%w", err)
	}
	return jf, nil
}

// removeRunFiles removes the journal and the Identity kept beside it, once
// the match is done.
func (f *Folder) removeRunFiles() error {
	files := []string{f.journal()}
	if f.Identity != "" {
		files = append(files, f.journal()+IdentitySuffix)
	}
	for _, path := range files {
		if err := os.Remove(path); err != nil {
			return errctx.Errorf("match", "%w", err)
		}
	}
	return nil
}

// inPlaySaver writes the games in play every Folder.InPlayEvery while the
// match runs.
type inPlaySaver struct {
	f      *Folder
	inPlay *InPlay
	done   chan struct{}
	wg     sync.WaitGroup
	// failed is set by the saver's goroutine until wg.Wait returns, then
	// by stop: the first failed write was reported.
	failed bool
}

// saveInPlay starts the saver of the games in play (none without
// KeepInPlay).
func (f *Folder) saveInPlay(inPlay *InPlay) *inPlaySaver {
	s := &inPlaySaver{f: f, inPlay: inPlay, done: make(chan struct{})}
	if !f.KeepInPlay {
		return s
	}
	every := f.InPlayEvery
	if every <= 0 {
		every = 10 * time.Second
	}
	s.wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				s.report(inPlay.Save(f.inPlayPath()))
			case <-s.done:
				return
			}
		}
	})
	return s
}

// report tells OnInPlayError of the first failed write.
func (s *inPlaySaver) report(err error) {
	if err != nil && !s.failed {
		s.failed = true
		if s.f.OnInPlayError != nil {
			s.f.OnInPlayError(err)
		}
	}
}

// stop stops the saver once the match has ended with err: a match done
// needs its games in play no more (they are in its files); one stopped or
// failed keeps them for a resume.
func (s *inPlaySaver) stop(err error) {
	close(s.done)
	s.wg.Wait()
	if !s.f.KeepInPlay {
		return
	}
	path := s.f.inPlayPath()
	if err != nil {
		s.report(s.inPlay.Save(path))
		return
	}
	if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		s.report(rerr)
	}
}
