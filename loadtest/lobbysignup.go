package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// signupGiveUp is how long a client's sign-up may go unanswered (no
	// server reached) before the run stops: the server is down.
	signupGiveUp = time.Minute
	// signupWaitLimit is the longest the sign-ups left may take at the
	// pace the server's limit allows (its default is one every 6 s)
	// before the run stops and says how to lift the limit.
	signupWaitLimit = time.Minute
)

// signUpAll gives every client its account before the clock starts, a
// few at once (each hashes a password on the server), writing its
// progress: a new account, or the one of the same name an earlier run
// made, signed in to. Then it reads the rating histories of the accounts
// signed in to, so that the check tells their earlier games from this
// run's. It says whether every client is ready; the first client that
// cannot be stops the others, and its reason is counted in the errors.
func (r *lobbyRunner) signUpAll(ctx context.Context, players []*lobbyPlayer) bool {
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var ready atomic.Int64
	left := func() int { return len(players) - int(ready.Load()) }
	done := make(chan struct{})
	var pwg sync.WaitGroup
	if r.cfg.Progress != nil {
		pwg.Go(func() { r.signupProgress(done, time.Now(), len(players)) })
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(r.cfg.SignupAtOnce, len(players)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(players)) && sctx.Err() == nil; i = next.Add(1) - 1 {
				if players[i].signUp(sctx, left) {
					ready.Add(1)
				} else {
					stop()
				}
			}
		})
	}
	wg.Wait()
	close(done)
	pwg.Wait()
	if ctx.Err() != nil || int(ready.Load()) < len(players) {
		return false
	}
	return r.readHistories(ctx, players)
}

// signUp makes the client's account, or signs in to it if its name is
// taken, and keeps its session cookie; it tries again after a refusal
// for too many sign-ups or a busy server. It says whether the client has
// its session; if not, and ctx is not done, it counted the error.
// left is the number of clients without an account yet.
func (p *lobbyPlayer) signUp(ctx context.Context, left func() int) bool {
	r := p.r
	body, _ := json.Marshal(map[string]string{"name": p.name, "password": lobbyPassword})
	path, what := "/api/account/signup", "sign-up"
	var failing time.Time // since when no server answered
	for attempt := 0; ctx.Err() == nil; attempt++ {
		t0 := time.Now()
		a, err := r.clients[p.server].do(ctx, http.MethodPost, path, body)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return false
			}
			if failing.IsZero() {
				failing = t0
			}
			if time.Since(failing) > signupGiveUp {
				r.error("sign-up unanswered", fmt.Sprintf("%s of %s: no server answered for %v: %v",
					what, p.name, time.Since(failing).Round(time.Second), err))
				return false
			}
			r.disconnect(errorKind(err), fmt.Sprintf("%s of %s: %v", what, p.name, err))
			p.server = (p.server + 1) % len(r.servers)
		case a.status == http.StatusConflict && path == "/api/account/signup":
			// The name is taken: by an earlier run with the same names, or
			// by this sign-up whose answer was lost. Sign in to it.
			path, what = "/api/account/signin", "sign-in"
			continue
		case a.status == http.StatusTooManyRequests || a.status == http.StatusServiceUnavailable:
			failing = time.Time{}
			// The server's limit for this computer: Retry-After is the
			// wait for the next sign-up, rounded up to a second.
			if a.status == http.StatusTooManyRequests && a.retryAfter > time.Second {
				if est := time.Duration(left()) * (a.retryAfter - time.Second); est > signupWaitLimit {
					r.error("sign-ups limited", fmt.Sprintf("the server limits this computer's sign-ups (%s: HTTP 429, "+
						"Retry-After %v, %.100s): at that pace the %d accounts left would take over %v; start it with "+
						"--signins-per-minute (a test deployment only)", p.name, a.retryAfter,
						bytes.TrimSpace(a.body), left(), est.Round(time.Second)))
					return false
				}
			}
		case a.status != http.StatusOK && a.status != http.StatusCreated:
			msg := fmt.Sprintf("%s: %.200s", p.name, a.body)
			if a.status == http.StatusUnauthorized && what == "sign-in" {
				msg += " (an account of that name, not made with this tool's password: choose other --names)"
			}
			r.error(fmt.Sprintf("%s HTTP %d", what, a.status), msg)
			return false
		default:
			for _, c := range (&http.Response{Header: a.header}).Cookies() {
				if c.Name == "endodoi_session" && c.Value != "" {
					p.cookie = c.Name + "=" + c.Value
				}
			}
			if p.cookie == "" {
				r.error(what+" without a session", fmt.Sprintf("%s: %.200s", p.name, a.body))
				return false
			}
			lat := time.Since(t0)
			existing := what == "sign-in"
			if existing {
				p.before = map[string]bool{}
			}
			r.add(func(s *lstats) {
				if existing {
					s.signedIn++
				} else {
					s.signedUp++
				}
				s.signupLat = append(s.signupLat, lat)
			})
			return true
		}
		if !sleepCtx(ctx, retryDelay(a, attempt)) {
			return false
		}
	}
	return false
}

