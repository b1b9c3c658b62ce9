package contract

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// ValidateResponse checks that a response (status, headers, body) to req is
// one the document allows: the route and method exist, the status is declared
// for that operation, the Content-Type is application/json where a body is
// declared, the declared headers are present and valid (Retry-After on 429,
// Allow on 405), and the body validates against the schema (including required
// fields, nullability, enums, additionalProperties).
//
// A body with Content-Encoding: gzip is decompressed first. 304 (no body) is
// accepted for the operations that declare it (every GET) and must have an
// empty body. A HEAD request is checked as the GET of its path, with an empty
// body. A 405 to a method the path does not have is checked against the 405
// response of the path. Only req's method and URL are used; its body is not
// read.
func (v *Validator) ValidateResponse(req *http.Request, status int, header http.Header, body []byte) error {
	if req == nil || req.URL == nil {
		return errors.New("contract: nil request")
	}
	what := req.Method + " " + req.URL.Path
	if header == nil {
		header = http.Header{}
	}
	body, err := decodeContentEncoding(header, body)
	if err != nil {
		return fmt.Errorf("contract: %s: %d: %w", what, status, err)
	}

	route, pathParams, err := v.router.FindRoute(req)
	// A response to HEAD never has a body.
	head := req.Method == http.MethodHead
	if errors.Is(err, routers.ErrMethodNotAllowed) {
		err = ErrUndocumentedRoute
		if head {
			// HEAD is answered as the GET of the path, without a body.
			route, pathParams, err = v.findRouteAs(req, http.MethodGet)
		}
		if err != nil && status == http.StatusMethodNotAllowed {
			// A wrong method on a known path: check the 405 response
			// of the path, declared alike on each of its operations.
			route, pathParams, err = v.findRouteAs(req, "")
		}
		if err != nil {
			return fmt.Errorf("contract: %s: method not documented for this path (only 405 may answer it), got status %d: %w",
				what, status, ErrUndocumentedRoute)
		}
	}
	switch {
	case err == nil:
	case errors.Is(err, routers.ErrPathNotFound):
		return fmt.Errorf("contract: %s: %w", what, ErrUndocumentedRoute)
	default:
		return fmt.Errorf("contract: %s: finding the route: %w", what, err)
	}

	op := route.Operation
	if op.Responses == nil || op.Responses.Status(status) == nil {
		return fmt.Errorf("contract: %s (%s): status %d is not declared for this operation (declared: %s)",
			what, route.Method+" "+route.Path, status, strings.Join(declaredStatuses(op), ", "))
	}
	response := op.Responses.Status(status).Value

	if status == http.StatusNotModified || head || len(response.Content) == 0 {
		// No body: kin-openapi does not look at 304 at all and skips HEAD,
		// so check the declared headers and the emptiness of the body here.
		if len(bytes.TrimSpace(body)) != 0 {
			return fmt.Errorf("contract: %s: %d: the response must have no body, got %d bytes", what, status, len(body))
		}
		return v.validateResponseHeaders(route, pathParams, req, status, header, what)
	}

	// A body is declared: it must be one well-formed JSON value of the
	// declared media type (kin-openapi decodes only the first JSON value).
	if err := checkJSONContentType(header.Get("Content-Type")); err != nil {
		return fmt.Errorf("contract: %s: %d: %w", what, status, err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return fmt.Errorf("contract: %s: %d: empty body, a JSON body is declared", what, status)
	}
	if !json.Valid(body) {
		return fmt.Errorf("contract: %s: %d: the body is not valid JSON: %.200q", what, status, body)
	}

	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: pathParams,
			Route:      route,
			Options:    v.opts,
		},
		Status:  status,
		Header:  header,
		Options: v.opts,
	}
	input.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fmt.Errorf("contract: %s: %d: %w", what, status, err)
	}
	return nil
}

// findRouteAs finds the route of req's path with another method: method, or
// when empty, the first method the path has.
func (v *Validator) findRouteAs(req *http.Request, method string) (*routers.Route, map[string]string, error) {
	methods := []string{method}
	if method == "" {
		methods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	}
	for _, m := range methods {
		r := req.Clone(req.Context())
		r.Method = m
		r.Body = http.NoBody
		route, pathParams, err := v.router.FindRoute(r)
		if err == nil {
			return route, pathParams, nil
		}
	}
	return nil, nil, ErrUndocumentedRoute
}

// validateResponseHeaders checks the declared headers of a response without
// a body to check. kin-openapi skips 304 and HEAD altogether: 304 declares
// only an optional ETag, checked here; a HEAD response is checked as the
// response to the GET of its path, without its body.
func (v *Validator) validateResponseHeaders(route *routers.Route, pathParams map[string]string, req *http.Request, status int, header http.Header, what string) error {
	if status == http.StatusNotModified {
		if etags, ok := header["Etag"]; ok && (len(etags) == 0 || etags[0] == "") {
			return fmt.Errorf("contract: %s: %d: empty ETag header", what, status)
		}
		return nil
	}
	get := req
	if req.Method != route.Method {
		get = req.Clone(req.Context())
		get.Method = route.Method
		get.Body = http.NoBody
	}
	opts := *v.opts
	opts.ExcludeResponseBody = true
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    get,
			PathParams: pathParams,
			Route:      route,
			Options:    &opts,
		},
		Status:  status,
		Header:  header,
		Options: &opts,
	}
	input.SetBodyBytes(nil)
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fmt.Errorf("contract: %s: %d: %w", what, status, err)
	}
	return nil
}

// checkJSONContentType accepts application/json, with charset utf-8 if a
// charset is given.
func checkJSONContentType(ct string) error {
	if ct == "" {
		return errors.New("missing Content-Type, want application/json")
	}
	mediaType, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Errorf("bad Content-Type %q: %v", ct, err)
	}
	if mediaType != "application/json" {
		return fmt.Errorf("Content-Type %q, want application/json", ct)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return fmt.Errorf("Content-Type %q, want charset utf-8", ct)
	}
	return nil
}

// decodeContentEncoding returns body decompressed per the Content-Encoding
// header (identity or gzip).
func decodeContentEncoding(header http.Header, body []byte) ([]byte, error) {
	switch enc := strings.ToLower(strings.TrimSpace(header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
		if len(body) == 0 {
			return body, nil
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("Content-Encoding gzip: %w", err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("Content-Encoding gzip: %w", err)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("unsupported Content-Encoding %q", enc)
	}
}

// declaredStatuses lists the statuses an operation declares, for messages.
func declaredStatuses(op *openapi3.Operation) []string {
	var out []string
	if op.Responses == nil {
		return out
	}
	for code := 100; code < 600; code++ {
		if op.Responses.Value(strconv.Itoa(code)) != nil {
			out = append(out, strconv.Itoa(code))
		}
	}
	if op.Responses.Default() != nil {
		out = append(out, "default")
	}
	return out
}
