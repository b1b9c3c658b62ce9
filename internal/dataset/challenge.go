package dataset

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"go.yaml.in/yaml/v3"
)

// challengeDraft is a challenge being decoded: ctfcli spells several
// keys differently, and an entry that gives both spellings is refused.
type challengeDraft struct {
	Challenge
	givenBy map[string]string // target field -> key that set it
	scoring *scoringDraft     // the scoring key, nil when not given
	extra   ctfcliExtra       // ctfcli's extra: a dynamic scoring, or the points when no key gives them
}

// once reports whether key is the first to set target, and refuses it if not.
func (c *challengeDraft) once(d *decoder, target, key string) bool {
	if prev, ok := c.givenBy[target]; ok {
		d.fail(key, "%s and %s both given; use one", prev, key)
		return false
	}
	c.givenBy[target] = key
	return true
}

// givenOnce is f, refused after another key set target (title or name,
// points or value...); a refused value is not read.
func givenOnce(target string, f field[challengeDraft]) field[challengeDraft] {
	read := f.read
	f.read = func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		if c.once(d, target, path) {
			read(d, c, v, path)
		}
	}
	return f
}

var (
	challengeTitle      = givenOnce("title", asTrimmed("title", func(c *challengeDraft) *string { return &c.Title }))
	challengeCategories = givenOnce("categories", field[challengeDraft]{"categories", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		for _, s := range d.strs(v, path) {
			if s = strings.TrimSpace(s); !contains(c.Categories, s) {
				c.Categories = append(c.Categories, s)
			}
		}
	}})
	challengePoints   = givenOnce("points", asInt("points", func(c *challengeDraft) *int { return &c.Points }))
	challengeRequires = givenOnce("requires", field[challengeDraft]{"requires", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		c.Requires = d.requirements(v, path)
	}})
	challengeConnectionInfo = givenOnce("connectionInfo", asText("connectionInfo", func(c *challengeDraft) *string { return &c.ConnectionInfo }))
)

// challengeFields are the keys of a challenge entry and of a ctfcli
// challenge.yml: Flagship's, then ctfcli's spellings.
var challengeFields = newMapping(rejectUnlessCtfcli, ctfcliIgnored,
	asText("id", func(c *challengeDraft) *string { return &c.ID }),
	asTrimmed("slug", func(c *challengeDraft) *string { return &c.Slug }),
	challengeTitle,
	asText("description", func(c *challengeDraft) *string { return &c.Description }),
	challengeCategories,
	asCleaned("difficulty", func(c *challengeDraft) *string { return (*string)(&c.Difficulty) }, func(s string) string {
		s = strings.TrimSpace(s)
		if canon, ok := difficulties[strings.ToLower(s)]; ok {
			return string(canon)
		}
		return s
	}),
	challengePoints,
	asTrimmed("type", func(c *challengeDraft) *string { return &c.Type }),
	field[challengeDraft]{"flags", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		c.Flags = d.flags(v, path)
	}},
	challengeRequires,
	asTrimmed("author", func(c *challengeDraft) *string { return &c.Author }),
	givenOnce("file", field[challengeDraft]{"file", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		c.File = d.fileEntry(v, path)
	}}),
	asBool("hasInstance", func(c *challengeDraft) *bool { return &c.HasInstance }),
	field[challengeDraft]{"dockerPort", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		if !isNull(v) {
			if p, ok := d.integer(v, path); ok {
				c.DockerPort = &p
			}
		}
	}},
	field[challengeDraft]{"instance", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		if !isNull(deref(v)) {
			c.Instance = new(Instance)
			instanceFields.decode(d, v, path, c.Instance)
		}
	}},
	givenOnce("hidden", asBool("hidden", func(c *challengeDraft) *bool { return &c.Hidden })),
	field[challengeDraft]{"tags", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		c.Tags = d.tags(v, path)
	}},
	challengeConnectionInfo,
	asTrimmed("flagFormat", func(c *challengeDraft) *string { return &c.FlagFormat }),
	field[challengeDraft]{"origin", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		if !isNull(deref(v)) {
			c.Origin = new(Origin)
			originFields.decode(d, v, path, c.Origin)
		}
	}},
	field[challengeDraft]{"scoring", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		if !isNull(deref(v)) {
			c.scoring = new(scoringDraft)
			scoringFields.decode(d, v, path, c.scoring)
		}
	}},
	field[challengeDraft]{"hints", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		c.Hints = d.hints(v, path)
	}},
	asTime("releaseAt", func(c *challengeDraft) **time.Time { return &c.ReleaseAt }),
	asTime("createdAt", func(c *challengeDraft) **time.Time { return &c.CreatedAt }),

	alias("name", challengeTitle),
	alias("value", challengePoints),
	alias("category", challengeCategories),
	alias("requirements", challengeRequires),
	givenOnce("hidden", field[challengeDraft]{"state", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		switch s := strings.ToLower(d.str(v, path)); s {
		case "hidden", "visible":
			c.Hidden = s == "hidden"
		default:
			d.fail(path, "must be hidden or visible, not %q", s)
		}
	}}),
	// files is a list of paths; an empty list sets nothing, so it does not
	// clash with a file key. A challenge serves one file: several are
	// zipped into <slug>.zip (see ctfcliFiles).
	field[challengeDraft]{"files", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		if paths := d.strs(v, path); len(paths) > 0 && c.once(d, "file", path) {
			c.File = d.ctfcliFiles(paths, path)
		}
	}},
	alias("connection_info", challengeConnectionInfo),
	field[challengeDraft]{"extra", func(d *decoder, c *challengeDraft, v *yaml.Node, path string) {
		extraFields.decode(d, v, path, &c.extra)
		c.extra.given = !isNull(deref(v))
	}},
)

