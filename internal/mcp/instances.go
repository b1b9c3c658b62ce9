package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
	"github.com/flagshipctf/flagship/internal/platform"
)

// A player's own instance of a challenge (docs/product.md#instances): the
// tools call the instance use cases, which hold every rule.

type playerInstance struct {
	Status     string `json:"status" jsonschema:"starting, running or stopping"`
	Host       string `json:"host"`
	Port       int    `json:"port"`
	Connection string `json:"connection" jsonschema:"how to reach it, e.g. nc host 31337 or http://host:31337/"`
	StartedAt  string `json:"startedAt"`
	ExpiresAt  string `json:"expiresAt" jsonschema:"when it stops by itself; extend_instance moves it, up to a maximum"`
}

func playerInstanceOf(v *platform.InstanceView) *playerInstance {
	if v == nil {
		return nil
	}
	return &playerInstance{Status: v.Status, Host: v.Host, Port: v.Port, Connection: v.Connection,
		StartedAt: ctf.FormatTime(v.StartedAt), ExpiresAt: ctf.FormatTime(v.ExpiresAt)}
}

type startInstanceOutput struct {
	Instance playerInstance `json:"instance"`
	Started  bool           `json:"started" jsonschema:"true: started now; false: it ran already, nothing was started"`
}

type instanceStatusOutput struct {
	Instance *playerInstance `json:"instance" jsonschema:"your instance; null when none runs (start_instance starts one)"`
}

type extendInstanceOutput struct {
	Instance playerInstance `json:"instance"`
}

type stopInstanceOutput struct {
	Stopped bool `json:"stopped" jsonschema:"true: your instance is stopped and removed"`
}

func (h *Handler) addInstanceTools(s *sdk.Server) {
	write := &sdk.ToolAnnotations{OpenWorldHint: new(false), DestructiveHint: new(false), IdempotentHint: true}
	addTool(s, &sdk.Tool{Name: "start_instance", Title: "Start your instance", Annotations: write,
		Description: "Start your own instance of a challenge whose get_challenge says instance.perPlayer: a container of its " +
			"service, with your own flag, reachable at the connection line it answers. It stops by itself at expiresAt. " +
			"If yours runs already, it is answered and nothing is started."}, h.startInstance)
	addTool(s, &sdk.Tool{Name: "instance_status", Title: "Your instance",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
		Description: "Your instance of a challenge: its status, connection line and expiry, or null when none runs."}, h.instanceStatus)
	addTool(s, &sdk.Tool{Name: "extend_instance", Title: "Extend your instance",
		Annotations: &sdk.ToolAnnotations{OpenWorldHint: new(false), DestructiveHint: new(false)},
		Description: "Give your running instance of a challenge more time: its expiry moves to one lifetime from now, " +
			"up to the challenge's maximum."}, h.extendInstance)
	addTool(s, &sdk.Tool{Name: "stop_instance", Title: "Stop your instance",
		Annotations: &sdk.ToolAnnotations{OpenWorldHint: new(false), IdempotentHint: true},
		Description: "Stop and remove your instance of a challenge, e.g. to start a fresh one or to free your " +
			"share of instances for another challenge."}, h.stopInstance)
}

func (h *Handler) startInstance(ctx context.Context, _ *sdk.CallToolRequest, in slugInput) (*sdk.CallToolResult, startInstanceOutput, error) {
	view, created, err := h.svc.Instances.Start(ctx, viewer(ctx), in.Slug)
	if err != nil {
		return nil, startInstanceOutput{}, h.instanceError(err, in.Slug)
	}
	return nil, startInstanceOutput{Instance: *playerInstanceOf(&view), Started: created}, nil
}

func (h *Handler) instanceStatus(ctx context.Context, _ *sdk.CallToolRequest, in slugInput) (*sdk.CallToolResult, instanceStatusOutput, error) {
	view, err := h.svc.Instances.Get(ctx, viewer(ctx), in.Slug)
	if err != nil {
		return nil, instanceStatusOutput{}, h.instanceError(err, in.Slug)
	}
	return nil, instanceStatusOutput{Instance: playerInstanceOf(view)}, nil
}

func (h *Handler) extendInstance(ctx context.Context, _ *sdk.CallToolRequest, in slugInput) (*sdk.CallToolResult, extendInstanceOutput, error) {
	view, err := h.svc.Instances.Extend(ctx, viewer(ctx), in.Slug)
	if err != nil {
		return nil, extendInstanceOutput{}, h.instanceError(err, in.Slug)
	}
	return nil, extendInstanceOutput{Instance: *playerInstanceOf(&view)}, nil
}

func (h *Handler) stopInstance(ctx context.Context, _ *sdk.CallToolRequest, in slugInput) (*sdk.CallToolResult, stopInstanceOutput, error) {
	if err := h.svc.Instances.Stop(ctx, viewer(ctx), in.Slug); err != nil {
		return nil, stopInstanceOutput{}, h.instanceError(err, in.Slug)
	}
	return nil, stopInstanceOutput{Stopped: true}, nil
}

// instanceError is toolError, plus the refusals only instances give: a
// limit reached (Conflict) and an engine or capacity that cannot take one
// now (Unavailable, with the wait the API gives as Retry-After).
func (h *Handler) instanceError(err error, slug string) error {
	var de *ctf.Error
	switch {
	case ctf.ErrorCode(err) == ctf.Conflict:
		return errors.New(ctf.ErrorMessage(err))
	case ctf.ErrorCode(err) == ctf.Unavailable && errors.As(err, &de) && de.RetryAfter > 0:
		return fmt.Errorf("%s (retry after %d seconds)", de.Message, httpx.RetrySeconds(de.RetryAfter))
	}
	return h.toolError(err, slug)
}

// yourInstance is what get_challenge says of a challenge's instances:
// whether each player starts their own, and the caller's while it runs.
func (h *Handler) yourInstance(ctx context.Context, v ctf.Viewer, slug string) (perPlayer bool, yours *playerInstance, err error) {
	view, err := h.svc.Instances.Get(ctx, v, slug)
	switch {
	case err == nil:
		return true, playerInstanceOf(view), nil
	case ctf.ErrorCode(err) == ctf.NotFound:
		// A service the organisers run for everyone, or a shared instance.
		return false, nil, nil
	}
	return false, nil, err
}
