package platform

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestLoginThrottleAcrossReplicasInParallel: twenty wrong passwords for
// one account sent at once to two replicas get five checks between them;
// the others are refused before their password is hashed (finding 2 of
// the second security review).
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
			_, err := replicas[i%2].Login(context.Background(), Login{Username: "pat", Password: "wrong password", Address: "10.0.0.1"})
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
// answered Unavailable, and its try is not counted as a failure (finding 2).
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
		_, err := f.svc.Login(ctx, Login{Username: "pam", Password: "pam-password", Address: "10.0.0.1"})
		cancel()
		wantCode(t, "every slot busy", err, ctf.Unavailable)
		if i == 0 && ctf.ErrorMessage(err) == "" {
			t.Error("no message")
		}
	}
	for range cap(f.svc.hashes) {
		<-f.svc.hashes
	}
	res, err := f.svc.Login(context.Background(), Login{Username: "pam", Password: "pam-password", Address: "10.0.0.1"})
	if err != nil || res.Token == "" {
		t.Fatalf("log in once a slot is free: %+v %v", res, err)
	}
}
