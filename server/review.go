package server

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
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/grade"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
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

// reviewer runs the reviews of a server. Its zero value is ready.
type reviewer struct {
	mu     sync.Mutex
	jobs   map[string]*reviewJob // by game ID: waiting, running or failed
	slots  chan struct{}         // one per review running; made on first use
	ctx    context.Context       // ends when the server closes
	cancel context.CancelFunc
	closed bool
	wg     sync.WaitGroup

	nodes uint64 // the budget of a position; 0 means ReviewNodes

	// graded, if set, is called after each ply is graded and recorded:
	// tests hold a review there to see it part done.
	graded func(done int)

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

func (rv *reviewer) budget() uint64 {
	if rv.nodes == 0 {
		return ReviewNodes
	}
	return rv.nodes
}

// wait cancels the reviews under way and waits for them to end; no review
// starts afterwards. Close calls it.
func (rv *reviewer) wait() {
	rv.mu.Lock()
	rv.closed = true
	if rv.cancel != nil {
		rv.cancel()
	}
	rv.mu.Unlock()
	rv.wg.Wait()
}

// reviewStatus is the answer of both review endpoints.
type reviewStatus struct {
	// Status is "none" (never reviewed), "queued", "running", "done" or
	// "failed".
	Status   string          `json:"status"`
	Progress reviewProgress  `json:"progress"`
	Review   json.RawMessage `json:"review,omitempty"` // when done
	Error    string          `json:"error,omitempty"`  // when failed
}

type reviewProgress struct {
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
		return errorf(http.StatusConflict, "the game is not over: only a finished game can be reviewed")
	}
	if l.Board().Ply() == 0 {
		return errorf(http.StatusConflict, "the game has no moves to review")
	}
	return nil
}

// reviewState answers with the review of l: under way, failed, stored or
// none. The jobs are looked at before the store: a review ends by being
// stored first and forgotten as a job after, so that it is always found in
// one place or the other.
func (s *Server) reviewState(ctx context.Context, l *play.Game, key string) (reviewStatus, *reviewJob, error) {
	total := l.Board().Ply()
	st := reviewStatus{Status: "none", Progress: reviewProgress{Total: total}}
	rv := &s.reviews
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
	sr, err := s.store.Review(ctx, l.ID())
	switch {
	case err == nil && sr.Key == key:
		st.Status, st.Progress.Done, st.Review = "done", total, json.RawMessage(sr.Data)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return st, nil, err
	}
	return st, nil, nil
}

// getReview answers GET /api/games/{id}/review.
func (s *Server) getReview(w http.ResponseWriter, r *http.Request, l *play.Game) error {
	if err := reviewable(l); err != nil {
		return err
	}
	st, _, err := s.reviewState(r.Context(), l, reviewKey(l, s.reviews.budget()))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// startReview answers POST /api/games/{id}/review: the stored review, the
// one under way, or a new one started (202 Accepted).
func (s *Server) startReview(w http.ResponseWriter, r *http.Request, l *play.Game) error {
	var req struct{}
	if err := decode(w, r, &req, true); err != nil {
		return err
	}
	if err := reviewable(l); err != nil {
		return err
	}
	if err := s.positions.checkGame(l.Board()); err != nil {
		return err
	}
	key := reviewKey(l, s.reviews.budget())
	st, job, err := s.reviewState(r.Context(), l, key)
	if err != nil {
		return err
	}
	switch {
	case st.Status == "done":
		writeJSON(w, http.StatusOK, st)
		return nil
	case job != nil && job.err == nil:
		writeJSON(w, http.StatusAccepted, st)
		return nil
	}
	if err := s.launchReview(l, key); err != nil {
		return err
	}
	st = reviewStatus{Status: "queued", Progress: reviewProgress{Total: l.Board().Ply()}}
	if cur, _, err := s.reviewState(r.Context(), l, key); err == nil && cur.Status != "none" {
		st = cur // it may have started, or even finished, meanwhile
	}
	code := http.StatusAccepted
	if st.Status == "done" {
		code = http.StatusOK
	}
	writeJSON(w, code, st)
	return nil
}

// launchReview starts the review of l in the background, unless one with
// the same key is under way.
func (s *Server) launchReview(l *play.Game, key string) error {
	rv := &s.reviews
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.closed {
		return &api.Error{Status: http.StatusServiceUnavailable, RetryAfter: 5, Msg: "the server is stopping; try again in a moment"}
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
			return &api.Error{Status: http.StatusServiceUnavailable, RetryAfter: 10,
				Msg: "the server is busy with other reviews; try again in a moment"}
		}
	}
	if rv.ctx == nil {
		rv.ctx, rv.cancel = context.WithCancel(s.ctx)
		// Half the search slots at most, so that reviews leave room for
		// moves, hints and analyses even before they give way to them.
		rv.slots = make(chan struct{}, max(1, cap(s.slots.run)/2))
	}
	if old := rv.jobs[id]; old != nil {
		old.cancel() // a review of the game's moves before a takeback
	}
	ctx, cancel := context.WithCancel(rv.ctx)
	job := &reviewJob{key: key, cancel: cancel}
	rv.jobs[id] = job
	rv.wg.Add(1)
	go s.runReview(ctx, id, l, job)
	return nil
}

// runReview runs one review to its end: it stores the result, or keeps
// the failure to tell, or on shutdown leaves nothing.
func (s *Server) runReview(ctx context.Context, id string, l *play.Game, job *reviewJob) {
	rv := &s.reviews
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
		view, err := s.gradeGame(ctx, l.Board(), rv.budget(), func(done int) {
			job.done.Store(int32(done))
			if rv.graded != nil {
				rv.graded(done)
			}
		})
		if err != nil {
			return err
		}
		data, err := json.Marshal(view)
		if err != nil {
			return fmt.Errorf("encoding the review: %w", err)
		}
		if err := s.store.SaveReview(ctx, &store.Review{GameID: id, Key: job.key, Data: data}); err != nil {
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
		if errors.Is(err, store.ErrNotFound) {
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
func (sl *searchSlots) acquireIdle(ctx context.Context) (func(), error) {
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

// gradeGame grades the game g with a budget of nodes a position, calling
// progress with the plies graded so far. Each search waits for an idle
// search slot and takes the pool's engine that knows every exact value the
// server does: the same engine, cleared, as grade.NewEngine makes.
func (s *Server) gradeGame(ctx context.Context, g *rules.Game, nodes uint64, progress func(done int)) (*grade.Review, error) {
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
