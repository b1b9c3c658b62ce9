package platform

import (
	"context"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// turnTwoFactorOn enrols pam and returns her recovery codes.
func turnTwoFactorOn(t *testing.T, f *ucFixture) []string {
	t.Helper()
	ctx := context.Background()
	pam := f.as("pam")
	enrol, err := f.svc.Accounts.BeginTwoFactor(ctx, pam)
	wantCode(t, "begin", err, "")
	code, _ := totp.GenerateCodeCustom(enrol.Secret, f.clock.Now(), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	codes, err := f.svc.Accounts.ConfirmTwoFactor(ctx, pam, code)
	wantCode(t, "confirm", err, "")
	return codes
}

// TestDisableTwoFactorWhenOffHashesNothing: turning two-factor off while
// it is off is a Conflict before any password is hashed: with every hash
// slot busy the answer is still the Conflict, not a wait for a slot.
func TestDisableTwoFactorWhenOffHashesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for range cap(f.svc.hashes) {
		f.svc.hashes <- struct{}{} // every slot busy
	}
	defer func() {
		for range cap(f.svc.hashes) {
			<-f.svc.hashes
		}
	}()
	for _, password := range []string{"pam-password", "a guess"} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		err := f.svc.Accounts.DisableTwoFactor(ctx, f.as("pam"), password, "123456")
		cancel()
		wantCode(t, "turn off while off, password "+password, err, ctf.Conflict)
	}
}

// TestSecondFactorDatabaseErrorsAreNotFailures: a code that could not be
// checked (the database failed) is not a failed try: neither logging in
// nor turning two-factor off waits afterwards. The failure is a real one:
// the column the code is read from is renamed away meanwhile.
func TestSecondFactorDatabaseErrorsAreNotFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	codes := turnTwoFactorOn(t, f)
	raw := storetest.SQL(t, f.dsn)
	if _, err := raw.ExecContext(ctx, "ALTER TABLE users RENAME COLUMN totp_secret TO totp_secret_away"); err != nil {
		t.Fatal(err)
	}
	for i := range maxAccountFailures + 1 {
		_, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Code: codes[0], Address: "10.0.0.1"})
		if c := ctf.ErrorCode(err); err == nil || c != ctf.Internal {
			t.Errorf("log in %d while the database fails: %v (%s), want an internal error", i+1, err, c)
		}
		err = f.svc.Accounts.DisableTwoFactor(ctx, f.as("pam"), "pam-password", codes[0])
		if c := ctf.ErrorCode(err); err == nil || c != ctf.Internal {
			t.Errorf("turn off %d while the database fails: %v (%s), want an internal error", i+1, err, c)
		}
	}
	if _, err := raw.ExecContext(ctx, "ALTER TABLE users RENAME COLUMN totp_secret_away TO totp_secret"); err != nil {
		t.Fatal(err)
	}
	res, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Code: codes[0], Address: "10.0.0.1"})
	wantCode(t, "log in once the database is back", err, "")
	if res.Token == "" {
		t.Fatal("no session")
	}
	wantCode(t, "turn off once the database is back", f.svc.Accounts.DisableTwoFactor(ctx, f.as("pam"), "pam-password", codes[1]), "")
}
