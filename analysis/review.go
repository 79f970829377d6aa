package analysis

// The review of a finished game: the engine grades every move, in the
// background, and the result is stored with the game so that it is
// computed once (docs/api.md, "Review").

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/grade"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// ReviewNodes is the search budget of each position a review grades
// (package grade).
const ReviewNodes = grade.DefaultNodes

// maxReviewJobs bounds the reviews waiting or running at once (and those
// that failed, kept to tell their callers), so that requests for reviews
// cannot pile up without end.
const maxReviewJobs = 64

// reviewPoll is how often a review waiting for an idle search slot looks
// again.
const reviewPoll = 10 * time.Millisecond

// Reviews runs the reviews of a Service.
type Reviews struct {
	s      *Service
	mu     sync.Mutex
	jobs   map[string]*reviewJob // by game ID: waiting, running or failed
	slots  chan struct{}         // one per review running; made on first use
	base   context.Context       // Start's, which ends when the server stops
	ctx    context.Context       // ends when the server closes
	cancel context.CancelFunc
	closed bool
	wg     sync.WaitGroup

	// Nodes is the budget of a position; 0 means ReviewNodes. A review
	// made with another budget is made again.
	Nodes uint64

	// Graded, if set, is called after each ply is graded and recorded:
	// tests hold a review there to see it part done.
	Graded func(done int)

	running, peak atomic.Int32 // reviews running now, and at most so far
}

// reviewJob is one game's review under way, or failed.
type reviewJob struct {
	key     string
	done    atomic.Int32 // plies graded
	started atomic.Bool  // it holds a review slot
	err     error        // set, under reviewer.mu, when it failed
	cancel  context.CancelFunc
}

func (rv *Reviews) budget() uint64 {
	if rv.Nodes == 0 {
		return ReviewNodes
	}
	return rv.Nodes
}

// Peak is the most reviews that have run at once.
func (rv *Reviews) Peak() int { return int(rv.peak.Load()) }

// Jobs counts the reviews waiting, running or failed.
func (rv *Reviews) Jobs() int {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return len(rv.jobs)
}

// start makes the reviews started from now on end with ctx.
func (rv *Reviews) start(ctx context.Context) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	rv.base = ctx
}

// wait cancels the reviews under way and waits for them to end; no review
// starts afterwards. Close calls it.
func (rv *Reviews) wait() {
	rv.mu.Lock()
	rv.closed = true
	if rv.cancel != nil {
		rv.cancel()
	}
	rv.mu.Unlock()
	rv.wg.Wait()
}

// ReviewStatus is the answer of both review endpoints.
type ReviewStatus struct {
	// Status is "none" (never reviewed), "queued", "running", "done" or
	// "failed".
	Status   string          `json:"status"`
	Progress ReviewProgress  `json:"progress"`
	Review   json.RawMessage `json:"review,omitempty"` // when done
	Error    string          `json:"error,omitempty"`  // when failed
}

// ReviewProgress is a review's plies graded of the game's.
type ReviewProgress struct {
	Done  int `json:"done"`  // plies graded
	Total int `json:"total"` // plies in the game
}

