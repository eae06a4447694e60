package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/examples/internal/textcheck"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

var update = flag.Bool("update", false, "rewrite testdata/output.txt")

// stackOf returns the one reservation stack all of rs share; it fails the
// test if they hold several.
func stackOf(t *testing.T, what string, rs resources.Resources) reservation.Stack {
	t.Helper()
	var stack reservation.Stack
	first := true
	for r := range rs.All() {
		if first {
			stack, first = r.Reservations, false
		} else if !stack.Equal(r.Reservations) {
			t.Fatalf("%s: mixed stacks %s and %s", what, stack, r.Reservations)
		}
	}
	if first {
		t.Fatalf("%s: no resources", what)
	}
	return stack
}

func rolesOf(s reservation.Stack) []string {
	var out []string
	for _, r := range s {
		out = append(out, r.Role)
	}
	return out
}

func TestTenants(t *testing.T) {
	var buf bytes.Buffer
	out, err := run(&buf)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}

	// Only agent 0 is offered, with its tenant1/private reservation.
	if len(out.Offers) != 1 || out.Offers[0].AgentID != "agent-0" || out.Offers[0].Role != frameworkRole {
		t.Fatalf("offers to %s: %v, want one, on agent-0 in its role", frameworkID, out.Offers)
	}
	if got, want := rolesOf(stackOf(t, "offer", out.Offers[0].Resources)), []string{"tenant1", "tenant1/private"}; !slices.Equal(got, want) {
		t.Errorf("offered stack %v, want %v", got, want)
	}
	if !out.Offers[0].Resources.Unallocate().ToUnreserved().Equal(resources.MustParse("cpus:1;mem:1024;disk:10000", "*")) {
		t.Errorf("offered %s, want the whole agent", out.Offers[0].Resources)
	}

	// Without RESERVATION_REFINEMENT a framework of tenant1/private is
	// passed over as incapable.
	if out.LegacySkips[allocator.ReasonIncapable] == 0 {
		t.Errorf("legacy framework skips %v, want incapable", out.LegacySkips)
	}

	// A RESERVE for another role is refused as the wrong role.
	if !errors.Is(out.Refused, allocator.ErrOperation) || !errors.Is(out.Refused, offer.ErrAllocationRoleMismatch) {
		t.Errorf("RESERVE for a sibling role: %v, want ErrOperation and ErrAllocationRoleMismatch", out.Refused)
	}

	// The refinement to the framework's role, and the task on it.
	wantRefined := []string{"tenant1", "tenant1/private", frameworkRole}
	if got := rolesOf(stackOf(t, "refined", out.Refined)); !slices.Equal(got, wantRefined) {
		t.Errorf("refined stack %v, want %v", got, wantRefined)
	}
	if got := rolesOf(stackOf(t, "task", out.Launched)); !slices.Equal(got, wantRefined) {
		t.Errorf("task's stack %v, want %v", got, wantRefined)
	}

	// After the framework left, agent 0 keeps the refined reservation and
	// the other agents their own.
	if got := rolesOf(stackOf(t, "agent-0 after leave", out.AfterLeave["agent-0"])); !slices.Equal(got, wantRefined) {
		t.Errorf("agent-0 after the framework left: %v, want %v", got, wantRefined)
	}
	for id, sub := range refinedTo {
		if id == "agent-0" {
			continue
		}
		for _, totals := range []map[string]resources.Resources{out.AfterLeave, out.AfterUnreserve} {
			want := []string{reservation.TopLevel(sub), sub}
			if got := rolesOf(stackOf(t, id, totals[id])); !slices.Equal(got, want) {
				t.Errorf("%s: %v, want %v", id, got, want)
			}
		}
	}

	// Unreserving the refinement pops one level: back to tenant1/private.
	if got, want := rolesOf(stackOf(t, "agent-0 after unreserve", out.AfterUnreserve["agent-0"])), []string{"tenant1", "tenant1/private"}; !slices.Equal(got, want) {
		t.Errorf("agent-0 after unreserve: %v, want %v", got, want)
	}
	if len(out.Reoffer) != 1 || out.Reoffer[0].FrameworkID != "analytics" || out.Reoffer[0].AgentID != "agent-0" {
		t.Errorf("offers after unreserve: %v, want agent-0 to analytics", out.Reoffer)
	}

	golden(t, buf.Bytes())
}

// golden compares the output with testdata/output.txt (-update rewrites
// it).
func golden(t *testing.T, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "output.txt")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

// The output is the same on every run, prints no raw Go map, and prints
// resources with their names in order.
func TestOutput(t *testing.T) {
	textcheck.Run(t, func(w io.Writer) error { _, err := run(w); return err })
}
