package loadtest

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync"

	"github.com/endodoi/endodoi/ratings"
)

// LobbyCheck is what the check after a lobby run found. Only faults fail
// it: a pairing not of two clients on two sides, a move lost or doubled,
// an end not as its clients saw it, a rating changed twice, not at all or
// for nothing, a rated pool's game not rated. A game still being played
// when the check reads it (cut off by the play-out's cap) is counted; its
// moves are checked, and its ratings need not have changed yet.
type LobbyCheck struct {
	Games, Rated, Histories int // games and rating histories read
	Moves                   int // stored moves checked
	ChangedOnce             int // players of rated games whose rating changed exactly once for it
	CutOff                  int // games still being played
	BadPairs                int // games not of two clients on two sides
	// MovesLost counts the moves a client saw that are not stored, or that
	// a later message replaced; MovesDoubled the stored moves no client
	// sent at their ply (a move applied twice, or made up).
	MovesLost, MovesDoubled int
	// RatingsMissing and RatingsDoubled count a rated game's players
	// whose rating did not change for it, or changed more than once.
	RatingsMissing, RatingsDoubled int
	Unexpected                     int // a rating changed for an unrated game, or for another
	Mismatched                     int // an end or a rating not as the game says
	Unrated                        int // games of a rated run that were not rated, though not aborted
	// Casual are the games of a rated run that the farming policy left
	// unrated: the same two players had played enough rated games.
	Casual   int
	Failures int // requests of the check that failed
	Problems []string
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
	return c.BadPairs+c.MovesLost+c.MovesDoubled+c.RatingsMissing+c.RatingsDoubled+c.Unexpected+c.Mismatched+
		c.Unrated+c.Failures > 0
}

func (c *LobbyCheck) String() string {
	verdict := "ok"
	if c.Failed() {
		verdict = "FAILED"
	}
	return fmt.Sprintf("%s: %s games (%s rated, %s casual by the farming policy, %s still being played: cut off), %s moves, %s rating histories, "+
		"%s ratings changed once for their game; %d bad pairs, %d moves lost, %d moves doubled, "+
		"%d ratings unchanged, %d changed twice, %d unexpected, %d mismatched, %d unrated, %d failed requests",
		verdict, group(int64(c.Games)), group(int64(c.Rated)), group(int64(c.Casual)), group(int64(c.CutOff)), group(int64(c.Moves)),
		group(int64(c.Histories)), group(int64(c.ChangedOnce)), c.BadPairs, c.MovesLost, c.MovesDoubled,
		c.RatingsMissing, c.RatingsDoubled, c.Unexpected, c.Mismatched, c.Unrated, c.Failures)
}

// checkedGame is a game as its clients saw it, and as the server has it.
type checkedGame struct {
	id       string
	pairs    []pairing
	seen     []string
	sent     map[int][]sentMove
	replaced int
	firstRep string
	ends     []string // the statuses its clients saw it end with
	stored   *lobbyGame
}

// check reads every game the clients were paired into and compares it
// with what they saw and sent, then reads each player's rating history
// and compares it with the games.
func (r *lobbyRunner) check(ctx context.Context, players []*lobbyPlayer) *LobbyCheck {
	c := &LobbyCheck{}
	ends := endsByGame(players)
	r.mu.Lock()
	games := make(map[string]*checkedGame, len(r.games))
	for id, g := range r.games {
		g.mu.Lock()
		sent := make(map[int][]sentMove, len(g.sent))
		for k, v := range g.sent {
			sent[k] = slices.Clone(v)
		}
		games[id] = &checkedGame{id: id, pairs: slices.Clone(g.players), seen: slices.Clone(g.seen), sent: sent,
			replaced: g.replaced, firstRep: g.firstReplaced, ends: ends[id]}
		g.mu.Unlock()
	}
	r.mu.Unlock()

	var mu sync.Mutex
	r.each(ctx, func(do func(func())) {
		for _, g := range games {
			do(func() {
				var gv lobbyGame
				err := r.get(ctx, "/api/games/"+url.PathEscape(g.id), &gv)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					c.Failures++
					c.problem("%v", err)
					return
				}
				g.stored = &gv
				r.checkGame(c, g)
			})
		}
	})
	r.checkRated(c, games)
	r.each(ctx, func(do func(func())) {
		for _, p := range players {
			p.mu.Lock()
			mine := slices.Clone(p.games)
			p.mu.Unlock()
			if len(mine) == 0 {
				continue
			}
			do(func() {
				var h ratingPoints
				err := r.get(ctx, r.historyPath(p.name), &h)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					c.Failures++
					c.problem("%v", err)
					return
				}
				c.Histories++
				r.checkHistory(c, p, mine, h, games)
			})
		}
	})
	return c
}

// each calls list with a function that runs its argument in one of
// checkWorkers goroutines, and waits for them.
func (r *lobbyRunner) each(ctx context.Context, list func(do func(func()))) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, checkWorkers)
	list(func(f func()) {
		if ctx.Err() != nil {
			return
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f()
		})
	})
	wg.Wait()
}

