package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/internal/terminal"
	"github.com/endodoi/endodoi/lobby"
	"github.com/endodoi/endodoi/store"
)

var dbCommand = &command{
	name:    "db",
	summary: "check the games database, back it up while the game runs, or copy it to another database",
	usage:   "check [--data folder]\n       endodoi db backup [--data folder] FILE\n       endodoi db copy --from folder|URL --to URL|folder",
	examples: []string{
		"endodoi db check",
		"endodoi db backup ~/games-backup.db",
		"endodoi db check --data ./games",
		"endodoi db copy --from ~/.local/share/endodoi --to postgres://endodoi@db.example.org/endodoi",
		"endodoi db copy --from postgres://endodoi@db.example.org/endodoi --to ./games-copy",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		data := fs.String("data", store.DefaultDataDir(), "`folder` of the games database (games.db), as for endodoi serve")
		from := fs.String("from", "", "copy: the `source`, a data folder, an SQLite file or a postgres:// URL; stop the servers using it first")
		to := fs.String("to", "", "copy: the `destination`, a postgres:// URL, a data folder or an SQLite file; it must hold no games or accounts")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) == 0 {
				return usagef("want a subcommand: check, backup or copy")
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			sub, args := args[0], args[1:]
			switch sub {
			case "check":
				if len(args) > 0 {
					return usagef("check takes no arguments (got %q)", args[0])
				}
				st, err := store.OpenDataReadOnly(ctx, *data)
				if err != nil {
					return err
				}
				defer st.Close()
				return st.WriteCheck(ctx, env.Stdout)
			case "backup":
				if len(args) != 1 {
					return usagef("backup wants one FILE to write the copy to")
				}
				st, err := store.OpenDataReadOnly(ctx, *data)
				if err != nil {
					return err
				}
				defer st.Close()
				return st.WriteBackup(ctx, env.Stdout, args[0])
			case "copy":
				if len(args) > 0 {
					return usagef("copy takes no arguments (got %q); give --from and --to", args[0])
				}
				if *from == "" || *to == "" {
					return usagef("copy wants --from and --to")
				}
				return dbCopy(ctx, env, *from, *to)
			}
			return usagef("unknown subcommand %q: want check, backup or copy", sub)
		}
	},
}

// dbCopy copies the games of the database from into the database to,
// which must hold none, and checks the copy.
func dbCopy(ctx context.Context, env Env, from, to string) error {
	bar := terminal.NewProgressBar(env.Stderr)
	sum, err := store.CopyDatabase(ctx, from, to, func(p store.CopyProgress) {
		bar.Draw(p.Label, uint64(p.Done), uint64(p.Total), p.Elapsed)
	})
	bar.End()
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, sum)
	return nil
}

// adminCommand changes a player's account in the database.
var adminCommand = &command{name: "admin", summary: "disable, enable or anonymise (delete) a player's account; make a bot; list reports",
	usage: "disable|enable|anonymise|bot NAME | reports [--data folder | --db postgres://...]",
	examples: []string{"endodoi admin disable Amina", "endodoi admin anonymise Amina --db postgres://endodoi@db.example.org/endodoi",
		"endodoi admin bot Kibot", "endodoi admin reports"},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		data := fs.String("data", store.DefaultDataDir(), "`folder` of the games database, as for endodoi serve")
		db := fs.String("db", "", "the PostgreSQL `URL` of the games, as for endodoi serve")
		return func(ctx context.Context, env Env, args []string) error {
			switch {
			case len(args) > 0 && args[0] == "reports":
				if len(args) != 1 {
					return usagef("reports takes no name")
				}
				return adminReports(ctx, *db, *data, env.Stdout)
			case len(args) != 2:
				return usagef("want an action (disable, enable, anonymise or bot) and an account's name, or reports")
			}
			return adminAccount(ctx, *db, *data, args[0], args[1], env.Stdout)
		}
	}}

// adminAccount opens the store of the server (dbURL, or the SQLite
// database in dataDir) and changes account name as action says (see
// account.Service.Admin), or makes a bot's account named name and prints
// its token, once.
func adminAccount(ctx context.Context, dbURL, dataDir, action, name string, out io.Writer) error {
	st, err := store.OpenURL(ctx, dbURL, dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := account.New(st, nil)
	done := fmt.Sprintf("account %s: %s done\n", name, action)
	if action == "bot" {
		a, token, err := svc.CreateBot(ctx, name)
		if err != nil {
			return fmt.Errorf("bot %q: %w", name, err)
		}
		done = fmt.Sprintf("bot %s made; its token (shown once, keep it secret):\n%s\n", a.Name, token)
	} else if ended, err := svc.Admin(ctx, action, name); err != nil {
		return err
	} else if n, ok := st.(store.Notifier); ok && ended.Account != "" && action != "enable" {
		// The servers sharing the database close its live connections at
		// once; a server alone on its SQLite file checks them every few
		// seconds.
		if err := n.Notify(ctx, account.Revocation{Account: ended.Account}.Notice()); err != nil {
			return fmt.Errorf("telling the servers that the account changed: %w", err)
		}
	}
	if err := st.Close(); err != nil {
		return err
	}
	_, err = io.WriteString(out, done)
	return err
}

// adminReports lists the latest reports of games, for the site's
// operator (lobby.WriteReports).
func adminReports(ctx context.Context, dbURL, dataDir string, out io.Writer) error {
	st, err := store.OpenURL(ctx, dbURL, dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	reps, err := st.Reports(ctx, lobby.MaxReportsListed)
	if err != nil {
		return err
	}
	return lobby.WriteReports(out, reps)
}
