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
	"errors"
	"fmt"
	"slices"
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
