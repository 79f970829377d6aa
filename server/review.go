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
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/endodoi/endodoi/book"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// ReviewNodes is the search budget of each position a review grades: a
// node limit, not a time limit, so that a review comes out the same on any
// machine and under any load.
const ReviewNodes = 100_000

// The labels of a move by the seeds it lost against the best move, from
// its mover's view: best (nothing lost), good (less than one seed), and
// from these losses on an inaccuracy, a mistake, a blunder.
const (
	reviewInaccuracy = 1.0
	reviewMistake    = 3.0
	reviewBlunder    = 6.0
)

// reviewHalfLoss is the loss, in seeds, that halves a move's accuracy:
// a move's accuracy is 100 * 2^(-loss/reviewHalfLoss) percent.
const reviewHalfLoss = 4.0

// reviewVersion changes whenever the review's method or form does: a
// stored review of another version is made again.
const reviewVersion = 2

// A best line goes on at least reviewLineMin plies and until a capture in
// it, at most reviewLineMax plies, or to the end of the game: long enough
// to see what the best move wins. A search's line can be a single move (an
// exact value from the databases or the book, or a proof found early).
const (
	reviewLineMin = 6
	reviewLineMax = 16
)

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

// reviewView is a finished review, as stored and served.
type reviewView struct {
	Version int    `json:"version"`
	Nodes   uint64 `json:"nodes"` // the search budget of each position
	// Thresholds are the losses, in seeds, from which a move is an
	// inaccuracy, a mistake and a blunder; below the first it is good (or
	// best, when it lost nothing).
	Thresholds reviewThresholds `json:"thresholds"`
	HalfLoss   float64          `json:"halfLoss"` // the loss that halves a move's accuracy
	Plies      []reviewPly      `json:"plies"`
	// Evaluation is the expected final margin from South's view at the
	// start (index 0) and after each ply.
	Evaluation []reviewEval            `json:"evaluation"`
	Players    map[string]reviewPlayer `json:"players"` // by side, "s" and "n"
}

type reviewThresholds struct {
	Inaccuracy float64 `json:"inaccuracy"`
	Mistake    float64 `json:"mistake"`
	Blunder    float64 `json:"blunder"`
}

type reviewEval struct {
	South float64 `json:"south"`
	Exact bool    `json:"exact"`
}

// reviewPly grades one move. The scores are from the mover's view, in
// seeds: what the move captures plus the future capture margin after it.
type reviewPly struct {
	Ply       int      `json:"ply"` // 1 for the first move
	Side      string   `json:"side"`
	Move      string   `json:"move"`
	Best      string   `json:"best"`
	BestScore float64  `json:"bestScore"`
	BestExact bool     `json:"bestExact"`
	Score     float64  `json:"score"` // the move played
	Exact     bool     `json:"exact"`
	Loss      float64  `json:"loss"` // bestScore - score, never below 0
	Label     string   `json:"label"`
	Forced    bool     `json:"forced"` // the only legal move
	Depth     int      `json:"depth"`  // of the search that found the best move
	PV        []string `json:"pv"`     // the best line from the position before the move
	// PVPositions are the positions after each move of PV, so that the
	// page can show the line without playing the rules itself.
	PVPositions []string `json:"pvPositions"`
}

type reviewPlayer struct {
	Moves int `json:"moves"`
	// Accuracy is the mean of the accuracies of the player's moves that
	// were not forced, in percent; null when every move was forced.
	Accuracy *float64       `json:"accuracy"`
	MeanLoss float64        `json:"meanLoss"` // seeds lost a move, forced moves left out
	Counts   map[string]int `json:"counts"`   // moves by label
}

// reviewLabels are the labels, best first.
var reviewLabels = []string{"best", "good", "inaccuracy", "mistake", "blunder"}

// reviewLabel is the label of a move that lost loss seeds.
func reviewLabel(loss float64) string {
	switch {
	case loss <= 0:
		return "best"
	case loss < reviewInaccuracy:
		return "good"
	case loss < reviewMistake:
		return "inaccuracy"
	case loss < reviewBlunder:
		return "mistake"
	}
	return "blunder"
}

// moveAccuracy is a move's accuracy in percent.
func moveAccuracy(loss float64) float64 {
	return 100 * math.Exp2(-loss/reviewHalfLoss)
}

