package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/analysis"
	"github.com/endodoi/endodoi/grade"
	"github.com/endodoi/endodoi/rules"
)

// blunderStart is a 4-hole position in which South's a captures and b
// throws the game away: proven values +9 and -5 for South.
const blunderStart = "1,2,0,3/2,0,0,1 s 0 0"

// blunderMoves play b, the blunder, and then on to the end of the game.
var blunderMoves = []string{"b", "A", "c", "B", "d", "A"}

// raceDetector is set when the tests run under the race detector.
var raceDetector bool

// finishedGame makes a game and plays it to its end: a game of holes and
// seeds, or under the race detector the short blunder game.
func (ts *testServer) finishedGame(holes, seeds int) gameView {
	ts.t.Helper()
	if raceDetector {
		return ts.play(ts.create(`{"position": "`+blunderStart+`"}`).ID, blunderMoves...)
	}
	return ts.playOut(ts.create(fmt.Sprintf(`{"holes": %d, "seeds": %d}`, holes, seeds)))
}

// play plays moves in game id, one after the other.
func (ts *testServer) play(id string, moves ...string) gameView {
	ts.t.Helper()
	var mv moveView
	for _, m := range moves {
		if code, raw := ts.do("POST", "/api/games/"+id+"/moves", fmt.Sprintf(`{"move": %q}`, m), &mv); code != http.StatusOK {
			ts.t.Fatalf("move %s: %d %s", m, code, raw)
		}
	}
	return mv.Game
}

// playOut plays the first legal move until the game ends.
func (ts *testServer) playOut(g gameView) gameView {
	ts.t.Helper()
	for g.Status == "playing" {
		g = ts.play(g.ID, g.LegalMoves[len(g.LegalMoves)/2])
	}
	return g
}

// review sends a request for the review of game id and decodes the answer.
func (ts *testServer) review(method, id string, want int) reviewAnswer {
	ts.t.Helper()
	var a reviewAnswer
	code, raw := ts.do(method, "/api/games/"+id+"/review", "", &a)
	if code != want {
		ts.t.Fatalf("%s review of %s: %d %s, want %d", method, id, code, raw, want)
	}
	return a
}

