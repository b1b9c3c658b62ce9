package web

import (
	"fmt"
	"net/http"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// agentsData is the page where a player runs their AI agents: each agent
// is an account of its own (docs/product.md#agents), playing under keys minted here.
type agentsData struct {
	Agents   []live.AgentView
	Max      int
	NewKey   string // a key just made for an agent: shown this once
	NewAgent string // whose key it is: the agent's id, then its username
	BaseURL  string
	Form     platform.NewAgent // what was sent, kept after an error
}

func (h *Handler) agents(w http.ResponseWriter, r *http.Request) {
	v, ok := h.signedIn(w, r)
	if !ok {
		return
	}
	f := h.takeFlash(w, r, v)
	d := agentsData{NewKey: f.Key, NewAgent: f.Agent}
	if f.Key == "" {
		d.NewAgent = ""
	}
	h.agentsPage(w, r, v, page{Notice: f.Notice, Error: f.Error, flashTaken: true}, d)
}

func (h *Handler) agentsPage(w http.ResponseWriter, r *http.Request, v ctf.Viewer, p page, d agentsData) {
	var err error
	if d.Agents, err = h.svc.Agents.List(r.Context(), v, ""); err != nil {
		h.error(w, r, v, err)
		return
	}
	for _, a := range d.Agents {
		if a.ID == d.NewAgent {
			d.NewAgent = a.Username
		}
	}
	d.Max = ctf.MaxAgentsPerOwner
	d.BaseURL = h.baseURL(r)
	p.Title, p.Viewer, p.Data = "Agents", v, d
	h.render(w, r, "agents", p)
}

// agentsForm runs one form of the agents page, like settingsForm; a
// refused new agent is shown in place, its form kept (a reload creates
// nothing).
func (h *Handler) agentsForm(fn func(r *http.Request, v ctf.Viewer, d *agentsData) (notice string, err error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, ok := h.signedIn(w, r)
		if !ok {
			return
		}
		var d agentsData
		notice, err := fn(r, v, &d)
		if err != nil && d.Form != (platform.NewAgent{}) {
			p := h.refused(w, r, err)
			p.Path = "/settings/agents"
			h.agentsPage(w, r, v, p, d)
			return
		}
		if err != nil {
			h.redirectWith(w, r, v, "/settings/agents", flash{Error: h.refused(w, r, err).Error})
			return
		}
		h.redirectWith(w, r, v, "/settings/agents", flash{Notice: notice, Key: d.NewKey, Agent: d.NewAgent})
	}
}

func (h *Handler) createAgent(r *http.Request, v ctf.Viewer, d *agentsData) (string, error) {
	d.Form = platform.NewAgent{Username: r.PostFormValue("username"), Name: r.PostFormValue("name"),
		Model: r.PostFormValue("model"), Harness: r.PostFormValue("harness")}
	a, err := h.svc.Agents.Create(r.Context(), v, d.Form)
	if err != nil {
		return "", err
	}
	d.Form = platform.NewAgent{}
	return "Agent " + a.Username + " created. Mint it a key below to let it play.", nil
}

func (h *Handler) createAgentKey(r *http.Request, v ctf.Viewer, d *agentsData) (string, error) {
	agent := r.PostFormValue("agent")
	k, secret, err := h.svc.Keys.Create(r.Context(), v, platform.NewAPIKey{Owner: agent, Name: r.PostFormValue("name"),
		ReadOnly: r.PostFormValue("readonly") == "1"})
	if err != nil {
		return "", err
	}
	d.NewKey, d.NewAgent = secret, agent
	return "Key " + k.KeyPrefix + "… created. Copy it now: it is shown only this once.", nil
}

func (h *Handler) revokeAgentKey(r *http.Request, v ctf.Viewer, _ *agentsData) (string, error) {
	_, err := h.svc.Keys.Revoke(r.Context(), v, r.PostFormValue("agent"), r.PostFormValue("id"))
	return "Key revoked.", err
}

// baseURL is the address the caller reached us at, for ready-made commands.
func (h *Handler) baseURL(r *http.Request) string {
	if r.TLS != nil || h.opts.SecureCookies {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// formatDuration says a time to solve in the largest units that matter:
// "2d 3h", "3h 05m", "4m 10s".
func formatDuration(d *time.Duration) string {
	if d == nil {
		return ""
	}
	x := max(*d, 0).Round(time.Second)
	days, hours := int(x/(24*time.Hour)), int(x%(24*time.Hour)/time.Hour)
	mins, secs := int(x%time.Hour/time.Minute), int(x%time.Minute/time.Second)
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case hours > 0:
		return fmt.Sprintf("%dh %02dm", hours, mins)
	default:
		return fmt.Sprintf("%dm %02ds", mins, secs)
	}
}
