package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/loadtest"
)

// lobbyServeArgs are the options of the servers of the lobby load tests:
// sign-ups as fast as the test sends them.
var lobbyServeArgs = []string{"--egtb-build=false", "--signins-per-minute", "100000"}

// checkLobbyReport fails t unless rep is a clean run whose check found
// every client paired, every game played to its end, no move lost or
// doubled, and every rated game's ratings changed once.
func checkLobbyReport(t *testing.T, rep *loadtest.LobbyReport, clients int) {
	t.Helper()
	t.Logf("\n%v", rep)
	if err := rep.Err(); err != nil {
		t.Error(err)
	}
	c := rep.Check
	if c == nil {
		t.Fatal("no check")
	}
	if rep.Paired < clients || rep.Games < clients/2 || rep.Finished != rep.Games || rep.CutOff != 0 {
		t.Errorf("%d pairings into %d games, %d finished, %d cut off; want at least %d into %d, all finished",
			rep.Paired, rep.Games, rep.Finished, rep.CutOff, clients, clients/2)
	}
	if c.Games != rep.Games || c.Rated != c.Games || c.ChangedOnce != 2*c.Rated || c.Moves == 0 {
		t.Errorf("check: %v; want every game rated, both ratings changed once, the moves checked", c)
	}
	if rep.MoveLatency.N == 0 || rep.PairDelay.N != rep.Paired-rep.Listed {
		t.Errorf("%d move latencies, %d pairing delays", rep.MoveLatency.N, rep.PairDelay.N)
	}
}

