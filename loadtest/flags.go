package loadtest

// The loadtest command's options (endodoi loadtest): what they set of a
// Config or a LobbyConfig, read and checked here so that the command only
// wires them.

import (
	"errors"
	"flag"
	"io"
	"strings"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// Flags are the loadtest command's options.
type Flags struct {
	url, peer, servers, pool, names                   *string
	games, holes, seeds, clients, signups             *int
	rate, races                                       *float64
	online, expectRestart, check, quiet, lobby, rated *bool
	ramp, duration, playOut, timeout                  *time.Duration
	seed                                              *uint64
}

// AddFlags defines the loadtest command's options on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	f.url = fs.String("url", DefaultURL, "address of the server (endodoi serve); only this computer's loopback addresses are allowed")
	f.games = fs.Int("games", 1000, "games played at once, each by its own client playing both sides (with --online, by two clients)")
	f.rate = fs.Float64("rate", 1, "moves a second of each game; 0 sends each move as soon as the last is answered (not with --online)")
	f.online = fs.Bool("online", false, "play online games: two clients a game, each with its own seat and WebSocket; measures a move's time to reach the opponent")
	f.peer = fs.String("peer", "", "with --online, a second server sharing the first's database (endodoi serve --db): each game's second player plays through it")
	f.ramp = fs.Duration("ramp", 0, "with --online, spread the games' setups over this time (less than --duration); 0: over the first move interval; with --lobby, the players' first joins")
	f.expectRestart = fs.Bool("expect-restart", false, "with --online, the server will be restarted during the run: dropped connections are counted, and reconnected, but do not fail the run; the moves in flight at the end are awaited 30s longer")
	f.duration = fs.Duration("duration", 20*time.Second, "how long to send moves; with --lobby, how long the players join the pool and play, again after each game (the accounts are made before it starts), the games under way then played out")
	f.playOut = fs.Duration("play-out", DefaultPlayOut, "with --lobby, how long the games under way when --duration ends may take to end; those still being played then are cut off and counted, not failed")
	f.holes = fs.Int("holes", rules.DefaultHoles, "holes per row")
	f.seeds = fs.Int("seeds", rules.DefaultStartSeeds, "seeds per hole at the start")
	f.check = fs.Bool("check", false, "afterwards, fetch every game and check that every acknowledged move is stored; with --lobby also that no move was doubled, every pairing was waited for, and every rated game changed both ratings once")
	f.seed = fs.Uint64("seed", 1, "seed of the random moves")
	f.timeout = fs.Duration("timeout", DefaultTimeout, "time limit of one request; with --online also of a move's reaching both seats, after which the seat waiting reconnects")
	f.quiet = fs.Bool("quiet", false, "print no progress on standard error")
	f.lobby = fs.Bool("lobby", false, "lobby mode: signed-in clients join a pool, are paired and play, again after each game for --duration, their games then played out; measures the pairing delay and a move's time to reach the opponent (the server must allow the sign-ups: serve --signins-per-minute)")
	f.clients = fs.Int("clients", 100, "with --lobby, the players, each with its own account, lobby connection and game connection")
	f.servers = fs.String("server", "", "with --lobby, the `url[,url2...]` of instances sharing one database: client i plays through the i-th in turn and fails over to the next (default: --url)")
	f.pool = fs.String("pool", DefaultPool, "with --lobby, the `id` of the pool the clients join")
	f.rated = fs.Bool("rated", false, "with --lobby, join the pool rated")
	f.races = fs.Float64("races", 0.25, "with --lobby, the `share` of games whose end is raced: the side to move moves while the other resigns")
	f.names = fs.String("names", "", "with --lobby, the `prefix` of the accounts' names (up to 8 letters or digits; default random): accounts of that prefix that an earlier run made are signed in to, not made again")
	f.signups = fs.Int("signups-at-once", DefaultSignupAtOnce, "with --lobby, sign-ups sent at once (each hashes a password on the server)")
	return f
}

// Configs checks the options and returns the run they ask for: a lobby
// run, or a run of games; progress gets its progress lines unless the
// options say --quiet. An error is a mistake in the options.
func (f *Flags) Configs(progress io.Writer) (*LobbyConfig, *Config, error) {
	if *f.lobby {
		list := *f.url
		if *f.servers != "" {
			list = *f.servers
		}
		cfg := LobbyConfig{
			Servers: strings.Split(list, ","), Clients: *f.clients, Pool: *f.pool, Rated: *f.rated, Rate: *f.rate,
			Duration: *f.duration, PlayOut: *f.playOut, Ramp: *f.ramp, Races: *f.races, Check: *f.check, Timeout: *f.timeout, Seed: *f.seed,
			Names: *f.names, SignupAtOnce: *f.signups,
		}
		if *f.online || *f.peer != "" || *f.expectRestart {
			return nil, nil, errors.New("--lobby does not go with --online, --peer or --expect-restart")
		}
		if err := cfg.Validate(); err != nil {
			return nil, nil, err
		}
		if !*f.quiet {
			cfg.Progress = progress
		}
		return &cfg, nil, nil
	}
	cfg := Config{
		BaseURL: *f.url, Games: *f.games, Rate: *f.rate, Duration: *f.duration, Holes: *f.holes, Seeds: *f.seeds,
		Check: *f.check, Timeout: *f.timeout, Seed: *f.seed,
		Online: *f.online, PeerURL: *f.peer, Ramp: *f.ramp, ExpectRestart: *f.expectRestart,
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if !*f.quiet {
		cfg.Progress = progress
	}
	return nil, &cfg, nil
}
