package web

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

// The event as one file, from the web app: the same dump and load as the
// CLI's (docs/product.md#import-and-export), for admins, audited.

// maxImportBytes bounds an uploaded dataset: a dump of a large event with
// its handouts inline fits; a bigger one goes through `flagship load`.
const maxImportBytes = 64 << 20

type adminDataData struct {
	MaxMiB int
}

func (h *Handler) adminData(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	h.render(w, r, "admin-data", page{Title: "Import and export · Admin", Viewer: v, Data: adminDataData{MaxMiB: maxImportBytes >> 20}})
}

// adminExport sends the whole event as a dataset file (YAML, or JSON with
// ?format=json), as `flagship dump` writes it.
func (h *Handler) adminExport(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	format := "yaml"
	if r.URL.Query().Get("format") == "json" {
		format = "json"
	}
	ds, err := h.svc.Admin.Export(r.Context(), v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	name := "flagship-" + h.clock().Now.UTC().Format("20060102-150405") + "." + format
	hd := w.Header()
	if format == "json" {
		hd.Set("Content-Type", "application/json; charset=utf-8")
	} else {
		hd.Set("Content-Type", "application/yaml; charset=utf-8")
	}
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	// A dump holds password hashes and secrets: never cached anywhere.
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	if err := dataset.Encode(w, ds, format); err != nil {
		h.log.Warn("web export", "err", err)
	}
}

// adminImport loads an uploaded dataset file as `flagship load` does (one
// transaction: all or nothing), then shows what it did.
func (h *Handler) adminImport(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	fail := func(err error) { h.redirectWith(w, r, v, "/admin/data", flash{Error: h.refused(w, r, err).Error}) }
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		if isTooLarge(err) {
			fail(ctf.Errorf(ctf.Invalid, "the file is over %d MiB; load it with flagship load instead", maxImportBytes>>20))
			return
		}
		fail(ctf.Errorf(ctf.Invalid, "choose a dataset file (YAML or JSON) to import"))
		return
	}
	f, hdr, err := r.FormFile("dataset")
	if err != nil {
		fail(ctf.Errorf(ctf.Invalid, "choose a dataset file (YAML or JSON) to import"))
		return
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		fail(ctf.Errorf(ctf.Invalid, "the file could not be read"))
		return
	}
	name := filepath.Base(strings.ReplaceAll(hdr.Filename, "\\", "/"))
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
	default:
		fail(ctf.Errorf(ctf.Invalid, "Nothing was imported: a dataset file ends in .yaml, .yml or .json."))
		return
	}
	ds, err := dataset.DecodeUpload(data, name)
	if err != nil {
		fail(ctf.Errorf(ctf.Invalid, "%s", importErrors(err)))
		return
	}
	rep, err := h.svc.Admin.Import(r.Context(), v, ds)
	if err != nil {
		var de *dataset.Error
		if errors.As(err, &de) {
			err = ctf.Errorf(ctf.Invalid, "%s", importErrors(err))
		}
		fail(err)
		return
	}
	sum := func(m map[string]int) int {
		n := 0
		for _, c := range m {
			n += c
		}
		return n
	}
	notice := fmt.Sprintf("Imported: %d created, %d updated, %d unchanged.", sum(rep.Created), sum(rep.Updated), sum(rep.Unchanged))
	h.redirectWith(w, r, v, "/admin/data", flash{Notice: notice + importWarnings(rep.Warnings)})
}

// importWarnings says, after an import, what loaded but will not work as
// it is (platform.ImportReport.Warnings), the first few.
func importWarnings(warnings []string) string {
	if len(warnings) == 0 {
		return ""
	}
	return " Check: " + firstFew(warnings, "warnings") + "."
}

// importErrors is a refused dataset's problems, the first few, one a
// sentence.
func importErrors(err error) string {
	var msgs []string
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			msgs = append(msgs, e.Error())
		}
	} else {
		msgs = []string{err.Error()}
	}
	return "Nothing was imported: " + firstFew(msgs, "problems") + "."
}

// firstFew joins the first five of msgs, and says how many more there
// are (of what).
func firstFew(msgs []string, what string) string {
	const shown = 5
	if len(msgs) <= shown {
		return strings.Join(msgs, "; ")
	}
	return strings.Join(msgs[:shown], "; ") + fmt.Sprintf(" (and %d more %s)", len(msgs)-shown, what)
}
