package httpx

import "net/http"

// CORS is what a front door that any site may call tells browsers. Such a
// door reads credentials from headers only, never from cookies a browser
// would add on its own, so letting any origin read its answers gives a
// page nothing it could not fetch itself.
type CORS struct {
	// Expose lists the response headers a page's script may read, if any.
	Expose string
	// Methods and Headers answer a preflight (OPTIONS); with no Methods,
	// preflights are not answered here and OPTIONS goes on to the handler.
	Methods, Headers string
}

// Handle sets the headers of an answer to any origin; a preflight it
// answers whole (204, cached by the browser for ten minutes) and reports
// true: the request is done.
func (c *CORS) Handle(w http.ResponseWriter, r *http.Request) (done bool) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", "*")
	if c.Expose != "" {
		hd.Set("Access-Control-Expose-Headers", c.Expose)
	}
	if r.Method != http.MethodOptions || c.Methods == "" {
		return false
	}
	hd.Set("Access-Control-Allow-Methods", c.Methods)
	hd.Set("Access-Control-Allow-Headers", c.Headers)
	hd.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}
