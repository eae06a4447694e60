package names

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

func TestWellKnown(t *testing.T) {
	for id, name := range []string{"cpus", "mem", "disk", "gpus", "ports"} {
		if got := Intern(name); got != ID(id) {
			t.Errorf("Intern(%q) = %d, want %d", name, got, id)
		}
		if got := ID(id).String(); got != name {
			t.Errorf("ID(%d).String() = %q, want %q", id, got, name)
		}
		if got, ok := Lookup(name); !ok || got != ID(id) {
			t.Errorf("Lookup(%q) = %d, %v", name, got, ok)
		}
	}
	if Intern("cpus") != CPUs || Intern("ports") != Ports {
		t.Error("well-known constants do not match the table")
	}
}

func TestInternStable(t *testing.T) {
	a := Intern("names-test-a")
	b := Intern("names-test-b")
	if a == b {
		t.Fatal("two names share an id")
	}
	if Intern("names-test-a") != a {
		t.Error("second Intern gave another id")
	}
	if b.String() != "names-test-b" {
		t.Errorf("String = %q", b.String())
	}
	if _, ok := Lookup("names-test-never-interned"); ok {
		t.Error("Lookup found a name never interned")
	}
	if got := ID(1 << 31).String(); got != "?" {
		t.Errorf("unknown id prints %q", got)
	}
}

func TestInternConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	ids := make([][]ID, 8)
	for g := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				name := fmt.Sprintf("names-test-concurrent-%d", i)
				id := Intern(name)
				if id.String() != name {
					t.Errorf("id %d names %q, want %q", id, id.String(), name)
				}
				ids[g] = append(ids[g], id)
			}
		}()
	}
	wg.Wait()
	for g := range ids {
		if !slices.Equal(ids[0], ids[g]) {
			t.Fatalf("goroutine %d saw other ids", g)
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	Intern("names-bench")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Lookup("names-bench"); !ok {
			b.Fatal("not interned")
		}
	}
}

// An id past the table, however large, names nothing: on a 32-bit
// platform one of 2^31 or more converted to int would be negative, and
// indexed the table out of range.
func TestStringOfLargeIDs(t *testing.T) {
	for _, id := range []ID{1 << 20, 1<<31 - 1, 1 << 31, 1<<31 + 5, 1<<32 - 1} {
		if got := id.String(); got != "?" {
			t.Fatalf("ID(%d).String() = %q, want ?", uint32(id), got)
		}
	}
}
