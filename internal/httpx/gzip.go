package httpx

import (
	"net/http"
	"strings"
)

// AcceptsGzip reports whether the client takes a gzip-coded answer, as its
// Accept-Encoding says (RFC 9110, section 12.5.3): gzip, or failing that
// the wildcard *, listed with a weight above zero ("gzip;q=0" refuses it).
// An absent header takes no coding: an old client may not decode one, and
// the plain answer is always right. It does not allocate: it runs on every
// request of the hot lists.
func AcceptsGzip(r *http.Request) bool {
	header := r.Header.Get("Accept-Encoding")
	star := false
	for header != "" {
		var part string
		part, header, _ = strings.Cut(header, ",")
		coding, params, _ := strings.Cut(part, ";")
		switch coding = strings.TrimSpace(coding); {
		case strings.EqualFold(coding, "gzip"):
			// The coding's own weight wins over the wildcard's.
			return weighted(params)
		case coding == "*":
			star = weighted(params)
		}
	}
	return star
}

// weighted reports whether the parameters of a coding give it a weight
// above zero. A missing or unreadable weight counts as 1, as it does today
// for any client that sends one: only a clear zero ("q=0", "q=0.", "q=0.0",
// up to three zeros after the point) refuses.
func weighted(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		name, value, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "q") {
			continue
		}
		return !zeroQ(strings.TrimSpace(value))
	}
	return true
}

// zeroQ reports whether the qvalue v is 0: "0", optionally followed by a
// point and at most three zeros.
func zeroQ(v string) bool {
	if v == "" || v[0] != '0' {
		return false
	}
	v = v[1:]
	if v == "" {
		return true
	}
	if v[0] != '.' || len(v) > 4 {
		return false
	}
	return strings.Trim(v[1:], "0") == ""
}
