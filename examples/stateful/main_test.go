package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/examples/internal/textcheck"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

var update = flag.Bool("update", false, "rewrite testdata/output.txt")

// hasVolume reports whether rs hold postgres's volume, reserved for db by
// its principal.
func hasVolume(rs resources.Resources) bool {
	for r := range rs.PersistentVolumes().All() {
		last, _ := r.Reservations.Last()
		if r.Disk.Persistence.ID == volumeID && r.Role() == dbRole && last.Principal == principal {
			return true
		}
	}
	return false
}

func TestStateful(t *testing.T) {
	var buf bytes.Buffer
	out, err := run(&buf)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}

	// The volume and its reservation go back to postgres, after the task
	// died and after the agent restarted.
	for name, o := range map[string]offer.Offer{"after the task died": out.AfterDeath, "after the restart": out.AfterRestart} {
		if o.FrameworkID != "postgres" || o.Role != dbRole {
			t.Errorf("%s: offer to %s in %s, want postgres in db", name, o.FrameworkID, o.Role)
		}
		if !hasVolume(o.Resources) {
			t.Errorf("%s: offer %s lacks the volume", name, o.Resources)
		}
		if want := resources.MustParseQuantities("cpus:2;mem:4096;disk:10000"); !o.Resources.Reserved(dbRole).Quantities().Equal(want) {
			t.Errorf("%s: reserved part %s, want %s", name, o.Resources.Reserved(dbRole), want)
		}
	}

	// Nobody else sees them: web is offered unreserved resources only.
	if len(out.WebOffers) == 0 {
		t.Fatal("web was never offered anything")
	}
	for _, o := range out.WebOffers {
		if r := o.Resources.Reserved(""); !r.IsEmpty() {
			t.Errorf("web was offered reserved resources %s", r)
		}
		if v := o.Resources.PersistentVolumes(); !v.IsEmpty() {
			t.Errorf("web was offered volumes %s", v)
		}
	}

	// The rules, as error kinds.
	if !errors.Is(out.DestroyInUseErr, allocator.ErrOperation) || !errors.Is(out.DestroyInUseErr, offer.ErrVolumeInUse) {
		t.Errorf("DESTROY in use: %v, want ErrOperation and ErrVolumeInUse", out.DestroyInUseErr)
	}
	if !errors.Is(out.UnreserveErr, allocator.ErrOperation) || !errors.Is(out.UnreserveErr, offer.ErrVolumeHeld) {
		t.Errorf("UNRESERVE with a volume: %v, want ErrOperation and ErrVolumeHeld", out.UnreserveErr)
	}

	// Destroy then unreserve leaves the agent as it started.
	if !out.Unreserved.Equal(agentTotal) {
		t.Errorf("after destroy and unreserve: %s, want %s", out.Unreserved, agentTotal)
	}

	// Two reservations without labels merge into one entry of cpus:1;
	// the labelled ones stay apart.
	cpus := out.Merged.Reserved(dbRole).Get("cpus").Slice()
	if len(cpus) != 3 {
		t.Fatalf("reserved cpus entries %v, want 3", cpus)
	}
	for _, r := range cpus {
		last, _ := r.Reservations.Last()
		want := 0.5
		if last.Labels == nil {
			want = 1
		}
		if r.Scalar.Float64() != want {
			t.Errorf("%s: %v cpus, want %v", r, r.Scalar.Float64(), want)
		}
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
