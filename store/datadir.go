package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultDataDir returns the data folder of the games database (games.db)
// and the endgame databases when none is given: the user's data folder as
// the platform names it, or ./endodoi-data if there is none.
func DefaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "endodoi")
	}
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		if d, err := os.UserConfigDir(); err == nil {
			return filepath.Join(d, "endodoi")
		}
	default:
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, ".local", "share", "endodoi")
		}
	}
	return "endodoi-data"
}

// OpenDataReadOnly opens games.db in the data folder dataDir with
// OpenReadOnly. When there is none, the error says where it was looked
// for, rather than the file system's own words.
func OpenDataReadOnly(ctx context.Context, dataDir string) (*SQLite, error) {
	path := filepath.Join(dataDir, "games.db")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no database at %s (choose the folder with --data)", path)
	}
	return OpenReadOnly(ctx, path)
}
