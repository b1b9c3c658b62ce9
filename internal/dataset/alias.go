package dataset

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// YAML aliases repeat a node without repeating its text: a file of 519 KB
// that aliases one 512 KB description in 100 challenges made a database of
// 52.8 MB, and aliases of aliases ("billion laughs") grow exponentially.
// The parser keeps an alias as a pointer, so the cost appears only when the
// decoder walks the tree and the loader stores what it found. A document
// is therefore measured before it is decoded: what its aliases add, each
// counted as the size of the node it repeats (scalars by their bytes, and
// a byte for every node so that empty lists count too), may not exceed
// maxAliasBytes, nor aliasRatio times the document's own size once past
// aliasFloor (a hand-written file sharing a few values is always fine).
const (
	maxAliasBytes = 64 << 20
	aliasRatio    = 10
	aliasFloor    = 1 << 20
)

// aliasMeter measures what the aliases of one document add.
type aliasMeter struct {
	added int64                // bytes the aliases added so far
	sizes map[*yaml.Node]int64 // expanded size of each anchored node measured
	open  map[*yaml.Node]bool  // anchored nodes being measured: an alias to one is a cycle
	cycle bool
}

// add measures the aliases of the tree under root (a document, or a run of
// one's entries) and returns an error once they add more than the absolute limit or
// hold an alias of a node that contains it. The ratio to the document's
// size is checked by check, once the document's size is known.
func (m *aliasMeter) add(root *yaml.Node) error {
	if root == nil {
		return nil
	}
	// An alias resolves within the tree it was parsed in: what was
	// remembered of an earlier run is of no further use.
	m.sizes, m.open = map[*yaml.Node]int64{}, map[*yaml.Node]bool{}
	m.walk(root)
	return m.check(-1)
}

// addRun adds what another meter measured (a run of the same document,
// measured by its parser).
func (m *aliasMeter) addRun(run *aliasMeter) {
	m.added = satAdd(m.added, run.added)
	m.cycle = m.cycle || run.cycle
}

// check returns an error when the aliases measured so far hold a cycle,
// add more than maxAliasBytes or, for a document of docBytes bytes (-1:
// not known yet), more than aliasRatio times it past aliasFloor.
func (m *aliasMeter) check(docBytes int64) error {
	switch {
	case m.cycle:
		return fmt.Errorf("a YAML alias repeats a node that contains it")
	case m.added > maxAliasBytes:
		return fmt.Errorf("YAML aliases expand to more than %d MiB; write the repeated values out", maxAliasBytes>>20)
	case docBytes >= 0 && m.added > aliasFloor && m.added > aliasRatio*docBytes:
		return fmt.Errorf("YAML aliases expand to %d bytes, more than %d times the file's %d; write the repeated values out",
			m.added, aliasRatio, docBytes)
	}
	return nil
}

// walk visits the tree once, not through aliases, adding each alias's
// expanded size.
func (m *aliasMeter) walk(n *yaml.Node) {
	if n.Kind == yaml.AliasNode {
		m.added = satAdd(m.added, m.size(n))
		return
	}
	for _, c := range n.Content {
		if m.added > maxAliasBytes || m.cycle {
			return
		}
		m.walk(c)
	}
}

// size is the expanded size of n, aliases followed, saturating past
// maxAliasBytes so that nested aliases neither overflow nor take long.
// Only anchored nodes are remembered: every alias names one, so each
// subtree is measured once.
func (m *aliasMeter) size(n *yaml.Node) int64 {
	if n.Kind == yaml.AliasNode {
		if n = n.Alias; n == nil {
			return 1
		}
	}
	if n.Anchor != "" {
		if s, ok := m.sizes[n]; ok {
			return s
		}
		if m.open[n] {
			m.cycle = true
			return maxAliasBytes + 1
		}
		m.open[n] = true
		defer delete(m.open, n)
	}
	s := int64(1 + len(n.Value))
	for _, c := range n.Content {
		if s = satAdd(s, m.size(c)); s > maxAliasBytes {
			break
		}
	}
	if n.Anchor != "" {
		m.sizes[n] = s
	}
	return s
}

// satAdd adds two sizes, stopping just past maxAliasBytes.
func satAdd(a, b int64) int64 {
	if s := a + b; s <= maxAliasBytes {
		return s
	}
	return maxAliasBytes + 1
}
