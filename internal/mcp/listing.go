package mcp

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"mime"
	"path"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// resourcesPageSize is how many resources one resources/list answer holds;
// nextCursor asks for the rest.
const resourcesPageSize = 100

// listedResources answers resources/list itself: the resources are the
// visible challenges of the caller (each one's description, and its file
// when it is readable as a resource), which the SDK's list of resources
// added once at start cannot be. Other methods go on to the SDK.
func (h *Handler) listedResources(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		r, ok := req.(*sdk.ListResourcesRequest)
		if method != "resources/list" || !ok {
			return next(ctx, method, req)
		}
		cursor := ""
		if r.Params != nil {
			cursor = r.Params.Cursor
		}
		return h.listResources(ctx, cursor)
	}
}

// listResources is one page of the caller's resources, in URI order. The
// cursor is the last URI of the page before (opaque to clients), so a page
// never repeats or skips a resource that stays while the client pages, even
// as challenges appear or hide between two pages.
func (h *Handler) listResources(ctx context.Context, cursor string) (*sdk.ListResourcesResult, error) {
	after := ""
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || !strings.HasPrefix(string(b), uriPrefix) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: "invalid cursor: pass the nextCursor of the previous page as it was, or none for the first page"}
		}
		after = string(b)
	}
	all, err := h.resourcesOf(ctx, viewer(ctx))
	if err != nil {
		return nil, h.toolError(err, "")
	}
	from, _ := slices.BinarySearchFunc(all, after, func(r *sdk.Resource, uri string) int { return cmp.Compare(r.URI, uri) })
	for from < len(all) && all[from].URI <= after {
		from++
	}
	res := &sdk.ListResourcesResult{Resources: all[from:min(from+resourcesPageSize, len(all))]}
	if from+resourcesPageSize < len(all) {
		res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(res.Resources[len(res.Resources)-1].URI))
	}
	return res, nil
}

// resourcesOf lists what v may read, sorted by URI: each visible
// challenge's description and, when it is a stored file within the blob
// limit, its file.
func (h *Handler) resourcesOf(ctx context.Context, v ctf.Viewer) ([]*sdk.Resource, error) {
	var out []*sdk.Resource
	for _, c := range h.svc.Play.Board(v) {
		out = append(out, &sdk.Resource{URI: uriPrefix + c.Slug, Name: c.Slug, Title: c.Title, MIMEType: "text/markdown",
			Description: fmt.Sprintf("The challenge %q as Markdown (%s, %d points): its description, service and file.",
				c.Title, strings.Join(c.Categories, ", "), c.Points)})
		if c.FileURL == nil {
			continue
		}
		f, err := h.svc.Play.FileOf(ctx, c.Slug)
		if err != nil {
			return nil, err
		}
		if f == nil || f.Size < 0 || f.Size > maxBlobBytes {
			continue
		}
		out = append(out, &sdk.Resource{URI: fileURI(c.Slug), Name: f.Name, Title: c.Title + ": " + f.Name,
			MIMEType: mimeOf(f.Name), Size: f.Size,
			Description: fmt.Sprintf("The file of the challenge %q (%d bytes), as a blob.", c.Title, f.Size)})
	}
	slices.SortFunc(out, func(a, b *sdk.Resource) int { return cmp.Compare(a.URI, b.URI) })
	return out, nil
}

// mimeOf is the media type of a file by its name's extension.
func mimeOf(name string) string {
	if mt := mime.TypeByExtension(path.Ext(name)); mt != "" {
		return mt
	}
	return "application/octet-stream"
}
