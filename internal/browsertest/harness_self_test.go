package browsertest

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// stubPage is a page that keeps itself busy for a while, then says idle,
// and writes an error to the console when asked.
const stubPage = `<!doctype html><html data-busy="true"><head><title>stub</title></head><body>
<div id="board" dir="ltr"><button class="hole" data-hole="a" data-legal="true"><span class="count">4</span></button>
<button class="hole" data-hole="A"><span class="count">৭</span></button></div>
<button id="fail">fail</button>
<p>nav.play</p><p data-i18n="rules.r1.p1"></p><button aria-label="moves.first">x</button><p hidden>hidden.key</p>
<script>
document.getElementById("fail").addEventListener("click", () => console.error("broken on purpose"));
setTimeout(() => { document.documentElement.dataset.busy = "false"; }, 300);
</script>
</body></html>`

// TestHarness checks the harness itself on a stub page: it waits for the
// page to be idle, reads the board and catches console errors.
func TestHarness(t *testing.T) {
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(stubPage))
	}))
	defer stub.Close()
	a := &app{t: t, srv: stub}
	p := openPage(t, a, desktop)
	// The stub has no icon, so the browser's request for /favicon.ico may
	// fail: a failed load that the harness would report.
	p.allowConsole(`favicon\.ico`)
	p.open("")
	if got := eval[string](p, `document.documentElement.dataset.busy`); got != "false" {
		t.Fatalf("after waitIdle, data-busy=%q", got)
	}
	if got, want := p.boardRows(), "4/7"; got != want {
		t.Errorf("board %s, want %s", got, want)
	}
	if got := p.legal(""); len(got) != 1 || got[0] != "a" {
		t.Errorf("legal holes %v, want [a]", got)
	}
	if probs := p.takeProblems(); len(probs) > 0 {
		t.Errorf("unexpected problems on the stub page: %q", probs)
	}
	found := eval[[]string](p, untranslatedJS)
	want := []string{`text "nav.play" in p`, `aria-label "moves.first" of button`, `empty p (data-i18n=rules.r1.p1)`}
	if !slices.Equal(found, want) {
		t.Errorf("untranslated text found %q, want %q", found, want)
	}
	p.click("#fail")
	probs := p.takeProblems()
	caught := false
	for _, pr := range probs {
		caught = caught || strings.Contains(pr, "broken on purpose")
	}
	if !caught {
		t.Errorf("the harness missed a console.error: %q", probs)
	}
}
