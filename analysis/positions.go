package analysis

// The site's engine does not analyse the position of an online game being
// played, nor any position a move or two from it: a player could otherwise
// consult it in the middle of their own game, by asking about the position
// itself or about each of its children (the scores of the positions after
// each move rank the moves) or grandchildren. Each instance keeps, in
// memory, the position of every online game in play past its opening
// (LivePly) and the positions within nearPlies of it: from its own changes
// (every change is noted: Note), from the games it loads
// when it starts, and from the other instances' notices, which carry the
// position after each change. A notice lost on the way (the listener
// reconnecting) leaves a game's entry stale until its next change. The
// positions near a game's are worked out when the engine next asks, not
// at each move: only the latest position of each game is ever needed, and
// moves come far more often than questions.
//
// Every search of the engine asks first (withEngine), and so does every
// entry point that would show the engine's or the endgame databases' view
// of a position: an analysis, a hint, the computer's move, a review, and
// (through Check) the analysis board's position.

import (
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
)

// LivePly is the first ply whose position is kept: the positions of the
// first moves are shared by many games, and the opening book knows them.
const LivePly = 4

// Positions maps the games in play to their positions, and counts the
// games within nearPlies of each position.
type Positions struct {
	mu     sync.Mutex
	byGame map[string]liveEntry
	count  map[uint64]int32 // games near each position, by nearHash
	// due are the games whose entries' near positions are not counted
	// yet: counted at the next check.
	due map[string]struct{}
}

// liveEntry is a game's position: its key, as the notices carry it, the
// hashes of the positions near it, each once, counted, and the game's
// revision then: an older one does not replace it. Until counted, near is
// nil and the position is pos under rules, or, from a notice, the key's
// under a lap cap of laps.
type liveEntry struct {
	key   string
	near  []uint64
	rev   int64
	pos   rules.Position
	rules rules.Rules
	parse bool // pos is to be read from the key
	laps  int
}

// positionKey names what the engine would be asked about in p under r:
// the seeds in the holes from the side to move's view and the variant.
// The captured seeds are left out, and the board is seen from the mover,
// so that neither changing them nor mirroring the board makes another key.
// The notices carry it (parseKey reads it back).
func positionKey(p rules.Position, r rules.Rules) string {
	// Built on the stack, one allocation: the string. It is made at every
	// move of every online game.
	var buf [256]byte
	b := append(buf[:0], r.Variant.String()...)
	seeds, n := p.Board(), p.Holes()
	for _, side := range [2]rules.Side{p.ToMove(), p.ToMove().Opponent()} {
		b = append(b, '/')
		row := seeds[int(side&1)*n : int(side&1)*n+n]
		for i, k := range row {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendUint(b, uint64(k), 10)
		}
	}
	return string(b)
}

// parseKey reads a key of positionKey back: the position, its side to
// move South, no seeds captured, and the variant.
func parseKey(key string) (rules.Position, rules.Variant, bool) {
	parts := strings.Split(key, "/")
	if len(parts) != 3 {
		return rules.Position{}, 0, false
	}
	v, err := rules.ParseVariant(parts[0])
	if err != nil {
		return rules.Position{}, 0, false
	}
	var rows [2][]int
	for i, text := range parts[1:] {
		for f := range strings.SplitSeq(text, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				return rules.Position{}, 0, false
			}
			rows[i] = append(rows[i], n)
		}
	}
	p, err := rules.NewPositionFromRows(rows[0], rows[1], rules.South, 0, 0)
	return p, v, err == nil
}

// LiveKey is the key of board's position if it is to be kept: that of an
// online game in play past its opening; "" otherwise.
func LiveKey(board *rules.Game) string {
	if board == nil || board.Over() || board.Ply() < LivePly {
		return ""
	}
	return positionKey(board.Position(), board.Rules())
}

// nearPlies is how far from a game's position the refusal reaches: the
// position, its children and its grandchildren.
const nearPlies = 2

// nearKey is a position as the refusal compares them (positionKey's
// terms): the variant, and the seeds of the mover's row then the other's.
type nearKey struct {
	variant rules.Variant
	holes   uint8
	seeds   [2 * rules.MaxHoles]uint16
}

// nearSeed seeds the hashes of nearKey: they are kept in this instance's
// memory only.
var nearSeed = maphash.MakeSeed()

