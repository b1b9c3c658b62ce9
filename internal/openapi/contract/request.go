package contract

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

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
