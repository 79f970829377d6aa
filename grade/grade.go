// Package grade grades the moves of a game against the engine's best: the
// seeds each move lost, its label (best, good, inaccuracy, mistake,
// blunder), its accuracy, each player's accuracy, the evaluation after
// every ply, and the best line from each position, played on far enough to
// show what it wins. The exact values of the endgame databases and the
// opening book of proven values are taken wherever they hold a position.
//
// A review depends on the game, the node budget and the databases alone:
// every search starts from an empty table, so the browser game's review
// (package server) and the endodoi review command give the same figures.
package grade

import "math"

// DefaultNodes is the search budget of each position a review grades: a
// node limit, not a time limit, so that a review comes out the same on any
// machine and under any load.
const DefaultNodes = 100_000

// The labels of a move by the seeds it lost against the best move, from
// its mover's view: best (nothing lost), good (less than one seed), and
// from these losses on an inaccuracy, a mistake, a blunder.
const (
	Inaccuracy = 1.0
	Mistake    = 3.0
	Blunder    = 6.0
)

// HalfLoss is the loss, in seeds, that halves a move's accuracy: a move's
// accuracy is 100 * 2^(-loss/HalfLoss) percent.
const HalfLoss = 4.0

// Version changes whenever the review's method or form does: a stored
// review of another version is made again.
const Version = 2

// A best line goes on at least LineMin plies and until a capture in it, at
// most LineMax plies, or to the end of the game: long enough to see what
// the best move wins. A search's line can be a single move (an exact value
// from the databases or the book, or a proof found early).
const (
	LineMin = 6
	LineMax = 16
)

// Review is a graded game, in the form the server stores and serves
// (docs/api.md, "Review").
type Review struct {
	Version int    `json:"version"`
	Nodes   uint64 `json:"nodes"` // the search budget of each position
	// Thresholds are the losses, in seeds, from which a move is an
	// inaccuracy, a mistake and a blunder; below the first it is good (or
	// best, when it lost nothing).
	Thresholds Thresholds `json:"thresholds"`
	HalfLoss   float64    `json:"halfLoss"` // the loss that halves a move's accuracy
	Plies      []Ply      `json:"plies"`
	// Evaluation is the expected final margin from South's view at the
	// start (index 0) and after each ply.
	Evaluation []Eval            `json:"evaluation"`
	Players    map[string]Player `json:"players"` // by side, "s" and "n"
}

// Thresholds are the losses from which a move is labelled worse than good.
type Thresholds struct {
	Inaccuracy float64 `json:"inaccuracy"`
	Mistake    float64 `json:"mistake"`
	Blunder    float64 `json:"blunder"`
}

// Eval is an expected final margin, in seeds, from South's view.
type Eval struct {
	South float64 `json:"south"`
	Exact bool    `json:"exact"`
}

// Ply grades one move. The scores are from the mover's view, in seeds:
// what the move captures plus the future capture margin after it.
type Ply struct {
	Ply       int      `json:"ply"` // 1 for the first move
	Side      string   `json:"side"`
	Move      string   `json:"move"`
	Best      string   `json:"best"`
	BestScore float64  `json:"bestScore"`
	BestExact bool     `json:"bestExact"`
	Score     float64  `json:"score"` // the move played
	Exact     bool     `json:"exact"`
	Loss      float64  `json:"loss"` // bestScore - score, never below 0
	Label     string   `json:"label"`
	Forced    bool     `json:"forced"` // the only legal move
	Depth     int      `json:"depth"`  // of the search that found the best move
	PV        []string `json:"pv"`     // the best line from the position before the move
	// PVPositions are the positions after each move of PV, so that the
	// page can show the line without playing the rules itself.
	PVPositions []string `json:"pvPositions"`
}

// Player sums up one side's moves.
type Player struct {
	Moves int `json:"moves"`
	// Accuracy is the mean of the accuracies of the player's moves that
	// were not forced, in percent, to a tenth; nil when every move was
	// forced.
	Accuracy *float64       `json:"accuracy"`
	MeanLoss float64        `json:"meanLoss"` // seeds lost a move, forced moves left out
	Counts   map[string]int `json:"counts"`   // moves by label
}

// Labels are the labels, best first.
var Labels = []string{"best", "good", "inaccuracy", "mistake", "blunder"}

// Label is the label of a move that lost loss seeds.
func Label(loss float64) string {
	switch {
	case loss <= 0:
		return "best"
	case loss < Inaccuracy:
		return "good"
	case loss < Mistake:
		return "inaccuracy"
	case loss < Blunder:
		return "mistake"
	}
	return "blunder"
}

// Accuracy is the accuracy of a move that lost loss seeds, in percent.
func Accuracy(loss float64) float64 {
	return 100 * math.Exp2(-loss/HalfLoss)
}

// Players sums up each side's moves, by side letter ("s" and "n").
func Players(plies []Ply) map[string]Player {
	out := map[string]Player{}
	for _, side := range []string{"s", "n"} {
		pl := Player{Counts: map[string]int{}}
		for _, l := range Labels {
			pl.Counts[l] = 0
		}
		var acc, loss float64
		graded := 0
		for _, p := range plies {
			if p.Side != side {
				continue
			}
			pl.Moves++
			pl.Counts[p.Label]++
			if p.Forced {
				continue
			}
			graded++
			acc += Accuracy(p.Loss)
			loss += p.Loss
		}
		if graded > 0 {
			a := math.Round(acc/float64(graded)*10) / 10
			pl.Accuracy = &a
			pl.MeanLoss = round2(loss / float64(graded))
		}
		out[side] = pl
	}
	return out
}

// round2 rounds x to hundredths, the unit of the engine's scores.
func round2(x float64) float64 { return math.Round(x*100) / 100 }
