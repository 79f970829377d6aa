// Package egtb builds, stores and probes En Dodoi endgame databases: for a
// board of H holes a row, rules parameters (variant and lap cap) and every
// number of seeds n on the board up to a limit, the exact game-theoretic
// value of every position with n seeds on the board.
//
// A value is the best future capture margin the player to move can force:
// the seeds they will still capture minus the seeds the opponent will still
// capture, to the end of the game, under the rules of docs/rules.md (lap
// cap, sweep of the board to the last mover, and the third repetition of a
// position ending the game with the board's seeds counting for neither). No
// capture happens inside a cycle, so the value does not depend on the
// game's history.
//
// Positions are stored with South to move only: the rules are symmetric
// under swapping the rows, so a position with North to move has the value of
// its mirror image. Within one seed count a board is indexed by its
// combinatorial rank ([Rank]), so a database is a dense array of one signed
// byte per position.
//
// Counts are solved smallest first ([Build]): a capture leads to a smaller,
// already solved count, while every other move stays within the count.
// Within a count the solver finds, for k = n, n-1, ..., 1, the positions
// whose mover can force at least +k and those whose mover cannot avoid -k
// or worse, by retrograde propagation over the count's move graph; the
// positions left are worth 0, since their play can go round a cycle for
// ever and the repetition rule then ends the game with nothing more
// captured. The count being solved takes one byte a position, holding
// either its value or the state of its propagation (compact.go), where the
// states fit beside the values; docs/egtb.md describes the method, its
// proof and the file format.
//
// The package depends only on package rules, internal/hugepages (its large
// arrays on huge pages), internal/prefetch (the builder's reads asked for
// ahead) and the standard library.
package egtb
