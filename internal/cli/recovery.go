package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// Account recovery for the operator, without email: a one-time reset link
// to pass on, and two-factor authentication turned off. Both are audited
// as the operator's.

func (a *app) userResetPassword(ctx context.Context, args []string) error {
	fs := a.flags("user reset-password", "user reset-password --user USERNAME [--public-url URL]")
	user := fs.String("user", "", "the account's username")
	publicURL := fs.String("public-url", a.env("FLAGSHIP_PUBLIC_URL"), "the site's public URL, which the link starts with; without it the link is a path (env FLAGSHIP_PUBLIC_URL)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if *user == "" {
		return usagef("--user is required")
	}
	svc, closeDB, err := a.serviceAt(ctx, strings.TrimRight(*publicURL, "/"))
	if err != nil {
		return err
	}
	defer closeDB()
	u, err := svc.Admin.UserByName(ctx, ctf.Operator, *user)
	if err != nil {
		return err
	}
	link, err := svc.Admin.ResetLink(ctx, ctf.Operator, u.ID)
	if err != nil {
		return flagError(err)
	}
	a.print(map[string]any{"username": u.Username, "link": link, "expiresIn": platform.AdminResetLifetime.String()},
		fmt.Sprintf("A one-time link to choose a new password for %s, valid for %s:\n%s", u.Username, platform.AdminResetLifetime, link))
	return nil
}

func (a *app) userDisable2FA(ctx context.Context, args []string) error {
	fs := a.flags("user disable-2fa", "user disable-2fa --user USERNAME")
	user := fs.String("user", "", "the account's username")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if *user == "" {
		return usagef("--user is required")
	}
	svc, closeDB, err := a.service(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	u, err := svc.Admin.UserByName(ctx, ctf.Operator, *user)
	if err != nil {
		return err
	}
	if _, err := svc.Admin.DisableTwoFactor(ctx, ctf.Operator, u.ID); err != nil {
		return flagError(err)
	}
	a.print(map[string]any{"username": u.Username, "twoFactorEnabled": false},
		fmt.Sprintf("two-factor authentication is off for %s; every session of theirs has ended", u.Username))
	return nil
}

// serviceAt is service with a public URL, which links start with.
func (a *app) serviceAt(ctx context.Context, publicURL string) (*platform.Service, func(), error) {
	db, err := a.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	svc := platform.New(db, platform.Options{PublicURL: publicURL})
	if err := svc.Load(ctx); err != nil {
		db.Close()
		return nil, nil, err
	}
	return svc, func() { db.Close() }, nil
}