// waitReview polls the review of game id until it is done, calling seen
// with each answer.
func (ts *testServer) waitReview(id string, seen func(reviewAnswer)) reviewAnswer {
	ts.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		a := ts.review("GET", id, http.StatusOK)
		if seen != nil {
			seen(a)
		}
		switch a.Status {
		case "done":
			return a
		case "failed", "none":
			ts.t.Fatalf("review of %s: %+v", id, a)
		}
		if time.Now().After(deadline) {
			ts.t.Fatalf("review of %s not done in time: %+v", id, a)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// reviewAnswer is the answer of the review endpoints, decoded.
type reviewAnswer struct {
	Status   string                  `json:"status"`
	Progress analysis.ReviewProgress `json:"progress"`
	Review   *grade.Review           `json:"review"`
	Error    string                  `json:"error"`
}

// A finished game is graded move by move: the known blunder is labelled
// so, with the best move, its line and exact values; the review has an
// evaluation for every ply and each player's accuracy. It is stored and
// not made again, even by another server on the same database.
func TestReviewGradesAGame(t *testing.T) {
	ts := newTestServer(t)
	ts.srv.analysis.Reviews.Nodes = 20_000
	g := ts.create(`{"position": "` + blunderStart + `", "south": "Naserian", "north": "Sironka"}`)

	// Not before the game is over; not for a game that does not exist.
	ts.review("POST", g.ID, http.StatusConflict)
	ts.review("GET", g.ID, http.StatusConflict)
	ts.review("GET", "0123456789abcdef", http.StatusNotFound)
	ts.review("POST", "0123456789abcdef", http.StatusNotFound)
	ts.review("POST", "not-an-id", http.StatusNotFound)
	g = ts.play(g.ID, blunderMoves...)
	if g.Status == "playing" {
		t.Fatalf("the game goes on: %+v", g)
	}
	if a := ts.review("GET", g.ID, http.StatusOK); a.Status != "none" || a.Progress.Total != len(blunderMoves) {
		t.Errorf("before any review: %+v", a)
	}
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/review", `{"depth": 3}`, nil); code != http.StatusBadRequest {
		t.Errorf("a review with an unknown field: %d %s", code, raw)
	}

	first := ts.review("POST", g.ID, http.StatusAccepted)
	if first.Status != "queued" && first.Status != "running" {
		t.Errorf("a review started: %+v", first)
	}
	a := ts.waitReview(g.ID, nil)
	rv := a.Review
	if rv == nil || len(rv.Plies) != len(blunderMoves) || len(rv.Evaluation) != len(blunderMoves)+1 {
		t.Fatalf("review %+v", a)
	}
	if a.Progress.Done != len(blunderMoves) || a.Progress.Total != len(blunderMoves) {
		t.Errorf("progress of a finished review: %+v", a.Progress)
	}
	if rv.Nodes != 20_000 || rv.Thresholds != (grade.Thresholds{Inaccuracy: 1, Mistake: 3, Blunder: 6}) {
		t.Errorf("budget %d, thresholds %+v", rv.Nodes, rv.Thresholds)
	}

	// The blunder: b lost 14 seeds against a, both proven.
	b := rv.Plies[0]
	if b.Ply != 1 || b.Side != "s" || b.Move != "b" || b.Best != "a" || b.Label != "blunder" ||
		b.BestScore != 9 || b.Score != -5 || b.Loss != 14 || !b.Exact || !b.BestExact || len(b.PV) == 0 || b.PV[0] != "a" {
		t.Errorf("the blunder is graded %+v", b)
	}
	for i, p := range rv.Plies {
		if p.Ply != i+1 || p.Move != blunderMoves[i] || !slices.Contains(grade.Labels, p.Label) || p.Label != grade.Label(p.Loss) ||
			math.Abs(p.Loss-math.Max(0, p.BestScore-p.Score)) > 1e-9 || len(p.PV) == 0 || p.PV[0] != p.Best {
			t.Errorf("ply %d graded %+v", i+1, p)
		}
		if p.Move == p.Best && p.Loss != 0 {
			t.Errorf("ply %d: the best move lost %v", i+1, p.Loss)
		}
	}
	// The evaluation starts at South's +9 and ends at the final score.
	if e := rv.Evaluation[0]; e.South != 9 || !e.Exact {
		t.Errorf("evaluation at the start %+v, want +9, exact", e)
	}
	if e, want := rv.Evaluation[len(rv.Evaluation)-1], float64(g.Score.South-g.Score.North); e.South != want || !e.Exact {
		t.Errorf("evaluation at the end %+v, want the final margin %v", e, want)
	}
	for _, side := range []string{"s", "n"} {
		pl := rv.Players[side]
		total := 0
		for _, n := range pl.Counts {
			total += n
		}
		if pl.Moves != 3 || total != 3 || (pl.Accuracy != nil && (*pl.Accuracy < 0 || *pl.Accuracy > 100)) {
			t.Errorf("player %s: %+v", side, pl)
		}
	}
	if acc := rv.Players["s"].Accuracy; acc == nil || *acc >= 100 || rv.Players["s"].Counts["blunder"] < 1 {
		t.Errorf("South, who blundered: %+v", rv.Players["s"])
	}

	// Stored: asked again, here or by a new server on the same database,
	// it is the same review at once, and no review runs.
	stored, err := ts.st.Review(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	for ts.srv.analysis.Reviews.Jobs() != 0 {
		time.Sleep(time.Millisecond) // the finished review forgets its job
	}
	again := ts.review("POST", g.ID, http.StatusOK)
	if again.Status != "done" || !sameJSON(t, again.Review, rv) || ts.srv.analysis.Reviews.Jobs() != 0 {
		t.Errorf("asked again: %+v (%d jobs)", again, ts.srv.analysis.Reviews.Jobs())
	}
	ts.restart()
	ts.srv.analysis.Reviews.Nodes = 20_000
	again = ts.review("POST", g.ID, http.StatusOK)
	if again.Status != "done" || !sameJSON(t, again.Review, rv) || ts.srv.analysis.Reviews.Jobs() != 0 {
		t.Errorf("after a restart: %+v", again)
	}
	if later, err := ts.st.Review(context.Background(), g.ID); err != nil || !later.Created.Equal(stored.Created) {
		t.Errorf("the stored review was made again: %v, %v", later, err)
	}

	// Another budget makes another review; taken back, the game is not
	// over, and its old review does not count.
	ts.srv.analysis.Reviews.Nodes = 30_000
	if a := ts.review("GET", g.ID, http.StatusOK); a.Status != "none" {
		t.Errorf("a review of another budget: %+v", a)
	}
	var tb gameView
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/takeback", fmt.Sprintf(`{"ply": %d}`, len(g.Moves)), &tb); code != http.StatusOK {
		t.Fatalf("takeback: %d %s", code, raw)
	}
	ts.review("GET", g.ID, http.StatusConflict)
}

// sameJSON reports whether two values encode alike.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(x) == string(y)
}

