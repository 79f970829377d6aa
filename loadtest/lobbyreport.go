package loadtest

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
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
	PlayOut     time.Duration // the cap of the games' play-out after Duration
	Names       string        // the accounts' names' prefix

	SignedUp      int // new accounts
	SignedIn      int // accounts of an earlier run, signed in to
	SignupTime    time.Duration
	SignupLatency Latency
	Started       bool          // every client had its account, and the clock started
	Elapsed       time.Duration // from the start of the clock to the end of the last game
	Capped        bool          // the play-out's cap ended the run
	Joined        int           // joins the server accepted
	Paired        int           // pairings the clients waited for and took
	// PairedTwice counts the pairings a client did not wait for (a
	// second one for one join, one while it played or after it left): a
	// fault.
	PairedTwice int
	// Listed counts the pairings a client found by listing its games,
	// their message not come (it went to a lobby connection that dropped,
	// or was late).
	Listed    int
	PairDelay Latency // join → paired
	Games     int     // games the pairings made
	Finished  int     // games both clients saw end
	// CutOff counts the games still being played when the play-out's cap
	// came: counted, not a failure.
	CutOff int
	// Left counts the clients that waited in the pool alone once the
	// duration was over, and left it; WaitingAtEnd those still waiting
	// when the cap came.
	Left, WaitingAtEnd int
	Ends               map[string]int
	Raced              int   // games whose end was raced (the resigns sent)
	Moves              int64 // moves sent
	Refused            int64 // moves and resigns the server refused (409 in a race or on a stale view)
	MoveLatency        Latency
	Reconnects         int64 // game connections opened again
	Syncs              int64 // games asked for again after a move message that did not follow
	Errors             map[string]int
	FirstErrors        map[string]string
	Disconnects        map[string]int // dropped connections and failed dials, which the clients got over
	FirstDisconns      map[string]string
	Interrupted        bool
	Check              *LobbyCheck
}

// fill copies the run's figures into the report.
func (rep *LobbyReport) fill(r *lobbyRunner, players []*lobbyPlayer) {
	ended := endsByGame(players)
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &r.st
	rep.SignedUp, rep.SignedIn, rep.SignupLatency = s.signedUp, s.signedIn, summarize(s.signupLat)
	rep.Joined, rep.Paired, rep.PairedTwice, rep.Listed = s.joined, s.paired, s.pairedTwice, s.listed
	rep.Left = s.left
	rep.PairDelay, rep.MoveLatency = summarize(s.pairDelay), summarize(s.moveLat)
	rep.Raced, rep.Moves, rep.Refused, rep.Reconnects, rep.Syncs = s.raced, s.moves, s.refused, s.reconnects, s.syncs
	rep.Errors, rep.FirstErrors = s.errors, s.firstErr
	rep.Disconnects, rep.FirstDisconns = s.disconnects, s.firstDisc
	rep.Games = len(r.games)
	rep.Ends = map[string]int{}
	for id := range r.games {
		if st := ended[id]; len(st) == 2 {
			rep.Finished++
			rep.Ends[st[0]]++
		} else {
			rep.CutOff++
		}
	}
}