// finished reports whether a game is over: by the rules, for an online
// game by its players or its clock, or for a local game by resignation.
func finished(l *loaded) bool {
	return l.game.Over() || (l.stored.Online != nil && l.stored.Online.End != "") || resigned(l)
}

// reviewKey says what a review of l is made from: the game and the budget.
func reviewKey(l *loaded, nodes uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "v%d\n%d\n%s\n%s\n", reviewVersion, nodes, l.game.Start(), l.game.Rules())
	for _, m := range l.game.Moves() {
		b.WriteString(m.String())
		b.WriteByte(' ')
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// reviewable refuses a game that cannot be reviewed (yet).
func reviewable(l *loaded) error {
	if !finished(l) {
		return errorf(http.StatusConflict, "the game is not over: only a finished game can be reviewed")
	}
	if l.game.Ply() == 0 {
		return errorf(http.StatusConflict, "the game has no moves to review")
	}
	return nil
}

// reviewState answers with the review of l: under way, failed, stored or
// none. The jobs are looked at before the store: a review ends by being
// stored first and forgotten as a job after, so that it is always found in
// one place or the other.
func (s *Server) reviewState(ctx context.Context, l *loaded, key string) (reviewStatus, *reviewJob, error) {
	total := l.game.Ply()
	st := reviewStatus{Status: "none", Progress: reviewProgress{Total: total}}
	rv := &s.reviews
	rv.mu.Lock()
	job := rv.jobs[l.stored.ID]
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
	sr, err := s.store.Review(ctx, l.stored.ID)
	switch {
	case err == nil && sr.Key == key:
		st.Status, st.Progress.Done, st.Review = "done", total, json.RawMessage(sr.Data)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return st, nil, err
	}
	return st, nil, nil
}

// getReview answers GET /api/games/{id}/review.
func (s *Server) getReview(w http.ResponseWriter, r *http.Request, l *loaded) error {
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
func (s *Server) startReview(w http.ResponseWriter, r *http.Request, l *loaded) error {
	var req struct{}
	if err := decode(w, r, &req, true); err != nil {
		return err
	}
	if err := reviewable(l); err != nil {
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
	st = reviewStatus{Status: "queued", Progress: reviewProgress{Total: l.game.Ply()}}
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
func (s *Server) launchReview(l *loaded, key string) error {
	rv := &s.reviews
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.closed {
		return &apiError{status: http.StatusServiceUnavailable, retryAfter: 5, msg: "the server is stopping; try again in a moment"}
	}
	id := l.stored.ID
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
			return &apiError{status: http.StatusServiceUnavailable, retryAfter: 10,
				msg: "the server is busy with other reviews; try again in a moment"}
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
func (s *Server) runReview(ctx context.Context, id string, l *loaded, job *reviewJob) {
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
		view, err := s.gradeGame(ctx, l.game, rv.budget(), func(done int) { job.done.Store(int32(done)) })
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
		s.log.Info("game reviewed", "game", id, "plies", l.game.Ply(), "took", time.Since(started).Round(time.Millisecond))
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

// reviewSearch searches p (after the game's positions history) within
// lim, with an engine that takes every exact value the server knows, once
// a search slot is idle. The pool's engine comes new or cleared, with an
// empty table, so that the result depends on the position and the limits
// alone.
func (s *Server) reviewSearch(ctx context.Context, r rules.Rules, p rules.Position, history []rules.Position, lim engine.Limits) (engine.Result, error) {
	release, err := s.slots.acquireIdle(ctx)
	if err != nil {
		return engine.Result{}, err
	}
	defer release()
	k := engineKey{rules: r.Canonical(), perfect: true, tb: s.tablebase(p.Holes(), r)}
	e, err := s.engines.get(k)
	if err != nil {
		return engine.Result{}, err
	}
	defer s.engines.put(k, e)
	res, err := e.Search(ctx, p, history, lim, nil)
	if err == nil {
		// A cancelled search still answers, with what it had.
		err = ctx.Err()
	}
	return res, err
}

// reviewProbe returns the exact value of p for its side to move, when the
// endgame databases or the opening book of proven values hold it.
func (s *Server) reviewProbe(p rules.Position, r rules.Rules) (engine.Score, bool) {
	if tb := s.tablebase(p.Holes(), r); tb != nil {
		if v, ok := tb.Probe(&p); ok {
			return engine.Score(v) * engine.Seed, true
		}
	}
	if v, ok := book.For(r).Probe(&p); ok {
		return engine.Score(v) * engine.Seed, true
	}
	return 0, false
}

// gradeGame reviews the finished game g with a budget of nodes per
// position, calling progress with the plies graded so far.
//
// Each position is searched once for its best move and its value. A move
// other than the best one is then scored by the value of the position it
// led to: exact when the databases or the book hold it, or else searched
// one ply shallower than the search that found the best move, so that both
// are looked at equally far ahead (as deep as the budget allows when the
// best move's value is exact). When that shows it as good as the best move
// or better, it is the best move. The evaluation after a ply is the value
// of the position it led to, and at the end of a game over by the rules its
// exact outcome.
func (s *Server) gradeGame(ctx context.Context, g *rules.Game, nodes uint64, progress func(done int)) (*reviewView, error) {
	r := g.Rules()
	n := g.Ply()
	moves := g.Moves()
	positions := append(g.History(), g.Position())
	full := make([]engine.Result, n+1)
	searched := make([]bool, n+1)
	// search returns the search of position i, made once.
	search := func(i int) (engine.Result, error) {
		if !searched[i] {
			res, err := s.reviewSearch(ctx, r, positions[i], positions[:i], engine.Limits{Nodes: nodes})
			if err != nil {
				return res, err
			}
			full[i], searched[i] = res, true
		}
		return full[i], nil
	}
	// value returns the value of position i for its side to move, and
	// whether it is exact: the outcome of the final position of a game
	// over by the rules, the databases' or the book's, or the search's.
	value := func(i int) (engine.Score, bool, error) {
		p := positions[i]
		switch {
		case i == n && g.Status() == rules.NoLegalMove:
			return -engine.Score(p.OnBoard()) * engine.Seed, true, nil // the seeds left go to the last mover
		case i == n && g.Status() == rules.Repetition:
			return 0, true, nil // the seeds left count for neither
		}
		if v, ok := s.reviewProbe(p, r); ok {
			return v, true, nil
		}
		res, err := search(i)
		return res.Score, res.Exact, err
	}

	view := &reviewView{Version: reviewVersion, Nodes: nodes, HalfLoss: reviewHalfLoss,
		Thresholds: reviewThresholds{Inaccuracy: reviewInaccuracy, Mistake: reviewMistake, Blunder: reviewBlunder},
		Plies:      make([]reviewPly, 0, n), Evaluation: make([]reviewEval, 0, n+1)}
	v, exact, err := value(0)
	if err != nil {
		return nil, err
	}
	view.Evaluation = append(view.Evaluation, reviewEval{South: rules.FinalMargin(positions[0], v.Seeds(), 1), Exact: exact})
	for i := 0; i < n; i++ {
		p, q, m := positions[i], positions[i+1], moves[i]
		mover := p.ToMove()
		best, err := search(i)
		if err != nil {
			return nil, err
		}
		ply := reviewPly{Ply: i + 1, Side: string(mover.Letter()), Move: m.String(), Best: best.Move.String(),
			BestScore: best.Score.Seeds(), BestExact: best.Exact, Depth: best.Depth,
			Forced: len(p.LegalMoves(r)) == 1}
		pv := best.PV
		score, exact := best.Score, best.Exact
		if m != best.Move {
			gain := engine.Score(q.Captured(mover)-p.Captured(mover)) * engine.Seed
			var child engine.Result
			over := i+1 == n && g.Over()
			if v, ok := s.reviewProbe(q, r); ok && !over {
				child.Score, child.Exact = v, true
			} else if over {
				child.Score, child.Exact, err = value(n)
			} else {
				lim := engine.Limits{Nodes: nodes}
				if !best.Exact {
					lim.Depth = max(1, best.Depth-1)
				}
				child, err = s.reviewSearch(ctx, r, q, positions[:i+1], lim)
			}
			if err != nil {
				return nil, err
			}
			score, exact = gain-child.Score, child.Exact
			if score >= best.Score {
				// As good as the engine's choice, or better than its
				// search saw: the move played is a best move.
				ply.Best, ply.BestScore, ply.BestExact = ply.Move, score.Seeds(), exact
				pv = append([]rules.Move{m}, child.PV...)
			}
		}
		ply.Score, ply.Exact = score.Seeds(), exact
		ply.Loss = math.Max(0, round2(ply.BestScore-ply.Score))
		ply.Label = reviewLabel(ply.Loss)
		line, linePos, err := s.reviewLine(ctx, r, positions[:i+1], pv, nodes)
		if err != nil {
			return nil, err
		}
		ply.PV = make([]string, 0, len(line))
		ply.PVPositions = make([]string, 0, len(linePos))
		for j, x := range line {
			ply.PV = append(ply.PV, x.String())
			ply.PVPositions = append(ply.PVPositions, linePos[j].String())
		}
		after, afterExact, err := value(i + 1)
		if err != nil {
			return nil, err
		}
		view.Evaluation = append(view.Evaluation, reviewEval{South: rules.FinalMargin(q, after.Seeds(), 1), Exact: afterExact})
		view.Plies = append(view.Plies, ply)
		progress(i + 1)
	}
	view.Players = reviewPlayers(view.Plies)
	return view, nil
}

// reviewLine returns the best line pv from the last of the game's
// positions so far, played on by the engine (the databases' or the book's
// moves where they hold the position, else a search of a quarter of the
// budget) until it is reviewLineMin plies long and holds a capture, or is
// reviewLineMax plies long, or the game would end; and the position after
// each of its moves. A move of pv that is not legal there ends the line.
func (s *Server) reviewLine(ctx context.Context, r rules.Rules, history []rules.Position, pv []rules.Move, nodes uint64) ([]rules.Move, []rules.Position, error) {
	path := slices.Clone(history)
	seen := map[rules.Position]int{}
	for _, h := range history {
		seen[h]++
	}
	var line []rules.Move
	var after []rules.Position
	captured := false
	// over reports whether the game would end at the line's last position.
	over := func() bool {
		p := path[len(path)-1]
		return seen[p] >= 3 || !p.HasLegalMove(r)
	}
	// play adds m to the line; false when it is not legal.
	play := func(m rules.Move) bool {
		p := path[len(path)-1]
		q, err := p.Play(m, r)
		if err != nil {
			return false
		}
		mover := p.ToMove()
		captured = captured || q.Captured(mover) > p.Captured(mover)
		line, after, path = append(line, m), append(after, q), append(path, q)
		seen[q]++
		return true
	}
	enough := func() bool {
		return len(line) >= reviewLineMax || (len(line) >= reviewLineMin && captured) || over()
	}
	for _, m := range pv {
		if over() || !play(m) {
			return line, after, nil
		}
	}
	budget := max(1, nodes/4)
	for !enough() {
		p := path[len(path)-1]
		res, err := s.reviewSearch(ctx, r, p, path[:len(path)-1], engine.Limits{Nodes: budget})
		if err != nil {
			return nil, nil, fmt.Errorf("playing on the best line: %w", err)
		}
		added := false
		for _, m := range res.PV {
			if enough() || !play(m) {
				break
			}
			added = true
		}
		if !added {
			break // the search gave no move to play: the line stops here
		}
	}
	return line, after, nil
}

// reviewPlayers sums up each side's moves.
func reviewPlayers(plies []reviewPly) map[string]reviewPlayer {
	out := map[string]reviewPlayer{}
	for _, side := range []string{"s", "n"} {
		pl := reviewPlayer{Counts: map[string]int{}}
		for _, l := range reviewLabels {
			pl.Counts[l] = 0
		}
		var acc, loss float64
		graded := 0
		for _, p := range plies {
			if p.Side != side {
				continue
			}
			pl.Moves++
			pl.Counts[p.Label]++
			if p.Forced {
				continue
			}
			graded++
			acc += moveAccuracy(p.Loss)
			loss += p.Loss
		}
		if graded > 0 {
			a := math.Round(acc/float64(graded)*10) / 10
			pl.Accuracy = &a
			pl.MeanLoss = round2(loss / float64(graded))
		}
		out[side] = pl
	}
	return out
}

// round2 rounds x to hundredths, the unit of the engine's scores.
func round2(x float64) float64 { return math.Round(x*100) / 100 }