// A review comes out the same every time: the budget is in nodes, and
// each search starts from an empty table.
func TestReviewIsReproducible(t *testing.T) {
	var reviews []*grade.Review
	for range 2 {
		ts := newTestServer(t)
		ts.srv.analysis.Reviews.Nodes = 10_000
		g := ts.finishedGame(5, 3)
		ts.review("POST", g.ID, http.StatusAccepted)
		reviews = append(reviews, ts.waitReview(g.ID, nil).Review)
	}
	if !sameJSON(t, reviews[0], reviews[1]) {
		t.Errorf("two reviews of the same game differ:\n%+v\n%+v", reviews[0], reviews[1])
	}
}

// The progress counts the plies graded, from 0 to all of them.
func TestReviewProgress(t *testing.T) {
	ts := newTestServer(t)
	ts.srv.analysis.Reviews.Nodes = 5_000
	g := ts.finishedGame(6, 3)
	n := len(g.Moves)
	// The review is held after its second ply until the test has seen
	// it there, so the check does not depend on how fast it runs.
	held, release := make(chan struct{}), make(chan struct{})
	ts.srv.analysis.Reviews.Graded = func(done int) {
		if done == 2 {
			close(held)
			<-release
		}
	}
	ts.review("POST", g.ID, http.StatusAccepted)
	<-held
	a := ts.review("GET", g.ID, http.StatusOK)
	close(release)
	if a.Status != "running" || a.Progress.Done != 2 || a.Progress.Total != n {
		t.Errorf("a review held after 2 of %d plies answers %+v", n, a)
	}
	last := 0
	ts.waitReview(g.ID, func(a reviewAnswer) {
		if a.Progress.Total != n || a.Progress.Done < last || a.Progress.Done > n {
			t.Fatalf("progress %+v after %d of %d", a.Progress, last, n)
		}
		last = a.Progress.Done
	})
}

