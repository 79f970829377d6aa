package browsertest

// Reading and driving the game screen through the page's hooks: the holes
// (data-hole, data-legal, .count), the move list (data-ply,
// aria-current="step"), the result and the new-game dialog.

import (
	"fmt"
	"strconv"
	"strings"
)

// hole is one hole button as the page shows it.
type hole struct {
	Letter string `json:"letter"`
	Count  string `json:"count"` // the text of its .count
	Legal  bool   `json:"legal"`
	Label  string `json:"label"` // aria-label
}

// holesJS lists the holes of a board (a CSS selector) in document order.
const holesJS = `[...document.querySelectorAll(%q)].map(b => ({
	letter: b.dataset.hole,
	count: (b.querySelector(".count")?.textContent ?? "").trim(),
	legal: b.dataset.legal === "true",
	label: b.getAttribute("aria-label") ?? "",
}))`

// gameBoard and analysisBoard are the boards of the game and of the
// analysis screen.
const (
	gameBoard     = "#board"
	analysisBoard = "#an-board"
)

// holes reads the game board's holes.
func (p *page) holes() []hole {
	p.t.Helper()
	return p.holesOf(gameBoard)
}

// holesOf reads the holes of a board.
func (p *page) holesOf(board string) []hole {
	p.t.Helper()
	return evalf[[]hole](p, holesJS, board+" .hole[data-hole]")
}

// board reads the counts of the game board's holes: South's a.. and
// North's A.., in sowing order.
func (p *page) board() (south, north []int) {
	p.t.Helper()
	return p.boardOf(gameBoard)
}

// boardOf reads the counts of a board's holes.
func (p *page) boardOf(board string) (south, north []int) {
	p.t.Helper()
	hs := p.holesOf(board)
	if len(hs) == 0 {
		p.t.Fatalf("the page shows no holes (%s .hole[data-hole])", board)
	}
	bySide := map[bool]map[int]int{true: {}, false: {}}
	for _, h := range hs {
		if len(h.Letter) != 1 {
			p.t.Fatalf("a hole has data-hole=%q, want one letter", h.Letter)
		}
		c := rune(h.Letter[0])
		isSouth := c >= 'a' && c <= 'z'
		i := int(c - 'a')
		if !isSouth {
			i = int(c - 'A')
		}
		n, ok := parseCount(h.Count)
		if !ok {
			p.t.Fatalf("hole %s shows the count %q, not a number", h.Letter, h.Count)
		}
		bySide[isSouth][i] = n
	}
	row := func(m map[int]int, south bool) []int {
		out := make([]int, len(m))
		for i := range out {
			n, ok := m[i]
			if !ok {
				p.t.Fatalf("%s: a row lacks hole %s", board, holeLetter(south, i))
			}
			out[i] = n
		}
		return out
	}
	return row(bySide[true], true), row(bySide[false], false)
}

// boardRows is the game board as "a,b,c/A,B,C", to compare with a
// position.
func (p *page) boardRows() string {
	p.t.Helper()
	return formatRows(p.board())
}

// parseCount reads a count written in ASCII, Bengali or Arabic-Indic
// digits.
func parseCount(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for _, r := range s {
		var d rune
		switch {
		case r >= '0' && r <= '9':
			d = r - '0'
		case r >= '\u09e6' && r <= '\u09ef': // Bengali
			d = r - '\u09e6'
		case r >= '\u0660' && r <= '\u0669': // Arabic-Indic
			d = r - '\u0660'
		case r >= '\u06f0' && r <= '\u06f9': // Extended Arabic-Indic (Urdu)
			d = r - '\u06f0'
		default:
			return 0, false
		}
		n = n*10 + int(d)
	}
	return n, true
}

// legal lists the letters of the holes the page offers to play, of one
// side's row ("s" for South's, "n" for North's, "" for both).
func (p *page) legal(side string) []string {
	p.t.Helper()
	return p.legalOf(gameBoard, side)
}

// legalOf is legal for any board.
func (p *page) legalOf(board, side string) []string {
	p.t.Helper()
	var out []string
	for _, h := range p.holesOf(board) {
		if !h.Legal {
			continue
		}
		isSouth := h.Letter >= "a"
		if side == "" || (side == "s") == isSouth {
			out = append(out, h.Letter)
		}
	}
	return out
}

