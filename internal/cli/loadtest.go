package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/endodoi/endodoi/loadtest"
	"github.com/endodoi/endodoi/rules"
)

var loadtestCommand = &command{
	name:    "loadtest",
	summary: "play many games at once against a running browser-game server on this computer and measure it",
	usage:   "[--url http://127.0.0.1:8080] [--online [--peer url] [--ramp d] [--expect-restart]] [--games n] [--rate moves/s] [--duration d] [--check] [options]",
	examples: []string{
		"endodoi loadtest --games 1000 --rate 1 --duration 20s --check",
		"endodoi loadtest --games 200 --rate 0 --duration 20s",
		"endodoi loadtest --online --games 1000 --rate 0.5 --ramp 10s --duration 30s --check",
		"endodoi loadtest --online --games 200 --rate 2 --duration 60s --expect-restart --check",
		"endodoi loadtest --online --url http://127.0.0.1:8080 --peer http://127.0.0.1:8081 --games 1000 --rate 0.5 --check",
		"endodoi loadtest --url http://127.0.0.1:9000 --games 50 --holes 6 --seed 7",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		url := fs.String("url", loadtest.DefaultURL, "address of the server (endodoi serve); only this computer's loopback addresses are allowed")
		games := fs.Int("games", 1000, "games played at once, each by its own client playing both sides (with --online, by two clients)")
		rate := fs.Float64("rate", 1, "moves a second of each game; 0 sends each move as soon as the last is answered (not with --online)")
		online := fs.Bool("online", false, "play online games: two clients a game, each with its own seat and WebSocket; measures a move's time to reach the opponent")
		peer := fs.String("peer", "", "with --online, a second server sharing the first's database (endodoi serve --db): each game's second player plays through it")
		ramp := fs.Duration("ramp", 0, "with --online, spread the games' setups over this time (less than --duration); 0: over the first move interval")
		expectRestart := fs.Bool("expect-restart", false, "with --online, the server will be restarted during the run: dropped connections are counted, and reconnected, but do not fail the run")
		duration := fs.Duration("duration", 20*time.Second, "how long to send moves")
		holes := fs.Int("holes", rules.DefaultHoles, "holes per row")
		seeds := fs.Int("seeds", rules.DefaultStartSeeds, "seeds per hole at the start")
		check := fs.Bool("check", false, "afterwards, fetch every game and check that every acknowledged move is stored")
		seed := fs.Uint64("seed", 1, "seed of the random moves")
		timeout := fs.Duration("timeout", loadtest.DefaultTimeout, "time limit of one request; with --online also of a move's reaching both seats, after which the seat waiting reconnects")
		quiet := fs.Bool("quiet", false, "print no progress on standard error")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected argument %q", args[0])
			}
			cfg := loadtest.Config{
				BaseURL: *url, Games: *games, Rate: *rate, Duration: *duration, Holes: *holes, Seeds: *seeds,
				Check: *check, Timeout: *timeout, Seed: *seed,
				Online: *online, PeerURL: *peer, Ramp: *ramp, ExpectRestart: *expectRestart,
			}
			if err := cfg.Validate(); err != nil {
				return usagef("%v", err)
			}
			if !*quiet {
				cfg.Progress = env.Stderr
			}
			return runLoadtest(ctx, env.Stdout, cfg)
		}
	},
}

// runLoadtest runs cfg and prints its report. It fails when the run found
// a problem (Report.Err), so that a script can rely on the exit status.
func runLoadtest(ctx context.Context, w io.Writer, cfg loadtest.Config) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	rep, err := loadtest.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if _, err := rep.WriteTo(w); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return rep.Err()
}
