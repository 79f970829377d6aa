package loadtest

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestLobbyConfigValidate(t *testing.T) {
	good := LobbyConfig{Servers: []string{"http://127.0.0.1:8080"}, Clients: 10, Pool: DefaultPool, Rate: 1,
		Duration: time.Minute, PlayOut: time.Minute, Timeout: time.Second, SignupAtOnce: 2}
	if err := good.Validate(); err != nil {
		t.Fatalf("a good config: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(*LobbyConfig)
		want   string
	}{
		{"no server", func(c *LobbyConfig) { c.Servers = nil }, "--server"},
		{"one client", func(c *LobbyConfig) { c.Clients = 1 }, "--clients"},
		{"too many clients", func(c *LobbyConfig) { c.Clients = MaxLobbyClients + 1 }, "--clients"},
		{"empty pool", func(c *LobbyConfig) { c.Pool = "" }, "--pool"},
		{"pool with a slash", func(c *LobbyConfig) { c.Pool = "8-3+2/../x" }, "--pool"},
		{"no rate", func(c *LobbyConfig) { c.Rate = 0 }, "--rate"},
		{"rate too high", func(c *LobbyConfig) { c.Rate = MaxOnlineRate + 1 }, "--rate"},
		{"long duration", func(c *LobbyConfig) { c.Duration = MaxDuration + time.Second }, "--duration"},
		{"no play-out", func(c *LobbyConfig) { c.PlayOut = 0 }, "--play-out"},
		{"long play-out", func(c *LobbyConfig) { c.PlayOut = MaxDuration + time.Second }, "--play-out"},
		{"ramp as long as the run", func(c *LobbyConfig) { c.Ramp = time.Minute }, "--ramp"},
		{"races above 1", func(c *LobbyConfig) { c.Races = 1.5 }, "--races"},
		{"negative races", func(c *LobbyConfig) { c.Races = -0.1 }, "--races"},
		{"no timeout", func(c *LobbyConfig) { c.Timeout = 0 }, "--timeout"},
		{"long names", func(c *LobbyConfig) { c.Names = "abcdefghi" }, "--names"},
		{"names with a dash", func(c *LobbyConfig) { c.Names = "a-b" }, "--names"},
		{"no sign-ups at once", func(c *LobbyConfig) { c.SignupAtOnce = 0 }, "--signups-at-once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.change(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate: %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

// TestRunLobbyRefusesOtherHosts: a lobby run drives only this computer.
func TestRunLobbyRefusesOtherHosts(t *testing.T) {
	_, err := RunLobby(context.Background(), LobbyConfig{Servers: []string{"http://127.0.0.1:1", "http://192.0.2.1:80"},
		Clients: 2, Rate: 1, Duration: time.Second})
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("RunLobby with a server on another host: %v, want a refusal", err)
	}
}

func TestLobbyReportErr(t *testing.T) {
	clean := LobbyReport{Clients: 4, SignedUp: 4, Paired: 4, Games: 2, Finished: 2, Check: &LobbyCheck{Games: 2}}
	if err := clean.Err(); err != nil {
		t.Fatalf("a clean run: %v", err)
	}
	// Counted, not failures: what the clock and the cap leave undone.
	for _, tc := range []struct {
		name   string
		change func(*LobbyReport)
	}{
		{"an odd client out", func(r *LobbyReport) { r.Clients, r.SignedUp, r.Left = 5, 5, 1 }},
		{"games cut off by the cap", func(r *LobbyReport) {
			r.Finished, r.CutOff, r.Capped, r.Check = 0, 2, true, &LobbyCheck{Games: 2, CutOff: 2}
		}},
		{"clients still waiting at the cap", func(r *LobbyReport) { r.Clients, r.SignedUp, r.WaitingAtEnd = 6, 6, 2 }},
		{"accounts of an earlier run", func(r *LobbyReport) { r.SignedUp, r.SignedIn = 1, 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := clean
			tc.change(&r)
			if err := r.Err(); err != nil {
				t.Errorf("%+v: %v", r, err)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		change func(*LobbyReport)
	}{
		{"interrupted", func(r *LobbyReport) { r.Interrupted = true }},
		{"an error", func(r *LobbyReport) { r.Errors = map[string]int{"join HTTP 500": 1} }},
		{"a sign-up missing", func(r *LobbyReport) { r.SignedUp = 3 }},
		{"no game", func(r *LobbyReport) { r.Paired, r.Games, r.Finished, r.Check = 0, 0, 0, &LobbyCheck{} }},
		{"a pairing not waited for", func(r *LobbyReport) { r.PairedTwice = 1 }},
		{"a move lost", func(r *LobbyReport) { r.Check = &LobbyCheck{Games: 2, MovesLost: 1} }},
		{"a move doubled", func(r *LobbyReport) { r.Check = &LobbyCheck{Games: 2, MovesDoubled: 1} }},
		{"a rating changed twice", func(r *LobbyReport) { r.Check = &LobbyCheck{Games: 2, RatingsDoubled: 1} }},
		{"a rating unchanged", func(r *LobbyReport) { r.Check = &LobbyCheck{Games: 2, RatingsMissing: 1} }},
		{"a bad pair", func(r *LobbyReport) { r.Check = &LobbyCheck{Games: 2, BadPairs: 1} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := clean
			tc.change(&r)
			if r.Err() == nil {
				t.Errorf("%+v: no error", r)
			}
		})
	}
}
