package platform

import (
	"context"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
)

// Throttled tries at a secret (a password, a second factor). A try is
// recorded as a failure in the database before its secret is checked, so
// a burst of parallel tries, on any number of replicas, gets no more
// checks than the limit allows; a try that succeeds, or is never checked,
// is taken back.

// try is a reserved attempt: a failure unless forgiven or succeeded.
type try struct {
	s       *Accounts
	id      int64  // the reservation's row; 0 when nothing was recorded
	account string // the throttle's name for the account, "" for none
}

// reserve records a try of account and of address (either may be "": not
// counted) before it is checked, or refuses it, RateLimited with the wait,
// when either has failed too often within loginWindow: without checking
// anything, so a right guess past the limit reads as any other.
func (s *Accounts) reserve(ctx context.Context, account, address string) (*try, error) {
	if account == "" && address == "" {
		return &try{s: s}, nil
	}
	now := s.now()
	id, f, err := s.db.ReserveLoginAttempt(ctx, store.Throttle{Account: account, Address: address,
		MaxAccount: maxAccountFailures, MaxAddress: maxAddressFailures, Since: now.Add(-loginWindow)}, now)
	if err != nil {
		return nil, err
	}
	if id == 0 {
		last := f.AccountLast
		if address != "" && f.Address >= maxAddressFailures && f.AddressLast.After(last) {
			last = f.AddressLast
		}
		e := ctf.Errorf(ctf.RateLimited, "%s", loginThrottleMessage)
		e.RetryAfter = max(last.Add(loginWindow).Sub(now), time.Second)
		return nil, e
	}
	return &try{s: s, id: id, account: account}, nil
}

// forgive takes the try back: it was right but not a whole log-in (the
// password of an account that also needs a code), or it was never checked.
func (t *try) forgive(ctx context.Context) {
	if t.id == 0 {
		return
	}
	// Even when the client has gone: the reservation would count as a
	// failure it never made.
	if err := t.s.db.ForgiveLoginAttempt(context.WithoutCancel(ctx), t.id); err != nil {
		t.s.log.Warn("forgive a login attempt", "err", err)
	}
}

// succeed clears the account's failures, this try's included: the secret
// was right.
func (t *try) succeed(ctx context.Context) {
	if t.account == "" {
		t.forgive(ctx)
		return
	}
	if err := t.s.db.ClearLoginFailures(context.WithoutCancel(ctx), t.account, t.s.now().Add(-loginWindow)); err != nil {
		t.s.log.Warn("clear failed logins", "err", err)
	}
}

// signupWindow is the window of Options.SignupLimit.
const signupWindow = time.Hour

// reserveSignup counts a sign-up from address before its account is made,
// or refuses it, RateLimited with the wait, past Options.SignupLimit within
// signupWindow. It returns the function that takes the sign-up back.
func (s *Accounts) reserveSignup(ctx context.Context, address string) (forgive func(), err error) {
	now := s.now()
	id, oldest, err := s.db.ReserveSignup(ctx, address, s.opts.SignupLimit, now.Add(-signupWindow), now)
	if err != nil {
		return nil, err
	}
	if id == 0 {
		e := ctf.Errorf(ctf.RateLimited, "too many accounts were opened from your address in the last hour; wait before signing up again")
		e.RetryAfter = max(oldest.Add(signupWindow).Sub(now), time.Second)
		return nil, e
	}
	return func() {
		if err := s.db.ForgiveSignup(context.WithoutCancel(ctx), id); err != nil {
			s.log.Warn("forgive a sign-up", "err", err)
		}
	}, nil
}

// Password hashes (argon2id) take 19 MiB and tens of milliseconds of a
// core each: at most one per core runs at once, and a request that cannot
// start one within hashWait is answered Unavailable rather than queued
// without end.
const hashWait = 5 * time.Second

func errHashBusy() error {
	e := ctf.Errorf(ctf.Unavailable, "the server is busy checking passwords; try again in a few seconds")
	e.RetryAfter = hashWait
	return e
}

// hashSlot waits for a free slot to hash a password in, until hashWait
// passes or ctx ends, and returns the function that frees it.
func (s *core) hashSlot(ctx context.Context) (release func(), err error) {
	timer := time.NewTimer(hashWait)
	defer timer.Stop()
	select {
	case s.hashes <- struct{}{}:
		return func() { <-s.hashes }, nil
	case <-ctx.Done():
		return nil, errHashBusy()
	case <-timer.C:
		return nil, errHashBusy()
	}
}

// checkPassword reports whether password matches the encoded hash; hash ""
// checks against a hash no password matches, in the same time, and so
// does a hash outside secret's bounds (a row written before they held),
// which matches nothing either.
func (s *Accounts) checkPassword(ctx context.Context, hash, password string) (bool, error) {
	release, err := s.hashSlot(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	if hash == "" || secret.ValidatePasswordHash(hash) != nil {
		secret.CheckPassword(dummyPasswordHash(), password)
		return false, nil
	}
	return secret.CheckPassword(hash, password), nil
}

// hashPassword returns the encoded hash of a new password.
func (s *Accounts) hashPassword(ctx context.Context, password string) (string, error) {
	release, err := s.hashSlot(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return secret.HashPassword(password), nil
}

// Login throttle (docs/product.md#login-throttling): 5 failures of an account or 50 from one
// address within loginWindow refuse further tries for loginWindow.
const (
	loginWindow          = 15 * time.Minute
	maxAccountFailures   = 5
	maxAddressFailures   = 50
	loginFailureMessage  = "wrong username or password"
	loginThrottleMessage = "too many failed logins; wait before trying again"
)
