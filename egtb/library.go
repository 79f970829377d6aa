package egtb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// AutoBudget bounds the positions of the databases a Library builds by
// itself: about 30 million, half a minute on one core, a few hundred MiB
// at the peak and as many MiB on disk.
const AutoBudget = 32_000_000

// AutoMaxSeeds returns the most seeds on the board that a Library builds by
// itself for boards of the given holes a row: the largest count whose
// databases, every count up to it, hold at most budget positions
// (AutoBudget when budget is 0).
func AutoMaxSeeds(holes, budget int) int {
	if budget <= 0 {
		budget = AutoBudget
	}
	n := 0
	for n < MaxSeeds && CumulativeSize(holes, n+1) <= uint64(budget) {
		n++
	}
	return n
}

// LibraryOptions set up a Library.
type LibraryOptions struct {
	// AutoBuild builds, in the background, the databases up to
	// AutoMaxSeeds that the folder lacks for a board asked for, one board
	// at a time on one core. Only the default lap cap is built: it is the
	// one nearly every game is played under, and other caps would let
	// anyone starting games queue builds without end.
	AutoBuild bool
	// Budget bounds the positions of a board's databases built by
	// themselves; 0 means AutoBudget.
	Budget int
	// Logger receives the builds' progress; nil means slog.Default().
	Logger *slog.Logger
}

// Library opens the databases of a folder on demand, one set per board size
// and ruleset, keeps them open, and (with AutoBuild) builds the small ones
// the folder lacks. It is safe for concurrent use.
type Library struct {
	dir  string
	opt  LibraryOptions
	log  *slog.Logger
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu     sync.Mutex
	sets   map[libraryKey]*libraryEntry
	queue  chan libraryKey
	closed bool
}

type libraryKey struct {
	holes int
	rules rules.Rules
}

type libraryEntry struct {
	tb     *Tablebase // nil: none yet
	status BuildStatus
}

// Build states of a BuildStatus.
const (
	StateNone     = "none"     // no databases, and none to be built
	StateReady    = "ready"    // the databases are there, up to MaxSeeds
	StateQueued   = "queued"   // waiting for an earlier build
	StateBuilding = "building" // being built
	StateFailed   = "failed"   // the build stopped with Err
)

// BuildStatus describes the databases a Library holds for one board size
// and ruleset, and their build.
type BuildStatus struct {
	Holes    int         `json:"holes"`
	Rules    rules.Rules `json:"-"`
	Variant  string      `json:"variant"`
	MaxLaps  int         `json:"maxLaps"`
	State    string      `json:"state"`
	MaxSeeds int         `json:"maxSeeds"` // the most seeds on the board held now (-1: none)
	Target   int         `json:"target"`   // the most seeds on the board being built to
	Percent  float64     `json:"percent"`  // of the build's work, while building
	Err      string      `json:"error,omitempty"`
}

// NewLibrary returns the library of the databases in dir. Close stops its
// builds.
func NewLibrary(dir string, opt LibraryOptions) *Library {
	l := &Library{dir: dir, opt: opt, log: opt.Logger, sets: map[libraryKey]*libraryEntry{}}
	if l.log == nil {
		l.log = slog.Default()
	}
	l.ctx, l.stop = context.WithCancel(context.Background())
	if opt.AutoBuild {
		// Every board a row may have, in both variants: a queue this long
		// never blocks.
		l.queue = make(chan libraryKey, 2*(rules.MaxHoles+1))
		l.wg.Add(1)
		go l.builder()
	}
	return l
}

// Dir returns the folder of the databases.
func (l *Library) Dir() string { return l.dir }

// Get returns the databases for boards of holes a row under r, or nil when
// the folder has none yet. With AutoBuild, asking for a board whose small
// databases are missing queues their build; Get returns what there is
// meanwhile, and the larger set once it is built.
func (l *Library) Get(holes int, r rules.Rules) *Tablebase {
	if holes < rules.MinHoles || holes > rules.MaxHoles || r.Validate() != nil {
		return nil
	}
	k := libraryKey{holes, r.Canonical()}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.sets[k]; ok {
		return e.tb
	}
	e := &libraryEntry{status: BuildStatus{Holes: holes, Rules: k.rules, Variant: k.rules.Variant.String(),
		MaxLaps: k.rules.Laps(), MaxSeeds: -1, State: StateReady}}
	l.sets[k] = e
	tb, err := Open(l.dir, holes, k.rules)
	switch {
	case err == nil:
		e.tb, e.status.MaxSeeds, e.status.Target = tb, tb.MaxSeeds(), tb.MaxSeeds()
	case errors.Is(err, ErrNotFound):
		e.status.State = StateNone
	default:
		l.log.Warn("endgame databases unusable", "dir", l.dir, "holes", holes, "rules", k.rules.String(), "err", err)
		e.status.State, e.status.Err = StateFailed, err.Error()
		return nil
	}
	if target := AutoMaxSeeds(holes, l.opt.Budget); l.queue != nil && !l.closed && k.rules.Laps() == rules.DefaultMaxLaps && e.status.MaxSeeds < target {
		e.status.State, e.status.Target = StateQueued, target
		l.queue <- k
	}
	return e.tb
}

