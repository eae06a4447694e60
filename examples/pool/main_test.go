package main

import (
	"bytes"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/examples/internal/textcheck"
	"github.com/allot-go/allot/resources"
)

// cpus returns the quantities of n tasks: n CPUs and n times 4 GB.
func cpus(n int) resources.Quantities {
	var out resources.Quantities
	for range n {
		out.Add(task)
	}
	return out
}

// share is n CPUs out of the cluster's 192.
func share(n int) float64 { return float64(n) / 192 }

func TestPool(t *testing.T) {
	var buf bytes.Buffer
	out, err := run(&buf)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	m, p := &out.Mesos, &out.Pool
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		if len(h.o.Steps) != 8 || len(h.o.Offers) != 8 {
			t.Fatalf("%s: %d snapshots and %d offer lists, want 8 of each", h.name, len(h.o.Steps), len(h.o.Offers))
		}
	}

	// checkRole checks a role's share (to 4 decimals), what it holds of
	// the shared pool, its quota consumption and its tasks.
	checkRole := func(h string, step int, s snapshot, role string, wantShare float64, allocated, consumed resources.Quantities, tasks int) {
		t.Helper()
		r, ok := s.Roles[role]
		if !ok {
			t.Errorf("%s, step %d: no role %s", h, step, role)
			return
		}
		if math.Abs(r.Share-wantShare) > 1e-4 {
			t.Errorf("%s, step %d: %s's share %.4f, want %.4f", h, step, role, r.Share, wantShare)
		}
		if !r.Allocated.Equal(allocated) {
			t.Errorf("%s, step %d: %s allocated %s, want %s", h, step, role, r.Allocated, allocated)
		}
		if !r.Consumed.Equal(consumed) {
			t.Errorf("%s, step %d: %s consumed %s, want %s", h, step, role, r.Consumed, consumed)
		}
		if r.Tasks != tasks {
			t.Errorf("%s, step %d: %s runs %d tasks, want %d", h, step, role, r.Tasks, tasks)
		}
	}
	// checkOffers checks the offers of a step: per framework, how many,
	// what each held, the tasks launched and how many on reserved
	// resources.
	type offers struct {
		fw, res         string
		n, tasks, onRes int
	}
	checkOffers := func(h string, step int, got []offered, want ...offers) {
		t.Helper()
		count := map[offers]int{}
		for _, o := range got {
			count[offers{fw: o.Framework, res: sorted(o.Resources).String(), tasks: o.Tasks, onRes: o.OnReserved}]++
		}
		total := 0
		for _, w := range want {
			k := offers{fw: w.fw, res: sorted(resources.MustParse(w.res, "*")).String(), tasks: w.tasks, onRes: w.onRes}
			if count[k] != w.n {
				t.Errorf("%s, step %d: %d offers to %s of %s with %d tasks (%d on reserved resources), want %d; offers: %v",
					h, step, count[k], w.fw, w.res, w.tasks, w.onRes, w.n, got)
			}
			total += w.n
		}
		if len(got) != total {
			t.Errorf("%s, step %d: %d offers, want %d: %v", h, step, len(got), total, got)
		}
	}
	none := resources.Quantities{}

	// 1. Reservations count as consumed quota and meet the guarantees;
	// nothing is held back.
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		s := h.o.Steps[0]
		for _, role := range poolRoles {
			checkRole(h.name, 1, s, role, 0, none, poolSize, 0)
			if !s.FreeReserved[role].Equal(poolSize) {
				t.Errorf("%s: %s's free reservation %s, want %s", h.name, role, s.FreeReserved[role], poolSize)
			}
		}
		checkRole(h.name, 1, s, "adhoc", 0, none, none, 0)
		if !s.FreeShared.Equal(cpus(120)) || s.WholeAgents != 12 || !s.Unmet.IsEmpty() {
			t.Errorf("%s: shared pool free %s on %d whole agents, unmet %s; want %s on 12, none", h.name, s.FreeShared, s.WholeAgents, s.Unmet, cpus(120))
		}
		checkOffers(h.name, 1, h.o.Offers[0])
	}

	// 2. etl's 24 tasks, named on unreserved resources: on the shared pool
	// without ReservedFirst, on etl's reservation with it.
	etlOffer := "cpus:10;mem:40960;cpus(etl):2;mem(etl):8192"
	checkOffers("mesos", 2, m.Offers[1], offers{"etl", etlOffer, 12, 2, 0})
	checkOffers("pool", 2, p.Offers[1], offers{"etl", etlOffer, 12, 2, 2})
	checkRole("mesos", 2, m.Steps[1], "etl", share(24), cpus(24), cpus(48), 24)
	checkRole("pool", 2, p.Steps[1], "etl", 0, none, cpus(24), 24)
	if got := m.Steps[1].OnReserved["etl"]; got != 0 {
		t.Errorf("mesos: %d of etl's tasks on its reservation in the ledger, want 0", got)
	}
	if got := p.Steps[1].OnReserved["etl"]; got != 24 {
		t.Errorf("pool: %d of etl's tasks on its reservation in the ledger, want 24", got)
	}
	if s := m.Steps[1]; s.WholeAgents != 0 || !s.FreeShared.Equal(cpus(96)) || !s.FreeReserved["etl"].Equal(poolSize) {
		t.Errorf("mesos: shared pool %s whole on %d agents, etl's reservation free %s; want %s on 0, %s",
			s.FreeShared, s.WholeAgents, s.FreeReserved["etl"], cpus(96), poolSize)
	}
	if s := p.Steps[1]; s.WholeAgents != 12 || !s.FreeShared.Equal(cpus(120)) || !s.FreeReserved["etl"].IsEmpty() {
		t.Errorf("pool: shared pool %s whole on %d agents, etl's reservation free %s; want %s on 12, none",
			s.FreeShared, s.WholeAgents, s.FreeReserved["etl"], cpus(120))
	}

	// 3. adhoc takes everything it is offered, unreserved only, and stops
	// at its limit with shared resources free.
	checkOffers("mesos", 3, m.Offers[2], offers{"adhoc", "cpus:8;mem:32768", 6, 8, 0})
	checkOffers("pool", 3, p.Offers[2], offers{"adhoc", "cpus:10;mem:40960", 4, 10, 0}, offers{"adhoc", "cpus:8;mem:32768", 1, 8, 0})
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		checkRole(h.name, 3, h.o.Steps[2], "adhoc", 0.25, cpus(48), cpus(48), 48)
		if n := h.o.AdhocSkips[allocator.ReasonQuotaLimit]; n != 1 {
			t.Errorf("%s: adhoc passed over %d times for its limit, want once (skips %v)", h.name, n, h.o.AdhocSkips)
		}
		if n := reservedOffers(h.o.Offers[2]); n != 0 {
			t.Errorf("%s: %d offers to adhoc held reserved resources", h.name, n)
		}
	}
	if got := m.Steps[2].FreeShared; !got.Equal(cpus(48)) {
		t.Errorf("mesos: shared pool free %s after adhoc, want %s", got, cpus(48))
	}
	if s := p.Steps[2]; !s.FreeShared.Equal(cpus(72)) || s.WholeAgents != 7 {
		t.Errorf("pool: shared pool free %s whole on %d agents after adhoc, want %s on 7", s.FreeShared, s.WholeAgents, cpus(72))
	}

	// 4. web holds exactly its pool reservation on both: share 0.125
	// without ChargeBeyondAllowance, 0 with it.
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		if got := onReserved(h.o.Offers[3], "web"); got != 24 || h.o.Steps[3].OnReserved["web"] != 24 {
			t.Errorf("%s: web launched %d tasks on reserved resources (ledger %d), want 24", h.name, got, h.o.Steps[3].OnReserved["web"])
		}
	}
	checkRole("mesos", 4, m.Steps[3], "web", share(24), none, cpus(24), 24)
	checkRole("pool", 4, p.Steps[3], "web", 0, none, cpus(24), 24)
	checkRole("mesos", 4, m.Steps[3], "etl", share(24), cpus(24), cpus(48), 24)
	checkRole("pool", 4, p.Steps[3], "etl", 0, none, cpus(24), 24)

	// 5. dev and web share the rest of the pool in the order of their
	// shares: on pool, web is charged only beyond its pool reservation
	// (cpus:24, its guarantee too), so the two share the rest as equals.
	checkOffers("mesos", 5, m.Offers[4], offers{"dev", "cpus:8;mem:32768", 5, 8, 0}, offers{"web", "cpus:8;mem:32768", 1, 8, 0})
	checkOffers("pool", 5, p.Offers[4], offers{"dev", "cpus:10;mem:40960", 3, 10, 0}, offers{"dev", "cpus:2;mem:8192", 1, 2, 0},
		offers{"web", "cpus:10;mem:40960", 4, 10, 0})
	checkRole("mesos", 5, m.Steps[4], "dev", share(40), cpus(40), cpus(40), 40)
	checkRole("mesos", 5, m.Steps[4], "web", share(32), cpus(8), cpus(32), 32)
	checkRole("pool", 5, p.Steps[4], "dev", share(32), cpus(32), cpus(32), 32)
	checkRole("pool", 5, p.Steps[4], "web", share(64-24), cpus(40), cpus(64), 64)
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		if got := h.o.Steps[4].FreeShared; !got.IsEmpty() {
			t.Errorf("%s: shared pool free %s after step 5, want none", h.name, got)
		}
	}

	// 6. finance's reservation is offered to nobody; its guarantee is met
	// by it, so nothing is held back.
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		s := h.o.Steps[5]
		if h.o.IdleOffers != 0 {
			t.Errorf("%s: %d offers with only reservations free, want none", h.name, h.o.IdleOffers)
		}
		checkRole(h.name, 6, s, "finance", 0, none, poolSize, 0)
		if !s.FreeReserved["finance"].Equal(poolSize) || !s.Unmet.IsEmpty() {
			t.Errorf("%s: finance's reservation free %s, unmet guarantees %s; want %s, none", h.name, s.FreeReserved["finance"], s.Unmet, poolSize)
		}
	}
	if got := m.Steps[5].FreeReserved["etl"]; !got.Equal(poolSize) {
		t.Errorf("mesos: etl's reservation free %s, want %s", got, poolSize)
	}

	// 7. The preempted task's resources are held for adhoc, counted in its
	// share and quota, and offered to it alone though dev's share is lower.
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		o := h.o
		if o.Preempted != "adhoc-01" || !o.Held.Equal(resources.MustParse("cpus:1;mem:4096", "*")) {
			t.Errorf("%s: preempted %s, held %s; want adhoc-01, cpus:1;mem:4096", h.name, o.Preempted, o.Held)
		}
		checkRole(h.name, 7, o.WhileHeld, "adhoc", 0.25, cpus(48), cpus(48), 47)
		if dev := o.WhileHeld.Roles["dev"].Share; dev >= 0.25 {
			t.Errorf("%s: dev's share %.4f while held, want below adhoc's 0.25", h.name, dev)
		}
		checkOffers(h.name, 7, o.Offers[6], offers{"adhoc", "cpus:1;mem:4096", 1, 1, 0})
		if len(o.Offers[6]) == 1 && o.Offers[6][0].Agent != o.PreemptedOn {
			t.Errorf("%s: held resources offered on %s, want %s", h.name, o.Offers[6][0].Agent, o.PreemptedOn)
		}
		checkRole(h.name, 7, o.Steps[6], "adhoc", 0.25, cpus(48), cpus(48), 48)
	}
	checkRole("mesos", 7, m.WhileHeld, "dev", share(40), cpus(40), cpus(40), 40)
	checkRole("pool", 7, p.WhileHeld, "dev", share(32), cpus(32), cpus(32), 32)

	// 8. An ended task's resources go to the lowest share: web on mesos,
	// dev on pool.
	checkOffers("mesos", 8, m.Offers[7], offers{"web", "cpus:1;mem:4096", 1, 1, 0})
	checkOffers("pool", 8, p.Offers[7], offers{"dev", "cpus:1;mem:4096", 1, 1, 0})
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		if h.o.Ended != "adhoc-02" {
			t.Errorf("%s: ended %s, want adhoc-02", h.name, h.o.Ended)
		}
		checkRole(h.name, 8, h.o.Steps[7], "adhoc", share(47), cpus(47), cpus(47), 47)
	}
	checkRole("mesos", 8, m.Steps[7], "web", share(33), cpus(9), cpus(33), 33)
	checkRole("pool", 8, p.Steps[7], "dev", share(33), cpus(33), cpus(33), 33)

	// The output tells the story in eight steps, with the notes' numbers.
	text := buf.String()
	for _, want := range []string{
		"\n1. Twelve agents", "\n2. ", "\n3. ", "\n4. ", "\n5. ", "\n6. ", "\n7. ", "\n8. ",
		"ReservedFirst moved 24 tasks onto etl's reservation",
		"its share is 0.125 on mesos and 0.000 on pool",
		"web's allowance is its pool reservation, cpus:24; mem:98304",
		"offers cpus:1; mem:4096 to adhoc alone on both allocators",
		"mesos: to web (share 0.167, dev's 0.208)",
		"pool: to dev (share 0.167, web's 0.208)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	// One table for step 1 (alike on both), two for each later step, and
	// two while adhoc's resources are held.
	if n := strings.Count(text, "   role      share  allocated"); n != 1+2*7+2 {
		t.Errorf("%d role tables, want %d", n, 1+2*7+2)
	}
}

// The output is the same on every run, prints no raw Go map, and prints
// resources with their names in order.
func TestOutput(t *testing.T) {
	textcheck.Run(t, func(w io.Writer) error { _, err := run(w); return err })
}
