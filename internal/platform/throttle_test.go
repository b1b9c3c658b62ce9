package platform

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// TestLoginThrottleAcrossReplicasInParallel: twenty wrong passwords for
// one account sent at once to two replicas get five checks between them;
// the others are refused before their password is hashed
// (docs/product.md#login-throttling).
func TestLoginThrottleAcrossReplicasInParallel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	replicas := []*Service{f.svc, f.replica()}
	const n = 20
	codes := make([]ctf.Code, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := replicas[i%2].Accounts.Login(context.Background(), Login{Username: "pat", Password: "wrong password", Address: "10.0.0.1"})
			codes[i] = ctf.ErrorCode(err)
		}()
	}
	close(start)
	wg.Wait()
	count := map[ctf.Code]int{}
	for _, c := range codes {
		count[c]++
	}
	if count[ctf.Unauthorized] != 5 || count[ctf.RateLimited] != n-5 {
		t.Fatalf("%d parallel wrong passwords on two replicas: %v; want 5 checked and %d refused", n, count, n-5)
	}
}

// TestPasswordChecksWaitForASlot: at most one password hash per core runs
// at once; a log-in that cannot start one before its context ends is
// answered Unavailable, and its try is not counted as a failure.
func TestPasswordChecksWaitForASlot(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if cap(f.svc.hashes) != runtime.GOMAXPROCS(0) {
		t.Fatalf("%d hash slots, want one per core (%d)", cap(f.svc.hashes), runtime.GOMAXPROCS(0))
	}
	for range cap(f.svc.hashes) {
		f.svc.hashes <- struct{}{} // every slot busy
	}
	// More than the account's limit: none of them may count.
	for i := range maxAccountFailures + 1 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Address: "10.0.0.1"})
		cancel()
		wantCode(t, "every slot busy", err, ctf.Unavailable)
		if i == 0 && ctf.ErrorMessage(err) == "" {
			t.Error("no message")
		}
	}
	for range cap(f.svc.hashes) {
		<-f.svc.hashes
	}
	res, err := f.svc.Accounts.Login(context.Background(), Login{Username: "pam", Password: "pam-password", Address: "10.0.0.1"})
	if err != nil || res.Token == "" {
		t.Fatalf("log in once a slot is free: %+v %v", res, err)
	}
}

// TestWatchSweepsOldSignups: the watcher deletes sign-ups older than the
// limit's window, of every address (a sign-up deletes its own address's
// only), and keeps the recent ones.
func TestWatchSweepsOldSignups(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := f.clock.Now()
	for _, at := range []time.Time{now.Add(-signupWindow - time.Minute), now.Add(-time.Minute)} {
		if id, _, err := f.db.Accounts().ReserveSignup(context.Background(), "10.0.0.1", 10, at.Add(-signupWindow), at); err != nil || id == 0 {
			t.Fatalf("a sign-up at %v: %d %v", at, id, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		f.svc.Watch(ctx, time.Millisecond)
	}()
	defer func() { cancel(); <-watched }()
	raw := storetest.SQL(t, f.dsn)
	for {
		var old, recent int
		if err := raw.QueryRow("SELECT count(*) FROM signups WHERE at < " + strconv.FormatInt(now.Add(-signupWindow).UnixMilli(), 10)).Scan(&old); err != nil {
			t.Fatal(err)
		}
		if err := raw.QueryRow("SELECT count(*) FROM signups WHERE at >= " + strconv.FormatInt(now.Add(-signupWindow).UnixMilli(), 10)).Scan(&recent); err != nil {
			t.Fatal(err)
		}
		if recent != 1 {
			t.Fatalf("%d recent sign-ups, want 1", recent)
		}
		if old == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
