// Package memory keeps games in memory: play's Store for the games of one
// device in the browser's WebAssembly, where the page saves each change to
// IndexedDB (Saved) and hands back the games kept there (Put), and for
// tests that need a store and no database. It keeps the same promises as
// package store: a change is made only on the game as its caller saw it,
// and every read sees every change made before it.
package memory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// Store is a play.Store in memory. Its methods are safe for concurrent
// use.
type Store struct {
	// Clock dates new games and changes made without a time.
	Clock clock.Clock
	// IDPrefix starts the IDs of the games it makes, so that they are
	// told from another store's.
	IDPrefix string
	// Saved, when not nil, is told of every game created or changed, as
	// it is after the change, under the store's lock: it must not call
	// the store.
	Saved func(g *game.Game)

	mu      sync.Mutex
	games   map[string]*game.Game
	order   []string // IDs in the order created
	series  map[string]*game.Series
	imports map[string]string // import key → game ID
	owners  map[string]string // seat → account
}

// New returns an empty store on the system's clock.
func New() *Store {
	return &Store{Clock: clock.Real, games: map[string]*game.Game{}, series: map[string]*game.Series{},
		imports: map[string]string{}, owners: map[string]string{}}
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Store) now() time.Time { return s.Clock.Now().UTC().Truncate(time.Millisecond) }

// clone is a copy of g that shares nothing that changes.
func clone(g *game.Game) *game.Game {
	c := *g
	c.Moves = slices.Clone(g.Moves)
	if g.Online != nil {
		o := *g.Online
		c.Online = &o
	}
	if g.Computer != nil {
		cp := *g.Computer
		c.Computer = &cp
	}
	return &c
}

// Put keeps g as it is, under its ID and import key: a game the page
// kept, handed back. A game with the ID of one kept already replaces it.
func (s *Store) Put(g *game.Game) error {
	if g.ID == "" {
		return fmt.Errorf("keeping a game without an ID")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.games[g.ID]; !ok {
		s.order = append(s.order, g.ID)
	}
	s.games[g.ID] = clone(g)
	if g.ImportKey != "" {
		s.imports[g.ImportKey] = g.ID
	}
	if g.SeriesID != "" {
		sr := s.series[g.SeriesID]
		if sr == nil {
			sr = &game.Series{ID: g.SeriesID, Created: g.Created}
			s.series[g.SeriesID] = sr
		}
	}
	return nil
}

// PutSeries keeps series sr's ID, date and target (its games come with
// Put).
func (s *Store) PutSeries(sr *game.Series) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.series[sr.ID] = &game.Series{ID: sr.ID, Created: sr.Created, Target: sr.Target}
}

// Own records that account owns seat (a seat token's hash), as a store's
// claim of a seat does.
func (s *Store) Own(seat, account string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owners[seat] = account
}

// prepare names new game g and dates it, keeping the times it was given
// (an Updated not before its Created).
func (s *Store) prepare(g *game.Game) {
	g.ID = s.IDPrefix + newID()
	if g.Created.IsZero() {
		g.Created = s.now()
	}
	g.Created = g.Created.UTC().Truncate(time.Millisecond)
	if g.Updated.Before(g.Created) {
		g.Updated = g.Created
	}
	g.Updated = g.Updated.UTC().Truncate(time.Millisecond)
	if g.Result == "" {
		g.Result = "*"
	}
	if g.Online != nil {
		g.Online.Rev = 1
	}
}

// insert keeps new game g, or refuses it as a store would.
func (s *Store) insert(g *game.Game) error {
	if g.SeriesID != "" && s.series[g.SeriesID] == nil {
		return fmt.Errorf("series %s: %w", g.SeriesID, game.ErrNotFound)
	}
	if g.ImportKey != "" {
		if id, ok := s.imports[g.ImportKey]; ok {
			g.ID = id
			return fmt.Errorf("game with import key %q: %w as %s", g.ImportKey, game.ErrExists, id)
		}
		s.imports[g.ImportKey] = g.ID
	}
	s.games[g.ID] = clone(g)
	s.order = append(s.order, g.ID)
	if s.Saved != nil {
		s.Saved(clone(g))
	}
	return nil
}

// CreateGame implements play.Store.
func (s *Store) CreateGame(_ context.Context, g *game.Game) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prepare(g)
	return s.insert(g)
}

