package httpview_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/httpview"
	"github.com/allot-go/allot/allocator/runner"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// A program that drives its allocator itself, on a manual clock, serves it
// behind its own lock: every request reads the allocator only while it
// holds the lock, and sees what the latest run did.
func TestLockedSource(t *testing.T) {
	clock := allocator.NewManualClock(epoch)
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, err)
	var mu sync.Mutex
	srv := httptest.NewServer(httpview.Serve(httpview.Locked(&mu, a)))
	defer srv.Close()

	mu.Lock()
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{Hostname: "h1"}, resources.MustParse("cpus:4;mem:4096", "*"), nil))
	require.NoError(t, a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	res := a.Allocate()
	mu.Unlock()
	require.Len(t, res.Offers, 1)

	var roles httpview.RolesJSON
	resp, err := srv.Client().Get(srv.URL + "/roles")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&roles))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, roles.Roles, 1)
	require.Equal(t, "web", roles.Roles[0].Name)
	require.Equal(t, map[string]any{"cpus": 4.0, "mem": 4096.0}, map[string]any(roles.Roles[0].Offered))

	var x httpview.ExplanationJSON
	resp, err = srv.Client().Get(srv.URL + "/explain?framework=web")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&x))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "web", x.Roles[0].Role)

	// The handler reads only while it holds the lock.
	probe := &probeLocker{}
	srv2 := httptest.NewServer(httpview.Serve(httpview.Locked(probe, checkedViewer{a, probe})))
	defer srv2.Close()
	for _, path := range []string{"/roles", "/quota", "/state", "/explain?role=web"} {
		resp, err := srv2.Client().Get(srv2.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
	require.Zero(t, probe.unlocked.Load(), "views read without the lock")
	require.Positive(t, probe.locks.Load())
	require.False(t, probe.held.Load(), "lock kept after the request")
}

// probeLocker records whether it is held.
type probeLocker struct {
	mu              sync.Mutex
	held            atomic.Bool
	locks, unlocked atomic.Int64
}

func (p *probeLocker) Lock()   { p.mu.Lock(); p.held.Store(true); p.locks.Add(1) }
func (p *probeLocker) Unlock() { p.held.Store(false); p.mu.Unlock() }

// checkedViewer counts the reads made while its lock is not held.
type checkedViewer struct {
	*allocator.Allocator
	lock *probeLocker
}

func (v checkedViewer) check() {
	if !v.lock.held.Load() {
		v.lock.unlocked.Add(1)
	}
}

func (v checkedViewer) Roles() []allocator.RoleView { v.check(); return v.Allocator.Roles() }
func (v checkedViewer) Agents() []allocator.AgentView {
	v.check()
	return v.Allocator.Agents()
}
func (v checkedViewer) ExplainRole(role string) (allocator.Explanation, error) {
	v.check()
	return v.Allocator.ExplainRole(role)
}

// A Source's own error is the answer, with its status.
func TestSourceError(t *testing.T) {
	src := httpview.SourceFunc(func(func(httpview.Viewer) error) error { return runner.ErrClosed })
	srv := httptest.NewServer(httpview.Serve(src))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/roles")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	var body map[string]string
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, runner.ErrClosed.Error(), body["error"])
}

// /explain lists the run's preemptions that concern the framework.
func TestExplainPreemptions(t *testing.T) {
	clock := allocator.NewManualClock(epoch)
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: allocator.ReclaimGuarantees})
	require.NoError(t, err)
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil))
	require.NoError(t, a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active))
	o := a.AllocateAll().Offers[0]
	launch := offer.Launch{Tasks: []offer.Task{{ID: "t1", Resources: o.Resources}}}
	require.NoError(t, a.Accept("spark", "a1", o.Resources, []offer.Operation{launch}, nil))
	require.NoError(t, a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateQuota("web", allocator.MustParseQuota("cpus:1")))
	// Reclaim makes room only for a pending task nginx states.
	require.NoError(t, a.UpdateDemand("nginx", "web", []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:1;mem:512"), Count: 1}}))
	clock.Advance(time.Second)
	require.Len(t, a.AllocateAll().Preemptions, 1)

	var mu sync.Mutex
	srv := httptest.NewServer(httpview.Serve(httpview.Locked(&mu, a)))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/explain?framework=nginx")
	require.NoError(t, err)
	defer resp.Body.Close()
	var x httpview.ExplanationJSON
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&x))
	require.Len(t, x.Preemptions, 1)
	p := x.Preemptions[0]
	require.Equal(t, "t1", p.Task)
	require.Equal(t, "spark", p.Framework)
	require.Equal(t, "web", p.For)
	require.Equal(t, "web", p.HeldIn)
	require.Equal(t, "guarantee", p.Reason)
	require.Equal(t, httpview.QuantitiesJSON{"cpus": 4, "mem": 4096}, p.Frees)
	require.Equal(t, httpview.QuantitiesJSON{"cpus": 1, "mem": 512}, p.ForTask, "the pending task the room is for")
}