// holeCSS selects the button of hole letter on the game board.
func holeCSS(letter string) string {
	return holeOf(gameBoard, letter)
}

// holeOf selects the button of hole letter on a board.
func holeOf(board, letter string) string {
	return fmt.Sprintf(`%s .hole[data-hole="%s"]`, board, letter)
}

// play clicks hole letter with the mouse and waits until the move (and a
// computer's reply) is done.
func (p *page) play(letter string) {
	p.t.Helper()
	p.click(holeCSS(letter))
	p.waitIdle()
}

// plies is the number of moves in the move list.
func (p *page) plies() int {
	p.t.Helper()
	return p.count("#moves [data-ply]")
}

// currentPly is the data-ply of the move-list entry marked as the one
// viewed, or -1 when none is.
func (p *page) currentPly() int {
	p.t.Helper()
	return eval[int](p, `(() => {
		const el = document.querySelector('#moves [aria-current="step"]');
		if (!el) return -1;
		const n = parseInt(el.dataset.ply ?? el.closest("[data-ply]")?.dataset.ply, 10);
		return isNaN(n) ? 0 : n;
	})()`)
}

// gameOver reports whether the page shows a result.
func (p *page) gameOver() bool {
	p.t.Helper()
	return p.visible("#result")
}

// newGame is what the new-game dialog asks; empty fields keep the
// dialog's default.
type newGame struct {
	Holes, Seeds int
	Variant      string // standard or cross
	Opponent     string // computer or friend
	Level        int    // 1..10, for the computer
	First        string // s or n
	Mode         string // single or series
	Target       int    // wins of a series
	South, North string // names
}

// newGameDialog opens the new-game dialog with the mouse, as a person
// would: with no game shown (a first visit), by choosing a way to play,
// opponent ("computer", "friend" or "online"); else with the New game
// button.
func (p *page) newGameDialog(opponent string) {
	p.t.Helper()
	if !eval[bool](p, `document.querySelector("#new-game-dialog")?.open === true`) {
		if p.visible("#start-choice") {
			p.click(fmt.Sprintf(`#start-choice [data-opponent=%q]`, opponent))
		} else {
			p.click("#new-game")
		}
	}
	p.waitFor("the new-game dialog", `document.querySelector("#new-game-dialog")?.open === true`)
}

// startGame opens the new-game dialog with the mouse, fills it in, starts
// the game and returns its id once the page shows it and is idle.
func (p *page) startGame(g newGame) string {
	p.t.Helper()
	before := p.hash()
	opponent := g.Opponent
	if opponent == "" {
		opponent = "computer"
	}
	p.newGameDialog(opponent)
	set := func(css, v string) {
		if v != "" && v != "0" {
			p.setField(css, v)
		}
	}
	// The opponent and the mode first: they may show or hide other fields.
	set("#ng-opponent", g.Opponent)
	set("#ng-mode", g.Mode)
	set("#ng-holes", strconv.Itoa(g.Holes))
	set("#ng-seeds", strconv.Itoa(g.Seeds))
	set("#ng-variant", g.Variant)
	set("#ng-level", strconv.Itoa(g.Level))
	set("#ng-first", g.First)
	set("#ng-target", strconv.Itoa(g.Target))
	set("#ng-south", g.South)
	set("#ng-north", g.North)
	p.click("#ng-start")
	p.waitFor("the new game's route", fmt.Sprintf(`/^#\/play\/[^\/]+$/.test(location.hash) && location.hash !== %q`, before))
	p.waitFor("the dialog to close", `!document.querySelector("#new-game-dialog")?.open`)
	p.waitIdle()
	return p.gameID()
}

// checkBoard fails the test when the board differs from a position.
func (p *page) checkBoard(what, pos string) {
	p.t.Helper()
	want := parsePosition(p.t, pos).rows()
	if got := p.boardRows(); got != want {
		p.t.Fatalf("%s: the board shows %s, want %s (position %q)", what, got, want, pos)
	}
}

// containsFold reports whether s contains sub, ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
