package httpview_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/httpview"
	"github.com/allot-go/allot/allocator/runner"
	"github.com/allot-go/allot/resources"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// handTicker is an interval ticker ticked by hand: a send is a tick.
type handTicker chan time.Time

func (t handTicker) C() <-chan time.Time { return t }
func (handTicker) Stop()                 {}

// cluster is a Runner serving its views over loopback.
type cluster struct {
	r     *runner.Runner
	srv   *httptest.Server
	tick  handTicker
	runs  chan allocator.Result
	clock *allocator.ManualClock
}

// newCluster starts a Runner on two agents and two frameworks, with
// quota on web, and waits for the first run.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	c := &cluster{tick: make(handTicker), runs: make(chan allocator.Result, 1024), clock: allocator.NewManualClock(epoch)}
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: c.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	c.r = runner.New(a, runner.Options{
		NewTicker: func(time.Duration) runner.Ticker { return c.tick },
		OnRun:     func(res allocator.Result) { c.runs <- res },
	})
	t.Cleanup(c.r.Close)
	c.srv = httptest.NewServer(httpview.New(c.r))
	t.Cleanup(c.srv.Close)
	err = c.r.Do(func(a *allocator.Allocator) error {
		a2 := resources.MustParse("cpus:2;mem:2048", "*")
		a2.Add(resources.MustParse("cpus:2;mem:1024", "web"))
		return errorsJoin(
			a.AddAgent("a1", allocator.AgentInfo{Hostname: "h1"}, resources.MustParse("cpus:4;mem:4096;ports:[31000-32000]", "*"), nil),
			a.AddAgent("a2", allocator.AgentInfo{Hostname: "h2"}, a2, nil),
			a.UpdateQuota("web", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:2"), Limits: resources.MustParseLimits("cpus:4")}),
			a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active),
			a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active),
		)
	})
	if err != nil {
		t.Fatal(err)
	}
	<-c.runs
	return c
}

