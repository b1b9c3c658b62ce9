package dataset

import "errors"

// DecodeCtfcli, for tests, decodes one ctfcli challenge.yml and validates the challenge.
// Unknown keys are ignored (ctfcli has many Flagship does not use); the
// Flagship spellings (slug, difficulty, points, ...) are accepted too. name is
// used in errors and to resolve files. Errors are *Error values with Entry
// "challenge".
func DecodeCtfcli(data []byte, name string) (*Challenge, error) {
	c, errs := decodeCtfcli(data, name)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	ds := &Dataset{Challenges: []Challenge{*c}}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	return &ds.Challenges[0], nil
}
