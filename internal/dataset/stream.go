package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decoding a big dataset (a dump of 400,000 submissions is some 77 MB of
// YAML) as one yaml.Node tree costs about ten times the file in memory. So
// the lists are decoded a run of entries at a time: JSON token by token,
// YAML by cutting each top-level list into runs of entries at the lines
// where an entry starts and parsing each run on its own (on the cores in
// parallel). The cut is only a guess at YAML's structure; the parser has the
// last word: a cut inside a quoted string or a flow collection leaves a run
// that does not parse, and an alias to an anchor of another run does not
// resolve, and then the whole document is parsed again in one piece, as
// before. Every run is parsed by the YAML library, so the result is the same
// either way.

// opener opens the input again from its start (a fallback reads it twice).
type opener func() (io.ReadCloser, error)

func bytesOpener(data []byte) opener {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

// decodeStream decodes one dataset document read from open.
func decodeStream(open opener, name string, noPaths bool) (*Dataset, []error) {
	r, err := open()
	if err != nil {
		return nil, []error{&Error{File: name, Msg: pathErr(err)}}
	}
	br := bufio.NewReaderSize(r, 1<<16)
	isJSON, err := looksJSON(br, name)
	if err != nil {
		r.Close()
		return nil, []error{&Error{File: name, Msg: pathErr(err)}}
	}
	if isJSON {
		defer r.Close()
		return decodeJSONStream(br, name, noPaths)
	}
	ds, errs, ok := decodeYAMLRuns(br, name, noPaths)
	r.Close()
	if ok {
		return ds, errs
	}
	// Not cut safely: parse the whole document in one piece.
	if r, err = open(); err != nil {
		return nil, []error{&Error{File: name, Msg: pathErr(err)}}
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, []error{&Error{File: name, Msg: pathErr(err)}}
	}
	return decodeDataset(data, name, noPaths)
}

// looksJSON tells JSON from YAML as parse does: by a .json name, or by a
// leading '{' or '[' when the name has no YAML extension.
func looksJSON(br *bufio.Reader, name string) (bool, error) {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".json") {
		return true, nil
	}
	if strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml") {
		return false, nil
	}
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			if errors.Is(err, io.EOF) {
				return false, nil
			}
			if errors.Is(err, bufio.ErrBufferFull) { // all blank so far
				return false, nil
			}
			return false, err
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n', '\v', '\f':
			continue
		default:
			return c == '{' || c == '[', nil
		}
	}
}

// topValue decodes a whole top-level key's value into ds; with listEntry
// it is the one place that knows the top-level keys, for the whole-tree
// walk and the streams alike.
func (d *decoder) topValue(ds *Dataset, key string, val *yaml.Node) {
	d.entry = ""
	if !contains(topKeys, key) {
		d.unknown(key, key, topKeys)
		return
	}
	if key == "secrets" { // one mapping of names to hex
		d.entry = "secrets"
		keys, vals := d.pairs(val, "secrets")
		for i, k := range keys {
			if ds.Secrets == nil {
				ds.Secrets = map[string]string{}
			}
			ds.Secrets[k] = strings.TrimSpace(d.str(vals[i], k))
		}
		return
	}
	switch key { // one mapping each, not a list
	case "event":
		oneMapping(d, key, val, (*decoder).event, &ds.Event)
		return
	case "logo":
		oneMapping(d, key, val, (*decoder).logo, &ds.Logo)
		return
	}
	for i, n := range d.items(val, key) {
		d.listEntry(ds, key, i, n)
	}
}

// oneMapping decodes a top-level key that holds one mapping into *to
// (null leaves it nil).
func oneMapping[T any](d *decoder, key string, val *yaml.Node, decode func(*decoder, *yaml.Node, Source) T, to **T) {
	d.entry = key
	if !isNull(val) {
		v := decode(d, val, Source{File: d.file})
		*to = &v
	}
}

// listEntry decodes entry i of the list under key.
func (d *decoder) listEntry(ds *Dataset, key string, i int, n *yaml.Node) {
	src := Source{File: d.file, Index: i}
	d.entry = label(key, src, entryKey(key, n))
	for _, s := range sections {
		if s.key == key && s.add != nil {
			s.add(d, ds, src, n)
			return
		}
	}
}

