package webtest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// axeCheck runs axe-core (WCAG 2 A and AA) on the page the tab shows and
// fails on a serious or critical violation.
func axeCheck(t *testing.T, ctx context.Context, axe, label string) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[chromedp.Void](axe)); err != nil {
		t.Fatalf("inject axe on %s: %v", label, err)
	}
	raw, err := chromedp.Run(tctx, chromedp.Evaluate[json.RawMessage](
		`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}).then(r => ({violations: r.violations}))`,
		func(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) }))
	if err != nil {
		t.Fatalf("axe on %s: %v", label, err)
	}
	var res axeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Violations {
		if v.Impact != "serious" && v.Impact != "critical" {
			continue
		}
		var where []string
		for _, n := range v.Nodes {
			where = append(where, strings.TrimSpace(n.HTML))
		}
		t.Errorf("%s: %s (%s): %s\n  %s", label, v.ID, v.Impact, v.Help, strings.Join(where, "\n  "))
	}
}
