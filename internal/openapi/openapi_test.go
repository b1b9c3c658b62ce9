package openapi

import (
	"encoding/json"
	"testing"
)

func TestDocumentIsOpenAPI31JSON(t *testing.T) {
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(Document, &doc); err != nil {
		t.Fatalf("Document is not valid JSON: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf(`"openapi" = %q, want "3.1.0"`, doc.OpenAPI)
	}
	if doc.Info.Version != "1.0.0" {
		t.Errorf(`info.version = %q, want "1.0.0"`, doc.Info.Version)
	}
	if len(doc.Paths) != 12 {
		t.Errorf("%d paths, want 12", len(doc.Paths))
	}
}
