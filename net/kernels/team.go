package kernels

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// RunParts calls f(0), f(1), ..., f(parts-1) at once, parts-1 of them on
// helper goroutines that wait for work by spinning and the last on the
// calling goroutine, and returns when every call has. It is for pieces of
// work too short for [Parallel]'s hand-off (the layers of one position, a
// few tens of microseconds each): a helper that has finished a piece spins
// for up to teamSpin waiting for the next before it parks, so a run of
// calls in quick succession costs no wake-up of a sleeping thread, only
// the spinning core while it lasts.
//
// The helpers are shared by the whole process and used by one caller at a
// time: if another goroutine is running parts on them, or there are more
// parts than GOMAXPROCS (spinning parts would then hold every processor
// while a part waits for one), the parts run one after another on the
// calling goroutine instead. So the parts must not
// depend on running at the same time, and results must not depend on which
// goroutine runs which part. It allocates nothing in steady state if f does
// not and is a func value made once; f must not call RunParts or Parallel.
// It panics if parts is negative.
func RunParts(parts int, f func(part int)) {
	if parts < 0 {
		panic(fmt.Sprintf("kernels: RunParts with %d parts", parts))
	}
	if parts <= 1 || parts > runtime.GOMAXPROCS(0) || !team.mu.TryLock() {
		for p := range parts {
			f(p)
		}
		return
	}
	defer team.mu.Unlock()
	runOnTeam(parts, f)
}

// runOnTeam is RunParts with team.mu held.
func runOnTeam(parts int, f func(part int)) {
	for len(team.workers) < parts-1 {
		w := &teamWorker{wake: make(chan struct{}, 1)}
		team.workers = append(team.workers, w)
		go w.run()
	}
	ws := team.workers[:parts-1]
	for p, w := range ws {
		w.f, w.part = f, p
		w.seq.Add(1)
		if w.parked.Load() {
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}
	f(parts - 1)
	for _, w := range ws {
		seq := w.seq.Load()
		for i := 0; w.done.Load() != seq; i++ {
			if i >= 1<<10 {
				// The helper was parked or preempted, or shares this
				// core: let it run.
				osYield()
			}
		}
		w.f = nil
	}
}

// teamSpin is how long a helper spins for the next piece of work before
// it parks: longer than the gaps between the layers of one position.
const teamSpin = 200 * time.Microsecond

// team is the helpers of RunParts.
var team struct {
	// mu is held by the goroutine running parts on the helpers; it guards
	// workers and each worker's f and part (written only before the
	// worker's seq is incremented, read by the worker only after it sees
	// the increment).
	mu      sync.Mutex
	workers []*teamWorker
}

// teamWorker is one helper goroutine of RunParts.
type teamWorker struct {
	seq  atomic.Uint64 // pieces handed to the worker
	done atomic.Uint64 // pieces it has finished
	// parked is set while the worker is (about to be) blocked on wake; a
	// caller that sees it after incrementing seq sends on wake.
	parked atomic.Bool
	wake   chan struct{} // buffered (1): a send never blocks
	f      func(part int)
	part   int
}

func (w *teamWorker) run() {
	var finished uint64
	for {
		start := time.Now()
		for i := 0; w.seq.Load() == finished; i++ {
			if i < 1<<10 || i&63 != 0 {
				continue
			}
			// Yield now and then: the caller may share this core.
			osYield()
			if time.Since(start) < teamSpin {
				continue
			}
			// Park. Setting parked before the last look at seq means a
			// caller either sees parked and wakes us, or we see its work.
			w.parked.Store(true)
			if w.seq.Load() == finished {
				<-w.wake
			}
			w.parked.Store(false)
			start = time.Now()
		}
		finished++
		w.f(w.part)
		w.done.Store(finished)
	}
}

// RunPhases is RunParts for work in phases: f(part, phase) for every part
// of every phase, the parts of a phase at once and every part of a phase
// finished before any part of the next starts (the parts wait for each
// other by spinning). When the helpers are busy or there are more parts
// than GOMAXPROCS the calls run on the calling goroutine, phase by phase. It panics if parts or
// phases is negative.
func RunPhases(parts, phases int, f func(part, phase int)) {
	if parts < 0 || phases < 0 {
		panic(fmt.Sprintf("kernels: RunPhases with %d parts, %d phases", parts, phases))
	}
	if parts <= 1 || parts > runtime.GOMAXPROCS(0) || !team.mu.TryLock() {
		for ph := range phases {
			for p := range parts {
				f(p, ph)
			}
		}
		return
	}
	defer team.mu.Unlock()
	phased.f, phased.parts, phased.phases = f, parts, phases
	phased.arrived.Store(0)
	runOnTeam(parts, phased.run)
	phased.f = nil
}

// phased is the running RunPhases, guarded by team.mu: written before the
// parts are handed out and read by them (the hand-off orders the
// accesses).
var phased struct {
	f             func(part, phase int)
	parts, phases int
	arrived       atomic.Int64 // parts that have finished a phase, all phases counted
	run           func(int)    // phasedPart, as a func value made once
}

func init() { phased.run = phasedPart }

// phasedPart runs one part of every phase of phased, waiting at the end of
// each phase for the other parts.
func phasedPart(part int) {
	for ph := range phased.phases {
		phased.f(part, ph)
		if ph == phased.phases-1 {
			break
		}
		want := int64(phased.parts * (ph + 1))
		phased.arrived.Add(1)
		for i := 0; phased.arrived.Load() < want; i++ {
			if i >= 1<<10 {
				osYield()
			}
		}
	}
}
