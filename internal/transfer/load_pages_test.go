package transfer_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// logoPNG is the start of a PNG file: the content check reads its
// signature.
var logoPNG = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 64)...)

// TestLoadPagesAndLogo: the pages and the logo of a dataset are loaded
// (a page left out left alone), read back by the hot state's snapshot,
// reloaded without change, dumped, and the dump loads into an empty
// database as the same pages and logo; a page that is not one of the
// three, too long a text, a duplicate and a logo that is no PNG, JPEG,
// GIF or WebP are refused naming the entry.
func TestLoadPagesAndLogo(t *testing.T) {
	ctx := context.Background()
	db := baseDB(t)
	logo := base64.StdEncoding.EncodeToString(logoPNG)
	yaml := "pages:\n  - {name: landing, text: \"# Welcome\\r\\n\\nHave *fun*.\"}\n  - {name: rules, text: Be nice.}\n  - {name: faq, text: \"  \"}\n" +
		"logo: {contentBase64: " + logo + "}\n"
	path := writeFile(t, t.TempDir(), "pages.yaml", yaml)
	rep := mustLoad(t, db, path)
	if want := map[string]int{"pages": 3, "logo": 1}; !reflect.DeepEqual(rep.Created, want) {
		t.Errorf("created %v, want %v", rep.Created, want)
	}
	snap, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, p := range snap.Pages {
		texts[p.Name] = p.Text
	}
	if want := map[string]string{"landing": "# Welcome\n\nHave *fun*.", "rules": "Be nice.", "faq": ""}; !reflect.DeepEqual(texts, want) {
		t.Errorf("pages %q, want %q", texts, want)
	}
	if snap.Logo == nil || !bytes.Equal(snap.Logo.Data, logoPNG) || snap.Logo.Type != "image/png" {
		t.Fatalf("the logo is %+v", snap.Logo)
	}
	if rep := mustLoad(t, db, path); total(rep.Created)+total(rep.Updated) != 0 || rep.Unchanged["pages"] != 3 || rep.Unchanged["logo"] != 1 {
		t.Errorf("a reload changed something: %+v", rep)
	}
	if rep := mustLoad(t, db, writeFile(t, t.TempDir(), "rules.yaml", "pages: [{name: rules, text: Be kind.}]\n")); rep.Updated["pages"] != 1 {
		t.Errorf("a new text: %+v", rep)
	}

	d := dump(t, db)
	if want := []dataset.Page{{Name: "landing", Text: "# Welcome\n\nHave *fun*."}, {Name: "rules", Text: "Be kind."}}; !reflect.DeepEqual(d.Pages, want) {
		t.Errorf("dumped pages %+v, want %+v", d.Pages, want)
	}
	if d.Logo == nil || d.Logo.ContentBase64 != logo {
		t.Fatalf("dumped logo %+v", d.Logo)
	}
	var out bytes.Buffer
	if err := dataset.Encode(&out, d, "yaml"); err != nil {
		t.Fatal(err)
	}
	again := openDB(t)
	mustLoad(t, again, writeFile(t, t.TempDir(), "dump.yaml", out.String()))
	d2 := dump(t, again)
	if !reflect.DeepEqual(d2.Pages, d.Pages) || d2.Logo == nil || d2.Logo.ContentBase64 != logo {
		t.Errorf("the dump loads as pages %+v, logo %v", d2.Pages, d2.Logo != nil)
	}

	svg := base64.StdEncoding.EncodeToString([]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown page", "pages: [{name: about, text: x}]\n", `pages[0] (name "about"): name: must be one of landing, rules, faq`},
		{"duplicate", "pages: [{name: rules, text: x}, {name: rules, text: y}]\n", "pages[1] (name \"rules\"): name: duplicate page"},
		{"too long", "pages: [{name: faq, text: " + strings.Repeat("a", ctf.MaxPageBytes+1) + "}]\n", "text: must be at most 64 KiB"},
		{"svg logo", "logo: {contentBase64: " + svg + "}\n", "logo: contentBase64: must be a PNG, JPEG, GIF or WebP image"},
		{"not base64", "logo: {contentBase64: '%%%'}\n", "logo: contentBase64: must be standard base64"},
	} {
		_, err := loadPaths(t, db, writeFile(t, t.TempDir(), "bad.yaml", tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := transfer.Dump(ctx, db); err != nil {
		t.Fatal(err)
	}
}