// Reviews run at most half the search slots at once; the others wait,
// queued, and every one finishes.
func TestReviewConcurrencyIsBounded(t *testing.T) {
	ts := newTestServer(t)
	ts.srv = NewWithOptions(ts.st, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Searches: 2, AnalysisRate: Rate{1000, 1000}})
	ts.srv.analysis.Reviews.Nodes = 10_000
	var ids []string
	for range 3 {
		ids = append(ids, ts.finishedGame(5, 3).ID)
	}
	for _, id := range ids {
		ts.review("POST", id, http.StatusAccepted)
	}
	queued := false
	deadline := time.Now().Add(5 * time.Minute)
	for done := 0; done < len(ids); {
		// The answers are read one after another, so one review may end
		// and the next start between two of them: the peak below, counted
		// where the reviews run, is what shows the bound.
		done = 0
		for _, id := range ids {
			switch a := ts.review("GET", id, http.StatusOK); a.Status {
			case "done":
				done++
			case "running":
			case "queued":
				queued = true
			default:
				t.Fatalf("review of %s: %+v", id, a)
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the reviews did not finish in time")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if p := ts.srv.analysis.Reviews.Peak(); p != 1 {
		t.Errorf("%d reviews ran at once with two search slots, want 1", p)
	}
	if !queued {
		t.Error("no review was seen waiting for another")
	}
}

// While a review runs on the only search slot, hints are answered in the
// middle of it: the review gives way between its searches.
func TestReviewGivesWayToMoves(t *testing.T) {
	ts := newTestServer(t)
	// A slow machine (or the race detector) must not make a hint wait out
	// its queue time: what counts is that it is answered during the review.
	ts.srv = NewWithOptions(ts.st, slog.New(slog.NewTextHandler(io.Discard, nil)),
		Options{Searches: 1, SearchWait: time.Minute, AnalysisRate: Rate{1000, 1000}})
	ts.srv.analysis.Reviews.Nodes = 100_000
	done := ts.playOut(ts.create(`{"holes": 8}`))
	playing := ts.create(`{"holes": 8, "computer": {"side": "n", "level": 4}}`)
	ts.review("POST", done.ID, http.StatusAccepted)
	for ts.review("GET", done.ID, http.StatusOK).Progress.Done == 0 {
		time.Sleep(time.Millisecond)
	}
	for range 2 {
		before := ts.review("GET", done.ID, http.StatusOK).Progress.Done
		if code, raw := ts.do("GET", "/api/games/"+playing.ID+"/hint", "", nil); code != http.StatusOK {
			t.Fatalf("hint during a review: %d %s", code, raw)
		}
		a := ts.review("GET", done.ID, http.StatusOK)
		if a.Status != "running" {
			t.Fatalf("the review is %s once the hint is answered: the test needs a longer review", a.Status)
		}
		t.Logf("a hint answered while the review went from %d to %d plies of %d", before, a.Progress.Done, a.Progress.Total)
	}
	ts.srv.Close()
}

// Closing the server cancels the reviews under way at once, and stores
// none of them.
func TestReviewStopsWithTheServer(t *testing.T) {
	ts := newTestServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := ts.srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	ts.srv.analysis.Reviews.Nodes = 5_000_000
	g := ts.playOut(ts.create(`{"holes": 8}`))
	ts.review("POST", g.ID, http.StatusAccepted)
	for ts.review("GET", g.ID, http.StatusOK).Status != "running" {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	cancel()
	ts.srv.Close()
	// At once: within a batch of nodes of the search under way, and far
	// less than the review, which would take hours. The race detector on a
	// busy machine slows that batch down many times over.
	limit := 5 * time.Second
	if raceDetector {
		limit = time.Minute
	}
	if d := time.Since(start); d > limit {
		t.Errorf("closing took %v", d)
	}
	if _, err := ts.st.Review(context.Background(), g.ID); err == nil {
		t.Error("a cancelled review was stored")
	}
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/review", "", nil); code != http.StatusServiceUnavailable {
		t.Errorf("a review asked of a closed server: %d %s", code, raw)
	}
}

// An online game is reviewed once it has ended, by anyone: no seat's
// token is needed to start or read its review.
func TestReviewOnlineGame(t *testing.T) {
	ts := newTestServer(t)
	ts.srv.analysis.Reviews.Nodes = 20_000
	g, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 3}`)
	for range 4 {
		cur := ts.get(g.ID)
		if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(cur, tokens),
			fmt.Sprintf(`{"move": %q, "ply": %d}`, cur.LegalMoves[0], len(cur.Moves)), nil); code != http.StatusOK {
			t.Fatalf("move: %d %s", code, raw)
		}
		if ts.get(g.ID).Status != "playing" {
			break
		}
	}
	cur := ts.get(g.ID)
	if cur.Status != "playing" {
		t.Skip("the game ended by the rules before a resignation could be tested")
	}
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/review", "", nil); code != http.StatusConflict || !strings.Contains(raw, "not over") {
		t.Errorf("review of an online game in progress: %d %s", code, raw)
	}
	if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/actions", tokens[rules.South], fmt.Sprintf(`{"action": "resign", "ply": %d}`, len(cur.Moves)), nil); code != http.StatusOK {
		t.Fatalf("resign: %d %s", code, raw)
	}
	ts.review("POST", g.ID, http.StatusAccepted)
	a := ts.waitReview(g.ID, nil)
	if len(a.Review.Plies) != len(cur.Moves) || len(a.Review.Evaluation) != len(cur.Moves)+1 {
		t.Errorf("review of a resigned game: %+v", a.Review)
	}
}

// With endgame databases that hold the whole game, every value of its
// review is exact.
func TestReviewWithTablebases(t *testing.T) {
	ts := newTestServerWithTablebases(t)
	ts.srv.analysis.Reviews.Nodes = 1_000 // too few to prove anything by search
	g := ts.playOut(ts.create(`{"position": "2,1,1/1,2,1 s 0 0"}`))
	ts.review("POST", g.ID, http.StatusAccepted)
	rv := ts.waitReview(g.ID, nil).Review
	if len(rv.Plies) < 3 {
		t.Fatalf("a game of %d plies: too short to tell", len(rv.Plies))
	}
	for i, e := range rv.Evaluation {
		if !e.Exact {
			t.Errorf("evaluation after %d plies not exact: %+v", i, e)
		}
	}
	for _, p := range rv.Plies {
		if !p.Exact || !p.BestExact {
			t.Errorf("ply %d not exact: %+v", p.Ply, p)
		}
	}
	if e, want := rv.Evaluation[len(rv.Evaluation)-1].South, float64(g.Score.South-g.Score.North); e != want {
		t.Errorf("final evaluation %v, want the final margin %v", e, want)
	}
}

// A best line goes on past its first move, so that what it wins can be
// seen: to grade.LineMin plies and a capture (at most grade.LineMax), or
// to the end of the game, with the position after each of its moves. On
// the 6-hole board the opening book proves the first moves at once, with
// a search's line of a single move.
func TestReviewBestLinesGoOn(t *testing.T) {
	ts := newTestServer(t)
	ts.srv.analysis.Reviews.Nodes = 20_000
	g := ts.play(ts.create(`{"holes": 6, "seeds": 4}`).ID, "e", "A", "a")
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/actions", fmt.Sprintf(`{"action": "resign", "ply": %d}`, len(g.Moves)), nil); code != http.StatusOK {
		t.Fatalf("resigning: %d %s", code, raw)
	}
	ts.review("POST", g.ID, http.StatusAccepted)
	rv := ts.waitReview(g.ID, nil).Review
	start, err := rules.ParsePosition(g.Positions[0])
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range rv.Plies {
		if len(p.PV) == 0 || p.PV[0] != p.Best || len(p.PVPositions) != len(p.PV) {
			t.Errorf("ply %d: best %s, line %v with %d positions", p.Ply, p.Best, p.PV, len(p.PVPositions))
			continue
		}
		// Played on from the position before the move, in the game as it
		// was then, so that a repetition ends it too.
		line, err := rules.NewGame(start, rules.Rules{}.Canonical())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range g.Moves[:i] {
			if err := line.Play(mustMove(t, m)); err != nil {
				t.Fatal(err)
			}
		}
		captured := false
		for k, m := range p.PV {
			before := line.Position()
			if err := line.Play(mustMove(t, m)); err != nil {
				t.Fatalf("ply %d: move %d of the line %v: %v", p.Ply, k+1, p.PV, err)
			}
			after := line.Position()
			captured = captured || after.Captured(before.ToMove()) > before.Captured(before.ToMove())
			if got := after.String(); got != p.PVPositions[k] {
				t.Errorf("ply %d: after move %d of the line %v the review gives %q, want %q", p.Ply, k+1, p.PV, p.PVPositions[k], got)
			}
		}
		if !line.Over() && (len(p.PV) < grade.LineMin || (!captured && len(p.PV) < grade.LineMax)) {
			t.Errorf("ply %d: the best line %v stops after %d moves (a capture in it: %v) while the game goes on", p.Ply, p.PV, len(p.PV), captured)
		}
	}
}

// mustMove parses a move of the notation.
func mustMove(t *testing.T, s string) rules.Move {
	t.Helper()
	m, err := rules.ParseMove(s)
	if err != nil {
		t.Fatalf("move %q: %v", s, err)
	}
	return m
}
