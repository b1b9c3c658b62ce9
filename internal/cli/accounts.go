package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

type userJSON struct {
	ID        string   `json:"id"`
	Username  string   `json:"username"`
	Name      string   `json:"name"`
	Email     string   `json:"email"`
	Role      ctf.Role `json:"role"`
	Banned    bool     `json:"banned"`
	CreatedAt string   `json:"createdAt"`
}

func toUserJSON(u live.UserView) userJSON {
	return userJSON{u.ID, u.Username, u.Name, u.Email, u.Role, u.Banned, u.CreatedAt}
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
	in := platform.NewUser{Username: *username, Email: *email, Name: *name, Role: ctf.RolePlayer}
	if *admin {
		in.Role = ctf.RoleAdmin
	}
	if *pwStdin {
		line, err := bufio.NewReader(a.Stdin).ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("read password: %w", err)
		}
		if in.Password = strings.TrimRight(line, "\r\n"); in.Password == "" {
			return usagef("--password-stdin read an empty password")
		}
	}
	svc, closeDB, err := a.service(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	u, err := svc.Accounts.CreateUser(ctx, ctf.Operator, in)
	if err != nil {
		return flagError(err)
	}
	a.print(toUserJSON(live.UserView{ID: u.ID, Username: u.Username, Name: u.Name, Email: u.Email, Role: u.Role,
		Banned: u.Banned, CreatedAt: ctf.FormatTime(u.CreatedAt)}), fmt.Sprintf("created %s %s (%s)", u.Role, u.Username, u.ID))
	return nil
}

// flagError makes a rule's refusal of a command-line value a usage error
// (exit code 2), naming the option.
func flagError(err error) error {
	var e *ctf.Error
	if errors.As(err, &e) && e.Code == ctf.Invalid {
		if e.Field != "" {
			return usagef("--%s", e.Message)
		}
		return usagef("%s", e.Message)
	}
	return err
}

func (a *app) userList(ctx context.Context, args []string) error {
	fs := a.flags("user list", "user list [--json]")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	svc, closeDB, err := a.service(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	users, err := svc.Admin.Users(ctx, ctf.Operator, "")
	if err != nil {
		return err
	}
	out := make([]userJSON, 0, len(users))
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUSERNAME\tNAME\tEMAIL\tROLE\tBANNED\tCREATED")
	for _, u := range users {
		out = append(out, toUserJSON(u))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%s\n", u.ID, u.Username, u.Name, u.Email, u.Role, u.Banned, u.CreatedAt)
	}
	tw.Flush()
	a.print(out, b.String())
	return nil
}

// createKey mints a key for a user and returns it and its secret, shown
// once.
func createKey(ctx context.Context, svc *platform.Service, username, name string, readOnly bool) (live.APIKeyView, string, error) {
	u, err := svc.Admin.UserByName(ctx, ctf.Operator, username)
	if err != nil {
		return live.APIKeyView{}, "", err
	}
	k, key, err := svc.Keys.Create(ctx, ctf.Operator, platform.NewAPIKey{Owner: u.ID, Name: name, ReadOnly: readOnly})
	return k, key, flagError(err)
}

func (a *app) apikeyCreate(ctx context.Context, args []string) error {
	fs := a.flags("apikey create", "apikey create --user USERNAME --name NAME [--read-only]")
	username := fs.String("user", "", "the key's owner")
	name := fs.String("name", "", "a name to recognise the key by")
	readOnly := fs.Bool("read-only", false, "a key that reads but cannot submit flags (for an agent that only watches)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if *username == "" || strings.TrimSpace(*name) == "" {
		return usagef("--user and --name are required")
	}
	svc, closeDB, err := a.service(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	k, key, err := createKey(ctx, svc, *username, *name, *readOnly)
	if err != nil {
		return err
	}
	a.print(map[string]any{"id": k.ID, "name": k.Name, "keyPrefix": k.KeyPrefix, "key": key, "readOnly": *readOnly},
		fmt.Sprintf("%s\n(id %s; this is the only time the key is shown)", key, k.ID))
	return nil
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
	svc, closeDB, err := a.service(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	u, err := svc.Admin.UserByName(ctx, ctf.Operator, *username)
	if err != nil {
		return err
	}
	keys, err := svc.Keys.List(ctx, ctf.Operator, u.ID)
	if err != nil {
		return err
	}
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.KeyPrefix, k.CreatedAt, dash(k.LastUsedAt), dash(k.RevokedAt))
	}
	tw.Flush()
	a.print(keys, b.String())
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
	svc, closeDB, err := a.service(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	u, err := svc.Admin.UserByName(ctx, ctf.Operator, *username)
	if err != nil {
		return err
	}
	if _, err := svc.Keys.Revoke(ctx, ctf.Operator, u.ID, *id); err != nil {
		return err
	}
	a.print(map[string]any{"id": *id, "revoked": true}, "revoked "+*id)
	return nil
}