// TestLobbyLoadSQLite runs a small lobby load against one server on
// SQLite: 16 signed-in clients sign up before the clock, join a rated
// pool, are paired, and play; the duration (3 s) ends in the middle of
// the games (each some 10 s at 4 moves a second), which are played out
// and checked, not cut off: some end in a race of a move and a
// resignation, and each changes both ratings exactly once.
func TestLobbyLoadSQLite(t *testing.T) {
	srv := startServerAt(t, t.TempDir(), "127.0.0.1:0", lobbyServeArgs...)
	const clients = 16
	rep, err := loadtest.RunLobby(context.Background(), loadtest.LobbyConfig{
		Servers: []string{srv.url}, Clients: clients, Rated: true, Rate: 4, Races: 0.3,
		Duration: 3 * time.Second, Check: true, Seed: 3, SignupAtOnce: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkLobbyReport(t, rep, clients)
	if rep.Raced == 0 {
		t.Error("no end was raced")
	}
	if rep.Elapsed <= rep.Duration {
		t.Errorf("the run took %v, no more than its duration: no game was played out", rep.Elapsed)
	}
}

// TestLobbyLoadPostgres is TestLobbyLoadSQLite across two instances on
// one PostgreSQL database: half the clients on each, so that pairings and
// moves cross from one to the other.
func TestLobbyLoadPostgres(t *testing.T) {
	db := pgtest.NewDatabase(t)
	args := append([]string{"--db", db}, lobbyServeArgs...)
	a := startServerAt(t, t.TempDir(), "127.0.0.1:0", args...)
	b := startServerAt(t, t.TempDir(), "127.0.0.1:0", args...)
	const clients = 16
	rep, err := loadtest.RunLobby(context.Background(), loadtest.LobbyConfig{
		Servers: []string{a.url, b.url}, Clients: clients, Rated: true, Rate: 4, Races: 0.3,
		Duration: 3 * time.Second, Check: true, Seed: 4, SignupAtOnce: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkLobbyReport(t, rep, clients)
}

// progressWatch reads a lobby run's progress lines and says when every
// client is paired and playing, no game over yet, and some moves made.
type progressWatch struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	last    string
	clients int
	once    sync.Once
	playing chan struct{}
}

func (w *progressWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for _, line := range strings.Split(w.buf.String(), "\n") {
		var at string
		var joined, paired, finished, moves, reconnects, errs int
		// "5s: 30 joined, 30 paired, 0 finished (players), 120 moves, 0 reconnections, 0 errors"
		n, _ := fmt.Sscanf(line, "%s %d joined, %d paired, %d finished (players), %d moves, %d reconnections, %d errors",
			&at, &joined, &paired, &finished, &moves, &reconnects, &errs)
		if n == 7 {
			w.last = line
		}
		if n == 7 && paired >= w.clients && finished < w.clients/2 && moves >= 2*w.clients {
			w.once.Do(func() { close(w.playing) })
		}
	}
	if i := bytes.LastIndexByte(w.buf.Bytes(), '\n'); i >= 0 {
		w.buf.Next(i + 1)
	}
	return len(p), nil
}

// TestLobbyLoadKill kills one of two instances on PostgreSQL (kill -9 of
// its process) while every client is in the middle of its game: the
// clients of the killed instance open their game connections on the
// other, the games finish there, and each rated game changes both
// ratings exactly once.
func TestLobbyLoadKill(t *testing.T) {
	db := pgtest.NewDatabase(t)
	args := append([]string{"--db", db}, lobbyServeArgs...)
	a := startServerAt(t, filepath.Join(t.TempDir(), "a"), "127.0.0.1:0", args...)
	b := startServerAt(t, filepath.Join(t.TempDir(), "b"), "127.0.0.1:0", args...)
	const clients = 12
	watch := &progressWatch{clients: clients, playing: make(chan struct{})}
	type result struct {
		rep *loadtest.LobbyReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		// Two moves a second a player: a game lasts some 20 s or more, long
		// enough to be cut in the middle, during the duration or the games'
		// play-out after it.
		rep, err := loadtest.RunLobby(context.Background(), loadtest.LobbyConfig{
			Servers: []string{a.url, b.url}, Clients: clients, Rated: true, Rate: 2, Races: 0.3,
			Duration: 5 * time.Second, Check: true, Seed: 5, SignupAtOnce: 4,
			Progress: watch, ProgressInterval: 250 * time.Millisecond,
		})
		done <- result{rep, err}
	}()
	select {
	case <-watch.playing:
	case res := <-done:
		t.Fatalf("the run ended before the games were under way: %v\n%v", res.err, res.rep)
	case <-time.After(9 * time.Minute): // the sign-ups hash passwords: slow under -race on a busy machine
		watch.mu.Lock()
		defer watch.mu.Unlock()
		t.Fatalf("the games were not under way after 9 minutes: %s", watch.last)
	}
	a.kill(t)
	t.Log("killed the first instance in the middle of the games")
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	checkLobbyReport(t, res.rep, clients)
	if res.rep.Reconnects == 0 {
		t.Error("no game connection was opened again after the kill")
	}
}

// TestLobbyLoadUsage: the lobby mode's options are checked before
// anything is sent, and other hosts are refused.
func TestLobbyLoadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"loadtest", "--lobby", "--clients", "1"},
		{"loadtest", "--lobby", "--pool", "8-3+2/x"},
		{"loadtest", "--lobby", "--races", "2"},
		{"loadtest", "--lobby", "--names", "far-too-long"},
		{"loadtest", "--lobby", "--online"},
		{"loadtest", "--lobby", "--play-out", "0s"},
		{"loadtest", "--lobby", "--play-out", "11m"},
		{"serve", "--signins-per-minute", "-1"},
	} {
		code, _, errOut := run(t, "", args...)
		if code != 2 || !strings.Contains(errOut, "usage: endodoi "+args[0]) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a usage line", args, code, errOut)
		}
	}
	code, _, errOut := run(t, "", "loadtest", "--lobby", "--quiet", "--server", "http://127.0.0.1:1,http://192.0.2.1:80")
	if code == 0 || !strings.Contains(errOut, "loopback") {
		t.Errorf("another host: exit %d, stderr %q; want a refusal", code, errOut)
	}
}
