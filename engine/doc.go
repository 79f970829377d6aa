// Package engine searches En Dodoi positions for the best move: an
// iterative-deepening alpha-beta search (negamax with principal-variation
// search and aspiration windows) over a shared transposition table keyed by
// a hash of the packed board, with optional parallel helper threads that
// share the table and put off the moves another thread is searching (lazy
// SMP with simplified ABDADA).
//
// Scores are future capture margins in seeds from the side to move's view:
// how many more seeds the side to move can expect to capture than its
// opponent from here to the end of the game, the end-of-game sweep
// included. A score is exact when the search reached every game end that
// decides it; otherwise it rests on the evaluation function.
//
// The repetition rule is applied as written: a position that occurs for the
// third time, counting the game's history and the search path, ends the
// game and scores 0, since the seeds then left on the board count for
// neither player. Until then play goes on, so a player who gains by leaving
// a cycle can still leave it.
package engine
