// Package contract is test-support code: it checks HTTP exchanges with the
// public API against the hand-written OpenAPI 3.1 document of package openapi,
// so that any drift between the implementation and the contract (a missing or
// extra field, a wrong type, a null where none is allowed, a bad enum value, an
// undeclared status) fails the tests of the package that produced it.
//
// Only tests import this package: it links kin-openapi, which the flagship
// binary must not.
//
// Typical use, in a handler test:
//
//	v, err := contract.New()
//	if err != nil {
//		t.Fatal(err)
//	}
//	req := httptest.NewRequest(http.MethodGet, "/api/public/leaderboard", nil)
//	rec := httptest.NewRecorder()
//	handler.ServeHTTP(rec, req)
//	if err := v.ValidateResponse(req, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
//		t.Errorf("GET /api/public/leaderboard: %v", err)
//	}
//
// # OpenAPI 3.1 and nullability
//
// The document is OpenAPI 3.1.0 and spells nullability the JSON Schema
// 2020-12 way: "type": ["string", "null"], or "anyOf": [{"$ref": ...},
// {"type": "null"}] for a nullable object; there is no 3.0 "nullable".
// kin-openapi v0.152.0 handles this by itself, nothing needs enabling:
// openapi3filter sees doc.IsOpenAPI31OrLater() and adds
// openapi3.EnableJSONSchema2020() to every schema validation (and
// doc.Validate checks the document as 3.1). Under that option,
// Schema.VisitJSON picks one of two validators per schema:
//
//   - a schema without references to #/components/schemas (ErrorResponse,
//     HealthResponse, ChallengeCreator, ...) is compiled and checked by the
//     JSON Schema 2020-12 validator github.com/santhosh-tekuri/jsonschema/v6,
//     with kin-openapi's format checkers (date-time, and our email);
//   - a schema with such references and no 2020-only keyword (const,
//     if/then/else, prefixItems, unevaluatedProperties, $defs, ...), which
//     is every other schema of this document, falls back to kin-openapi's
//     own validator, in which a type array is a set of allowed types and
//     null is allowed exactly when it includes "null"
//     (Schema.permitsNull: with EnableJSONSchema2020 the 3.0 "nullable"
//     keyword is ignored).
//
// Both enforce required, additionalProperties: false, enum, minimum/maximum,
// integer-ness, minLength, pattern, anyOf and the date-time format; the tests
// of this package prove each case on both paths.
//
// The "email" format is not enforced by kin-openapi by default; the
// validator registers, for its own validations only (no global state),
// openapi3.FormatOfStringForEmail as the "email" format.
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
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/flagshipctf/flagship/internal/openapi"
)

// ErrUndocumentedRoute is wrapped by the errors of ValidateResponse and
// ValidateRequest for a request the document does not describe: an unknown
// path, or (for a response other than 405) a method the path does not have.
// Tests that deliberately call unknown routes (the API answers them 404 JSON)
// can skip them with errors.Is(err, contract.ErrUndocumentedRoute).
var ErrUndocumentedRoute = errors.New("route not in the OpenAPI document")

// Validator checks HTTP exchanges against the embedded OpenAPI document.
// It is safe for concurrent use.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
	opts   *openapi3filter.Options
}

// New loads openapi.Document, validates the document itself (doc.Validate),
// and builds the router.
func New() (*Validator, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(openapi.Document)
	if err != nil {
		return nil, fmt.Errorf("contract: loading the OpenAPI document: %w", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("contract: the OpenAPI document is version %q, want 3.1.x", doc.OpenAPI)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("contract: the OpenAPI document is invalid: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("contract: building the router: %w", err)
	}
	schemaOpts := []openapi3.SchemaValidationOption{
		openapi3.WithStringFormatValidator("email",
			openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForEmail)),
	}
	opts := &openapi3filter.Options{
		// Authentication is the API's business, not the document's: never
		// fail a validation because of the security requirements.
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		// A status the operation does not declare is an error.
		IncludeResponseStatus: true,
		// Report every violation of a body, not only the first.
		MultiError:              true,
		SchemaValidationOptions: schemaOpts,
	}
	opts.WithCustomSchemaErrorFunc(schemaErrorMessage("", schemaOpts))
	return &Validator{doc: doc, router: router, opts: opts}, nil
}

// schemaErrorMessage formats a schema violation as `at "/json/pointer":
// reason`, without kin-openapi's dump of the whole schema and value (a
// challenge list would fill the screen). A value failing an anyOf/oneOf (a
// nullable object: anyOf [$ref, null]) only says "doesn't match any schema";
// the message then also gives the errors of the value against each non-null
// branch, so that the field at fault is named. prefix is the pointer of the
// value being validated, for these nested validations.
func schemaErrorMessage(prefix string, schemaOpts []openapi3.SchemaValidationOption) func(*openapi3.SchemaError) string {
	return func(e *openapi3.SchemaError) string {
		path := prefix
		if p := e.JSONPointer(); len(p) > 0 {
			path += "/" + strings.Join(p, "/")
		}
		msg := e.Reason
		if msg == "" && e.Origin != nil {
			msg = e.Origin.Error()
		}
		if msg == "" {
			msg = fmt.Sprintf("doesn't match the schema keyword %q", e.SchemaField)
		}
		if e.Schema != nil && (e.SchemaField == "anyOf" || e.SchemaField == "oneOf") {
			branches := e.Schema.AnyOf
			if e.SchemaField == "oneOf" {
				branches = e.Schema.OneOf
			}
			for i, b := range branches {
				if b == nil || b.Value == nil || (b.Value.Type != nil && b.Value.Type.Is(openapi3.TypeNull)) {
					continue
				}
				nested := append(slices.Clone(schemaOpts),
					openapi3.EnableJSONSchema2020(),
					openapi3.MultiErrors(),
					openapi3.SetSchemaErrorMessageCustomizer(schemaErrorMessage(path, schemaOpts)))
				if err := b.Value.VisitJSON(e.Value, nested...); err != nil {
					name := b.Ref
					if name == "" {
						name = fmt.Sprintf("%s[%d]", e.SchemaField, i)
					}
					name = strings.TrimPrefix(name, "#/components/schemas/")
					msg += fmt.Sprintf("; as %s: %v", name, err)
				}
			}
		}
		if path == "" {
			path = "/"
		}
		return fmt.Sprintf("at %q: %s", path, msg)
	}
}

// Document returns the parsed OpenAPI document. Callers must not modify it.
func (v *Validator) Document() *openapi3.T { return v.doc }

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

// ValidateRequest checks a request against the document: the route exists,
// the path parameters are valid, and the body (submit's {flag}) validates
// against its schema. Authentication is not checked. The request body is
// read and put back, so req can still be sent or served afterwards.
func (v *Validator) ValidateRequest(req *http.Request) error {
	if req == nil || req.URL == nil {
		return errors.New("contract: nil request")
	}
	what := req.Method + " " + req.URL.Path
	route, pathParams, err := v.router.FindRoute(req)
	if err != nil {
		if errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed) {
			return fmt.Errorf("contract: %s: %v: %w", what, err, ErrUndocumentedRoute)
		}
		return fmt.Errorf("contract: %s: finding the route: %w", what, err)
	}
	input := &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: pathParams,
		Route:      route,
		Options:    v.opts,
	}
	if err := openapi3filter.ValidateRequest(context.Background(), input); err != nil {
		return fmt.Errorf("contract: %s: %w", what, err)
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
