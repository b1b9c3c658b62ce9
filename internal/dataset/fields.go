package dataset

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Each kind of mapping a dataset holds (a user, a challenge, a solve, an API
// key, a flag...) is described once, as the list of its keys and how each
// key's value is read into the Go value. The decoder and the list of known
// keys that an unknown one is compared against ("did you mean ...?") are
// both derived from that description, so the two cannot drift apart.

// field is one key of a mapping: read decodes the key's value v into t;
// path names the value in errors ("points" at the top of an entry,
// "apiKeys[0].name" below it).
type field[T any] struct {
	key  string
	read func(d *decoder, t *T, v *yaml.Node, path string)
}

// onUnknown says what becomes of a key that no field of a mapping names.
type onUnknown int

const (
	rejectUnknown      onUnknown = iota // an error, suggesting a close known key
	rejectUnlessCtfcli                  // the same, but a ctfcli challenge.yml ignores it, as ctfcli does
	ignoreUnknown                       // ignored: the mapping belongs to another tool (ctfcli's tags, extra)
)

// mapping describes one kind of mapping.
type mapping[T any] struct {
	fields  []field[T]
	unknown onUnknown
	ignored []string // keys that are neither read nor an error (ctfcli keys Flagship has no use for)
	// keys are the fields' keys in their order: of two known keys as
	// close to an unknown one, the first is suggested.
	keys []string
}

func newMapping[T any](unknown onUnknown, ignored []string, fields ...field[T]) *mapping[T] {
	m := &mapping[T]{fields: fields, unknown: unknown, ignored: ignored}
	for _, f := range fields {
		m.keys = append(m.keys, f.key)
	}
	return m
}

// decode reads the mapping n, named path in errors ("" for an entry), into
// t, key by key in the order given. A null is an empty mapping.
func (m *mapping[T]) decode(d *decoder, n *yaml.Node, path string, t *T) {
	n = deref(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.fail(path, "must be a mapping, not %s", kindName(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]).Value, deref(n.Content[i+1])
		p := k
		if path != "" {
			p = path + "." + k
		}
		if f := m.field(k); f != nil {
			f.read(d, t, v, p)
			continue
		}
		switch {
		case m.unknown == ignoreUnknown, m.unknown == rejectUnlessCtfcli && d.ctfcli, contains(m.ignored, k):
		default:
			d.unknown(p, k, m.keys)
		}
	}
}

// field returns the field of key, or nil. The lists are short, and a scan
// of them costs less than hashing the key.
func (m *mapping[T]) field(key string) *field[T] {
	for i := range m.fields {
		if m.fields[i].key == key {
			return &m.fields[i]
		}
	}
	return nil
}

// The usual fields. at returns where in T the value goes.

// asText reads a string as given (see decoder.str).
func asText[T any](key string, at func(*T) *string) field[T] {
	return field[T]{key, func(d *decoder, t *T, v *yaml.Node, path string) { *at(t) = d.str(v, path) }}
}

// asTrimmed reads a string without its leading and trailing white space.
func asTrimmed[T any](key string, at func(*T) *string) field[T] {
	return asCleaned(key, at, strings.TrimSpace)
}

// asLower reads a word of a fixed set (a role, a door, a status), which is
// compared in lower case.
func asLower[T any](key string, at func(*T) *string) field[T] {
	return asCleaned(key, at, lowerTrim)
}

// asCleaned reads a string and passes it through clean.
func asCleaned[T any](key string, at func(*T) *string, clean func(string) string) field[T] {
	return field[T]{key, func(d *decoder, t *T, v *yaml.Node, path string) { *at(t) = clean(d.str(v, path)) }}
}

// asName reads the username or slug an entry refers to (see decoder.name).
func asName[T any](key string, at func(*T) *string) field[T] {
	return field[T]{key, func(d *decoder, t *T, v *yaml.Node, path string) { *at(t) = d.name(v, path) }}
}

// asTexts reads a list of strings, leaving out empty ones (see decoder.strs).
func asTexts[T any](key string, at func(*T) *[]string) field[T] {
	return field[T]{key, func(d *decoder, t *T, v *yaml.Node, path string) { *at(t) = d.strs(v, path) }}
}

// asBool reads true or false; null is false.
func asBool[T any](key string, at func(*T) *bool) field[T] {
	return field[T]{key, func(d *decoder, t *T, v *yaml.Node, path string) { *at(t) = d.boolean(v, path) }}
}

// asInt reads an integer; a value that is not one is an error, and 0.
func asInt[T any](key string, at func(*T) *int) field[T] {
	return field[T]{key, func(d *decoder, t *T, v *yaml.Node, path string) { *at(t), _ = d.integer(v, path) }}
}

// asTime reads an RFC 3339 timestamp (see decoder.timestamp); null is nil.
func asTime[T any](key string, at func(*T) **time.Time) field[T] {
	return field[T]{key, func(d *decoder, t *T, v *yaml.Node, path string) { *at(t) = d.timestamp(v, path) }}
}

// alias is f under another key: ctfcli's spelling of a Flagship key.
func alias[T any](key string, f field[T]) field[T] {
	f.key = key
	return f
}

// lowerTrim is how a word of a fixed set is compared: in lower case,
// without surrounding white space.
func lowerTrim(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
