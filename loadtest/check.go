package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// checkWorkers is the number of games fetched at once by a check.
const checkWorkers = 16

// CheckResult is what a check found: every acknowledged move must be
// stored, in order. A move sent but never answered may or may not be.
type CheckResult struct {
	GamesChecked int // games fetched, or answered 404
	Lost         int // acknowledged moves missing
	LostGames    int // created games the server does not know (404)
	// Extra counts the games holding more than one move beyond the
	// acknowledged ones: moves this client never sent. For an online game
	// (GameLog.Strict), any move beyond them but the one sent and unseen.
	Extra int
	// Unchecked counts the games that could not be fetched.
	Unchecked  int
	FirstError string // why the first unchecked game could not be
}

// Failed reports whether the check found or left a problem.
func (c *CheckResult) Failed() bool {
	return c.Lost > 0 || c.LostGames > 0 || c.Extra > 0 || c.Unchecked > 0
}

func (c *CheckResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s games checked: ", group(int64(c.GamesChecked)))
	if c.Lost == 0 && c.LostGames == 0 {
		b.WriteString("no acknowledged move lost")
	} else {
		fmt.Fprintf(&b, "%s acknowledged moves LOST, %s games LOST", group(int64(c.Lost)), group(int64(c.LostGames)))
	}
	if c.Extra > 0 {
		fmt.Fprintf(&b, "; %s games with moves never sent", group(int64(c.Extra)))
	}
	if c.Unchecked > 0 {
		fmt.Fprintf(&b, "; %s games not fetched (first: %s)", group(int64(c.Unchecked)), c.FirstError)
	}
	return b.String()
}

// Check fetches every game of games from the server at baseURL, which
// must be a loopback address, and compares its stored moves with the
// acknowledged ones: after a restart of the server, for instance. The
// error is for a refused address or a cancelled ctx.
func Check(ctx context.Context, baseURL string, games []GameLog) (*CheckResult, error) {
	base, err := target(ctx, baseURL)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	c := newClient(base, checkWorkers, DefaultTimeout)
	defer c.close()
	return check(ctx, c, games)
}

func check(ctx context.Context, c *client, games []GameLog) (*CheckResult, error) {
	var (
		mu  sync.Mutex
		res CheckResult
		wg  sync.WaitGroup
	)
	jobs := make(chan GameLog)
	for range min(checkWorkers, len(games)) {
		wg.Go(func() {
			for g := range jobs {
				stored, found, err := fetchMoves(ctx, c, g.ID)
				mu.Lock()
				checkGame(&res, g, stored, found, err)
				mu.Unlock()
			}
		})
	}
	for _, g := range games {
		if ctx.Err() != nil {
			break
		}
		jobs <- g
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	return &res, nil
}

// checkGame adds to res what the fetch of g found.
func checkGame(res *CheckResult, g GameLog, stored []string, found bool, err error) {
	switch {
	case err != nil:
		res.Unchecked++
		if res.FirstError == "" {
			res.FirstError = err.Error()
		}
		return
	case !found:
		res.GamesChecked++
		res.LostGames++
		res.Lost += len(g.Moves)
		return
	}
	res.GamesChecked++
	same := 0
	for same < len(g.Moves) && same < len(stored) && stored[same] == g.Moves[same] {
		same++
	}
	res.Lost += len(g.Moves) - same
	switch {
	case same < len(g.Moves):
	case g.Strict:
		// Every move sent is known: beyond those seen, only the one move
		// sent and unanswered may be stored.
		extra := stored[same:]
		if len(extra) > 1 || len(extra) == 1 && extra[0] != g.Pending {
			res.Extra++
		}
	case len(stored) > len(g.Moves)+1:
		res.Extra++
	}
}

// fetchMoves returns the stored moves of game id, or found false if the
// server does not know the game. A busy server is asked again a few times.
func fetchMoves(ctx context.Context, c *client, id string) (moves []string, found bool, err error) {
	path := "/api/games/" + url.PathEscape(id)
	for try := 0; ; try++ {
		a, err := c.do(ctx, http.MethodGet, path, nil)
		if err != nil {
			return nil, false, fmt.Errorf("GET %s: %w", path, err)
		}
		switch a.status {
		case http.StatusOK:
			var g gameView
			if err := json.Unmarshal(a.body, &g); err != nil || g.ID != id {
				return nil, false, fmt.Errorf("GET %s: answer %.100q is not the game", path, a.body)
			}
			return g.Moves, true, nil
		case http.StatusNotFound:
			return nil, false, nil
		case http.StatusServiceUnavailable, http.StatusTooManyRequests:
			if try < 5 {
				wait := min(max(a.retryAfter, 100*time.Millisecond), 2*time.Second)
				select {
				case <-ctx.Done():
					return nil, false, fmt.Errorf("GET %s: %w", path, ctx.Err())
				case <-time.After(wait):
				}
				continue
			}
		}
		return nil, false, fmt.Errorf("GET %s: HTTP %d %.100s", path, a.status, a.body)
	}
}