// decodeJSONStream decodes a JSON document, each entry of a top-level list
// on its own. A syntax error is the one error reported, as parseJSON does.
func decodeJSONStream(r io.Reader, name string, noPaths bool) (*Dataset, []error) {
	syntax := func(err error) (*Dataset, []error) {
		return nil, []error{&Error{File: name, Msg: fmt.Sprintf("json: %v", err)}}
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	d := newDecoder(name, false)
	d.noPaths = noPaths
	ds := &Dataset{}
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return ds, nil // an empty document
	}
	if err != nil {
		return syntax(err)
	}
	end := func() []error {
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return []error{&Error{File: name, Msg: "json: unexpected data after the top-level value"}}
		}
		return nil
	}
	if tok != json.Delim('{') {
		root, err := jsonValueFrom(dec, tok)
		if err != nil {
			return syntax(err)
		}
		if errs := end(); errs != nil {
			return nil, errs
		}
		d.pairs(root, "") // reports the root's kind
		return ds, d.errs
	}
	seen := map[string]bool{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := k.(string)
		if seen[key] {
			return syntax(fmt.Errorf("key %q given twice", key))
		}
		seen[key] = true
		tok, err := dec.Token()
		if err != nil {
			return syntax(unexpectedEOF(err))
		}
		if tok != json.Delim('[') || !contains(topKeys, key) || key == "event" || key == "secrets" || key == "logo" {
			val, err := jsonValueFrom(dec, tok)
			if err != nil {
				return syntax(err)
			}
			d.topValue(ds, key, val)
			continue
		}
		for i := 0; dec.More(); i++ {
			n, err := jsonValue(dec)
			if err != nil {
				return syntax(err)
			}
			d.listEntry(ds, key, i, n)
		}
		if _, err := dec.Token(); err != nil { // ]
			return syntax(err)
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return syntax(err)
	}
	if errs := end(); errs != nil {
		return nil, errs
	}
	return ds, d.errs
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// yamlRun is a piece of a YAML document parsed on its own: either a run of
// entries of the list under key (the text is a block sequence; first is
// the index of its first entry, count how many start in it) or a whole
// top-level key and its value (count 0).
type yamlRun struct {
	key          string
	first, count int
	text         []byte
	root         *yaml.Node
	err          error
	aliases      aliasMeter // what the run's aliases add, measured by its parser
	done         chan struct{}
}

// Runs are cut at about this many entries or bytes, whichever comes first.
const (
	runEntries = 512
	runBytes   = 256 << 10
)

var topKeyLine = regexp.MustCompile(`^([A-Za-z]+)[ \t]*:(?:[ \t].*)?$`)

// cutRuns reads a YAML document line by line and sends its runs to out in
// order, until the input ends, stop is closed, or the document's shape is
// not one it can cut (ok false: a column-0 line that is not a plain
// top-level key, a directive, a second document...).
func cutRuns(br *bufio.Reader, stop <-chan struct{}, out chan<- *yamlRun) (ok bool, err error) {
	var cur *yamlRun
	var lead []byte // what comes before the first key: parsed with the first run
	indent := -1    // the entries' indentation in the current list; -1 before its first entry
	seen := map[string]bool{}
	send := func() bool {
		if cur == nil || len(cur.text) == 0 {
			return true
		}
		cur.done = make(chan struct{})
		select {
		case out <- cur:
			return true
		case <-stop:
			return false
		}
	}
	for {
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 {
			body := bytes.TrimLeft(line, " ")
			ind := len(line) - len(body)
			blank := len(bytes.TrimSpace(body)) == 0 || body[0] == '#'
			item := !blank && body[0] == '-' && (len(body) == 1 || body[1] == ' ' || body[1] == '\n' || body[1] == '\r')
			switch {
			case blank && cur == nil:
				lead = append(lead, line...)
			case blank:
				cur.text = append(cur.text, line...)
			case cur != nil && cur.count > 0 && item && ind == indent:
				// The next entry of the list.
				if cur.count >= runEntries || len(cur.text) >= runBytes {
					if !send() {
						return true, nil
					}
					cur = &yamlRun{key: cur.key, first: cur.first + cur.count}
				}
				cur.count++
				cur.text = append(cur.text, line...)
			case ind == 0:
				m := topKeyLine.FindSubmatch(bytes.TrimRight(line, "\r\n"))
				if m == nil || seen[string(m[1])] {
					return false, nil
				}
				if cur != nil && indent == -2 {
					cur.text = append(cur.text, cur.key+":\n"...) // a key with nothing under it: null
				}
				if !send() {
					return true, nil
				}
				key := string(m[1])
				seen[key] = true
				cur, indent, lead = &yamlRun{key: key, text: lead}, -1, nil
				rest := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), m[1]))[1:]
				if (len(rest) > 0 && rest[0] != '#') || key == "event" || key == "logo" || !contains(topKeys, key) {
					// A value on the key's line or not a list: the whole key.
					cur.text = append(cur.text, line...)
					indent = 0
				} else {
					indent = -2 // a list's entries may follow
				}
			case cur == nil:
				return false, nil
			case indent == -2 && item:
				cur.count, indent = 1, ind
				cur.text = append(cur.text, line...)
			case indent == -2:
				// Not a list after all (or a mapping): the whole key.
				cur.text = append(append(cur.text, cur.key+":\n"...), line...)
				indent = 0
			case cur.count > 0 && ind < indent:
				return false, nil
			default:
				cur.text = append(cur.text, line...)
			}
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				return false, rerr
			}
			if cur == nil && len(lead) > 0 {
				return false, nil // no key: the parser says what the document is
			}
			if cur != nil && indent == -2 {
				cur.text = append(cur.text, cur.key+":\n"...) // a key with nothing under it: null
			}
			send()
			return true, nil
		}
	}
}