// CreateSeriesGame implements play.Store.
func (s *Store) CreateSeriesGame(_ context.Context, target int, g *game.Game) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prepare(g)
	g.SeriesID = s.IDPrefix + newID()
	s.series[g.SeriesID] = &game.Series{ID: g.SeriesID, Created: g.Created, Target: target}
	if err := s.insert(g); err != nil {
		delete(s.series, g.SeriesID)
		return err
	}
	return nil
}

// Update implements play.Store.
func (s *Store) Update(_ context.Context, id string, c game.Change) error {
	if c.From < 0 || c.From > c.Ply {
		return fmt.Errorf("changing game %s from move %d of %d: out of range", id, c.From, c.Ply)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	switch {
	case g == nil:
		return fmt.Errorf("game %s: %w", id, game.ErrNotFound)
	case len(g.Moves) != c.Ply:
		return fmt.Errorf("game %s has %d moves, not %d: %w", id, len(g.Moves), c.Ply, game.ErrConflict)
	case c.Online != nil && (g.Online == nil || g.Online.Rev != c.Rev):
		return fmt.Errorf("game %s has changed since revision %d: %w", id, c.Rev, game.ErrConflict)
	case c.Next != nil && c.Online == nil:
		return fmt.Errorf("changing game %s: a next game without the online state that names it", id)
	}
	n := clone(g)
	n.Moves = append(n.Moves[:c.From], c.Moves...)
	n.Result = c.Result
	n.Updated = s.now()
	if !c.At.IsZero() {
		n.Updated = c.At.UTC().Truncate(time.Millisecond)
	}
	if c.South != nil {
		n.South = *c.South
	}
	if c.North != nil {
		n.North = *c.North
	}
	if c.Online != nil {
		o := *c.Online
		o.Rev = c.Rev + 1
		n.Online = &o
	}
	if c.Next != nil {
		s.prepare(c.Next)
		n.Online.Next = c.Next.ID
		if err := s.insert(c.Next); err != nil {
			return err
		}
	}
	s.games[id] = n
	if c.Online != nil {
		c.Online.Rev = n.Online.Rev
		c.Online.Next = n.Online.Next
	}
	if s.Saved != nil {
		s.Saved(clone(n))
	}
	return nil
}

// Game implements play.Store.
func (s *Store) Game(_ context.Context, id string) (*game.Game, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil {
		return nil, fmt.Errorf("game %s: %w", id, game.ErrNotFound)
	}
	return clone(g), nil
}

// Games returns the summaries of the games kept, the latest changed first.
func (s *Store) Games() []game.Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]game.Summary, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, summary(s.games[id]))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out
}

// summary is g as a listing shows it.
func summary(g *game.Game) game.Summary {
	sm := game.Summary{ID: g.ID, Created: g.Created, Updated: g.Updated, South: g.South, North: g.North,
		Holes: g.Start.Holes(), Variant: g.Rules.Variant, Moves: len(g.Moves), Result: g.Result, SeriesID: g.SeriesID,
		ToMove: g.Start.ToMove()}
	if len(g.Moves)%2 == 1 {
		sm.ToMove = sm.ToMove.Opponent()
	}
	if g.Online != nil {
		sm.Online, sm.End = true, g.Online.End
	}
	return sm
}

// Series implements play.Store.
func (s *Store) Series(_ context.Context, id string) (*game.Series, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sr := s.series[id]
	if sr == nil {
		return nil, fmt.Errorf("series %s: %w", id, game.ErrNotFound)
	}
	out := &game.Series{ID: sr.ID, Created: sr.Created, Target: sr.Target}
	for _, gid := range s.order {
		if g := s.games[gid]; g.SeriesID == id {
			out.Games = append(out.Games, summary(g))
		}
	}
	sort.SliceStable(out.Games, func(i, j int) bool { return out.Games[i].Created.Before(out.Games[j].Created) })
	return out, nil
}

// SeatExists implements play.Store.
func (s *Store) SeatExists(_ context.Context, hash string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.games {
		if o := g.Online; o != nil && hash != "" && (o.Seats[rules.South] == hash || o.Seats[rules.North] == hash) {
			return true, nil
		}
	}
	return false, nil
}

// SeatOwners implements play.Store.
func (s *Store) SeatOwners(_ context.Context, seats []string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for _, seat := range seats {
		if a, ok := s.owners[seat]; ok {
			out[seat] = a
		}
	}
	return out, nil
}

// GameRatings implements play.Store: games kept in memory are not rated,
// and their seats are held by no account unless Own said so.
func (s *Store) GameRatings(_ context.Context, id string) (*game.GameRatings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil {
		return nil, fmt.Errorf("game %s: %w", id, game.ErrNotFound)
	}
	return &game.GameRatings{}, nil
}
