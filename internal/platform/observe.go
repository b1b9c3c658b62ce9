package platform

import "time"

// Observer is told what the use cases do, for metrics. Its methods are
// called on hot paths (a submission, a relayed solve), so they must be
// cheap and safe for concurrent use. Options.Observer nil observes nothing.
type Observer interface {
	// Submitted counts a submission by outcome: "correct", "wrong",
	// "practice" (right, after the end), "refused" (locked, solved,
	// rate limited, event not running: any refusal after the checks of
	// the request itself).
	Submitted(outcome string)
	// SolveApplied counts a solve this replica's state took in: firstBlood
	// when it was a challenge's first by a player; delay is the time from
	// the solve's recorded time to now (the propagation delay for another
	// replica's solve; about zero for this replica's own).
	SolveApplied(firstBlood bool, own bool, delay time.Duration)
	// SubmitBatch tells of a group commit of size submissions, the oldest
	// of which waited wait for it to start.
	SubmitBatch(size int, wait time.Duration)
	// StreamClients moves the number of live-stream clients by delta.
	StreamClients(delta int)
	// WebhookDelivery counts one try of a webhook delivery: ok when the
	// target answered 2xx.
	WebhookDelivery(kind string, ok bool)
	// InstanceStarted tells of a start of a player's instance: ok when it
	// runs, took from the reservation to running (or failing).
	InstanceStarted(ok bool, took time.Duration)
	// InstancesRunning tells how many instances are live, at each round of
	// the reaper's replica.
	InstancesRunning(n int)
}

type noObserver struct{}

// NopObserver observes nothing: embed it to observe only some things.
var NopObserver Observer = noObserver{}

func (noObserver) Submitted(string)                       {}
func (noObserver) SolveApplied(bool, bool, time.Duration) {}
func (noObserver) SubmitBatch(int, time.Duration)         {}
func (noObserver) StreamClients(int)                      {}
func (noObserver) WebhookDelivery(string, bool)           {}
func (noObserver) InstanceStarted(bool, time.Duration)    {}
func (noObserver) InstancesRunning(int)                   {}

// Observer is what the service reports to.
func (s *Service) Observer() Observer { return s.obs }