func errorsJoin(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// get fetches path with a real HTTP client and decodes the JSON answer.
func get(t *testing.T, c *cluster, path string, into any) int {
	t.Helper()
	resp, err := c.srv.Client().Get(c.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: content type %q", path, ct)
	}
	if err := json.Unmarshal(body, into); err != nil {
		t.Fatalf("%s: %v: %s", path, err, body)
	}
	return resp.StatusCode
}

// same reports whether two JSON texts hold the same values.
func same(t *testing.T, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	// Compare through JSON, so that numbers and nesting match exactly.
	b, _ := json.Marshal(got)
	var g any
	_ = json.Unmarshal(b, &g)
	if !reflect.DeepEqual(g, w) {
		pretty, _ := json.MarshalIndent(g, "", "  ")
		t.Errorf("got:\n%s\nwant:\n%s", pretty, want)
	}
}

// After the first run web's guarantee (cpus:2) is met on a1 in stage
// one, with the memory and ports there (no limit on them), and its
// reservation on a2 counts against its limit (cpus:4); batch gets the
// rest.
func TestRolesQuotaState(t *testing.T) {
	c := newCluster(t)
	var roles any
	if code := get(t, c, "/roles", &roles); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	same(t, roles, `{"roles": [
	  {"name": "batch", "weight": 1, "share": 0.5, "frameworks": ["spark"],
	   "resources": {"cpus": 4, "mem": 2048}, "allocated": {}, "offered": {"cpus": 4, "mem": 2048},
	   "reserved": {}, "quota": {"role": "batch", "guarantee": {}, "limit": {}, "consumed": {"cpus": 4, "mem": 2048}}},
	  {"name": "web", "weight": 1, "share": 0.7142857142857143, "frameworks": ["nginx"],
	   "resources": {"cpus": 4, "mem": 5120, "ports": "[31000-32000]"}, "allocated": {},
	   "offered": {"cpus": 4, "mem": 5120, "ports": "[31000-32000]"}, "reserved": {"cpus": 2, "mem": 1024},
	   "quota": {"role": "web", "guarantee": {"cpus": 2}, "limit": {"cpus": 4}, "consumed": {"cpus": 4, "mem": 5120}}}
	]}`)

	var quota any
	if code := get(t, c, "/quota", &quota); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	same(t, quota, `{"configs": [{"role": "web", "guarantees": {"cpus": 2}, "limits": {"cpus": 4}, "consumed": {"cpus": 4, "mem": 5120}}]}`)

	var state any
	if code := get(t, c, "/state", &state); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	same(t, state, `{
	  "slaves": [
	    {"id": "a1", "hostname": "h1", "active": true,
	     "resources": {"cpus": 4, "mem": 4096, "ports": "[31000-32000]"}, "used_resources": {},
	     "offered_resources": {"cpus": 4, "mem": 4096, "ports": "[31000-32000]"},
	     "unreserved_resources": {"cpus": 4, "mem": 4096, "ports": "[31000-32000]"}, "reserved_resources": {}},
	    {"id": "a2", "hostname": "h2", "active": true,
	     "resources": {"cpus": 4, "mem": 3072}, "used_resources": {}, "offered_resources": {"cpus": 4, "mem": 3072},
	     "unreserved_resources": {"cpus": 2, "mem": 2048}, "reserved_resources": {"web": {"cpus": 2, "mem": 1024}}}
	  ],
	  "frameworks": [
	    {"id": "nginx", "roles": ["web"], "suppressed_roles": [], "active": true, "capabilities": [],
	     "used_resources": {}, "offered_resources": {"cpus": 4, "mem": 5120, "ports": "[31000-32000]"},
	     "offers": [
	       {"id": "offer-1", "framework_id": "nginx", "slave_id": "a1", "role": "web", "resources": {"cpus": 2, "mem": 4096, "ports": "[31000-32000]"}},
	       {"id": "offer-2", "framework_id": "nginx", "slave_id": "a2", "role": "web", "resources": {"cpus": 2, "mem": 1024}}]},
	    {"id": "spark", "roles": ["batch"], "suppressed_roles": [], "active": true, "capabilities": [],
	     "used_resources": {}, "offered_resources": {"cpus": 4, "mem": 2048},
	     "offers": [
	       {"id": "offer-3", "framework_id": "spark", "slave_id": "a1", "role": "batch", "resources": {"cpus": 2}},
	       {"id": "offer-4", "framework_id": "spark", "slave_id": "a2", "role": "batch", "resources": {"cpus": 2, "mem": 2048}}]}
	  ]
	}`)
}

// spark declines everything for a minute. In the next run it is refused
// on both agents; nginx is at web's cpu limit on a1, and is offered the
// memory of a2 (memory has no limit).
func TestExplain(t *testing.T) {
	c := newCluster(t)
	err := c.r.Do(func(a *allocator.Allocator) error {
		for _, o := range a.Offers() {
			if o.FrameworkID == "spark" {
				if err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: time.Minute}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c.tick <- time.Time{}
	<-c.runs

	var x any
	if code := get(t, c, "/explain?framework=spark", &x); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	same(t, x, `{"framework": "spark", "run": 2, "time": "2026-01-01T00:00:00Z", "roles": [
	  {"role": "batch", "text": "spark got nothing on 2 agents: 2 refused until 00:01:00",
	   "agents": 2, "offered": 0, "reason": "filtered", "reasons": [
	     {"reason": "filtered", "count": 2, "earliest": "2026-01-01T00:01:00Z", "until": "2026-01-01T00:01:00Z", "agents": [
	       {"agent": "a1", "framework": "spark", "until": "2026-01-01T00:01:00Z"},
	       {"agent": "a2", "framework": "spark", "until": "2026-01-01T00:01:00Z"}]}]}]}`)

	if code := get(t, c, "/explain?role=web", &x); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	same(t, x, `{"run": 2, "time": "2026-01-01T00:00:00Z", "roles": [
	  {"role": "web", "text": "role web got offers on 1 agent and nothing on 1: 1 at web's quota limit (limit cpus:4, consumed cpus:4; mem:7168)",
	   "agents": 2, "offered": 1, "reason": "quota-limit", "reasons": [
	     {"reason": "quota-limit", "count": 1, "quota_role": "web", "limit": {"cpus": 4}, "consumed": {"cpus": 4, "mem": 7168},
	      "agents": [{"agent": "a1", "framework": "nginx", "offer": {"cpus": 2}}]}]}]}`)

	for _, c2 := range []struct {
		path string
		code int
		err  string
	}{
		{"/explain", http.StatusBadRequest, "httpview: /explain needs framework= or role=, one of them"},
		{"/explain?framework=x", http.StatusNotFound, `allocator: unknown framework: "x"`},
		{"/explain?role=nope", http.StatusNotFound, `allocator: unknown role: "nope"`},
		{"/explain?role=a//b", http.StatusBadRequest, `allocator: invalid role: "a//b"`},
		{"/explain?framework=spark&role=web", http.StatusBadRequest, "httpview: /explain needs framework= or role=, one of them"},
	} {
		var e map[string]string
		if code := get(t, c, c2.path, &e); code != c2.code || e["error"] != c2.err {
			t.Errorf("%s: %d %q, want %d %q", c2.path, code, e["error"], c2.code, c2.err)
		}
	}
}

// Other methods than GET are refused; a closed Runner is unavailable.
func TestMethodsAndClosed(t *testing.T) {
	c := newCluster(t)
	resp, err := c.srv.Client().Post(c.srv.URL+"/roles", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /roles: %d", resp.StatusCode)
	}
	c.r.Close()
	var e map[string]string
	if code := get(t, c, "/state", &e); code != http.StatusServiceUnavailable || e["error"] != runner.ErrClosed.Error() {
		t.Errorf("closed: %d %q", code, e)
	}
}

// Many clients read every view while events change the allocator and
// runs happen: run it with -race. Every answer must be whole and
// consistent: what the roles hold adds up to what the agents hold.
func TestConcurrentReads(t *testing.T) {
	c := newCluster(t)
	stop := make(chan struct{})
	var writers sync.WaitGroup
	writers.Add(1)
	go func() {
		defer writers.Done()
		// At most 200 ticks and 40 revives: c.runs holds every run.
		for i := 0; i < 200; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = c.r.Do(func(a *allocator.Allocator) error {
				for _, o := range a.Offers() {
					if err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: time.Duration(i%3) * time.Second}); err != nil {
						return err
					}
				}
				if i%5 == 0 {
					return a.ReviveOffers("spark")
				}
				return nil
			})
			c.clock.Advance(time.Second)
			c.tick <- time.Time{}
		}
	}()
	var readers sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			client := c.srv.Client()
			for i := range 40 {
				path := []string{"/roles", "/quota", "/state", "/explain?framework=spark", "/explain?role=web"}[(i+w)%5]
				resp, err := client.Get(c.srv.URL + path)
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("%s: %d %v %s", path, resp.StatusCode, err, body)
					return
				}
				if path == "/state" {
					if err := consistent(body); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	readers.Wait()
	close(stop)
	writers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// consistent checks that a /state answer's frameworks hold what its agents
// say is offered and used.
func consistent(body []byte) error {
	var st httpview.StateJSON
	if err := json.Unmarshal(body, &st); err != nil {
		return err
	}
	sum := func(models []httpview.Model) float64 {
		n := 0.0
		for _, m := range models {
			if v, ok := m["cpus"].(float64); ok {
				n += v
			}
		}
		return n
	}
	var agents, frameworks []httpview.Model
	for _, a := range st.Agents {
		agents = append(agents, a.OfferedResources, a.UsedResources)
	}
	for _, f := range st.Frameworks {
		frameworks = append(frameworks, f.OfferedResources, f.UsedResources)
	}
	if a, f := sum(agents), sum(frameworks); a != f {
		return fmt.Errorf("/state: agents hold %v cpus, frameworks %v", a, f)
	}
	return nil
}
