package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// RetryAfter is what clients are told to wait when the database cannot
// serve: long enough for a lock to clear or a replica to reconnect.
const RetryAfter = 5 * time.Second

// unavailable turns a database error that means "the database cannot serve
// now" — full, locked past the busy timeout, out of connections, read-only,
// shut down, a statement timeout, a lost connection — into an Unavailable
// domain error (503 with Retry-After at the API) that keeps the driver's
// error for the logs. Other errors pass as they are: bad input never reads
// as an outage.
func unavailable(err error) error {
	if err == nil || errors.Is(err, sql.ErrNoRows) || errors.Is(err, context.Canceled) {
		return err
	}
	var de *ctf.Error
	if errors.As(err, &de) {
		return err
	}
	if isUnavailable(err) {
		return &ctf.Error{Code: ctf.Unavailable, Message: "the database is busy or unavailable; try again in a few seconds",
			RetryAfter: RetryAfter, Cause: err}
	}
	return err
}

// SQLite's primary result codes that mean the database cannot serve.
var sqliteUnavailable = map[int]bool{
	5:  true, // SQLITE_BUSY: locked past the busy timeout
	6:  true, // SQLITE_LOCKED
	7:  true, // SQLITE_NOMEM
	8:  true, // SQLITE_READONLY
	10: true, // SQLITE_IOERR
	13: true, // SQLITE_FULL: database or disk is full
	14: true, // SQLITE_CANTOPEN
}

func isUnavailable(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return sqliteUnavailable[se.Code()&0xff]
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			strings.HasPrefix(pe.Code, "53"),                           // insufficient resources: disk full, out of memory, too many connections
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // shutting down, cannot connect now
			pe.Code == "57014", // query canceled: the statement timeout
			pe.Code == "25006": // read-only transaction: a standby, or writes turned off
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}
