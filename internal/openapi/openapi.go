// Package openapi holds the OpenAPI 3.1 description of Flagship's public REST
// API (everything under /api/public), written by hand from the public API
// contract and docs/product.md. The API serves it at /api/public/openapi.json.
//
// The document is checked in tests by package contract, which validates every
// response of the API against it. This package must stay free of any OpenAPI
// library so that the binary does not link one.
package openapi

import _ "embed"

// Document is the OpenAPI 3.1.0 document (JSON) of the public API.
// Callers must not modify it.
//
//go:embed openapi.json
var Document []byte
