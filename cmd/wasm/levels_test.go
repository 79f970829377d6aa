package main

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/clock"
)

// TestBrowserLevels checks the browser's settings of the deep levels: each
// has a time cap that keeps it within 2 s with room for the page, and
// searches at least as deep and as long as the level below, so that the
// levels' order of strength stays; the lower levels are the server's.
func TestBrowserLevels(t *testing.T) {
	const budget = 1500 * time.Millisecond
	deeper := func(a, b int) bool { return a == 0 || (b != 0 && a >= b) } // 0: no limit
	prev := engine.Limits{Depth: 8}                                       // level 7's depth
	if s, err := engine.Level(7); err != nil || s.Depth != prev.Depth || s.MoveTime != 0 {
		t.Fatalf("level 7 is %+v (%v): the browser's levels start from its depth 8", s, err)
	}
	for level := 8; level <= engine.MaxLevel; level++ {
		lim, ok := browserLevels[level]
		if !ok {
			t.Fatalf("level %d has no browser setting", level)
		}
		if lim.MoveTime <= 0 || lim.MoveTime > budget {
			t.Errorf("level %d: time cap %v, want one up to %v", level, lim.MoveTime, budget)
		}
		if !deeper(lim.Depth, prev.Depth) || (prev.MoveTime != 0 && lim.MoveTime < prev.MoveTime) {
			t.Errorf("level %d (%+v) searches less than the level below (%+v)", level, lim, prev)
		}
		prev = lim
	}
	if s, _ := engine.Level(8); browserLevels[8].Depth != s.Depth {
		t.Errorf("level 8 searches to depth %d in the browser, %d on the server", browserLevels[8].Depth, s.Depth)
	}
	// Each answers a move through the API.
	h := newHandler(clock.Real)
	for level := 8; level <= engine.MaxLevel; level++ {
		var got searchView
		in := `{"op":"search","position":"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0","level":` + strconv.Itoa(level) + `}`
		if err := json.Unmarshal(h.handle(context.Background(), []byte(in)), &got); err != nil || got.Move == "" {
			t.Errorf("level %d: %+v, %v", level, got, err)
		}
	}
}