// nearHash is the hash of p's nearKey under variant v.
func nearHash(p *rules.Position, v rules.Variant) uint64 {
	n := p.Holes()
	k := nearKey{variant: v, holes: uint8(n), seeds: p.Board()}
	if p.ToMove() == rules.North {
		var south [rules.MaxHoles]uint16
		copy(south[:n], k.seeds[:n])
		copy(k.seeds[:n], k.seeds[n:2*n])
		copy(k.seeds[n:2*n], south[:n])
	}
	return maphash.Comparable(nearSeed, k)
}

// nearHashes returns the hashes of p and of every position nearPlies moves
// or fewer from it under r, each once.
func nearHashes(p rules.Position, r rules.Rules) []uint64 {
	out := []uint64{nearHash(&p, r.Variant)}
	from := []rules.Position{p}
	var next []rules.Position
	var q rules.Position
	for ply := range nearPlies {
		next = next[:0]
		for i := range from {
			f := &from[i]
			for j := range f.Holes() {
				if f.PlayTo(&q, rules.NewMove(f.ToMove(), j), r) != nil {
					continue
				}
				out = append(out, nearHash(&q, r.Variant))
				if ply < nearPlies-1 {
					next = append(next, q)
				}
			}
		}
		from, next = next, from
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Note records game g's position as it is now.
func (lp *Positions) Note(g *play.Game) {
	var e liveEntry
	if o := g.Online(); o != nil {
		e.rev = o.Rev
		if _, free := play.FreeSeat(o); !free && !g.Over() {
			if b := g.Board(); b != nil {
				if e.key = LiveKey(b); e.key != "" {
					e.pos, e.rules = b.Position(), b.Rules()
				}
			}
		}
	}
	lp.put(g.ID(), e)
}

// Set records the position of game id at revision rev from its key and
// its rules' lap cap (0 for the default), as another instance's notice
// tells them; "" forgets it.
func (lp *Positions) Set(id, key string, laps int, rev int64) {
	lp.mu.Lock()
	old, had := lp.byGame[id]
	lp.mu.Unlock()
	if had && old.rev > rev || !had && key == "" {
		return
	}
	lp.put(id, liveEntry{rev: rev, key: key, parse: true, laps: laps})
}

// put makes e game id's entry, unless the entry has a later revision; an
// entry without a key forgets the game.
func (lp *Positions) put(id string, e liveEntry) {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	old, had := lp.byGame[id]
	switch {
	case had && old.rev > e.rev:
		return
	case had && old.key == e.key:
		old.rev = e.rev
		lp.byGame[id] = old
		return
	}
	if had {
		for _, h := range old.near {
			if lp.count[h]--; lp.count[h] <= 0 {
				delete(lp.count, h)
			}
		}
		delete(lp.byGame, id)
		delete(lp.due, id)
	}
	if e.key == "" {
		return
	}
	if lp.byGame == nil {
		lp.byGame, lp.count, lp.due = map[string]liveEntry{}, map[uint64]int32{}, map[string]struct{}{}
	}
	e.near = nil
	lp.byGame[id] = e
	lp.due[id] = struct{}{}
}

// countDueLocked counts the positions near the games' positions noted
// since the last check; lp.mu is held.
func (lp *Positions) countDueLocked() {
	for id := range lp.due {
		e := lp.byGame[id]
		p, r := e.pos, e.rules
		if e.parse {
			var v rules.Variant
			var ok bool
			if p, v, ok = parseKey(e.key); !ok {
				delete(lp.byGame, id) // a key of another version: nothing to count
				continue
			}
			r = rules.Rules{Variant: v, MaxLaps: e.laps}
		}
		e.near = nearHashes(p, r)
		for _, h := range e.near {
			lp.count[h]++
		}
		lp.byGame[id] = e
	}
	clear(lp.due)
}

// Check refuses to search p under r while an online game is being played
// from it, or from a position a move or two before it.
func (lp *Positions) Check(p rules.Position, r rules.Rules) error {
	h := nearHash(&p, r.Variant)
	lp.mu.Lock()
	lp.countDueLocked()
	n := lp.count[h]
	lp.mu.Unlock()
	if n > 0 {
		return api.Errorf(api.StatusConflict, "an online game is being played at this position, or a move or two from it, right now: the engine does not analyse it until the game has moved on")
	}
	return nil
}

// CheckGame refuses a game with a position that Check refuses.
func (lp *Positions) CheckGame(b *rules.Game) error {
	for i := 0; i <= b.Ply(); i++ {
		if err := lp.Check(b.PositionAt(i), b.Rules()); err != nil {
			return err
		}
	}
	return nil
}