// decodeYAMLRuns decodes a YAML document run by run; ok is false when the
// document must be parsed whole instead.
func decodeYAMLRuns(br *bufio.Reader, name string, noPaths bool) (ds *Dataset, errs []error, ok bool) {
	stop := make(chan struct{})
	defer close(stop)
	// The cutter sends each run to the parsers and, in the same order, to
	// this goroutine, which decodes the runs as they are parsed.
	cut := make(chan *yamlRun, 4)
	var cutOK bool
	var cutErr error
	go func() {
		cutOK, cutErr = cutRuns(br, stop, cut)
		close(cut)
	}()
	ordered := make(chan *yamlRun, 4)
	parse := make(chan *yamlRun, 2)
	go func() {
		defer close(ordered)
		defer close(parse)
		for r := range cut {
			select {
			case ordered <- r:
				parse <- r
			case <-stop:
				for range cut {
				}
				return
			}
		}
	}()
	for range max(1, runtime.GOMAXPROCS(0)) {
		go func() {
			for r := range parse {
				if r.root, r.err = parseRun(r); r.err == nil {
					r.aliases.add(r.root) // checked in order, as the runs are decoded
				}
				close(r.done)
			}
		}()
	}
	d := newDecoder(name, false)
	d.noPaths = noPaths
	ds = &Dataset{}
	var aliases aliasMeter
	var size int64
	for r := range ordered {
		<-r.done
		if r.err != nil {
			return nil, nil, false
		}
		// Checked before the run is decoded, so that a bomb costs no more
		// than the limit.
		aliases.addRun(&r.aliases)
		if err := aliases.check(-1); err != nil {
			return nil, []error{&Error{File: name, Msg: err.Error()}}, true
		}
		size += int64(len(r.text))
		if r.count == 0 {
			d.topValue(ds, r.key, r.root)
		} else {
			for i, n := range r.root.Content {
				d.listEntry(ds, r.key, r.first+i, deref(n))
			}
		}
		r.root, r.text, r.aliases = nil, nil, aliasMeter{}
	}
	// ordered is closed after cut, so the cutter's results are in.
	if cutErr != nil {
		return nil, []error{&Error{File: name, Msg: pathErr(cutErr)}}, true
	}
	if !cutOK {
		return nil, nil, false
	}
	if err := aliases.check(size); err != nil {
		return nil, []error{&Error{File: name, Msg: err.Error()}}, true
	}
	return ds, d.errs, true
}

// parseRun parses one run; a run that does not parse, or whose shape is
// not what the cut expected, is an error (the caller falls back).
func parseRun(r *yamlRun) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(r.text, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, errors.New("not one node")
	}
	root := doc.Content[0]
	if r.count > 0 {
		if root.Kind != yaml.SequenceNode || len(root.Content) != r.count {
			return nil, errors.New("not the entries expected")
		}
		return root, nil
	}
	if root.Kind != yaml.MappingNode || len(root.Content) != 2 || root.Content[0].Value != r.key {
		return nil, errors.New("not the key expected")
	}
	return deref(root.Content[1]), nil
}
