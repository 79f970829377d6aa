// Package rules implements the rules of En Dodoi, the two-row relay-sowing
// mancala of the Loitha and Kisonga Maasai, exactly as the endodoi project
// plays them (see docs/rules.md).
//
// The package is small, fast and has no dependencies outside the standard
// library. It is organised like a chess library:
//
//   - [Position] is a board (two rows of 2 to 16 holes), the side to move and
//     both players' captured seeds. Positions are plain values: copy them
//     freely and compare them with ==.
//   - [Move] names the hole a move lifts its seeds from, in letter notation:
//     a, b, c, ... for South's holes and A, B, C, ... for North's.
//   - [Rules] holds the rules parameters: the [Variant] and the lap cap that
//     makes a sowing endless.
//   - [Position.Play] applies a move; [Position.PlayTo] does it in place,
//     for searches; [Position.Trace] does the same and reports every lap,
//     for animation and teaching.
//   - [Game] keeps a game's history and applies the end-of-game rules (no
//     legal move, third repetition); [Series] keeps the tally of a series.
//
// Positions and moves read and print in the project's notation:
//
//	4,4,4,4,4,4/4,4,4,4,4,4 s 0 0
//
// is the 6-hole start: South's holes a..f in sowing order, a slash, North's
// holes A..F in sowing order, the side to move (s or n), then South's and
// North's captured seeds.
//
// Holes are also numbered 0..2H-1 in sowing order (South's a.. first, then
// North's A..); hole i is opposite hole 2H-1-i.
package rules