// ctfcliIgnored are ctfcli keys a dataset challenge entry may carry and that
// Flagship ignores (a challenge.yml ignores every unknown key).
var ctfcliIgnored = []string{
	"version", "image", "host", "healthcheck", "topics", "attempts", "protocol",
	"attribution", "next",
}

// difficulties maps accepted spellings to the canonical difficulty.
var difficulties = map[string]ctf.Difficulty{"easy": ctf.Easy, "medium": ctf.Medium, "hard": ctf.Hard, "insane": ctf.Insane}

// DefaultDifficulty is given to a challenge that names none (ctfcli has no
// difficulty key) and has no tag naming one.
const DefaultDifficulty = ctf.Medium

func (d *decoder) challenge(n *yaml.Node, src Source) Challenge {
	c := challengeDraft{Challenge: Challenge{Source: src}, givenBy: map[string]string{}}
	challengeFields.decode(d, n, "", &c)
	if c.Slug == "" {
		c.Slug = Slugify(c.Title)
	}
	if !d.scoring(&c, c.scoring) {
		if n := deref(n); n != nil && n.Kind == yaml.MappingNode {
			field, or := "points", "scoring.initial"
			if d.ctfcli {
				field, or = "value", "extra.initial"
			}
			if c.Scoring.dynamic() {
				d.fail(field, "required: the dynamic challenge's initial value (or give %s)", or)
			} else {
				d.fail(field, "required")
			}
		}
	}
	if c.Difficulty == "" {
		c.Difficulty = DefaultDifficulty
		for _, t := range c.Tags {
			if canon, ok := difficulties[strings.ToLower(strings.TrimSpace(t))]; ok {
				c.Difficulty = canon
				break
			}
		}
	}
	if c.Type == "" {
		c.Type = "standard"
	}
	if c.File != nil && len(c.File.Pack) > 0 && c.File.Name == "" {
		c.File.Name = c.Slug + ".zip"
	}
	return c.Challenge
}

