package rules_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

func FuzzParsePosition(f *testing.F) {
	for _, s := range []string{
		// valid
		"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0",
		"4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0",
		"0,0/0,0 n 0 0",
		"65535,0/0,0 s 999999999 999999999",
		"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16/16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1 n 17 0",
		"0,10,100/1000,10000,0 n 5 123",
		// broken
		"", " ", "/", "4,4/4,4", "4,4/4,4 s", "4,4/4,4 s 0", "4,4/4,4 s 0 0 ",
		"4,4 4,4 s 0 0", "4,4/4 s 0 0", "4/4 s 0 0", "04,4/4,4 s 0 0",
		"4,4/4,4 x 0 0", "4,4/4,4  s 0 0", "4,,4/4,4 s 0 0", "4,4/4,4 s -1 0",
		"65536,0/0,0 s 0 0", "65535,1/0,0 s 0 0", "4,4/4,4 s 1000000000 0",
		"4,4/4,4 s 0 0\n", "+4,4/4,4 s 0 0", "4,4/4,4/4,4 s 0 0",
		"1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1/1,1 s 0 0",
		"99999999999999999999,0/0,0 s 0 0", "4,4/4,4 S 0 0", "４,4/4,4 s 0 0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := rules.ParsePosition(s)
		if err != nil {
			var pe *rules.PositionError
			if !errors.As(err, &pe) {
				t.Fatalf("ParsePosition(%q): error %T is not a *PositionError", s, err)
			}
			if pe.Input != s || pe.Column < 1 || pe.Column > len(s)+1 {
				t.Fatalf("ParsePosition(%q): column %d out of range", s, pe.Column)
			}
			if !strings.Contains(err.Error(), "column ") {
				t.Fatalf("ParsePosition(%q): error %q has no column", s, err)
			}
			if p != (rules.Position{}) {
				t.Fatalf("ParsePosition(%q) failed but returned %s", s, p)
			}
			return
		}
		if got := p.String(); got != s {
			t.Fatalf("ParsePosition(%q).String() = %q", s, got)
		}
		if p.Holes() < rules.MinHoles || p.Holes() > rules.MaxHoles || p.OnBoard() > rules.MaxBoardSeeds ||
			p.Captured(rules.South) > rules.MaxTotalSeeds || p.Captured(rules.North) > rules.MaxTotalSeeds {
			t.Fatalf("ParsePosition(%q) accepted a position outside the limits", s)
		}
		// A parsed position is playable: every legal move conserves seeds
		// (with a small lap cap to keep the fuzzer fast).
		r := rules.Rules{MaxLaps: 50}
		for _, m := range p.LegalMoves(r) {
			q, err := p.Play(m, r)
			if err != nil || q.Total() != p.Total() {
				t.Fatalf("%s %s: %s, %v", p, m, q, err)
			}
		}
	})
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"a", "p", "A", "P", "h", "H", "", "q", "Q", "ab", "1", "-", "é", "\x00", "\xff", " a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := rules.ParseMove(s)
		if err != nil {
			if m != rules.NoMove {
				t.Fatalf("ParseMove(%q) failed but returned %v", s, m)
			}
			return
		}
		if m.String() != s {
			t.Fatalf("ParseMove(%q).String() = %q", s, m.String())
		}
		if m.Column() >= rules.MaxHoles || (m.Side() == rules.South) != (s[0] >= 'a') {
			t.Fatalf("ParseMove(%q) = side %v column %d", s, m.Side(), m.Column())
		}
		b, err := m.MarshalText()
		if err != nil || string(b) != s {
			t.Fatalf("MarshalText(%q) = %q, %v", s, b, err)
		}
	})
}

// FuzzPlay checks Play against Trace and the reference model on fuzzed
// positions and moves.
func FuzzPlay(f *testing.F) {
	f.Add("4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", byte('c'), uint8(0), uint16(1000))
	f.Add("2,0/2,1 s 0 0", byte('a'), uint8(0), uint16(1000))
	f.Add("5,0/0,0 s 0 0", byte('a'), uint8(0), uint16(2))
	f.Add("1,1,0/0,0,0 s 0 0", byte('a'), uint8(1), uint16(3))
	f.Add("0,0,0/0,1,2 n 0 0", byte('C'), uint8(1), uint16(1))
	f.Add("9,0/0,0 s 0 0", byte('b'), uint8(0), uint16(0))
	f.Fuzz(func(t *testing.T, s string, letter byte, variant uint8, laps uint16) {
		p, err := rules.ParsePosition(s)
		if err != nil || p.OnBoard() > 2000 {
			return // keep seed-by-seed models quick
		}
		if p.Captured(rules.South) > 1_000_000 || p.Captured(rules.North) > 1_000_000 {
			return // TestPlayStaysWithinNotationLimits covers captures near the limit
		}
		m, err := rules.ParseMove(string([]byte{letter}))
		if err != nil {
			return
		}
		r := rules.Rules{Variant: rules.Variant(variant % 2), MaxLaps: int(laps % 1001)}
		q, err := p.Play(m, r)
		qt, _, terr := p.Trace(m, r)
		qr, _, rerr := refPlay(p, m, r)
		if err != terr || err != rerr || q != qt || (err == nil && q != qr) {
			t.Fatalf("%s %s under %s: Play %s, %v; Trace %s, %v; reference %s, %v", p, m, r, q, err, qt, terr, qr, rerr)
		}
		if err == nil && q.Total() != p.Total() {
			t.Fatalf("%s %s: seeds not conserved", p, m)
		}
	})
}
