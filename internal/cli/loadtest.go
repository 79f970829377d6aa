package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/endodoi/endodoi/loadtest"
	"github.com/endodoi/endodoi/rules"
)

var loadtestCommand = &command{
	name:    "loadtest",
	summary: "play many games at once against a running browser-game server on this computer and measure it",
	usage:   "[--url http://127.0.0.1:8080] [--online [--peer url] [--ramp d] [--expect-restart]] [--games n] [--rate moves/s] [--duration d] [--check] [options]\n       endodoi loadtest --lobby --clients n [--server url[,url2]] [--pool 8-3+2] [--rated] [--races fraction] [--rate moves/s] [--duration d] [--play-out d] [--names prefix] [--check]",
	examples: []string{
		"endodoi loadtest --games 1000 --rate 1 --duration 20s --check",
		"endodoi loadtest --games 200 --rate 0 --duration 20s",
		"endodoi loadtest --online --games 1000 --rate 0.5 --ramp 10s --duration 30s --check",
		"endodoi loadtest --online --games 200 --rate 2 --duration 60s --expect-restart --check",
		"endodoi loadtest --online --url http://127.0.0.1:8080 --peer http://127.0.0.1:8081 --games 1000 --rate 0.5 --check",
		"endodoi loadtest --url http://127.0.0.1:9000 --games 50 --holes 6 --seed 7",
		"endodoi loadtest --lobby --clients 1000 --pool 8-3+2 --rated --ramp 10s --duration 2m --check   # against serve --signins-per-minute 100000",
		"endodoi loadtest --lobby --clients 200 --rated --names crowd --check   # the accounts crowd-0..199, made by the first run and signed in to by the next",
		"endodoi loadtest --lobby --clients 1000 --rated --server http://127.0.0.1:8080,http://127.0.0.1:8081 --check",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		url := fs.String("url", loadtest.DefaultURL, "address of the server (endodoi serve); only this computer's loopback addresses are allowed")
		games := fs.Int("games", 1000, "games played at once, each by its own client playing both sides (with --online, by two clients)")
		rate := fs.Float64("rate", 1, "moves a second of each game; 0 sends each move as soon as the last is answered (not with --online)")
		online := fs.Bool("online", false, "play online games: two clients a game, each with its own seat and WebSocket; measures a move's time to reach the opponent")
		peer := fs.String("peer", "", "with --online, a second server sharing the first's database (endodoi serve --db): each game's second player plays through it")
		ramp := fs.Duration("ramp", 0, "with --online, spread the games' setups over this time (less than --duration); 0: over the first move interval; with --lobby, the players' first joins")
		expectRestart := fs.Bool("expect-restart", false, "with --online, the server will be restarted during the run: dropped connections are counted, and reconnected, but do not fail the run")
		duration := fs.Duration("duration", 20*time.Second, "how long to send moves; with --lobby, how long the players join the pool and play, again after each game (the accounts are made before it starts), the games under way then played out")
		playOut := fs.Duration("play-out", loadtest.DefaultPlayOut, "with --lobby, how long the games under way when --duration ends may take to end; those still being played then are cut off and counted, not failed")
		holes := fs.Int("holes", rules.DefaultHoles, "holes per row")
		seeds := fs.Int("seeds", rules.DefaultStartSeeds, "seeds per hole at the start")
		check := fs.Bool("check", false, "afterwards, fetch every game and check that every acknowledged move is stored; with --lobby also that no move was doubled, every pairing was waited for, and every rated game changed both ratings once")
		seed := fs.Uint64("seed", 1, "seed of the random moves")
		timeout := fs.Duration("timeout", loadtest.DefaultTimeout, "time limit of one request; with --online also of a move's reaching both seats, after which the seat waiting reconnects")
		quiet := fs.Bool("quiet", false, "print no progress on standard error")
		lobby := fs.Bool("lobby", false, "lobby mode: signed-in clients join a pool, are paired and play, again after each game for --duration, their games then played out; measures the pairing delay and a move's time to reach the opponent (the server must allow the sign-ups: serve --signins-per-minute)")
		clients := fs.Int("clients", 100, "with --lobby, the players, each with its own account, lobby connection and game connection")
		servers := fs.String("server", "", "with --lobby, the `url[,url2...]` of instances sharing one database: client i plays through the i-th in turn and fails over to the next (default: --url)")
		pool := fs.String("pool", loadtest.DefaultPool, "with --lobby, the `id` of the pool the clients join")
		rated := fs.Bool("rated", false, "with --lobby, join the pool rated")
		races := fs.Float64("races", 0.25, "with --lobby, the `share` of games whose end is raced: the side to move moves while the other resigns")
		names := fs.String("names", "", "with --lobby, the `prefix` of the accounts' names (up to 8 letters or digits; default random): accounts of that prefix that an earlier run made are signed in to, not made again")
		signups := fs.Int("signups-at-once", loadtest.DefaultSignupAtOnce, "with --lobby, sign-ups sent at once (each hashes a password on the server)")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected argument %q", args[0])
			}
			if *lobby {
				list := *url
				if *servers != "" {
					list = *servers
				}
				cfg := loadtest.LobbyConfig{
					Servers: strings.Split(list, ","), Clients: *clients, Pool: *pool, Rated: *rated, Rate: *rate,
					Duration: *duration, PlayOut: *playOut, Ramp: *ramp, Races: *races, Check: *check, Timeout: *timeout, Seed: *seed,
					Names: *names, SignupAtOnce: *signups,
				}
				if *online || *peer != "" || *expectRestart {
					return usagef("--lobby does not go with --online, --peer or --expect-restart")
				}
				if err := cfg.Validate(); err != nil {
					return usagef("%v", err)
				}
				if !*quiet {
					cfg.Progress = env.Stderr
				}
				return runLobbyLoadtest(ctx, env.Stdout, cfg)
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

// runLobbyLoadtest runs a lobby load test and prints its report; it fails
// when the run found a problem (LobbyReport.Err).
func runLobbyLoadtest(ctx context.Context, w io.Writer, cfg loadtest.LobbyConfig) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	rep, err := loadtest.RunLobby(ctx, cfg)
	if err != nil {
		return err
	}
	if _, err := rep.WriteTo(w); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return rep.Err()
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
