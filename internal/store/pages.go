package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The event's pages and its logo.

// queryPages reads the pages that have a row, where is "" or a WHERE
// clause.
func queryPages(ctx context.Context, q querier, where string, args ...any) ([]ctf.Page, error) {
	var out []ctf.Page
	err := eachRow(ctx, q, "SELECT name, text, updated_at FROM pages "+where+" ORDER BY name", func(sc scanner) error {
		var p ctf.Page
		var at int64
		err := sc.Scan(&p.Name, &p.Text, &at)
		p.UpdatedAt = fromMs(at)
		out = append(out, p)
		return err
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read the event's pages: %w", err)
	}
	return out, nil
}

// queryLogo reads the event's logo (nil: none).
func queryLogo(ctx context.Context, q querier) (*ctf.Logo, error) {
	var l ctf.Logo
	var at int64
	err := q.QueryRowContext(ctx, "SELECT content_type, sha256, data, updated_at FROM event_logo WHERE id = 1").Scan(&l.Type, &l.SHA256, &l.Data, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the event's logo: %w", err)
	}
	l.UpdatedAt = fromMs(at)
	return &l, nil
}

// PutPage replaces the text of one of the event's pages.
func (ct Content) PutPage(ctx context.Context, p ctf.Page, audit *ctf.AuditEntry) ([]int64, error) {
	return ct.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		if err := putPage(ctx, tx, p); err != nil {
			return nil, err
		}
		return []ChangeRef{{Kind: ChangePage, Entity: p.Name}}, nil
	})
}

func putPage(ctx context.Context, tx *sqlTx, p ctf.Page) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO pages (name, text, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`, p.Name, p.Text, ms(p.UpdatedAt))
	if err != nil {
		return fmt.Errorf("save the page %s: %w", p.Name, err)
	}
	return nil
}

// PutLogo replaces the event's logo; nil removes it.
func (ct Content) PutLogo(ctx context.Context, l *ctf.Logo, audit *ctf.AuditEntry) ([]int64, error) {
	return ct.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		if err := putLogo(ctx, tx, l); err != nil {
			return nil, err
		}
		return []ChangeRef{{Kind: ChangeLogo, Entity: "1"}}, nil
	})
}

func putLogo(ctx context.Context, tx *sqlTx, l *ctf.Logo) error {
	var err error
	if l == nil {
		_, err = tx.ExecContext(ctx, "DELETE FROM event_logo WHERE id = 1")
	} else {
		_, err = tx.ExecContext(ctx, `INSERT INTO event_logo (id, content_type, sha256, data, updated_at) VALUES (1, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET content_type = excluded.content_type, sha256 = excluded.sha256, data = excluded.data,
			updated_at = excluded.updated_at`, l.Type, l.SHA256, l.Data, ms(l.UpdatedAt))
	}
	if err != nil {
		return fmt.Errorf("save the event's logo: %w", err)
	}
	return nil
}

// Pages reads the event's pages that have a row (a load).
func (t LoadContent) Pages() ([]ctf.Page, error) { return queryPages(t.ctx, t.tx, "") }

// PutPage replaces one of the event's pages (a load).
func (t LoadContent) PutPage(p ctf.Page) error { return putPage(t.ctx, t.tx, p) }

// Logo reads the event's logo (nil: none), in a load.
func (t LoadContent) Logo() (*ctf.Logo, error) { return queryLogo(t.ctx, t.tx) }

// PutLogo replaces the event's logo (a load).
func (t LoadContent) PutLogo(l ctf.Logo) error { return putLogo(t.ctx, t.tx, &l) }

// Pages reads the event's pages that have a row, by name.
func (t *DumpTx) Pages() ([]ctf.Page, error) { return queryPages(t.ctx, t.tx, "") }

// Logo reads the event's logo (nil: none).
func (t *DumpTx) Logo() (*ctf.Logo, error) { return queryLogo(t.ctx, t.tx) }
