package serve

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"

	"github.com/endodoi/endodoi/bus"
	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/server"
	"github.com/endodoi/endodoi/store"
)

// DefaultAddr is where the browser game listens unless told otherwise:
// this computer only.
const DefaultAddr = "127.0.0.1:8080"

// maxSignInsPerMinute bounds --signins-per-minute: enough for a lobby
// load test of thousands of players from one address.
const maxSignInsPerMinute = 100_000

// Flags are the serve command's options.
type Flags struct {
	fs                      *flag.FlagSet
	addr, data, db, tables  *string
	bus                     *string
	behindProxy, buildTable *bool
	hosts                   HostList
	site                    *SiteFlags
	limits                  *LimitFlags
	signIns                 *int
}

// AddFlags defines the serve command's options on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs}
	f.addr = fs.String("addr", DefaultAddr, "`host:port` to listen on")
	f.data = fs.String("data", store.DefaultDataDir(), "`folder` for the games database (games.db)")
	f.behindProxy = fs.Bool("behind-proxy", false, "the server is reached through a proxy on this machine or network (docs/scaling.md): count requests against the client named in X-Forwarded-For")
	f.db = fs.String("db", "", "a PostgreSQL `URL` to keep the games in instead of games.db (docs/scaling.md)")
	f.bus = fs.String("bus", "", "with --db, a message bus `URL` (nats://host:4222 or redis://host:6379, ?channel=name) to carry the notices between the servers instead of PostgreSQL's NOTIFY (docs/scaling.md)")
	fs.Var(&f.hosts, "host", "a `name` the server answers to, besides its address, localhost and the loopback addresses (repeatable)")
	f.tables = fs.String("egtb", "", "`folder` of endgame databases for the analysis, hints and levels 9-10 (default: egtb in the data folder)")
	f.buildTable = fs.Bool("egtb-build", true, "build the small endgame databases a board lacks, in the background on one core, when the board is first played")
	f.site = AddSiteFlags(fs)
	f.limits = AddLimitFlags(fs)
	f.signIns = fs.Int("signins-per-minute", 0, "for a test deployment only (endodoi loadtest --lobby): let one client address sign up or sign in `n` times a minute, in bursts of n (default 0: 10 at once, then one every 6 s)")
	return f
}

// Setup is what the serve command's options say to serve.
type Setup struct {
	Listen ListenConfig
	// DB is the PostgreSQL URL of the games, or "" for the SQLite
	// database in the data folder Data.
	DB, Data string
	// Bus is the URL of the message bus between the servers, or "" for
	// PostgreSQL's NOTIFY (or none, alone on SQLite).
	Bus string
	// Tables is the folder of the endgame databases; BuildTables says to
	// build those a board lacks.
	Tables      string
	BuildTables bool
}

// Setup checks the options as parsed and returns what they say to serve,
// with site as the page (every path outside /api/).
func (f *Flags) Setup(site http.Handler) (Setup, error) {
	s := Setup{DB: *f.db, Data: *f.data, Bus: *f.bus, Tables: *f.tables, BuildTables: *f.buildTable}
	if s.Tables == "" {
		s.Tables = filepath.Join(s.Data, "egtb")
	}
	if s.DB != "" && !store.IsPostgresURL(s.DB) {
		return s, fmt.Errorf("--db %s: want a postgres:// URL", store.RedactURL(s.DB))
	}
	if s.Bus != "" && (s.DB == "" || !bus.IsURL(s.Bus)) {
		return s, fmt.Errorf("--bus: want a nats:// or redis:// URL, with --db postgres://...: a server alone on games.db has no other servers to tell")
	}
	if s.Bus != "" {
		if err := bus.CheckURL(s.Bus); err != nil {
			return s, fmt.Errorf("--bus: %w", err)
		}
	}
	s.Listen = ListenConfig{Addr: *f.addr, Hosts: f.hosts, Site: site,
		Options: server.Options{TrustProxy: *f.behindProxy, ClientLimits: f.limits.Limits()}}
	if err := f.site.Apply(f.fs, &s.Listen, s.Data); err != nil {
		return s, err
	}
	if n := *f.signIns; n < 0 || n > maxSignInsPerMinute {
		return s, fmt.Errorf("--signins-per-minute %d out of range (0 to %d)", n, maxSignInsPerMinute)
	} else if n > 0 {
		s.Listen.Options.Accounts.SignInRate = server.Rate{PerSecond: float64(n) / 60, Burst: n}
	}
	return s, nil
}

// Run serves s until ctx ends, then lets the requests in flight finish,
// logging to stderr and telling stdout where to play and, at the end,
// whether every move was saved.
func Run(ctx context.Context, s Setup, stdout, stderr io.Writer) error {
	cfg := s.Listen
	cfg.Log = slog.New(slog.NewTextHandler(stderr, nil))
	cfg.Tablebases = egtb.NewLibrary(s.Tables, egtb.LibraryOptions{AutoBuild: s.BuildTables, Logger: cfg.Log})
	defer cfg.Tablebases.Close()
	if s.Bus != "" {
		b, err := bus.Open(s.Bus, cfg.Log)
		if err != nil {
			return fmt.Errorf("--bus: %w", err)
		}
		defer b.Close()
		cfg.Options.Bus = b
	}
	if err := os.MkdirAll(s.Data, 0o755); err != nil {
		return fmt.Errorf("data folder: %w", err)
	}
	st, err := store.OpenURL(ctx, s.DB, s.Data)
	if err != nil {
		return err
	}
	defer st.Close()
	cfg.StoreName, cfg.Out, cfg.Warn = store.Name(s.DB, s.Data), stdout, stderr
	if err := ListenAndServe(ctx, st, cfg); err != nil {
		return err
	}
	// The store finishes the writes in flight when it closes; only then
	// is the count of failed ones final.
	if err := st.Close(); err != nil {
		return err
	}
	if n := st.WriteFailures(); n > 0 {
		fmt.Fprintf(stdout, "endodoi: stopped; %d writes failed (see the log above)\n", n)
		return nil
	}
	fmt.Fprintln(stdout, "endodoi: stopped; every move was saved")
	return nil
}
