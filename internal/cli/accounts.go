package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
)

func (a *app) user(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("expected a subcommand: create or list")
	}
	switch args[0] {
	case "create":
		return a.userCreate(ctx, args[1:])
	case "list":
		return a.userList(ctx, args[1:])
	}
	return usagef("unknown subcommand %q: expected create or list", args[0])
}

type userJSON struct {
	ID        string `json:"id"`
	Username  string `json:"username"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	Banned    bool   `json:"banned"`
	CreatedAt string `json:"createdAt"`
}

func toUserJSON(u ctf.User) userJSON {
	return userJSON{u.ID, u.Username, u.Name, u.Email, u.Role, u.Banned, ctf.FormatTime(u.CreatedAt)}
}

func (a *app) userCreate(ctx context.Context, args []string) error {
	fs := a.flags("user create", "user create --username U --email E [--name N] [--admin] [--password-stdin]")
	username := fs.String("username", "", "unique username, 3–32 of [A-Za-z0-9_.-]")
	email := fs.String("email", "", "email address")
	name := fs.String("name", "", "display name")
	admin := fs.Bool("admin", false, "make the user an admin")
	pwStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if err := ctf.ValidateUsername(*username); err != nil {
		return usagef("--%v", err)
	}
	if err := ctf.ValidateEmail(*email); err != nil {
		return usagef("--%v", err)
	}
	u := ctf.User{ID: ctf.NewID(), Username: *username, Name: *name, Email: *email, Role: ctf.RolePlayer, CreatedAt: ctf.Millis(time.Now())}
	if *admin {
		u.Role = ctf.RoleAdmin
	}
	if *pwStdin {
		line, err := bufio.NewReader(a.Stdin).ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("read password: %w", err)
		}
		pw := strings.TrimRight(line, "\r\n")
		if pw == "" {
			return usagef("--password-stdin read an empty password")
		}
		u.PasswordHash = secret.HashPassword(pw)
	}
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.CreateUser(ctx, u); err != nil {
		return err
	}
	a.print(toUserJSON(u), fmt.Sprintf("created %s %s (%s)", u.Role, u.Username, u.ID))
	return nil
}

func (a *app) userList(ctx context.Context, args []string) error {
	fs := a.flags("user list", "user list [--json]")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	users, err := db.Users(ctx)
	if err != nil {
		return err
	}
	out := make([]userJSON, 0, len(users))
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUSERNAME\tNAME\tEMAIL\tROLE\tBANNED\tCREATED")
	for _, u := range users {
		out = append(out, toUserJSON(u))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%s\n", u.ID, u.Username, u.Name, u.Email, u.Role, u.Banned, ctf.FormatTime(u.CreatedAt))
	}
	tw.Flush()
	a.print(out, b.String())
	return nil
}

func (a *app) apikey(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("expected a subcommand: create, list or revoke")
	}
	switch args[0] {
	case "create":
		return a.apikeyCreate(ctx, args[1:])
	case "list":
		return a.apikeyList(ctx, args[1:])
	case "revoke":
		return a.apikeyRevoke(ctx, args[1:])
	}
	return usagef("unknown subcommand %q: expected create, list or revoke", args[0])
}

// createKey mints a key for a user and returns the secret, shown once.
func createKey(ctx context.Context, db *store.DB, username, name string) (ctf.APIKey, string, error) {
	u, err := db.UserByUsername(ctx, username)
	if err != nil {
		return ctf.APIKey{}, "", err
	}
	key, prefix, hash := secret.NewAPIKey()
	k := ctf.APIKey{ID: ctf.NewID(), UserID: u.ID, Name: name, Prefix: prefix, Hash: hash, CreatedAt: ctf.Millis(time.Now())}
	return k, key, db.CreateAPIKey(ctx, k)
}

func (a *app) apikeyCreate(ctx context.Context, args []string) error {
	fs := a.flags("apikey create", "apikey create --user USERNAME --name NAME")
	username := fs.String("user", "", "the key's owner")
	name := fs.String("name", "", "a name to recognise the key by")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if *username == "" || strings.TrimSpace(*name) == "" {
		return usagef("--user and --name are required")
	}
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	k, key, err := createKey(ctx, db, *username, strings.TrimSpace(*name))
	if err != nil {
		return err
	}
	a.print(map[string]string{"id": k.ID, "name": k.Name, "keyPrefix": k.Prefix, "key": key},
		fmt.Sprintf("%s\n(id %s; this is the only time the key is shown)", key, k.ID))
	return nil
}

type keyJSON struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	KeyPrefix  string  `json:"keyPrefix"`
	CreatedAt  string  `json:"createdAt"`
	LastUsedAt *string `json:"lastUsedAt"`
	RevokedAt  *string `json:"revokedAt"`
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ctf.FormatTime(*t)
	return &s
}

func (a *app) apikeyList(ctx context.Context, args []string) error {
	fs := a.flags("apikey list", "apikey list --user USERNAME")
	username := fs.String("user", "", "the keys' owner")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if *username == "" {
		return usagef("--user is required")
	}
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := db.UserByUsername(ctx, *username)
	if err != nil {
		return err
	}
	keys, err := db.APIKeys(ctx, u.ID)
	if err != nil {
		return err
	}
	out := make([]keyJSON, 0, len(keys))
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tCREATED\tLAST USED\tREVOKED")
	dash := func(s *string) string {
		if s == nil {
			return "-"
		}
		return *s
	}
	for _, k := range keys {
		kj := keyJSON{k.ID, k.Name, k.Prefix, ctf.FormatTime(k.CreatedAt), optTime(k.LastUsedAt), optTime(k.RevokedAt)}
		out = append(out, kj)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Prefix, kj.CreatedAt, dash(kj.LastUsedAt), dash(kj.RevokedAt))
	}
	tw.Flush()
	a.print(out, b.String())
	return nil
}

func (a *app) apikeyRevoke(ctx context.Context, args []string) error {
	fs := a.flags("apikey revoke", "apikey revoke --user USERNAME --id KEY_ID")
	username := fs.String("user", "", "the key's owner")
	id := fs.String("id", "", "the key's id (see apikey list)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if *username == "" || *id == "" {
		return usagef("--user and --id are required")
	}
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := db.UserByUsername(ctx, *username)
	if err != nil {
		return err
	}
	if err := db.RevokeAPIKey(ctx, u.ID, *id, time.Now()); err != nil {
		return err
	}
	a.print(map[string]any{"id": *id, "revoked": true}, "revoked "+*id)
	return nil
}