// reviewKey says what a review of l is made from: the game and the budget.
func reviewKey(l *play.Game, nodes uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "v%d\n%d\n%s\n%s\n", grade.Version, nodes, l.Board().Start(), l.Board().Rules())
	for _, m := range l.Board().Moves() {
		b.WriteString(m.String())
		b.WriteByte(' ')
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// reviewable refuses a game that cannot be reviewed (yet).
func reviewable(l *play.Game) error {
	if !l.Over() {
		return api.Errorf(api.StatusConflict, "the game is not over: only a finished game can be reviewed")
	}
	if l.Board().Ply() == 0 {
		return api.Errorf(api.StatusConflict, "the game has no moves to review")
	}
	return nil
}

// state is the review of l: under way, failed, stored or none. The jobs are looked at before the store: a review ends by being
// stored first and forgotten as a job after, so that it is always found in
// one place or the other.
func (rv *Reviews) state(ctx context.Context, l *play.Game, key string) (ReviewStatus, *reviewJob, error) {
	total := l.Board().Ply()
	st := ReviewStatus{Status: "none", Progress: ReviewProgress{Total: total}}
	rv.mu.Lock()
	job := rv.jobs[l.ID()]
	if job != nil && job.key == key {
		switch {
		case job.err != nil:
			st.Status, st.Error = "failed", job.err.Error()
		case job.started.Load():
			st.Status = "running"
		default:
			st.Status = "queued"
		}
		st.Progress.Done = int(job.done.Load())
		rv.mu.Unlock()
		return st, job, nil
	}
	rv.mu.Unlock()
	sr, err := rv.s.store.Review(ctx, l.ID())
	switch {
	case err == nil && sr.Key == key:
		st.Status, st.Progress.Done, st.Review = "done", total, json.RawMessage(sr.Data)
	case err != nil && !errors.Is(err, game.ErrNotFound):
		return st, nil, err
	}
	return st, nil, nil
}

// Get returns the review of finished game g: under way, failed, stored
// or none.
func (rv *Reviews) Get(ctx context.Context, g *play.Game) (ReviewStatus, error) {
	if err := reviewable(g); err != nil {
		return ReviewStatus{}, err
	}
	st, _, err := rv.state(ctx, g, reviewKey(g, rv.budget()))
	return st, err
}

// Ask returns the stored review of finished game g, or the one under
// way, or starts one (status "queued", or further on by the time it
// answers).
func (rv *Reviews) Ask(ctx context.Context, g *play.Game) (ReviewStatus, error) {
	if err := reviewable(g); err != nil {
		return ReviewStatus{}, err
	}
	if err := rv.s.Positions.CheckGame(g.Board()); err != nil {
		return ReviewStatus{}, err
	}
	key := reviewKey(g, rv.budget())
	st, job, err := rv.state(ctx, g, key)
	if err != nil || st.Status == "done" || job != nil && job.err == nil {
		return st, err
	}
	if err := rv.launch(g, key); err != nil {
		return ReviewStatus{}, err
	}
	st = ReviewStatus{Status: "queued", Progress: ReviewProgress{Total: g.Board().Ply()}}
	if cur, _, err := rv.state(ctx, g, key); err == nil && cur.Status != "none" {
		st = cur // it may have started, or even finished, meanwhile
	}
	return st, nil
}

// launch starts the review of l in the background, unless one with the
// same key is under way.
func (rv *Reviews) launch(l *play.Game, key string) error {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.closed {
		return &api.Error{Status: api.StatusServiceUnavailable, RetryAfter: 5, Msg: "the server is stopping; try again in a moment"}
	}
	id := l.ID()
	if job := rv.jobs[id]; job != nil && job.key == key && job.err == nil {
		return nil // another request started it meanwhile
	}
	if rv.jobs == nil {
		rv.jobs = map[string]*reviewJob{}
	}
	if _, ok := rv.jobs[id]; !ok && len(rv.jobs) >= maxReviewJobs {
		// Forget a failed review to make room; else the queue is full.
		for k, j := range rv.jobs {
			if j.err != nil {
				delete(rv.jobs, k)
				break
			}
		}
		if len(rv.jobs) >= maxReviewJobs {
			return &api.Error{Status: api.StatusServiceUnavailable, RetryAfter: 10,
				Msg: "the server is busy with other reviews; try again in a moment"}
		}
	}
	if rv.ctx == nil {
		if rv.base == nil {
			rv.base = context.Background()
		}
		rv.ctx, rv.cancel = context.WithCancel(rv.base)
		// Half the search slots at most, so that reviews leave room for
		// moves, hints and analyses even before they give way to them.
		rv.slots = make(chan struct{}, max(1, cap(rv.s.slots.run)/2))
	}
	if old := rv.jobs[id]; old != nil {
		old.cancel() // a review of the game's moves before a takeback
	}
	ctx, cancel := context.WithCancel(rv.ctx)
	job := &reviewJob{key: key, cancel: cancel}
	rv.jobs[id] = job
	rv.wg.Add(1)
	go rv.run(ctx, id, l, job)
	return nil
}

// run runs one review to its end: it stores the result, or keeps the
// failure to tell, or on shutdown leaves nothing.
func (rv *Reviews) run(ctx context.Context, id string, l *play.Game, job *reviewJob) {
	s := rv.s
	defer rv.wg.Done()
	defer job.cancel()
	err := func() error {
		select {
		case rv.slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-rv.slots }()
		n := rv.running.Add(1)
		defer rv.running.Add(-1)
		for {
			p := rv.peak.Load()
			if n <= p || rv.peak.CompareAndSwap(p, n) {
				break
			}
		}
		job.started.Store(true)
		started := time.Now()
		view, err := s.Grade(ctx, l.Board(), rv.budget(), func(done int) {
			job.done.Store(int32(done))
			if rv.Graded != nil {
				rv.Graded(done)
			}
		})
		if err != nil {
			return err
		}
		data, err := json.Marshal(view)
		if err != nil {
			return fmt.Errorf("encoding the review: %w", err)
		}
		if err := s.store.SaveReview(ctx, &game.Review{GameID: id, Key: job.key, Data: data}); err != nil {
			return err
		}
		s.log.Info("game reviewed", "game", id, "plies", l.Board().Ply(), "took", time.Since(started).Round(time.Millisecond))
		return nil
	}()
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if err != nil && ctx.Err() == nil {
		s.log.Warn("reviewing a game", "game", id, "err", err)
		job.err = errors.New("the review failed; try again")
		if errors.Is(err, game.ErrNotFound) {
			job.err = errors.New("the game is gone")
		}
		return // kept, to tell; a new request replaces it
	}
	if rv.jobs[id] == job {
		delete(rv.jobs, id)
	}
}

// acquireIdle takes a search slot only when one is free and no request is
// waiting for one: background work gives way to the players.
func (sl *slots) acquireIdle(ctx context.Context) (func(), error) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		if len(sl.waiting) == 0 {
			select {
			case sl.run <- struct{}{}:
				return func() { <-sl.run }, nil
			default:
			}
		}
		t.Reset(reviewPoll)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// Grade grades the game g with a budget of nodes a position, calling
// progress with the plies graded so far. Each search waits for an idle
// search slot and takes the pool's engine that knows every exact value the
// server does: the same engine, cleared, as grade.NewEngine makes.
func (s *Service) Grade(ctx context.Context, g *rules.Game, nodes uint64, progress func(done int)) (*grade.Review, error) {
	r := g.Rules()
	tb := s.tablebase(g.Position().Holes(), r)
	k := engineKey{rules: r.Canonical(), perfect: true, tb: tb}
	lend := func(ctx context.Context) (*engine.Engine, func(), error) {
		release, err := s.slots.acquireIdle(ctx)
		if err != nil {
			return nil, nil, err
		}
		e, err := s.engines.get(k)
		if err != nil {
			release()
			return nil, nil, err
		}
		return e, func() { s.engines.put(k, e); release() }, nil
	}
	return grade.Game(ctx, g, grade.Options{Nodes: nodes, Tablebase: tb, Engine: lend, Progress: progress})
}
