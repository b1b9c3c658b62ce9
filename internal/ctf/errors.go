// Package ctf holds Flagship's domain: its types, its error codes and the pure
// rules (flag matching, badges, ranking) that every front door shares.
package ctf

import (
	"errors"
	"fmt"
	"time"
)

// Code classifies an error for the front doors; the API maps each to one
// HTTP status.
type Code string

// Error codes.
const (
	Invalid      Code = "invalid"
	Unauthorized Code = "unauthorized"
	Forbidden    Code = "forbidden"
	NotFound     Code = "not_found"
	Conflict     Code = "conflict"
	RateLimited  Code = "rate_limited"
	Unavailable  Code = "unavailable"
	Internal     Code = "internal"
)

// Error is a domain error: a code and a human sentence safe to show clients.
type Error struct {
	Code       Code
	Message    string
	RetryAfter time.Duration // with RateLimited or Unavailable: the wait (httpx.RetrySeconds)
	// Field names the input at fault in an Invalid error ("username",
	// "stars"), so a form or a dataset can point at it; Message then
	// starts with it.
	Field string
	// Cause is what went wrong underneath, for the logs (an Unavailable
	// database's error); never shown to clients.
	Cause error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Message + ": " + e.Cause.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf returns an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns an Invalid error about one input field; its message
// is the field's name followed by the formatted reason.
func FieldErrorf(field, format string, args ...any) *Error {
	return &Error{Code: Invalid, Field: field, Message: field + " " + fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, Internal for errors that are not domain errors.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// ErrorMessage returns the client-safe message of err; internal details are
// never shown.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal server error"
}

// The refusals every use case shares.
var (
	// ErrNoChallenge is the answer for unknown and hidden challenges alike.
	ErrNoChallenge  = Errorf(NotFound, "challenge not found")
	ErrAuthRequired = Errorf(Unauthorized, "authentication required")
	ErrNotAdmin     = Errorf(Forbidden, "only admins may do this")
)
