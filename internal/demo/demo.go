// Package demo holds the built-in demo event that `flagship serve --demo`
// loads into an empty database, so a newcomer sees a living board at once.
package demo

import (
	"embed"
	"encoding/base64"
	"regexp"
	"time"
)

// source is the demo event with each stored handout written as
// `contentBase64: '@file NAME'`, NAME a file of files/.
//
//go:embed demo.yaml
var source []byte

// files are the demo's handouts: real and solvable (files_test.go solves
// each), small enough to live in the dataset.
//
//go:embed files
var files embed.FS

// Dataset is the demo event in the dataset format of docs/product.md (YAML): 21
// players (20 regulars plus the demo account), one admin, 12 visible
// challenges and a hidden draft, and two days of solves, wrong attempts,
// writeups and reviews. Its handouts are in it (contentBase64), so it
// needs no other file; it carries no ids, so the loader assigns them.
var Dataset = withFiles(source)

var fileRef = regexp.MustCompile(`@file ([A-Za-z0-9._-]+)`)

// withFiles replaces each `@file NAME` of src with the base64 of
// files/NAME; a name that is not there is a bug of this package.
func withFiles(src []byte) []byte {
	return fileRef.ReplaceAllFunc(src, func(m []byte) []byte {
		data, err := files.ReadFile("files/" + string(fileRef.FindSubmatch(m)[1]))
		if err != nil {
			panic("demo: " + err.Error())
		}
		return []byte(base64.StdEncoding.EncodeToString(data))
	})
}

var stamp = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?Z\b`)

// DatasetAt is Dataset with every time moved by whole hours so that the
// latest falls in the hour before now: `serve --demo` loads it, so the
// demo's two days of play are recent whenever it is started (the
// scoreboard's graph ends at now, and a demo played weeks ago would show
// as a line squeezed against its left edge). Dataset itself keeps its
// fixed times for tests.
func DatasetAt(now time.Time) []byte {
	var latest time.Time
	for _, m := range stamp.FindAll(Dataset, -1) {
		if t, ok := parseStamp(m); ok && t.After(latest) {
			latest = t
		}
	}
	if latest.IsZero() {
		return Dataset
	}
	shift := now.Truncate(time.Hour).Add(-time.Hour).Sub(latest.Truncate(time.Hour))
	return stamp.ReplaceAllFunc(Dataset, func(m []byte) []byte {
		t, ok := parseStamp(m)
		if !ok {
			return m
		}
		return []byte(t.Add(shift).UTC().Format(time.RFC3339))
	})
}

func parseStamp(b []byte) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, string(b)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Credentials of the demo player, who has already solved two easy challenges.
const (
	DemoUsername = "demo"
	DemoPassword = "demo-password"
)