// readHistories reads the rating history, in the pool's category, and
// the games being played of every account of an earlier run, into
// lobbyPlayer.before.
func (r *lobbyRunner) readHistories(ctx context.Context, players []*lobbyPlayer) bool {
	var (
		wg   sync.WaitGroup
		sem  = make(chan struct{}, checkWorkers)
		fail atomic.Bool
	)
	for _, p := range players {
		if p.before == nil {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			var h ratingPoints
			if err := r.get(ctx, r.historyPath(p.name), &h); err != nil {
				r.error("rating history", fmt.Sprintf("before the run: %v", err))
				fail.Store(true)
				return
			}
			for _, pt := range h.Points {
				p.before[pt.Game] = true
			}
			// Its games still being played (cut off by an earlier run's
			// cap) may end during this one.
			list, ok := p.myGames(ctx, 100)
			if !ok {
				fail.Store(true)
				return
			}
			for _, g := range list {
				if g.Status == "playing" {
					p.before[g.ID] = true
				}
			}
		})
	}
	wg.Wait()
	return !fail.Load() && ctx.Err() == nil
}

// historyPath is the address of the player's rating history in the
// pool's category.
func (r *lobbyRunner) historyPath(name string) string {
	return "/api/players/" + url.PathEscape(name) + "/ratings?category=" + url.QueryEscape(r.category)
}

// get reads path into v, from each server in turn (one of them may have
// been stopped), trying again a few times.
func (r *lobbyRunner) get(ctx context.Context, path string, v any) error {
	for attempt := 0; ; attempt++ {
		a, err := r.clients[attempt%len(r.clients)].do(ctx, http.MethodGet, path, nil)
		if err == nil && a.status == http.StatusOK {
			if err := json.Unmarshal(a.body, v); err != nil {
				return fmt.Errorf("GET %s: %w", path, err)
			}
			return nil
		}
		if attempt == 3*len(r.clients) || ctx.Err() != nil {
			if err != nil {
				return fmt.Errorf("GET %s: %w", path, err)
			}
			return fmt.Errorf("GET %s: HTTP %d %.200s", path, a.status, a.body)
		}
		if !sleepCtx(ctx, time.Duration(attempt+1)*200*time.Millisecond) {
			return fmt.Errorf("GET %s: %w", path, ctx.Err())
		}
	}
}

// signupProgress writes a line of the sign-ups' progress at every
// interval until done.
func (r *lobbyRunner) signupProgress(done <-chan struct{}, start time.Time, total int) {
	t := time.NewTicker(r.cfg.ProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			r.mu.Lock()
			up, in := r.st.signedUp, r.st.signedIn
			r.mu.Unlock()
			n := up + in
			line := fmt.Sprintf("sign-ups %v: %s of %s accounts ready (%s new, %s signed in to)",
				now.Sub(start).Round(time.Second), group(int64(n)), group(int64(total)), group(int64(up)), group(int64(in)))
			if el := now.Sub(start).Seconds(); n > 0 && el > 0 {
				rate := float64(n) / el
				line += fmt.Sprintf(", %.1f a second, about %v left", rate,
					time.Duration(float64(total-n)/rate*float64(time.Second)).Round(time.Second))
			}
			io.WriteString(r.cfg.Progress, line+"\n")
		}
	}
}
