package web

import (
	"net/url"
	"path"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// offSiteImages turns each Markdown image that is not a file of this site
// (siteImage) into a plain link to it, with its alt text (or its URL) as the text: a
// page that showed it would have every reader's browser fetch it from
// that site, telling the site who reads the page and when — a writeup
// could so track the admins who moderate it. (The pages' policy, img-src
// 'self' data:, would block the image anyway; a link shows the reader
// what is there.) An image inside a link becomes its text, as a link
// cannot hold another.
type offSiteImages struct{}

func (offSiteImages) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var images []*ast.Image
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering && !siteImage(string(img.Destination)) {
			images = append(images, img)
		}
		return ast.WalkContinue, nil
	})
	source := reader.Source()
	for _, img := range images {
		var repl ast.Node
		if inLink(img) {
			repl = ast.NewText() // a text node of no text, holding the alt text
		} else {
			link := ast.NewLink()
			link.Destination, link.Title = img.Destination, img.Title
			repl = link
		}
		if strings.TrimSpace(plainText(img, source)) == "" {
			repl.AppendChild(repl, ast.NewString(img.Destination))
		} else {
			for c := img.FirstChild(); c != nil; {
				next := c.NextSibling()
				repl.AppendChild(repl, c) // moves c from img
				c = next
			}
		}
		img.Parent().ReplaceChild(img.Parent(), img, repl)
	}
}

// siteImage reports whether an image's address is a file this site serves
// as one: a challenge's file or a static one. Other paths of the site are
// not images, and some never end: an image of /api/events would hold a
// stream open in every reader's browser for as long as the page is open.
// Dot segments, plain or percent-encoded, are refused, since a browser
// resolves them before it asks (/files/../api/events is /api/events).
func siteImage(s string) bool {
	if !sitePath(s) || strings.Contains(strings.ToLower(s), "%2e") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Path != path.Clean(u.Path) {
		return false
	}
	return strings.HasPrefix(u.Path, "/files/") || strings.HasPrefix(u.Path, "/static/")
}

func inLink(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindLink || p.Kind() == ast.KindAutoLink {
			return true
		}
	}
	return false
}

// plainText is the text under n, without its markup.
func plainText(n ast.Node, source []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(source))
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
