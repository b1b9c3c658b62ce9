// Package demo holds the built-in demo event that `flagship serve --demo`
// loads into an empty database, so a newcomer sees a living board at once.
package demo

import (
	"embed"
	"encoding/base64"
	"regexp"
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

// Credentials of the demo player, who has already solved two easy challenges.
const (
	DemoUsername = "demo"
	DemoPassword = "demo-password"
)
