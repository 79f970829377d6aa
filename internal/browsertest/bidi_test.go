package browsertest

// Right to left: notation inside Urdu text (scores, board sizes, moves)
// keeps its own left-to-right order on screen.

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
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

// signedDigits writes a rating change as the page does, "+12" or "−12",
// with the digits of lang (Bengali's own, or the Latin ones).
func signedDigits(diff int, lang string) string {
	sign := "+"
	if diff < 0 {
		sign, diff = "\u2212", -diff
	}
	digits := strconv.Itoa(diff)
	if lang == "bn" {
		digits = strings.Map(func(r rune) rune { return r - '0' + '০' }, digits)
	}
	return sign + digits
}

// TestRatingChangeSignInUrduAndBengali shows a rated game's rating
// changes, under its result and in the winner's profile, in Urdu and in
// Bengali: the sign is drawn on the left of the digits, "+12", where
// without its isolate the Urdu sentence would draw it on their right,
// "12+".
func TestRatingChangeSignInUrduAndBengali(t *testing.T) {
	a := startApp(t)
	naserian, lemayian := signUpAPI(t, a, "Naserian"), signUpAPI(t, a, "Lemayian")
	id := ratedGameAPI(lemayian, naserian) // Lemayian resigns: Naserian wins.
	var g ratedGame
	a.api("GET", "/api/games/"+id, "", http.StatusOK, &g)
	diffs := map[string]int{}
	for side, p := range g.Players {
		diffs[p.Name] = g.RatingChange[side].Diff
	}
	if diffs["Naserian"] <= 0 || diffs["Lemayian"] >= 0 {
		t.Fatalf("after Lemayian resigned, the changes are %v", diffs)
	}

	p := openPage(t, a, desktop)
	// signDrawn checks that the rating change of each name in diffs is in
	// the text under sel, isolated in Urdu, with its sign on the left.
	signDrawn := func(lang, sel string, names ...string) {
		t.Helper()
		for _, name := range names {
			frag := signedDigits(diffs[name], lang)
			v := evalf[fragmentView](p, fragmentJS, sel, frag)
			if !v.Found {
				t.Errorf("%s: %s shows %q, without %s's change %q", lang, sel, v.Text, name, frag)
				continue
			}
			if lang == "ur" && !strings.Contains(v.Text, "\u2066"+frag+"\u2069") {
				t.Errorf("%s: %s shows %q, which does not isolate the change %q (U+2066 … U+2069)", lang, sel, v.Text, frag)
			}
			t.Logf("%s %q: the sign at x %.1f, the last digit at x %.1f", lang, v.Text, v.First, v.Last)
			if !(v.First < v.Last) {
				t.Errorf("%s: in %q the sign of %q is drawn on the right of its digits (the sign at x %.1f, the last digit at x %.1f)", lang, v.Text, frag, v.First, v.Last)
			}
		}
	}
	for _, lang := range []string{"ur", "bn"} {
		p.open("#/play/" + id)
		p.setLanguage(lang)
		p.waitFor("the rating changes in "+lang, `document.querySelectorAll("#rating-change span").length === 2 && !document.querySelector("#rating-change").textContent.includes("now")`)
		signDrawn(lang, "#rating-change", "Naserian", "Lemayian")
		p.screenshot("rated-game-end-" + lang + ".png")

		p.open("#/profile/Naserian")
		p.waitFor("Naserian's game in "+lang, `document.querySelectorAll("#profile-games tr").length === 1`)
		eval[chromedp.Void](p, `document.getElementById("profile-games").scrollIntoView({block: "center"})`)
		signDrawn(lang, "#profile-games", "Naserian")
		p.screenshot("profile-games-" + lang + ".png")
	}
}

// playerInSentenceJS writes, in the page's language, a challenge from each
// player of its argument (a name with a rating, as the lobby sends it)
// and the player alone, as the profile lists an opponent; and tells where
// the page draws the name's first letter and the rating's last digit.
const playerInSentenceJS = `(async (players) => {
	const i18n = await import("/js/i18n.js");
	const api = await import("/js/lobbyapi.js");
	await i18n.loadPart("lobby");
	const out = [];
	for (const pl of players) {
		const who = api.playerText(pl);
		const rating = api.ratingText(pl.rating, pl.provisional).replace(/[\u2066-\u2069]/g, "");
		for (const text of [i18n.t("ch.incoming", {player: who, game: "8"}), who]) {
			const p = document.createElement("p");
			p.textContent = text;
			document.getElementById("main").append(p);
			const n = p.firstChild;
			const left = (k) => {
				const r = document.createRange();
				r.setStart(n, k);
				r.setEnd(n, k + 1);
				return r.getBoundingClientRect().left;
			};
			const r = text.indexOf(rating);
			out.push({text, name: left(text.indexOf(pl.name)), rating: left(r + rating.length - 1)});
			p.remove();
		}
	}
	return out;
})(%s)`

// TestUrduPlayerWithRating: in Urdu, a player with their rating reads
// right to left, the name first (on the right) and the rating after it
// (on its left), whatever the name's script, in a sentence and alone;
// a name in Latin letters does not pull the rating into its own
// left-to-right run ("Amina (1512" and a stray bracket).
func TestUrduPlayerWithRating(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("#/rules")
	p.setLanguage("ur")
	players := `[{"name": "Amina", "rating": 1512}, {"name": "عامر", "rating": 1512},
		{"name": "Amina", "rating": 1500, "provisional": true}, {"name": "Baraka_7", "rating": 1490, "bot": true}]`
	type drawn struct {
		Text         string
		Name, Rating float64
	}
	got := evalf[[]drawn](p, playerInSentenceJS, players)
	if len(got) != 8 {
		t.Fatalf("the page wrote %d texts, want 8: %+v", len(got), got)
	}
	for _, d := range got {
		t.Logf("%q: the name at x %.1f, the rating at x %.1f", d.Text, d.Name, d.Rating)
		if !(d.Rating < d.Name) {
			t.Errorf("in %q the rating is drawn on the right of the name (the name at x %.1f, the rating's last digit at x %.1f)", d.Text, d.Name, d.Rating)
		}
	}
}
