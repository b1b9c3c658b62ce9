package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

type agentJSON struct {
	ID        string `json:"id"`
	Username  string `json:"username"`
	Name      string `json:"name"`
	Owner     string `json:"owner"`
	Model     string `json:"model"`
	Harness   string `json:"harness"`
	CreatedAt string `json:"createdAt"`
}

func (a *app) agentCreate(ctx context.Context, args []string) error {
	fs := a.flags("agent create", "agent create --owner USERNAME --username A --model M [--harness H] [--name N]")
	owner := fs.String("owner", "", "username of the person who runs the agent")
	username := fs.String("username", "", "the agent's username, 3–32 of [A-Za-z0-9_.-]")
	name := fs.String("name", "", "display name")
	model := fs.String("model", "", "the model that plays, e.g. claude-sonnet-4-5")
	harness := fs.String("harness", "", "what drives it, e.g. a ReAct loop")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if *owner == "" {
		return usagef("--owner is required: the username of the person who runs the agent")
	}
	svc, closeDB, err := a.service(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	o, err := svc.Admin.UserByName(ctx, ctf.Operator, *owner)
	if err != nil {
		return err
	}
	u, err := svc.Agents.Create(ctx, ctf.Operator, platform.NewAgent{Owner: o.ID, Username: *username, Name: *name,
		Model: *model, Harness: *harness})
	if err != nil {
		return flagError(err)
	}
	a.print(agentJSON{u.ID, u.Username, u.Name, o.Username, u.Model, u.Harness, ctf.FormatTime(u.CreatedAt)},
		fmt.Sprintf("created agent %s (%s), run by %s; mint its keys with: flagship apikey create --user %s --name NAME",
			u.Username, u.ID, o.Username, u.Username))
	return nil
}

func (a *app) agentList(ctx context.Context, args []string) error {
	fs := a.flags("agent list", "agent list")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	svc, closeDB, err := a.service(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	agents, err := svc.Agents.All(ctx, ctf.Operator)
	if err != nil {
		return err
	}
	out := make([]agentJSON, 0, len(agents))
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "USERNAME\tOWNER\tMODEL\tHARNESS\tID")
	for _, u := range agents {
		owner := ""
		if p := svc.Scoreboard.Profile(u.OwnerID); p != nil && p.Username != nil {
			owner = *p.Username
		}
		out = append(out, agentJSON{u.ID, u.Username, u.Name, owner, u.Model, u.Harness, ctf.FormatTime(u.CreatedAt)})
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.Username, owner, u.Model, u.Harness, u.ID)
	}
	tw.Flush()
	a.print(out, b.String())
	return nil
}
