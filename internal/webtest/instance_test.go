package webtest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/demo"
	"github.com/flagshipctf/flagship/internal/instances/instancestest"
	"github.com/flagshipctf/flagship/internal/platform"
)

// TestInstancePanelInABrowser: in a real Chromium, a player presses Start
// on a challenge with per-player instances and gets the connection line
// and the countdown, reaches the instance with it and reads their flag;
// Stop takes it away. The page with the instance running is kept as a
// screenshot (FLAGSHIP_SCREENSHOTS).
func TestInstancePanelInABrowser(t *testing.T) {
	engine := apitest.InstanceEngines(t)[0]
	s := apitest.Start(t, string(demo.Dataset), apitest.Options{Instances: engine.Options(t, 4, 3)})
	apitest.StopInstancesAtEnd(t, s.Svc)
	if _, err := s.Svc.Content.SaveChallenge(context.Background(), ctf.Operator, platform.ChallengeInput{Title: "Echo chamber",
		Description: "Connect to **your own** echo service and read what it says first.", Categories: []string{"pwn"},
		Difficulty: ctf.Easy, Points: 150, Instance: &ctf.InstanceSpec{Image: instancestest.Image, Port: 1337, Memory: 32 << 20, Pids: 32}}); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	step(t, ctx, "log in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "demo", "password": demo.DemoPassword}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "the board", chromedp.WaitVisible(chromedp.CSS(".cards")))
	step(t, ctx, "the challenge", chromedp.Navigate(s.URL+"/challenges/echo-chamber"), chromedp.WaitVisible(chromedp.CSS("#instance")))
	step(t, ctx, "start", chromedp.Click(chromedp.CSS(`#instance form[action$="/instance"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#instance-conn")))
	conn, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#instance-conn")))
	if err != nil {
		t.Fatal(err)
	}
	var host string
	var port int
	if _, err := fmt.Sscanf(conn, "nc %s %d", &host, &port); err != nil {
		t.Fatalf("connection line %q: %v", conn, err)
	}
	if flag := instancestest.Greeting(t, port); !strings.HasPrefix(flag, "flag{echo-chamber_") {
		t.Errorf("the instance greets with %q", flag)
	}
	screenshot(t, ctx, "challenge-instance")
	step(t, ctx, "stop", chromedp.Click(chromedp.CSS(`#instance form[action$="/instance/stop"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`#instance form[action$="/instance"] button`)))
	if got, err := s.Svc.Instances.Running(context.Background(), ctf.Operator); err != nil || len(got) != 0 {
		t.Errorf("after Stop: %+v, %v", got, err)
	}
}
