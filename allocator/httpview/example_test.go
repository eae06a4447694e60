package httpview_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/httpview"
	"github.com/allot-go/allot/allocator/runner"
	"github.com/allot-go/allot/resources"
)

// An operator asks why a framework got nothing: the handler answers from
// the Runner's latest run, over HTTP.
func Example() {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	a, _ := allocator.New(allocator.Options{Clock: clock.Now})
	tick := make(handTicker)
	runs := make(chan allocator.Result, 4)
	r := runner.New(a, runner.Options{
		NewTicker: func(time.Duration) runner.Ticker { return tick },
		OnRun:     func(res allocator.Result) { runs <- res },
	})
	defer r.Close()
	srv := httptest.NewServer(httpview.New(r))
	defer srv.Close()

	// web declines its agent for 5 s; the next run offers it nothing.
	_ = r.Do(func(a *allocator.Allocator) error {
		_ = a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil)
		return a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active)
	})
	o := (<-runs).Offers[0]
	_ = r.Do(func(a *allocator.Allocator) error {
		return a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: 5 * time.Second})
	})
	tick <- time.Time{}
	<-runs

	resp, err := srv.Client().Get(srv.URL + "/explain?framework=web")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var x httpview.ExplanationJSON
	_ = json.NewDecoder(resp.Body).Decode(&x)
	fmt.Println(resp.StatusCode, x.Roles[0].Text)
	// Output:
	// 200 web got nothing on 1 agent: 1 refused until 12:00:05
}
