// Package demo holds the built-in demo event that `flagship serve --demo`
// loads into an empty database, so a newcomer sees a living board at once.
package demo

import _ "embed"

// Dataset is the demo event in the dataset format of docs/product.md (YAML): 21
// players (20 regulars plus the demo account), one admin, 12 visible
// challenges and a hidden draft, and two days of solves, wrong attempts,
// writeups and reviews. Challenge files are links, so the dataset needs no
// other file; it carries no ids, so the loader assigns them.
//
//go:embed demo.yaml
var Dataset []byte

// Credentials of the demo player, who has already solved two easy challenges.
const (
	DemoUsername = "demo"
	DemoPassword = "demo-password"
)
