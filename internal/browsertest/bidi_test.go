package browsertest

// Right to left: notation inside Urdu text (scores, board sizes, moves)
// keeps its own left-to-right order on screen.

import (
	"net/http"
	"strings"
	"testing"
)

// fragmentJS finds, under the element matching the selector, the text node
// holding a fragment, and tells how the page holds and draws it: the
// node's text, and the left edges on screen of the fragment's first and
// last characters.
const fragmentJS = `((sel, fragment) => {
	const root = document.querySelector(sel);
	if (!root) return {text: "", found: false};
	const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
	for (let n = walker.nextNode(); n; n = walker.nextNode()) {
		const i = n.data.indexOf(fragment);
		if (i < 0) continue;
		const left = k => {
			const r = document.createRange();
			r.setStart(n, k);
			r.setEnd(n, k + 1);
			return r.getBoundingClientRect().left;
		};
		return {text: n.data, found: true, first: left(i), last: left(i + fragment.length - 1)};
	}
	return {text: root.textContent, found: false};
})(%q, %q)`

type fragmentView struct {
	Text  string  `json:"text"`
	Found bool    `json:"found"`
	First float64 `json:"first"`
	Last  float64 `json:"last"`
}

// TestUrduNotationLeftToRight lists a game won 28 to 20 in Urdu: the score
// is held between the isolates U+2066 … U+2069 and drawn left to right, 28
// on the left, where without them the right-to-left sentence would turn
// it into "20–28".
func TestUrduNotationLeftToRight(t *testing.T) {
	a := startApp(t)
	var g gameView
	// South sows its last seed into its own empty hole b: North has no move,
	// and the sweep gives South the seed: 28 to 20.
	a.api("POST", "/api/games", `{"position": "1,0/0,0 s 27 20", "south": "Naserian", "north": "Lemayian"}`, http.StatusCreated, &g)
	a.api("POST", "/api/games/"+g.ID+"/moves", `{"move": "a"}`, http.StatusOK, nil)
	if g = a.game(g.ID); !g.over() || g.Score.South != 28 || g.Score.North != 20 {
		t.Fatalf("the game is %s at %d to %d, want won 28 to 20", g.Result, g.Score.South, g.Score.North)
	}

	p := openPage(t, a, desktop)
	p.open("#/history")
	p.setLanguage("ur")
	p.waitFor("the game in the list", `document.querySelector("#history [data-game-id] .result-cell") !== null`)
	const score = "28–20"
	v := evalf[fragmentView](p, fragmentJS, "#history .result-cell", score)
	if !v.Found {
		t.Fatalf("the result in Urdu, %q, does not hold the score %q in its logical order", v.Text, score)
	}
	if !strings.Contains(v.Text, "\u2066"+score+"\u2069") {
		t.Errorf("the result in Urdu, %q, does not isolate the score %q (U+2066 … U+2069)", v.Text, score)
	}
	t.Logf("%q: the score's first character at x %.1f, its last at x %.1f", v.Text, v.First, v.Last)
	if !(v.First < v.Last) {
		t.Errorf("the score %q is drawn right to left in Urdu: its first character at x %.1f, its last at x %.1f", score, v.First, v.Last)
	}
	p.screenshot("history-urdu-score.png")
}
