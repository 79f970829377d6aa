package store

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/endodoi/endodoi/account"
)

// Errors the store returns; test for them with errors.Is. ErrNotFound
// and ErrExists are also the same answers of the domains' storage
// interfaces (account.ErrNotFound, account.ErrExists).
var (
	// ErrNotFound, ErrConflict and ErrExists are also the answers of the
	// storage interfaces that play and account declare (game.ErrNotFound,
	// account.ErrNotFound, ...): no such row; the game has changed since
	// the caller read it (another move or a takeback came first); a game
	// with the same import key, or an account with the same name, is
	// stored already.
	ErrNotFound error = &dataError{"not found", []error{game.ErrNotFound, account.ErrNotFound}}
	ErrConflict       = game.ErrConflict
	ErrExists   error = &dataError{"already stored", []error{game.ErrExists, account.ErrExists}}
	// ErrBusy: another program held the database locked for longer than
	// the store waits; nothing was written.
	ErrBusy = errors.New("the database is busy; try again")
	// ErrUnsaved: a change failed for a reason of the storage (a full
	// disk, an I/O error, a lock held elsewhere): nothing of it was
	// written, and the same change may succeed later.
	ErrUnsaved = errors.New("the change could not be saved")
	// ErrReadOnly: the database file or its folder cannot be written, or
	// the store was opened with OpenReadOnly.
	ErrReadOnly = errors.New("the database cannot be written")
	// ErrDamaged: the database file fails SQLite's checks.
	ErrDamaged = errors.New("the database is damaged")
)

// errCredentialExists: a credential's ID is stored already.
var errCredentialExists error = &dataError{"the credential is stored already",
	[]error{ErrExists, account.ErrExists, account.ErrCredentialExists}}

// dataError is an answer about the data that is also the same answer of
// other packages' errors.
type dataError struct {
	msg  string
	also []error
}

func (e *dataError) Error() string { return e.msg }

// Is reports whether target is one of the errors e also is.
func (e *dataError) Is(target error) bool {
	for _, a := range e.also {
		if a == target {
			return true
		}
	}
	return false
}

// errClosed answers writes after Close.
var errClosed = errors.New("the database is closed")

// Unavailable reports whether err, from any call of the store, is a
// failure to reach the data rather than an answer about it: the database
// server down or unreachable, the connection lost, the store closed, the
// file locked elsewhere or unreadable. Nothing was read or written, and
// the same call may succeed later. Writes answer such failures with
// ErrUnsaved or ErrBusy, which count too; reads return the driver's error
// as it is, and this tells it from a fault of the data.
func Unavailable(err error) bool {
	if err == nil || expected(err) {
		return false
	}
	if errors.Is(err, ErrUnsaved) || errors.Is(err, ErrBusy) || errors.Is(err, errClosed) {
		return true
	}
	// database/sql does not export its error for a closed handle.
	if strings.Contains(err.Error(), "sql: database is closed") {
		return true
	}
	if isBusy(err) || hasCode(err, sqlite3.SQLITE_IOERR) || hasCode(err, sqlite3.SQLITE_CANTOPEN) ||
		hasCode(err, sqlite3.SQLITE_NOMEM) || hasCode(err, sqlite3.SQLITE_PROTOCOL) {
		return true
	}
	if _, ok := sqliteCode(err); ok {
		return false // SQLite answered: a fault of the data or of the program
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			strings.HasPrefix(pe.Code, "53"),                           // insufficient resources
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // shut down, starting up
			pe.Code == pgSerialization, pe.Code == pgDeadlock, pe.Code == pgLockNotAvailable:
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || pgconn.Timeout(err) || pgconn.SafeToRetry(err) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		strings.Contains(err.Error(), "closed pool")
}

// sqliteCode returns the (extended) result code of an SQLite error.
func sqliteCode(err error) (int, bool) {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code(), true
	}
	return 0, false
}

// hasCode reports whether err is an SQLite error with the given code: a
// primary code (below 256) matches all its extended codes.
func hasCode(err error, code int) bool {
	c, ok := sqliteCode(err)
	if !ok {
		return false
	}
	if code < 256 {
		return c&0xff == code
	}
	return c == code
}

func isBusy(err error) bool {
	return hasCode(err, sqlite3.SQLITE_BUSY) || hasCode(err, sqlite3.SQLITE_LOCKED)
}

func isDamage(err error) bool {
	return hasCode(err, sqlite3.SQLITE_CORRUPT) || hasCode(err, sqlite3.SQLITE_NOTADB)
}

// expected reports whether err is an answer about the data rather than a
// failure to store it.
func expected(err error) bool {
	return errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrExists)
}

// busyWindow is how long a write waits for another program to release
// the database before it fails with ErrBusy.
var busyWindow = 2 * time.Second

// retryBusy runs f until it succeeds, fails for a reason other than a
// lock held elsewhere, or busyWindow has passed; the pauses double from a
// millisecond up to a tenth of a second.
func retryBusy(f func() error) error {
	deadline := time.Now().Add(busyWindow)
	pause := time.Millisecond
	for {
		err := f()
		if err == nil || !isBusy(err) {
			return err
		}
		if time.Now().Add(pause).After(deadline) {
			return fmt.Errorf("%w (%w)", ErrBusy, err)
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// pgCode returns the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// SQLSTATE codes the store tells apart.
const (
	pgUniqueViolation     = "23505"
	pgForeignKeyViolation = "23503"
	pgSerialization       = "40001"
	pgDeadlock            = "40P01"
	pgLockNotAvailable    = "55P03" // lock_timeout ran out
	pgNoDatabase          = "3D000"
)