// checkGame compares a stored game with its clients' pairings, the moves
// they saw and sent, and the end they saw.
func (r *lobbyRunner) checkGame(c *LobbyCheck, g *checkedGame) {
	c.Games++
	gv := g.stored
	pairs := g.pairs
	if len(pairs) != 2 || pairs[0].client == pairs[1].client || pairs[0].side == pairs[1].side ||
		!(pairs[0].side == "s" || pairs[0].side == "n") || !(pairs[1].side == "s" || pairs[1].side == "n") {
		c.BadPairs++
		c.problem("game %s paired %v", g.id, pairs)
	}
	// Every move a client saw is stored, in order.
	same := 0
	for same < len(g.seen) && same < len(gv.Moves) && g.seen[same] == gv.Moves[same] {
		same++
	}
	if lost := len(g.seen) - same + g.replaced; lost > 0 {
		c.MovesLost += lost
		if g.replaced > 0 {
			c.problem("%s", g.firstRep)
		} else {
			c.problem("game %s: %d moves seen, the first %d of them stored (%d stored)", g.id, len(g.seen), same, len(gv.Moves))
		}
	}
	// Every stored move was sent by a client at its ply.
	c.Moves += len(gv.Moves)
	for ply, mv := range gv.Moves {
		if !slices.ContainsFunc(g.sent[ply], func(m sentMove) bool { return m.move == mv }) {
			c.MovesDoubled++
			what := "no client sent it there"
			if ply > 0 && gv.Moves[ply-1] == mv {
				what += ": the move before, applied twice?"
			}
			c.problem("game %s: move %s at ply %d: %s", g.id, mv, ply, what)
		}
	}
	over := gv.Status != "playing"
	switch {
	case !over:
		c.CutOff++
		if len(g.ends) > 0 {
			c.Mismatched++
			c.problem("game %s: its clients saw it end as %v, the server has it still being played", g.id, g.ends)
		}
	case len(g.ends) == 2 && (g.ends[0] != gv.Status || g.ends[1] != gv.Status),
		len(g.ends) == 1 && g.ends[0] != gv.Status:
		c.Mismatched++
		c.problem("game %s: stored as %s, its clients saw %v", g.id, gv.Status, g.ends)
	}
	if over && gv.Status != "aborted" && gv.Rated {
		c.Rated++
	}
}

// checkRated counts the games of a rated run that ended unrated, though
// not aborted: a failure unless the farming policy made them casual, the
// same two players having played enough rated games in the window before
// (package ratings). The games are those of this run; a reused account's
// earlier games are not counted.
func (r *lobbyRunner) checkRated(c *LobbyCheck, games map[string]*checkedGame) {
	if !r.cfg.Rated {
		return
	}
	byPair := map[[2]int][]*checkedGame{}
	for _, g := range games {
		gv := g.stored
		if gv == nil || gv.Status == "playing" || gv.Status == "aborted" || len(g.pairs) != 2 {
			continue
		}
		pair := [2]int{min(g.pairs[0].client, g.pairs[1].client), max(g.pairs[0].client, g.pairs[1].client)}
		byPair[pair] = append(byPair[pair], g)
	}
	for _, list := range byPair {
		slices.SortFunc(list, func(a, b *checkedGame) int { return a.stored.Updated.Compare(b.stored.Updated) })
		for i, g := range list {
			if g.stored.Rated {
				continue
			}
			rated := 0
			for _, e := range list[:i] {
				if e.stored.Rated && g.stored.Updated.Sub(e.stored.Updated) < ratings.FarmWindow {
					rated++
				}
			}
			if ratings.Weight(rated+1) == 0 {
				c.Casual++
				continue
			}
			c.Unrated++
			c.problem("game %s of a rated pool, ended %s, is not rated", g.id, g.stored.Status)
		}
	}
}

// ratingPoints is a rating history as the API gives it.
type ratingPoints struct {
	Points []struct {
		Rating float64 `json:"rating"`
		Game   string  `json:"game"`
	} `json:"points"`
}

// checkHistory compares the points of p's rating history that are not
// from before the run with the games p was paired into.
func (r *lobbyRunner) checkHistory(c *LobbyCheck, p *lobbyPlayer, mine []playerGame, h ratingPoints, games map[string]*checkedGame) {
	n := map[string]int{}
	after := map[string]float64{}
	for _, pt := range h.Points {
		if p.before[pt.Game] {
			continue
		}
		n[pt.Game]++
		after[pt.Game] = pt.Rating
		if !slices.ContainsFunc(mine, func(g playerGame) bool { return g.id == pt.Game }) {
			c.Unexpected++
			c.problem("%s's rating changed for game %q, not one it played", p.name, pt.Game)
		}
	}
	for _, pg := range mine {
		g := games[pg.id]
		if g == nil || g.stored == nil {
			continue // not read: a failure counted already
		}
		gv := g.stored
		switch k := n[pg.id]; {
		case gv.Status == "playing":
			// Cut off: it may have ended after it was read, once.
			if k > 1 {
				c.RatingsDoubled++
				c.problem("%s's rating changed %d times for game %s", p.name, k, pg.id)
			}
		case !gv.Rated || gv.Status == "aborted":
			if k > 0 {
				c.Unexpected++
				c.problem("%s's rating changed %d times for game %s, which is not rated (%s)", p.name, k, pg.id, gv.Status)
			}
		case k == 0:
			c.RatingsMissing++
			c.problem("%s's rating did not change for rated game %s", p.name, pg.id)
		case k > 1:
			c.RatingsDoubled++
			c.problem("%s's rating changed %d times for game %s", p.name, k, pg.id)
		default:
			c.ChangedOnce++
			if ch, ok := gv.RatingChange[pg.side]; !ok || abs(float64(ch.After)-after[pg.id]) > 1 {
				c.Mismatched++
				c.problem("%s's rating after game %s: %v in its history, the game says %+v", p.name, pg.id, after[pg.id], gv.RatingChange)
			}
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
