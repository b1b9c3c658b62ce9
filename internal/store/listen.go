package store

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// NotifyChannel is the PostgreSQL channel on which a submission is
// announced (inside its transaction, so only once committed).
const NotifyChannel = "flagship_changes"

// Listen calls wake whenever a process on the same PostgreSQL database
// records a submission, until ctx ends. After a lost connection it
// reconnects and wakes once, since what was announced meanwhile is gone;
// the catch-up read that wake triggers finds it. For SQLite it returns at
// once: the server's poll covers writes by other processes.
func Listen(ctx context.Context, dsn string, wake func(), log *slog.Logger) {
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return
	}
	dsn = listenDSN(dsn)
	for ctx.Err() == nil {
		err := listenOnce(ctx, dsn, wake)
		if ctx.Err() != nil {
			return
		}
		log.Warn("database notifications lost; reconnecting", "err", err, "in", retryDelay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(retryDelay):
		}
	}
}

func listenOnce(ctx context.Context, dsn string, wake func()) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return err
	}
	wake()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		wake()
	}
}

// listenDSN drops the options that are Flagship's own (pool size) and
// the statement timeout, which would cut a listening connection's wait.
func listenDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	q.Del("pool_max_conns")
	q.Del("statement_timeout")
	u.RawQuery = q.Encode()
	return u.String()
}