// endsByGame returns, by game, the statuses its clients saw it end with.
func endsByGame(players []*lobbyPlayer) map[string][]string {
	ends := map[string][]string{}
	for _, p := range players {
		p.mu.Lock()
		for g, status := range p.results {
			ends[g] = append(ends[g], status)
		}
		p.mu.Unlock()
	}
	return ends
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
// without an account, a pairing no client waited for, no game at all, a
// failed check. Games cut off by the play-out's cap and clients left
// waiting are counted, not failures.
func (rep *LobbyReport) Err() error {
	var problems []string
	if rep.Interrupted {
		problems = append(problems, "interrupted")
	}
	if n := rep.ErrorCount(); n > 0 {
		problems = append(problems, fmt.Sprintf("%d errors", n))
	}
	if n := rep.SignedUp + rep.SignedIn; n < rep.Clients {
		problems = append(problems, fmt.Sprintf("%d of %d clients signed up", n, rep.Clients))
	} else if rep.Games == 0 && !rep.Interrupted {
		problems = append(problems, "no game was made")
	}
	if rep.PairedTwice > 0 {
		problems = append(problems, fmt.Sprintf("%d pairings no client waited for", rep.PairedTwice))
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
	fmt.Fprintf(&b, "  accounts        %s of %s in %.1f s, before the clock (%s new, %s of an earlier run signed in to; %s-*), latency %v\n",
		group(int64(rep.SignedUp+rep.SignedIn)), group(int64(rep.Clients)), rep.SignupTime.Seconds(),
		group(int64(rep.SignedUp)), group(int64(rep.SignedIn)), rep.Names, rep.SignupLatency)
	if !rep.Started {
		fmt.Fprintf(&b, "  the clock did not start: not every client has its account\n")
		writeErrors(&b, "errors", rep.Errors, rep.FirstErrors)
		writeErrors(&b, "disconnects", rep.Disconnects, rep.FirstDisconns)
		if rep.Interrupted {
			fmt.Fprintf(&b, "  interrupted\n")
		}
		n, err := io.WriteString(w, b.String())
		return int64(n), err
	}
	out := rep.Elapsed - rep.Duration
	if rep.Elapsed < rep.Duration {
		out = 0
	}
	capped := ""
	if rep.Capped {
		capped = ", the cap reached"
	}
	fmt.Fprintf(&b, "  elapsed         %.1f s: %v of joins and games, then %.1f s playing out the games under way (cap %v%s)\n",
		rep.Elapsed.Seconds(), rep.Duration, out.Seconds(), rep.PlayOut, capped)
	fmt.Fprintf(&b, "  pairing         %s joins, %s paired (%s found by listing the games), %s not waited for; join → paired %v\n",
		group(int64(rep.Joined)), group(int64(rep.Paired)), group(int64(rep.Listed)), group(int64(rep.PairedTwice)), rep.PairDelay)
	if rep.Left > 0 || rep.WaitingAtEnd > 0 {
		fmt.Fprintf(&b, "                  %s left the pool alone at the end, %s still waiting when the cap came\n",
			group(int64(rep.Left)), group(int64(rep.WaitingAtEnd)))
	}
	ends := make([]string, 0, len(rep.Ends))
	for k, n := range rep.Ends {
		ends = append(ends, fmt.Sprintf("%s × %d", k, n))
	}
	slices.Sort(ends)
	endings := ""
	if len(ends) > 0 {
		endings = " (" + strings.Join(ends, ", ") + ")"
	}
	fmt.Fprintf(&b, "  games           %s made, %s played to the end%s, %s cut off by the cap, %s ends raced\n",
		group(int64(rep.Games)), group(int64(rep.Finished)), endings, group(int64(rep.CutOff)), group(int64(rep.Raced)))
	fmt.Fprintf(&b, "  moves           %s sent, %s refused (races, stale views), %s reconnections, %s games asked for again\n",
		group(rep.Moves), group(rep.Refused), group(rep.Reconnects), group(rep.Syncs))
	fmt.Fprintf(&b, "  move latency    %v (sending → the opponent's connection)\n", rep.MoveLatency)
	writeErrors(&b, "errors", rep.Errors, rep.FirstErrors)
	writeErrors(&b, "disconnects", rep.Disconnects, rep.FirstDisconns)
	if rep.Interrupted {
		fmt.Fprintf(&b, "  interrupted: no check\n")
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
			line := fmt.Sprintf("%v: %d joined, %d paired, %d finished (players), %d moves, %d reconnections, %d errors; "+
				"games under way %d, players waiting %d",
				now.Sub(start).Round(time.Second), s.joined, s.paired, s.finished, s.moves, s.reconnects, errs,
				len(r.games)-s.gamesEnded, r.waiting.Load())
			r.mu.Unlock()
			if r.durationOver() {
				line += " (playing out)"
			}
			io.WriteString(r.cfg.Progress, line+"\n")
		}
	}
}
