package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// LobbyReport is the outcome of a lobby run.
type LobbyReport struct {
	Servers     []string
	Clients     int
	Pool        string
	Category    string // the pool's, as the lobby told it
	Rated       bool
	Rate, Races float64
	Duration    time.Duration
	Names       string // the accounts' names' prefix

	SignedUp      int
	SignupTime    time.Duration // of all the sign-ups
	SignupLatency Latency
	Elapsed       time.Duration // of the pairing and play
	Joined        int           // clients whose join was accepted
	Paired        int           // clients told of their pairing
	PairedTwice   int           // second pairings of a client (a fault)
	PairDelay     Latency       // join → paired
	Games         int           // games the pairings made
	Finished      int           // games both clients saw end
	Ends          map[string]int
	Raced         int   // games whose end was raced (the resigns sent)
	Moves         int64 // moves sent
	Refused       int64 // moves and resigns the server refused (409 in a race or on a stale view)
	MoveLatency   Latency
	Reconnects    int64 // game connections opened again
	Errors        map[string]int
	FirstErrors   map[string]string
	Disconnects   map[string]int // dropped connections and failed dials, which the clients got over
	FirstDisconns map[string]string
	TimedOut      bool // the duration ended before every game did
	Interrupted   bool
	Check         *LobbyCheck
}

