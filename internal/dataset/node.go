package dataset

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// decoder walks the yaml.Node tree of one file and collects *Error values.
// JSON documents are converted to the same node tree, so one walker serves both.
type decoder struct {
	file   string // file name used in errors
	dir    string // directory against which relative file paths are resolved
	ctfcli bool   // decoding a ctfcli challenge.yml: unknown keys are ignored
	// noPaths refuses files given by path: the dataset came over the
	// network, and a path would name one of the server's files.
	noPaths bool
	entry   string // label of the entry being decoded
	errs    []error
	// names holds one copy of each username and slug that activity
	// names, and of each solve's flag: a dump names each of them
	// thousands of times.
	names map[string]string
}

// name reads a username or slug that an entry refers to, trimmed.
func (d *decoder) name(n *yaml.Node, field string) string {
	return d.intern(strings.TrimSpace(d.str(n, field)))
}

// intern returns the first copy of s it was given.
func (d *decoder) intern(s string) string {
	if s == "" {
		return s
	}
	if c, ok := d.names[s]; ok {
		return c
	}
	if d.names == nil {
		d.names = map[string]string{}
	}
	d.names[s] = s
	return s
}

func (d *decoder) fail(field, format string, args ...any) {
	d.errs = append(d.errs, &Error{File: d.file, Entry: d.entry, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// parse turns YAML or JSON bytes into the root node (nil for an empty document).
// JSON is chosen by a .json name, or by a leading '{' or '[' when the name has
// no YAML extension (stdin).
func parse(data []byte, name string) (*yaml.Node, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, nil
	}
	lower := strings.ToLower(name)
	isYAML := strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml")
	if strings.HasSuffix(lower, ".json") || (!isYAML && (trimmed[0] == '{' || trimmed[0] == '[')) {
		return parseJSON(trimmed)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, err
		}
		return nil, errors.New("several YAML documents (---) in one file; use one")
	}
	var m aliasMeter
	if err := m.add(&doc); err != nil {
		return nil, err
	}
	if err := m.check(int64(len(data))); err != nil {
		return nil, err
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return &doc, nil
}

// parseJSON converts JSON to a yaml.Node tree, keeping key order, rejecting
// duplicate keys and tagging numbers as !!int or !!float.
func parseJSON(data []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := jsonValue(dec)
	if err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("json: unexpected data after the top-level value")
	}
	return n, nil
}

func jsonValue(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, unexpectedEOF(err)
	}
	return jsonValueFrom(dec, tok)
}

// jsonValueFrom is jsonValue of the value that starts with tok, already read.
func jsonValueFrom(dec *json.Decoder, tok json.Token) (*yaml.Node, error) {
	switch t := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if t == '{' {
			n = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
		seen := map[string]bool{}
		for dec.More() {
			if n.Kind == yaml.MappingNode {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				if seen[key] {
					return nil, fmt.Errorf("key %q given twice", key)
				}
				seen[key] = true
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key})
			}
			v, err := jsonValue(dec)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		if _, err := dec.Token(); err != nil { // closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(t.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t)}, nil
	default:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// kindName describes a node for error messages: `the string "100"`, `a list`.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	case "!!float":
		return "the number " + n.Value
	case "!!int":
		return "the integer " + n.Value
	case "!!bool":
		return "the boolean " + n.Value
	case "!!null":
		return "null"
	}
	return n.Value
}

// pairs returns the key/value pairs of a mapping (nil for null).
func (d *decoder) pairs(n *yaml.Node, field string) (keys []string, vals []*yaml.Node) {
	n = deref(n)
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		d.fail(field, "must be a mapping, not %s", kindName(n))
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, deref(n.Content[i]).Value)
		vals = append(vals, deref(n.Content[i+1]))
	}
	return keys, vals
}

// items returns the elements of a list; a lone scalar counts as a list of one.
func (d *decoder) items(n *yaml.Node, field string) []*yaml.Node {
	n = deref(n)
	switch {
	case isNull(n):
		return nil
	case n.Kind == yaml.SequenceNode:
		out := make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			out[i] = deref(c)
		}
		return out
	case n.Kind == yaml.ScalarNode:
		return []*yaml.Node{n}
	}
	d.fail(field, "must be a list, not %s", kindName(n))
	return nil
}

// str accepts any scalar (so `title: 2048` is the string "2048"); null is "".
func (d *decoder) str(n *yaml.Node, field string) string {
	n = deref(n)
	switch {
	case isNull(n):
		return ""
	case n.Kind != yaml.ScalarNode:
		d.fail(field, "must be a string, not %s", kindName(n))
		return ""
	case n.Tag == "!!binary":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			d.fail(field, "invalid !!binary value")
		}
		return string(b)
	}
	return n.Value
}

func (d *decoder) strs(n *yaml.Node, field string) []string {
	var out []string
	for i, it := range d.items(n, field) {
		if s := d.str(it, fmt.Sprintf("%s[%d]", field, i)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (d *decoder) integer(n *yaml.Node, field string) (int, bool) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return int(v), true
		}
	}
	d.fail(field, "must be an integer, not %s", kindName(n))
	return 0, false
}

func (d *decoder) boolean(n *yaml.Node, field string) bool {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		return strings.EqualFold(n.Value, "true")
	}
	if isNull(n) {
		return false
	}
	d.fail(field, "must be true or false, not %s", kindName(n))
	return false
}

// timestamp reads an RFC 3339 time (a YAML timestamp or a string), in UTC.
func (d *decoder) timestamp(n *yaml.Node, field string) *time.Time {
	n = deref(n)
	if isNull(n) {
		return nil
	}
	var t time.Time
	var err error
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!timestamp":
		// The library's own decoding goes through reflection; a dump's
		// times are RFC 3339, and its other forms are left to it.
		if t, err = time.Parse(time.RFC3339Nano, n.Value); err != nil {
			err = n.Decode(&t)
		}
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		if t, err = time.Parse(time.RFC3339Nano, n.Value); err != nil {
			t, err = time.Parse(time.DateOnly, n.Value)
		}
	default:
		err = errors.New("not a string")
	}
	if err != nil {
		d.fail(field, "must be an RFC 3339 timestamp like 2026-01-05T10:00:00Z, not %s", kindName(n))
		return nil
	}
	t = t.UTC()
	return &t
}

// unknown reports an unknown key, suggesting a close known one.
func (d *decoder) unknown(field, key string, known []string) {
	best, bestDist := "", 3
	for _, k := range known {
		if dist := editDistance(strings.ToLower(key), strings.ToLower(k)); dist < bestDist {
			best, bestDist = k, dist
		}
	}
	if best != "" {
		d.fail(field, "unknown key (did you mean %q?)", best)
		return
	}
	d.fail(field, "unknown key")
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