// Status returns the state of every board size and ruleset asked for so
// far, smallest board first.
func (l *Library) Status() []BuildStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]BuildStatus, 0, len(l.sets))
	for _, e := range l.sets {
		out = append(out, e.status)
	}
	slices.SortFunc(out, func(a, b BuildStatus) int {
		return cmp.Or(cmp.Compare(a.Holes, b.Holes), cmp.Compare(a.Rules.Variant, b.Rules.Variant),
			cmp.Compare(a.Rules.Laps(), b.Rules.Laps()))
	})
	return out
}

// Close stops the build under way (its finished counts stay on disk, and
// the next build resumes from them) and waits for it.
func (l *Library) Close() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		if l.queue != nil {
			close(l.queue)
		}
	}
	l.mu.Unlock()
	l.stop()
	l.wg.Wait()
}

// builder builds the queued boards one after another.
func (l *Library) builder() {
	defer l.wg.Done()
	for k := range l.queue {
		if l.ctx.Err() != nil {
			return
		}
		l.build(k)
	}
}

// progressEvery is how often a build's progress goes to the log.
const progressEvery = 10 * time.Second

func (l *Library) build(k libraryKey) {
	target := AutoMaxSeeds(k.holes, l.opt.Budget)
	l.setStatus(k, func(s *BuildStatus) { s.State = StateBuilding })
	l.log.Info("building endgame databases", "dir", l.dir, "holes", k.holes, "rules", k.rules.String(), "maxSeeds", target)
	start := time.Now()
	var lastLog time.Time
	_, err := Build(l.ctx, Options{Holes: k.holes, MaxSeeds: target, Rules: k.rules, Dir: l.dir, Workers: 1,
		Progress: func(p Progress) {
			pct := 100.0
			if p.Total > 0 {
				pct = 100 * float64(min(p.Done, p.Total)) / float64(p.Total)
			}
			l.setStatus(k, func(s *BuildStatus) { s.Percent = pct })
			if time.Since(lastLog) >= progressEvery {
				lastLog = time.Now()
				l.log.Info("endgame databases", "holes", k.holes, "rules", k.rules.String(), "seeds", p.Seeds,
					"of", p.MaxSeeds, "percent", fmt.Sprintf("%.0f", pct))
			}
		}})
	if err != nil {
		if l.ctx.Err() != nil {
			l.log.Info("endgame databases build stopped; it resumes at the next start", "holes", k.holes, "rules", k.rules.String())
			l.setStatus(k, func(s *BuildStatus) { s.State = StateQueued })
			return
		}
		l.log.Error("building endgame databases", "holes", k.holes, "rules", k.rules.String(), "err", err)
		l.setStatus(k, func(s *BuildStatus) { s.State, s.Err = StateFailed, err.Error() })
		return
	}
	// The set Build returns holds every count in memory; the files, read
	// on demand, take less.
	opened, err := Open(l.dir, k.holes, k.rules)
	if err != nil {
		l.log.Error("opening built endgame databases", "holes", k.holes, "rules", k.rules.String(), "err", err)
		l.setStatus(k, func(s *BuildStatus) { s.State, s.Err = StateFailed, err.Error() })
		return
	}
	l.log.Info("endgame databases ready", "holes", k.holes, "rules", k.rules.String(), "maxSeeds", opened.MaxSeeds(),
		"took", time.Since(start).Round(time.Millisecond))
	l.mu.Lock()
	e := l.sets[k]
	e.tb = opened
	e.status.State, e.status.MaxSeeds, e.status.Percent = StateReady, opened.MaxSeeds(), 100
	l.mu.Unlock()
}

func (l *Library) setStatus(k libraryKey, f func(*BuildStatus)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.sets[k]; ok {
		f(&e.status)
	}
}
