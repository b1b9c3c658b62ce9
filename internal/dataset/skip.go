package dataset

import (
	"errors"
	"strings"
)

// Refusal is a challenge a load left out (flagship load --skip-invalid):
// the file and entry it was read from and why.
type Refusal struct {
	File   string `json:"file"`
	Entry  string `json:"entry,omitempty"`
	Slug   string `json:"slug,omitempty"`
	Reason string `json:"reason"`
}

func (r Refusal) String() string {
	where := r.File
	if r.Entry != "" && r.Entry != "challenge" {
		where += ": " + r.Entry
	}
	return where + ": " + r.Reason
}

// RefusalOf is the refusal of the challenge read from file and entry for
// errs, each given as its field and message: the reader's and the
// loader's refusals read alike.
func RefusalOf(file, entry string, errs []error) Refusal {
	var msgs []string
	for _, err := range errs {
		var e *Error
		if errors.As(err, &e) {
			msg := e.Msg
			if e.Field != "" {
				msg = e.Field + ": " + msg
			}
			if e.File != "" && e.File != file {
				msg = e.File + ": " + msg
			}
			msgs = append(msgs, msg)
		} else {
			msgs = append(msgs, err.Error())
		}
	}
	return Refusal{File: file, Entry: entry, Reason: strings.Join(msgs, "; ")}
}

// withoutInvalid leaves out the challenges that errs (the errors so far)
// or Validate find fault with, adding them to refused, until the rest
// validates or an error is not a challenge's own; it returns the errors
// that are not (which the read then reports).
func (d *Dataset) withoutInvalid(refused []Refusal, errs []error) (*Dataset, []Refusal, []error) {
	for range len(d.Challenges) + 1 {
		if err := d.Validate(); err != nil {
			errs = append(errs, unjoin(err)...)
		}
		if len(errs) == 0 {
			return d, refused, nil
		}
		bad := map[int][]error{}
		var other []error
		for _, err := range errs {
			if i := d.challengeOf(err); i >= 0 {
				bad[i] = append(bad[i], err)
			} else {
				other = append(other, err)
			}
		}
		if len(other) > 0 {
			return d, refused, other
		}
		kept := d.Challenges[:0:0]
		for i, c := range d.Challenges {
			if cerrs, ok := bad[i]; ok {
				file, entry := d.Where("challenges", i)
				r := RefusalOf(file, entry, cerrs)
				r.Slug = c.Slug
				refused = append(refused, r)
				continue
			}
			kept = append(kept, c)
		}
		d.Challenges, errs = kept, nil
	}
	return d, refused, nil
}

// challengeOf is the index of the challenge err is about, or -1.
func (d *Dataset) challengeOf(err error) int {
	var e *Error
	if !errors.As(err, &e) {
		return -1
	}
	for i := range d.Challenges {
		if file, entry := d.Where("challenges", i); file == e.File && entry == e.Entry {
			return i
		}
	}
	return -1
}

// unjoin lists the errors errors.Join put together.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
