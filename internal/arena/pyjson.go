package arena

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The benchmarks' files are written by Python's json module: NYU's
// summary.json by json.dumps(indent=2), Cybench's run logs by
// json.dump(indent=4). Byte-for-byte equal output needs Python's rules,
// which encoding/json does not follow: keys in insertion order (not
// sorted), every character outside printable ASCII escaped as \uXXXX
// (ensure_ascii, the default, which escapes DEL and everything non-ASCII,
// astral characters as a surrogate pair), no HTML escaping, and floats
// written by repr (5000.0, not 5000).

// obj is a JSON object whose keys keep their order, as a Python dict does.
type obj []member

type member struct {
	Key   string
	Value any // string, bool, int, int64, pyFloat, obj, []any, or nil
}

// pyFloat is a float Python writes with repr: always with a fraction or
// an exponent, so an integral 5000 reads back as a float.
type pyFloat float64

// pyJSON writes v as json.dumps(v, indent=indent) does.
func pyJSON(w io.Writer, v any, indent int) error {
	var b strings.Builder
	if err := encodePy(&b, v, indent, 0); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func encodePy(b *strings.Builder, v any, indent, depth int) error {
	newline := func(d int) {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", indent*d))
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case pyFloat:
		s, err := pyRepr(float64(x))
		if err != nil {
			return err
		}
		b.WriteString(s)
	case string:
		b.WriteString(pyQuote(x))
	case obj:
		if len(x) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			b.WriteString(pyQuote(m.Key))
			b.WriteString(": ")
			if err := encodePy(b, m.Value, indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			if err := encodePy(b, e, indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte(']')
	default:
		return fmt.Errorf("arena: cannot write a %T as Python's json does", v)
	}
	return nil
}

// pyRepr is repr(f) for the floats a run has (milliseconds): integral ones
// below 1e16 get ".0"; others Go's shortest form, which Python shares for
// plain decimals. NaN and infinities are not JSON.
func pyRepr(f float64) (string, error) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "", fmt.Errorf("arena: %v is not a JSON number", f)
	case f == math.Trunc(f) && math.Abs(f) < 1e16:
		return strconv.FormatFloat(f, 'f', 1, 64), nil
	}
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

// pyQuote is s as json.dumps(s) writes it (ensure_ascii): \" \\ \n \r \t
// \b \f, and \u00XX-style lowercase hex for every other character outside
// space..tilde, UTF-16 surrogate pairs above U+FFFF. Invalid UTF-8 (which a
// Python str cannot hold) is written as U+FFFD.
func pyQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r >= ' ' && r <= '~':
				b.WriteRune(r)
			case r > 0xFFFF:
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			default:
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
