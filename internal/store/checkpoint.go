package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// SQLite's WAL is copied back into the database file by a checkpoint. By
// default the connection whose commit takes the WAL past 1,000 pages runs
// it, inside that commit: a submission would wait for pages to be copied
// and the file synced, and copy a page again each time it was written.
// So the writer never checkpoints (wal_autocheckpoint 0) and a background
// checkpointer, on a connection of its own, copies the WAL back on a timer
// (PASSIVE: it never waits for the writer or readers, and the writer never
// waits for it). A page written many times between two checkpoints is
// copied once. The WAL is durable on its own, so nothing acknowledged
// depends on the checkpoint.

// checkpointEvery is how often the checkpointer runs when there were
// writes. Between runs the WAL grows by what was written in that time.
const checkpointEvery = time.Second

type checkpointer struct {
	conn    *sql.DB
	stop    chan struct{}
	done    sync.WaitGroup
	closing sync.Once
	err     error
}

// startCheckpointer runs PASSIVE checkpoints of the SQLite file at dsn
// until stopped.
func startCheckpointer(dsn string) (*checkpointer, error) {
	conn, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	conn.SetMaxOpenConns(1)
	conn.SetConnMaxLifetime(0)
	c := &checkpointer{conn: conn, stop: make(chan struct{})}
	c.done.Add(1)
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer c.done.Done()
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			// A failure (a reader on an old snapshot, a busy file) leaves the
			// frames in the WAL for the next run.
			c.checkpoint(context.Background())
		}
	}
}

// checkpoint copies what it can of the WAL into the database file.
func (c *checkpointer) checkpoint(ctx context.Context) (frames, copied int, err error) {
	var busy int
	if err := c.conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
		return 0, 0, fmt.Errorf("checkpoint: %w", err)
	}
	return frames, copied, nil
}

// close stops the checkpointer; a second close (a DB closed twice) does
// nothing more.
func (c *checkpointer) close() error {
	c.closing.Do(func() {
		close(c.stop)
		c.done.Wait()
		c.err = c.conn.Close()
	})
	return c.err
}
