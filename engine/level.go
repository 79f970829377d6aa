package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// Levels for people: 1 plays like a beginner, MaxLevel at full strength
// within a time budget.
const (
	MinLevel = 1
	MaxLevel = 10
)

// LevelSetting is how the engine plays at one level: it searches every
// move to Depth (or for MoveTime) and, when Noise is not zero, adds to each
// move's score a random amount of up to Noise either way before choosing,
// so weaker levels miss the best move more often the closer the
// alternatives are.
type LevelSetting struct {
	Depth    int
	MoveTime time.Duration
	Noise    Score
}

// levels are the settings of levels 1 to 10; docs/strength.md has the
// measured results of each against the one below.
var levels = [MaxLevel + 1]LevelSetting{
	1:  {Depth: 1, Noise: 10 * Seed},
	2:  {Depth: 1, Noise: 2 * Seed},
	3:  {Depth: 2},
	4:  {Depth: 3},
	5:  {Depth: 4},
	6:  {Depth: 6},
	7:  {Depth: 8},
	8:  {Depth: 10},
	9:  {MoveTime: 100 * time.Millisecond},
	10: {MoveTime: time.Second},
}

// Level returns the setting of a level from MinLevel to MaxLevel.
func Level(level int) (LevelSetting, error) {
	if level < MinLevel || level > MaxLevel {
		return LevelSetting{}, fmt.Errorf("level %d out of range (%d to %d)", level, MinLevel, MaxLevel)
	}
	return levels[level], nil
}

// Limits returns the search limits of the setting.
func (l LevelSetting) Limits() Limits { return Limits{Depth: l.Depth, MoveTime: l.MoveTime} }

// PlayLevel chooses a move for p at the given level. rng supplies the
// level's randomness; it may be nil for levels without noise. The result's
// Move is rules.NoMove when the side to move has no legal move.
func (e *Engine) PlayLevel(ctx context.Context, p rules.Position, history []rules.Position, level int, rng *rand.Rand) (Result, error) {
	setting, err := Level(level)
	if err != nil {
		return Result{}, err
	}
	if setting.Noise == 0 {
		return e.Search(ctx, p, history, setting.Limits(), nil)
	}
	if rng == nil {
		return Result{}, fmt.Errorf("engine: level %d needs a random source", level)
	}
	start := time.Now()
	lines, err := e.Analyze(ctx, p, history, setting.Limits(), nil)
	if err != nil || len(lines) == 0 {
		return Result{Move: rules.NoMove}, err
	}
	best, bestScore := 0, -Infinity
	for i, l := range lines {
		noisy := l.Score + Score(rng.Int64N(int64(2*setting.Noise+1))) - setting.Noise
		if noisy > bestScore {
			best, bestScore = i, noisy
		}
	}
	l := lines[best]
	return Result{Move: l.Move, Info: Info{Depth: setting.Depth, Score: l.Score, Exact: l.Exact, PV: l.PV, Elapsed: time.Since(start)}}, nil
}
