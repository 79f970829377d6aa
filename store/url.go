package store

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// IsPostgresURL reports whether s names a PostgreSQL database: a URL
// starting with postgres:// or postgresql://.
func IsPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// OpenURL opens the store a program is configured with: the SQLite
// database games.db in the folder dataDir when dbURL is empty, or the
// PostgreSQL database at dbURL. The folder must exist.
func OpenURL(ctx context.Context, dbURL, dataDir string) (Store, error) {
	switch {
	case dbURL == "":
		s, err := Open(ctx, filepath.Join(dataDir, "games.db"))
		if err != nil {
			return nil, err
		}
		return s, nil
	case IsPostgresURL(dbURL):
		p, err := OpenPostgres(ctx, dbURL)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	return nil, fmt.Errorf("database %q: want a URL starting with postgres:// or postgresql://, or none for games.db in the data folder", RedactURL(dbURL))
}

// Name returns the name, for messages, of the store OpenURL opens: the
// path of games.db in dataDir, or dbURL without its password.
func Name(dbURL, dataDir string) string {
	if dbURL == "" {
		return filepath.Join(dataDir, "games.db")
	}
	return RedactURL(dbURL)
}

// RedactURL returns a database URL fit for messages: with its password,
// if any, replaced by xxxxx.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if err != nil && strings.Contains(s, "@") {
			// Not a URL we can take apart: say nothing of what may be a
			// password.
			return "(a database URL that does not parse)"
		}
		return s
	}
	return u.Redacted()
}
