// Command metrics runs an allocator behind a Runner, as a service would,
// and exports its figures to Prometheus: an allocator.Observer (Exporter)
// keeps what every run and every event report, and /metrics serves them
// under Mesos's allocator metric names (allocator_mesos_roles_shares_dominant,
// allocator_mesos_quota_roles_resources_consumed, ...). The operator's JSON
// views (package allocator/httpview) are under /allocator/.
//
//	go run . -addr 127.0.0.1:9090
//	curl -s 127.0.0.1:9090/metrics | grep allocator_mesos
//	curl -s '127.0.0.1:9090/allocator/explain?framework=batch'
//
// The cluster is three agents, a web framework with a quota guarantee and a
// batch framework; each launches one task per offer and declines the rest
// for five seconds. The program lives in a module of its own, so that the
// library's module does not depend on the Prometheus client.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/httpview"
	"github.com/allot-go/allot/allocator/runner"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9090", "address to serve /metrics and /allocator/ on")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := start(ctx, *addr, config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("serving http://%s/metrics and http://%s/allocator/roles\n", s.addr, s.addr)
	<-ctx.Done()
	s.close()
}

// config is what a test replaces: the clock, the ticker, and a hook
// called after every run.
type config struct {
	clock     func() time.Time
	newTicker func(time.Duration) runner.Ticker
	onRun     func(allocator.Result)
}

// service is the allocator, its Runner and the HTTP server.
type service struct {
	loop   *runner.Runner
	server *http.Server
	addr   string
	done   chan struct{}
}

// start makes the cluster and serves it on addr until ctx is done or
// close is called.
func start(ctx context.Context, addr string, cfg config) (*service, error) {
	exporter := NewExporter()
	began := time.Now()
	a, err := allocator.New(allocator.Options{
		Clock:     cfg.clock,
		Seed:      1,
		Observer:  exporter,
		Stopwatch: func() time.Duration { return time.Since(began) },
	})
	if err != nil {
		return nil, err
	}
	s := &service{done: make(chan struct{})}
	s.loop = runner.NewContext(ctx, a, runner.Options{
		NewTicker: cfg.newTicker,
		OnResult:  s.launch,
		OnRun:     cfg.onRun,
	})
	err = s.loop.Do(func(a *allocator.Allocator) error {
		for i := range 3 {
			id := fmt.Sprintf("agent-%d", i+1)
			if err := a.AddAgent(id, allocator.AgentInfo{Hostname: id}, resources.MustParse("cpus:4;mem:8192", "*"), nil); err != nil {
				return err
			}
		}
		if err := a.UpdateQuota("web", allocator.MustParseQuota("cpus:2;mem:4096")); err != nil {
			return err
		}
		if err := a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active); err != nil {
			return err
		}
		return a.AddFramework("batch", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active)
	})
	if err != nil {
		s.loop.Close()
		return nil, err
	}

	registry := prometheus.NewRegistry()
	registry.MustRegister(exporter)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	mux.Handle("/allocator/", http.StripPrefix("/allocator", httpview.New(s.loop)))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.loop.Close()
		return nil, err
	}
	s.addr = ln.Addr().String()
	s.server = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, err)
		}
	}()
	return s, nil
}

// launch is the frameworks' side: one task of cpus:1;mem:1024 per offer,
// the rest declined for five seconds.
func (s *service) launch(res allocator.Result) {
	need := resources.MustParseQuantities("cpus:1;mem:1024")
	for _, o := range res.Offers {
		_ = s.loop.Do(func(a *allocator.Allocator) error {
			var ops []offer.Operation
			if task, ok := offer.Pick(o.Resources, need, o.Role); ok {
				ops = append(ops, offer.Launch{Tasks: []offer.Task{{ID: fmt.Sprintf("%s-%s", o.ID, o.AgentID), Resources: task}}})
			}
			return a.Accept(o.FrameworkID, o.AgentID, o.Resources, ops, &allocator.Filter{Refuse: 5 * time.Second})
		})
	}
}

// close stops the server and the Runner.
func (s *service) close() {
	_ = s.server.Close()
	<-s.done
	s.loop.Close()
}