// fill copies the run's figures into the report.
func (rep *LobbyReport) fill(r *lobbyRunner, players []*lobbyPlayer) {
	if c := r.category.Load(); c != nil {
		rep.Category = *c
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &r.st
	rep.SignedUp, rep.SignupLatency = s.signedUp, summarize(s.signupLat)
	rep.Joined, rep.Paired, rep.PairedTwice = s.joined, s.paired, s.pairedTwice
	rep.PairDelay, rep.MoveLatency = summarize(s.pairDelay), summarize(s.moveLat)
	rep.Raced, rep.Moves, rep.Refused, rep.Reconnects = s.raced, s.moves, s.refused, s.reconnects
	rep.Errors, rep.FirstErrors = s.errors, s.firstErr
	rep.Disconnects, rep.FirstDisconns = s.disconnects, s.firstDisc
	rep.Games = len(r.games)
	rep.Ends = map[string]int{}
	ended := map[string]int{}
	for _, p := range players {
		p.mu.Lock()
		if res := p.result; res != nil {
			if ended[res.game]++; ended[res.game] == 2 {
				rep.Finished++
				rep.Ends[res.status]++
			}
		}
		p.mu.Unlock()
	}
}

// ErrorCount is the number of failed requests and refused messages that
// were not expected.
func (rep *LobbyReport) ErrorCount() int {
	n := 0
	for _, c := range rep.Errors {
		n += c
	}
	return n
}

// Err says why the run failed, or nil: an interruption, errors, a client
// paired twice or not at all, a game not played to its end, a failed
// check.
func (rep *LobbyReport) Err() error {
	var problems []string
	if rep.Interrupted {
		problems = append(problems, "interrupted")
	}
	if n := rep.ErrorCount(); n > 0 {
		problems = append(problems, fmt.Sprintf("%d errors", n))
	}
	if rep.SignedUp < rep.Clients {
		problems = append(problems, fmt.Sprintf("%d of %d clients signed up", rep.SignedUp, rep.Clients))
	}
	if rep.PairedTwice > 0 {
		problems = append(problems, fmt.Sprintf("%d clients paired twice", rep.PairedTwice))
	}
	if want := rep.SignedUp - rep.SignedUp%2; rep.Paired < want {
		problems = append(problems, fmt.Sprintf("%d of %d clients paired", rep.Paired, want))
	}
	if rep.Finished < rep.Games {
		problems = append(problems, fmt.Sprintf("%d of %d games played to their end", rep.Finished, rep.Games))
	}
	if rep.Check != nil && rep.Check.Failed() {
		problems = append(problems, "check failed: "+rep.Check.String())
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New("lobby load test: " + strings.Join(problems, "; "))
}

// String returns the summary WriteTo writes.
func (rep *LobbyReport) String() string {
	var b strings.Builder
	rep.WriteTo(&b)
	return b.String()
}

// WriteTo writes a readable summary of the report, several lines.
func (rep *LobbyReport) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	kind := "casual"
	if rep.Rated {
		kind = "rated"
	}
	fmt.Fprintf(&b, "lobby load test of %s: %s clients in pool %s (%s, %s), %g moves/s a player, %g of the ends raced\n",
		strings.Join(rep.Servers, ", "), group(int64(rep.Clients)), rep.Pool, rep.Category, kind, rep.Rate, rep.Races)
	fmt.Fprintf(&b, "  sign-ups        %s of %s in %.1f s (accounts %s-*), latency %v\n",
		group(int64(rep.SignedUp)), group(int64(rep.Clients)), rep.SignupTime.Seconds(), rep.Names, rep.SignupLatency)
	fmt.Fprintf(&b, "  elapsed         %.1f s of pairing and play (cap %v)\n", rep.Elapsed.Seconds(), rep.Duration)
	fmt.Fprintf(&b, "  pairing         %s joined, %s paired, %s paired twice; join → paired %v\n",
		group(int64(rep.Joined)), group(int64(rep.Paired)), group(int64(rep.PairedTwice)), rep.PairDelay)
	ends := make([]string, 0, len(rep.Ends))
	for k, n := range rep.Ends {
		ends = append(ends, fmt.Sprintf("%s × %d", k, n))
	}
	slices.Sort(ends)
	fmt.Fprintf(&b, "  games           %s made, %s played to the end (%s), %s ends raced\n",
		group(int64(rep.Games)), group(int64(rep.Finished)), strings.Join(ends, ", "), group(int64(rep.Raced)))
	fmt.Fprintf(&b, "  moves           %s sent, %s refused (races, stale views), %s reconnections\n",
		group(rep.Moves), group(rep.Refused), group(rep.Reconnects))
	fmt.Fprintf(&b, "  move latency    %v (sending → the opponent's connection)\n", rep.MoveLatency)
	writeErrors(&b, "errors", rep.Errors, rep.FirstErrors)
	writeErrors(&b, "disconnects", rep.Disconnects, rep.FirstDisconns)
	switch {
	case rep.Interrupted:
		fmt.Fprintf(&b, "  interrupted: no check\n")
	case rep.TimedOut:
		fmt.Fprintf(&b, "  the duration ended before every game did\n")
	}
	if rep.Check != nil {
		fmt.Fprintf(&b, "  check           %v\n", rep.Check)
		for _, p := range rep.Check.Problems {
			fmt.Fprintf(&b, "    %s\n", p)
		}
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// LobbyCheck is what the check after a lobby run found.
type LobbyCheck struct {
	Games, Rated, Histories int // games and rating histories read
	ChangedOnce             int // players of rated games whose rating changed exactly once for it
	Unpaired, BadPairs      int // clients never paired (beyond an odd one out); games not of two clients on two sides
	Unfinished              int // games not seen to end
	Missing, Doubled        int // a rated game's rating change: none, or more than one
	Unexpected, Mismatched  int // a change for an unrated or another game; one not as the game says
	Unrated                 int // games of a rated run that were not rated, though not aborted
	Failures                int // requests of the check that failed
	Problems                []string
}

// maxProblems is how many problems a check describes.
const maxProblems = 10

func (c *LobbyCheck) problem(format string, args ...any) {
	if len(c.Problems) < maxProblems {
		c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
	}
}

// Failed reports whether the check found a fault.
func (c *LobbyCheck) Failed() bool {
	return c.Unpaired+c.BadPairs+c.Unfinished+c.Missing+c.Doubled+c.Unexpected+c.Mismatched+c.Unrated+c.Failures > 0
}

func (c *LobbyCheck) String() string {
	verdict := "ok"
	if c.Failed() {
		verdict = "FAILED"
	}
	return fmt.Sprintf("%s: %d games (%d rated), %d rating histories, %d changed once for their game; "+
		"%d unpaired, %d bad pairs, %d unfinished, %d missing, %d doubled, %d unexpected, %d mismatched, %d unrated, %d failed requests",
		verdict, c.Games, c.Rated, c.Histories, c.ChangedOnce, c.Unpaired, c.BadPairs, c.Unfinished, c.Missing,
		c.Doubled, c.Unexpected, c.Mismatched, c.Unrated, c.Failures)
}

// check verifies the pairings, then reads every finished game and both
// its players' rating histories in its category.
func (r *lobbyRunner) check(ctx context.Context, players []*lobbyPlayer) *LobbyCheck {
	c := &LobbyCheck{}
	signed := 0
	for _, p := range players {
		p.mu.Lock()
		if p.cookie != "" {
			signed++
			if len(p.games) == 0 {
				c.Unpaired++
			}
		}
		p.mu.Unlock()
	}
	if signed%2 == 1 && c.Unpaired > 0 {
		c.Unpaired-- // the odd one out
	}
	if c.Unpaired > 0 {
		c.problem("%d clients never paired", c.Unpaired)
	}
	results := map[string][]*playerResult{}
	for _, p := range players {
		p.mu.Lock()
		if p.result != nil {
			results[p.result.game] = append(results[p.result.game], p.result)
		}
		p.mu.Unlock()
	}
	r.mu.Lock()
	games := make([]*sharedGame, 0, len(r.games))
	for _, g := range r.games {
		games = append(games, g)
	}
	r.mu.Unlock()
	type work struct {
		g      *sharedGame
		pairs  []pairing
		status string
	}
	var todo []work
	for _, g := range games {
		g.mu.Lock()
		pairs := slices.Clone(g.players)
		g.mu.Unlock()
		if len(pairs) != 2 || pairs[0].client == pairs[1].client || pairs[0].side == pairs[1].side ||
			!(pairs[0].side == "s" || pairs[0].side == "n") || !(pairs[1].side == "s" || pairs[1].side == "n") {
			c.BadPairs++
			c.problem("game %s paired %v", g.id, pairs)
			continue
		}
		res := results[g.id]
		if len(res) != 2 {
			c.Unfinished++
			c.problem("game %s: %d of its 2 clients saw it end", g.id, len(res))
			continue
		}
		if res[0].status != res[1].status {
			c.problem("game %s: its clients saw it end as %s and %s", g.id, res[0].status, res[1].status)
			c.Mismatched++
			continue
		}
		todo = append(todo, work{g, pairs, res[0].status})
	}
	cat := r.category.Load()
	if cat == nil {
		c.Failures++
		c.problem("the lobby never told the category of pool %s", r.cfg.Pool)
		return c
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, checkWorkers)
	for _, w := range todo {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			res := r.checkGame(ctx, *cat, w.g.id, w.pairs, w.status, players)
			mu.Lock()
			defer mu.Unlock()
			c.merge(res)
		})
	}
	wg.Wait()
	return c
}

func (c *LobbyCheck) merge(o *LobbyCheck) {
	c.Games += o.Games
	c.Rated += o.Rated
	c.Histories += o.Histories
	c.ChangedOnce += o.ChangedOnce
	c.Missing += o.Missing
	c.Doubled += o.Doubled
	c.Unexpected += o.Unexpected
	c.Mismatched += o.Mismatched
	c.Unrated += o.Unrated
	c.Failures += o.Failures
	for _, p := range o.Problems {
		c.problem("%s", p)
	}
}

// ratingPoints is a rating history as the API gives it.
type ratingPoints struct {
	Points []struct {
		Rating float64 `json:"rating"`
		Game   string  `json:"game"`
	} `json:"points"`
}

// checkGame reads a finished game and its players' histories.
func (r *lobbyRunner) checkGame(ctx context.Context, cat, id string, pairs []pairing, status string, players []*lobbyPlayer) *LobbyCheck {
	c := &LobbyCheck{Games: 1}
	get := func(path string, v any) bool {
		for attempt := 0; ; attempt++ {
			// Round the servers: one of them may have been stopped.
			a, err := r.clients[attempt%len(r.clients)].do(ctx, http.MethodGet, path, nil)
			if err == nil && a.status == http.StatusOK {
				if err := json.Unmarshal(a.body, v); err != nil {
					c.Failures++
					c.problem("GET %s: %v", path, err)
					return false
				}
				return true
			}
			if attempt == 3*len(r.clients) || ctx.Err() != nil {
				c.Failures++
				if err != nil {
					c.problem("GET %s: %v", path, err)
				} else {
					c.problem("GET %s: HTTP %d %.200s", path, a.status, a.body)
				}
				return false
			}
			time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
		}
	}
	var gv lobbyGame
	if !get("/api/games/"+url.PathEscape(id), &gv) {
		return c
	}
	if gv.Status != status {
		c.Mismatched++
		c.problem("game %s: stored as %s, its clients saw %s", id, gv.Status, status)
	}
	if gv.Rated {
		c.Rated++
	} else if r.cfg.Rated && gv.Status != "aborted" {
		c.Unrated++
		c.problem("game %s of a rated pool, ended %s, is not rated", id, gv.Status)
	}
	for _, pr := range pairs {
		name := players[pr.client].name
		var h ratingPoints
		if !get("/api/players/"+url.PathEscape(name)+"/ratings?category="+url.QueryEscape(cat), &h) {
			continue
		}
		c.Histories++
		n := 0
		var after float64
		for _, pt := range h.Points {
			if pt.Game == id {
				n++
				after = pt.Rating
			} else {
				c.Unexpected++
				c.problem("%s's rating changed for game %q, not one it played", name, pt.Game)
			}
		}
		switch {
		case !gv.Rated && n > 0:
			c.Unexpected++
			c.problem("%s's rating changed %d times for game %s, which is not rated", name, n, id)
		case !gv.Rated:
		case n == 0:
			c.Missing++
			c.problem("%s's rating did not change for rated game %s", name, id)
		case n > 1:
			c.Doubled++
			c.problem("%s's rating changed %d times for game %s", name, n, id)
		default:
			c.ChangedOnce++
			if ch, ok := gv.RatingChange[pr.side]; !ok || abs(float64(ch.After)-after) > 1 {
				c.Mismatched++
				c.problem("%s's rating after game %s: %v in its history, the game says %+v", name, id, after, gv.RatingChange)
			}
		}
	}
	return c
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// progress writes a line of figures at every interval until done.
func (r *lobbyRunner) progress(done <-chan struct{}, start time.Time) {
	t := time.NewTicker(r.cfg.ProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			r.mu.Lock()
			s := &r.st
			errs := 0
			for _, n := range s.errors {
				errs += n
			}
			line := fmt.Sprintf("%v: %d joined, %d paired, %d finished (players), %d moves, %d reconnections, %d errors\n",
				now.Sub(start).Round(time.Second), s.joined, s.paired, s.finished, s.moves, s.reconnects, errs)
			r.mu.Unlock()
			io.WriteString(r.cfg.Progress, line)
		}
	}
}
