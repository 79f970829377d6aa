package bot

// The bot command's options (endodoi bot): what they set of Config, read
// and checked here so that the command only wires them.

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// TokenEnv is the environment variable the bot's token is read from when
// no option gives it, so that it does not show in ps.
const TokenEnv = "ENDODOI_BOT_TOKEN"

// Flags are the bot command's options.
type Flags struct {
	server, token, tokenFile, holes, seeds, variants, clocks *string
	rated, casual                                            *bool
	games, level                                             *int
	thinkMax, overhead                                       *time.Duration
	options                                                  engineOptions
}

// AddFlags defines the bot command's options on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	f.server = fs.String("server", "", "the site's `address`, such as https://example.org (required)")
	f.token = fs.String("token", "", "the bot's `token`, as endodoi admin bot printed it; other users see it in ps: prefer $"+TokenEnv+" or --token-file")
	f.tokenFile = fs.String("token-file", "", "read the bot's token from `file` (for example a systemd credential)")
	f.holes = fs.String("holes", "6-10", "boards accepted: `holes` a row, as a list of numbers and ranges such as 6,8 or 6-10")
	f.seeds = fs.String("seeds", "1-12", "`seeds` a hole accepted at the start, as for --holes")
	f.variants = fs.String("variants", "standard,cross", "rules `variants` accepted")
	f.clocks = fs.String("clocks", DefaultClocks, "clocks accepted: a `list` of speeds (bullet, blitz, rapid, classical), correspondence or days (3d, 1-7d), minutes+increment with ranges (5+3, 3-10+0-5), or none")
	f.rated = fs.Bool("rated", true, "accept rated challenges")
	f.casual = fs.Bool("casual", true, "accept casual challenges")
	f.games = fs.Int("games", 2, "games played at once, one engine process each; challenges beyond are declined")
	f.level = fs.Int("level", 0, "play at the engine's Level `1-10` (setoption Level; a bare go, stopped when the move's time is up); 0 searches for the time the clock allows (go movetime)")
	f.thinkMax = fs.Duration("think-max", DefaultTiming().Max, "the longest a move may take, whatever the clock; the time of each move in a game without a clock")
	f.overhead = fs.Duration("overhead", DefaultTiming().Overhead, "time kept back from the clock for each move's way to the server")
	fs.Var(&f.options, "option", "an engine option, `Name=Value`, sent with setoption after the handshake (repeatable)")
	return f
}

// A TokenFileError is a token file that cannot be read as a token: not a
// mistake in the options, but in the file.
type TokenFileError struct{ error }

// Config checks the options and returns the bot they describe, playing
// with the engine command (a program and its arguments). A mistake in the
// options is an error of its own; a token file that cannot be read, a
// TokenFileError.
func (f *Flags) Config(command []string) (Config, error) {
	if len(command) == 0 {
		return Config{}, errors.New("no engine command: give it after --, such as -- endodoi engine")
	}
	if *f.server == "" {
		return Config{}, errors.New("--server is required")
	}
	tok, err := readToken(*f.token, *f.tokenFile)
	if err != nil {
		return Config{}, err
	}
	p := Policy{Rated: *f.rated, Casual: *f.casual}
	if p.Holes, err = ParseRanges(*f.holes, rules.MinHoles, rules.MaxHoles); err != nil {
		return Config{}, fmt.Errorf("--holes: %v", err)
	}
	if p.Seeds, err = ParseRanges(*f.seeds, 1, 12); err != nil {
		return Config{}, fmt.Errorf("--seeds: %v", err)
	}
	for v := range strings.SplitSeq(*f.variants, ",") {
		v = strings.TrimSpace(v)
		if _, err := rules.ParseVariant(v); err != nil {
			return Config{}, fmt.Errorf("--variants: %v", err)
		}
		p.Variants = append(p.Variants, v)
	}
	if p.Clocks, err = ParseClocks(*f.clocks); err != nil {
		return Config{}, fmt.Errorf("--clocks: %v", err)
	}
	switch {
	case !p.Rated && !p.Casual:
		return Config{}, errors.New("--rated=false and --casual=false: the bot would accept nothing")
	case *f.games < 1 || *f.games > 1000:
		return Config{}, fmt.Errorf("--games %d out of range (1 to 1000)", *f.games)
	case *f.level != 0 && (*f.level < 1 || *f.level > 10):
		return Config{}, fmt.Errorf("--level %d out of range (1 to 10)", *f.level)
	case *f.thinkMax < MinThink || *f.thinkMax > time.Hour:
		return Config{}, fmt.Errorf("--think-max %v out of range (%v to 1h)", *f.thinkMax, MinThink)
	case *f.overhead < 0 || *f.overhead > time.Minute:
		return Config{}, fmt.Errorf("--overhead %v out of range (0 to 1m)", *f.overhead)
	}
	return Config{Server: *f.server, Token: tok, Engine: EngineConfig{Command: command, Options: f.options, Level: *f.level},
		Policy: p, MaxGames: *f.games, Timing: Timing{Max: *f.thinkMax, Overhead: *f.overhead}}, nil
}

// readToken returns the token from --token, --token-file or the
// environment, in that order.
func readToken(flagValue, file string) (string, error) {
	switch {
	case flagValue != "" && file != "":
		return "", errors.New("--token and --token-file: give one")
	case flagValue != "":
		return flagValue, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", TokenFileError{fmt.Errorf("--token-file: %w", err)}
		}
		if len(b) > 4096 {
			return "", TokenFileError{fmt.Errorf("--token-file %s: %d bytes, too long for a token", file, len(b))}
		}
		return strings.TrimSpace(string(b)), nil
	}
	if t := strings.TrimSpace(os.Getenv(TokenEnv)); t != "" {
		return t, nil
	}
	return "", fmt.Errorf("no token: set $%s, or give --token-file or --token", TokenEnv)
}

// engineOptions are the --option flags.
type engineOptions []EngineOption

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
	*o = append(*o, EngineOption{Name: name, Value: value})
	return nil
}
