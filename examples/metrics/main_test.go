package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/runner"
)

// handTicker is an interval ticker ticked by hand: a send is a tick.
type handTicker chan time.Time

func (t handTicker) C() <-chan time.Time { return t }
func (handTicker) Stop()                 {}

// scrape fetches /metrics with a real HTTP client and reads the samples,
// by name and labels as the text format prints them.
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad sample %q", line)
		}
		out[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The service's allocator runs three times; /metrics, scraped over
// loopback, must say what the allocator's own views say.
func TestMetrics(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	tick := make(handTicker)
	runs := make(chan allocator.Result, 16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := start(ctx, "127.0.0.1:0", config{
		clock:     clock.Now,
		newTicker: func(time.Duration) runner.Ticker { return tick },
		onRun:     func(res allocator.Result) { runs <- res },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()

	offers := map[string]int{}
	wait := func() allocator.Result {
		res := <-runs
		for _, o := range res.Offers {
			offers[o.FrameworkID]++
		}
		return res
	}
	wait() // the run the new agents and frameworks called for
	tick <- time.Time{}
	last := wait()

	// Right after the second run every filter is in force (5 s).
	m := scrape(t, s.addr)
	var filters map[string]int
	_ = s.loop.Do(func(a *allocator.Allocator) error {
		filters = map[string]int{}
		for _, f := range a.Filters() {
			filters[f.Role]++
		}
		return nil
	})
	for _, role := range []string{"web", "batch"} {
		key := fmt.Sprintf(`allocator_mesos_offer_filters_roles_active{role=%q}`, role)
		if m[key] != float64(filters[role]) {
			t.Errorf("%s = %v, the allocator keeps %d", key, m[key], filters[role])
		}
	}
	if key := "allocator_mesos_allocation_run_offers"; m[key] != float64(len(last.Offers)) {
		t.Errorf("%s = %v, the run made %d", key, m[key], len(last.Offers))
	}

	// The filters expire; the third run offers what they held.
	clock.Advance(6 * time.Second)
	tick <- time.Time{}
	last = wait()
	m = scrape(t, s.addr)

	want := map[string]float64{
		"allocator_mesos_allocation_runs":                                             3,
		"allocator_mesos_allocation_run_ms_count":                                     3,
		`allocator_mesos_resources_total{resource="cpus"}`:                            12,
		`allocator_mesos_resources_total{resource="mem"}`:                             24576,
		`allocator_mesos_quota_roles_resources_guarantee{resource="cpus",role="web"}`: 2,
		`allocator_mesos_quota_roles_resources_guarantee{resource="mem",role="web"}`:  4096,
		`allocator_mesos_quota_roles_resources_limit{resource="cpus",role="web"}`:     2,
		`allocator_mesos_quota_roles_resources_limit{resource="mem",role="web"}`:      4096,
		`allocator_mesos_frameworks_offers_sent{framework="web"}`:                     float64(offers["web"]),
		`allocator_mesos_frameworks_offers_sent{framework="batch"}`:                   float64(offers["batch"]),
		`allocator_mesos_frameworks_active{framework="web"}`:                          1,
		`allocator_mesos_frameworks_roles_suppressed{framework="batch",role="batch"}`: 0,
		"allocator_mesos_allocation_run_offers":                                       float64(len(last.Offers)),
		`allocator_mesos_allocation_run_passed_over{reason="agent-inactive"}`:         0,
		`allocator_mesos_roles_frameworks_count{role="web"}`:                          1,
		`allocator_mesos_roles_weight{role="batch"}`:                                  1,
	}
	// What the allocator's views say, read under the Runner's lock.
	_ = s.loop.Do(func(a *allocator.Allocator) error {
		var used, offered float64
		for _, r := range a.Roles() {
			want[fmt.Sprintf(`allocator_mesos_roles_shares_dominant{role=%q}`, r.Role)] = r.Share
			for name, v := range r.Consumed.All() {
				if r.Role == "web" {
					want[fmt.Sprintf(`allocator_mesos_quota_roles_resources_consumed{resource=%q,role="web"}`, name)] = v.Float64()
				}
			}
		}
		for _, f := range a.Frameworks() {
			used += f.Allocated.Quantities().Float64("cpus")
			offered += f.Offered.Quantities().Float64("cpus")
			for name, v := range f.Allocated.Quantities().All() {
				want[fmt.Sprintf(`allocator_mesos_frameworks_roles_resources_allocated{framework=%q,resource=%q,role=%q}`, f.ID, name, f.Roles[0])] = v.Float64()
			}
		}
		for _, f := range a.Filters() {
			want[fmt.Sprintf(`allocator_mesos_frameworks_offer_filters_roles_active{framework=%q,role=%q}`, f.Framework, f.Role)]++
		}
		want[`allocator_mesos_resources_allocated{resource="cpus"}`] = used
		want[`allocator_mesos_resources_offered{resource="cpus"}`] = offered
		want[`allocator_mesos_resources_offered_or_allocated{resource="cpus"}`] = used + offered
		return nil
	})
	for key, v := range want {
		got, ok := m[key]
		if !ok {
			t.Errorf("%s missing", key)
			continue
		}
		if got != v {
			t.Errorf("%s = %v, want %v", key, got, v)
		}
	}
	if t.Failed() {
		for key, v := range m {
			if strings.HasPrefix(key, "allocator_mesos") {
				t.Log(key, v)
			}
		}
	}

	// The operator's views are served next to /metrics.
	resp, err := http.Get("http://" + s.addr + "/allocator/explain?framework=batch")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/allocator/explain: %s", resp.Status)
	}
}

// PromName keeps Mesos's names without their placeholders.
func TestPromName(t *testing.T) {
	for mesos, want := range map[string]string{
		"allocator/mesos/roles/<role>/shares/dominant":                     "allocator_mesos_roles_shares_dominant",
		"allocator/mesos/quota/roles/<role>/resources/<resource>/consumed": "allocator_mesos_quota_roles_resources_consumed",
		"allocator/mesos/allocation_runs":                                  "allocator_mesos_allocation_runs",
	} {
		if got := PromName(mesos); got != want {
			t.Errorf("PromName(%q) = %q, want %q", mesos, got, want)
		}
	}
}
