package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// manyChallenges is more challenges than a page of resources: n visible
// ones (every tenth with a file), and a hidden one with a file.
func manyChallenges(n int) string {
	var b strings.Builder
	b.WriteString("users:\n  - {username: alice, email: alice@example.com, password: alice-password}\nchallenges:\n")
	for i := range n {
		file := ""
		if i%10 == 0 {
			file = ", file: {name: handout.txt, path: files/handout.txt}"
		}
		fmt.Fprintf(&b, "  - {slug: c%03d, title: Challenge %d, categories: [misc], points: 100, flags: ['flag{%d}']%s}\n", i, i, i, file)
	}
	b.WriteString("  - {slug: zz-hidden, title: Hidden, categories: [misc], points: 100, flags: ['flag{h}'], hidden: true, " +
		"file: {name: handout.txt, path: files/handout.txt}}\n")
	return b.String()
}

// TestResourcesList: resources/list lists every visible challenge's
// description and readable file, in pages, each resource once; a hidden
// challenge's are not listed; every listed resource reads.
func TestResourcesList(t *testing.T) {
	t.Parallel()
	const n = 130 // 130 descriptions + 13 files: two pages of 100
	s := apitest.Start(t, manyChallenges(n))
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	ctx := context.Background()

	first, err := cs.ListResources(ctx, &sdk.ListResourcesParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Resources) != 100 || first.NextCursor == "" {
		t.Fatalf("first page: %d resources, next cursor %q; want 100 and a cursor", len(first.Resources), first.NextCursor)
	}
	second, err := cs.ListResources(ctx, &sdk.ListResourcesParams{Cursor: first.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Resources) != n+n/10-100 || second.NextCursor != "" {
		t.Fatalf("second page: %d resources, next cursor %q; want %d and none", len(second.Resources), second.NextCursor, n+n/10-100)
	}

	// The client's iterator follows the cursors to the same list.
	var uris []string
	byURI := map[string]*sdk.Resource{}
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
		byURI[r.URI] = r
	}
	paged := append(append([]string{}, uriList(first.Resources)...), uriList(second.Resources)...)
	if !slices.Equal(uris, paged) {
		t.Errorf("iterated %d resources, paged %d: not the same list", len(uris), len(paged))
	}
	if len(byURI) != len(uris) || !slices.IsSorted(uris) {
		t.Errorf("resources repeat or are out of order")
	}
	for _, u := range uris {
		if strings.Contains(u, "zz-hidden") {
			t.Errorf("a hidden challenge's resource is listed: %s", u)
		}
	}
	desc, file := byURI["flagship://challenges/c010"], byURI["flagship://challenges/c010/file"]
	if desc == nil || desc.MIMEType != "text/markdown" || desc.Title != "Challenge 10" || desc.Name != "c010" {
		t.Errorf("description resource: %+v", desc)
	}
	if file == nil || file.Size != 23 || file.Name != "handout.txt" || !strings.HasPrefix(file.MIMEType, "text/plain") {
		t.Errorf("file resource: %+v", file)
	}
	if byURI["flagship://challenges/c011/file"] != nil {
		t.Errorf("a challenge without a file lists one")
	}
	for _, u := range []string{"flagship://challenges/c010", "flagship://challenges/c010/file", "flagship://challenges/c129"} {
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: u}); err != nil {
			t.Errorf("read listed %s: %v", u, err)
		}
	}

	// A cursor that is not one is invalid params.
	_, err = cs.ListResources(ctx, &sdk.ListResourcesParams{Cursor: "not a cursor"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "cursor") {
		t.Errorf("bad cursor: %v, want invalid params", err)
	}
	// The templates stay listed.
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 2 {
		t.Errorf("templates: %v, %v", tmpl, err)
	}
}

func uriList(rs []*sdk.Resource) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.URI
	}
	return out
}
