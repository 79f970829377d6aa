package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// Two requests for the next game of the same game at once, on two
// connections to the store: one stores its game with the change, the
// other neither.
func TestUpdateStartsNext(t *testing.T) { forEachStore(t, testUpdateStartsNext) }

func testUpdateStartsNext(t *testing.T, open func() Store) {
	ctx := context.Background()
	one := open()
	two := one // an SQLite database has one writer
	if _, ok := one.(*Postgres); ok {
		two = open()
	}
	for round := range 10 {
		g := newOnline(t, one, fmt.Sprintf("invite%d", round), "seat")
		_, o := onlineOf(t, one, g.ID)
		before := len(contents(t, one).Games)
		var nexts [2]*game.Game
		var errs [2]error
		var wg sync.WaitGroup
		for i, s := range []Store{one, two} {
			nexts[i] = &game.Game{Start: g.Start, Online: &game.Online{Invite: fmt.Sprintf("next%d-%d", round, i), Clock: o.Clock}}
			wg.Go(func() {
				mine := o
				errs[i] = s.Update(ctx, g.ID, game.Change{Rev: o.Rev, Result: "*", Online: &mine, Next: nexts[i]})
			})
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil:
				if won >= 0 {
					t.Fatalf("round %d: both next games stored", round)
				}
				won = i
			case !errors.Is(err, ErrConflict):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won < 0 {
			t.Fatalf("round %d: no next game stored: %v", round, errs)
		}
		if _, got := onlineOf(t, one, g.ID); got.Next != nexts[won].ID {
			t.Errorf("round %d: the game leads to %q, want %q", round, got.Next, nexts[won].ID)
		}
		if _, err := one.Game(ctx, nexts[1-won].ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("round %d: the losing next game: %v, want ErrNotFound", round, err)
		}
		if after := len(contents(t, one).Games); after != before+1 {
			t.Errorf("round %d: %d games after, %d before", round, after, before)
		}
	}
}

// A change's notice is heard if and only if the change is committed:
// sent by its transaction, or, with SendNotices, handed over once it has
// committed and never sent by the transaction.
func TestPostgresNoticeWithChange(t *testing.T) {
	for _, after := range []bool{false, true} {
		t.Run(fmt.Sprintf("after commit %t", after), func(t *testing.T) { testNoticeWithChange(t, after) })
	}
}

func testNoticeWithChange(t *testing.T, after bool) {
	url := newPostgresDB(t)
	one, two := openPostgres(t, url), openPostgres(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	heard := make(chan string, 10)
	go two.Listen(ctx, func(n string) {
		if n != "" {
			heard <- n
		}
	})
	sent := make(chan string, 10)
	if after {
		one.SendNotices(func(n string) { sent <- n })
	}
	g := newOnline(t, one, "invite", "seat")
	local := newGame(t, one, nil)
	a := moves(t, "a")[0]
	// Wait for the listener: notices sent before it listens are lost.
	for deadline := time.Now().Add(5 * time.Second); ; {
		if err := one.Notify(ctx, "ready"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-heard:
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("the listener never heard")
			}
			continue
		}
		break
	}
	for len(heard) > 0 {
		<-heard
	}
	_, o := onlineOf(t, one, g.ID)
	for _, tc := range []struct {
		what   string
		id     string
		change game.Change
		notice string // heard, or "" when the change fails
	}{
		{"a stale online change", g.ID, game.Change{Rev: o.Rev + 1, Result: "*", Online: &o}, ""},
		{"an online move", g.ID, game.Change{Rev: o.Rev, Moves: []rules.Move{a}, Result: "*", Online: &o}, "an online move"},
		{"a stale local move", local.ID, game.Change{Ply: 1, From: 1, Moves: []rules.Move{a}, Result: "*"}, ""},
		{"a local move", local.ID, game.Change{Moves: []rules.Move{a}, Result: "*"}, "a local move"},
		{"a local takeback", local.ID, game.Change{Ply: 1, Result: "*"}, "a local takeback"},
	} {
		tc.change.Notice = tc.what
		err := one.Update(ctx, tc.id, tc.change)
		if (err == nil) != (tc.notice != "") {
			t.Fatalf("%s: %v", tc.what, err)
		}
		if err := one.Notify(ctx, "marker"); err != nil {
			t.Fatal(err)
		}
		var got []string
		for n := ""; n != "marker"; {
			select {
			case n = <-heard:
				got = append(got, n)
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: nothing heard", tc.what)
			}
		}
		want := []string{"marker"}
		if tc.notice != "" && !after {
			want = []string{tc.notice, "marker"}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: heard %q, want %q", tc.what, got, want)
		}
		var handed []string
		for len(sent) > 0 {
			handed = append(handed, <-sent)
		}
		want = nil
		if tc.notice != "" && after {
			want = []string{tc.notice}
		}
		if fmt.Sprint(handed) != fmt.Sprint(want) {
			t.Errorf("%s: handed over after the commit %q, want %q", tc.what, handed, want)
		}
	}
}

// Listen says it may have missed notices as soon as its first connection
// is open, too: notices sent before it listened were not heard.
func TestPostgresListenCatchesUpFromTheStart(t *testing.T) {
	p := openPostgres(t, newPostgresDB(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	heard := make(chan string, 1)
	go p.Listen(ctx, func(n string) {
		select {
		case heard <- n:
		default:
		}
	})
	select {
	case n := <-heard:
		if n != "" {
			t.Errorf("first heard %q, want the catch-up call (\"\")", n)
		}
		if err := p.Listening(); err != nil {
			t.Errorf("after the catch-up call: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("nothing heard in 30 s")
	}
}
