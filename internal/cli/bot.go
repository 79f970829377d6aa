package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/endodoi/endodoi/bot"
	"github.com/endodoi/endodoi/rules"
)

// botTokenEnv is the environment variable the bot's token is read from
// when --token is not given, so that it does not show in ps.
const botTokenEnv = "ENDODOI_BOT_TOKEN"

var botCommand = &command{
	name:    "bot",
	summary: "play on a server as a bot account: accept challenges and play them with an engine",
	usage:   "--server URL [options] -- <engine command and its arguments>",
	examples: []string{
		"ENDODOI_BOT_TOKEN=bot_... endodoi bot --server https://example.org --level 5 -- endodoi engine",
		"endodoi bot --server https://example.org --token-file /etc/endodoi/bot-token --holes 6,8 --clocks blitz,rapid,5-30+0-10 --games 4 -- ./my-engine --threads 2",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		server := fs.String("server", "", "the site's `address`, such as https://example.org (required)")
		token := fs.String("token", "", "the bot's `token`, as endodoi admin bot printed it; other users see it in ps: prefer $"+botTokenEnv+" or --token-file")
		tokenFile := fs.String("token-file", "", "read the bot's token from `file` (for example a systemd credential)")
		holes := fs.String("holes", "6-10", "boards accepted: `holes` a row, as a list of numbers and ranges such as 6,8 or 6-10")
		seeds := fs.String("seeds", "1-12", "`seeds` a hole accepted at the start, as for --holes")
		variants := fs.String("variants", "standard,cross", "rules `variants` accepted")
		clocks := fs.String("clocks", bot.DefaultClocks, "clocks accepted: a `list` of speeds (bullet, blitz, rapid, classical), correspondence or days (3d, 1-7d), minutes+increment with ranges (5+3, 3-10+0-5), or none")
		rated := fs.Bool("rated", true, "accept rated challenges")
		casual := fs.Bool("casual", true, "accept casual challenges")
		games := fs.Int("games", 2, "games played at once, one engine process each; challenges beyond are declined")
		level := fs.Int("level", 0, "play at the engine's Level `1-10` (setoption Level; a bare go, stopped when the move's time is up); 0 searches for the time the clock allows (go movetime)")
		thinkMax := fs.Duration("think-max", bot.DefaultTiming().Max, "the longest a move may take, whatever the clock; the time of each move in a game without a clock")
		overhead := fs.Duration("overhead", bot.DefaultTiming().Overhead, "time kept back from the clock for each move's way to the server")
		var options engineOptions
		fs.Var(&options, "option", "an engine option, `Name=Value`, sent with setoption after the handshake (repeatable)")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) == 0 {
				return usagef("no engine command: give it after --, such as -- endodoi engine")
			}
			if *server == "" {
				return usagef("--server is required")
			}
			tok, err := botToken(*token, *tokenFile)
			if err != nil {
				return err
			}
			p := bot.Policy{Rated: *rated, Casual: *casual}
			if p.Holes, err = bot.ParseRanges(*holes, rules.MinHoles, rules.MaxHoles); err != nil {
				return usagef("--holes: %v", err)
			}
			if p.Seeds, err = bot.ParseRanges(*seeds, 1, 12); err != nil {
				return usagef("--seeds: %v", err)
			}
			for v := range strings.SplitSeq(*variants, ",") {
				v = strings.TrimSpace(v)
				if _, err := rules.ParseVariant(v); err != nil {
					return usagef("--variants: %v", err)
				}
				p.Variants = append(p.Variants, v)
			}
			if p.Clocks, err = bot.ParseClocks(*clocks); err != nil {
				return usagef("--clocks: %v", err)
			}
			if !p.Rated && !p.Casual {
				return usagef("--rated=false and --casual=false: the bot would accept nothing")
			}
			if err := inRange("games", *games, 1, 1000); err != nil {
				return err
			}
			if *level != 0 {
				if err := inRange("level", *level, 1, 10); err != nil {
					return err
				}
			}
			if *thinkMax < bot.MinThink || *thinkMax > time.Hour {
				return usagef("--think-max %v out of range (%v to 1h)", *thinkMax, bot.MinThink)
			}
			if *overhead < 0 || *overhead > time.Minute {
				return usagef("--overhead %v out of range (0 to 1m)", *overhead)
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			log := slog.New(slog.NewTextHandler(env.Stderr, nil))
			err = bot.Run(ctx, bot.Config{
				Server: *server, Token: tok,
				Engine: bot.EngineConfig{Command: args, Options: options, Level: *level},
				Policy: p, MaxGames: *games,
				Timing: bot.Timing{Max: *thinkMax, Overhead: *overhead},
				Log:    log,
			})
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
	},
}

// botToken returns the token from --token, --token-file or the
// environment, in that order.
func botToken(flagValue, file string) (string, error) {
	switch {
	case flagValue != "" && file != "":
		return "", usagef("--token and --token-file: give one")
	case flagValue != "":
		return flagValue, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		if len(b) > 4096 {
			return "", fmt.Errorf("--token-file %s: %d bytes, too long for a token", file, len(b))
		}
		return strings.TrimSpace(string(b)), nil
	}
	if t := strings.TrimSpace(os.Getenv(botTokenEnv)); t != "" {
		return t, nil
	}
	return "", usagef("no token: set $%s, or give --token-file or --token", botTokenEnv)
}

// engineOptions are the --option flags.
type engineOptions []bot.EngineOption

func (o *engineOptions) String() string {
	if o == nil {
		return ""
	}
	parts := make([]string, len(*o))
	for i, e := range *o {
		parts[i] = e.Name + "=" + e.Value
	}
	return strings.Join(parts, ",")
}

func (o *engineOptions) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || value == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("%q: want Name=Value, the name without spaces", s)
	}
	if strings.EqualFold(name, "Level") {
		return errors.New("set the level with --level, which also lets the level decide how long to think")
	}
	*o = append(*o, bot.EngineOption{Name: name, Value: value})
	return nil
}