// ctfcliFiles reads ctfcli's files, each a regular file inside the
// directory of the file naming it: one is served as itself; several are
// packed into one zip (named after the slug once it is known), each named
// in it relative to the deepest directory holding them all, as the
// benchmarks' handouts are.
func (d *decoder) ctfcliFiles(paths []string, field string) *File {
	if len(paths) == 1 {
		f := &File{Path: paths[0]}
		d.finishFile(f, field+"[0]")
		return f
	}
	var rels, dirs []string
	root := ""
	for i, p := range paths {
		f := &File{Path: p}
		n := len(d.errs)
		d.finishFile(f, fmt.Sprintf("%s[%d]", field, i))
		root = f.Root
		if len(d.errs) > n {
			continue
		}
		if rel, err := relInRoot(f); err == nil {
			rels = append(rels, filepath.ToSlash(rel))
			dirs = append(dirs, path.Dir(filepath.ToSlash(rel)))
		}
	}
	if len(rels) == 0 {
		return nil
	}
	return handoutFile(root, rels, "", commonDir(dirs))
}

// flagFields are those of a flag given as a mapping.
var flagFields = newMapping(rejectUnlessCtfcli, nil,
	asLower("type", func(f *Flag) *string { return (*string)(&f.Type) }),
	asText("content", func(f *Flag) *string { return &f.Content }),
	asLower("data", func(f *Flag) *string { return &f.Data }),
)

// flags reads flags: a plain string is a static flag; a mapping is
// {type: static|regex, content, data: case_insensitive}.
func (d *decoder) flags(n *yaml.Node, field string) []Flag {
	out := scalarsOrMappings(d, n, field, flagFields, func(f *Flag) *string { return &f.Content })
	for i := range out {
		fl := &out[i]
		if fl.Type == "" {
			fl.Type = ctf.FlagStatic
		}
		if fl.Data == "case_sensitive" { // CTFd's spelling of the default
			fl.Data = ""
		}
		if fl.Type == ctf.FlagStatic { // submissions are trimmed, so must the flag be
			fl.Content = strings.TrimSpace(fl.Content)
		}
	}
	return out
}

// scalarsOrMappings reads a list whose items are each a mapping, read by
// m, or a scalar, the string text points at (ctfcli's flags, hints and
// tags).
func scalarsOrMappings[T any](d *decoder, n *yaml.Node, field string, m *mapping[T], text func(*T) *string) []T {
	var out []T
	for i, it := range d.items(n, field) {
		f := fmt.Sprintf("%s[%d]", field, i)
		var t T
		if it.Kind == yaml.MappingNode {
			m.decode(d, it, f, &t)
		} else {
			*text(&t) = d.str(it, f)
		}
		out = append(out, t)
	}
	return out
}

// requirementFields are ctfcli's {prerequisites: [...], anonymize: bool};
// anonymize is checked and ignored.
var requirementFields = newMapping(rejectUnknown, nil,
	asTexts("prerequisites", func(r *[]string) *[]string { return r }),
	field[[]string]{"anonymize", func(d *decoder, _ *[]string, v *yaml.Node, path string) { d.boolean(v, path) }},
)

// requirements reads a list of slugs or titles, or ctfcli's requirements
// mapping.
func (d *decoder) requirements(n *yaml.Node, field string) []string {
	if n.Kind != yaml.MappingNode {
		return d.strs(n, field)
	}
	var out []string
	requirementFields.decode(d, n, field, &out)
	return out
}

// tagFields are those of a ctfcli tag given as {value: ...}; its other
// keys are ignored.
var tagFields = newMapping(ignoreUnknown, nil,
	asText("value", func(s *string) *string { return s }),
)

// tags reads strings or ctfcli {value: ...} objects.
func (d *decoder) tags(n *yaml.Node, field string) []string {
	var out []string
	for _, s := range scalarsOrMappings(d, n, field, tagFields, func(s *string) *string { return s }) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
