package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/endodoi/endodoi/loadtest"
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
		f := loadtest.AddFlags(fs)
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected argument %q", args[0])
			}
			lobby, games, err := f.Configs(env.Stderr)
			if err != nil {
				return usagef("%v", err)
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
			defer stop()
			if lobby != nil {
				rep, err := loadtest.RunLobby(ctx, *lobby)
				return report(env.Stdout, rep, err)
			}
			rep, err := loadtest.Run(ctx, *games)
			return report(env.Stdout, rep, err)
		}
	},
}

// report prints the report of a run that ended with err; it fails when
// the run found a problem (the report's Err), so that a script can rely
// on the exit status.
func report[R interface {
	io.WriterTo
	Err() error
}](w io.Writer, rep R, err error) error {
	if err != nil {
		return err
	}
	if _, err := rep.WriteTo(w); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return rep.Err()
}
