package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/allot-go/allot/resources"
)

// lines maps each printed label to its value.
func lines(t *testing.T, out string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for line := range strings.Lines(out) {
		label, value, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("line without a label: %q", line)
		}
		m[label] = strings.TrimSpace(value)
	}
	return m
}

func parse(t *testing.T, text string) resources.Resources {
	t.Helper()
	r, err := resources.Parse(text, "*")
	if err != nil {
		t.Fatalf("printed resources do not parse back: %q: %v", text, err)
	}
	return r
}

func TestResources(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		t.Fatal(err)
	}
	got := lines(t, buf.String())

	if q := got["quantities"]; q != "cpus:6; disk:10000; mem:3072" {
		t.Errorf("quantities: %q", q)
	}
	// Everything printed reads back.
	refined := parse(t, got["refined"])
	if !refined.Quantities().Equal(parse(t, got["with static"]).Quantities()) {
		t.Errorf("reserving and refining changed the quantities: %s", refined)
	}
	// tenant1 may not use what was refined to tenant1/private; a
	// descendant of tenant1/private may.
	if r := parse(t, got["for tenant1"]); !r.Refined().IsEmpty() || !r.Reserved("").IsEmpty() {
		t.Errorf("for tenant1: %s, want unreserved resources only", r)
	}
	if r := parse(t, got["for tenant1/private/db"]).Refined(); !r.Quantities().Equal(resources.MustParseQuantities("cpus:1;mem:512")) {
		t.Errorf("for tenant1/private/db: refined part %s, want cpus:1;mem:512", r)
	}
	for r := range parse(t, got["unreserved once"]).All() {
		if r.Role() != "tenant1" {
			t.Errorf("unreserved once: %s is for %q, want tenant1", r, r.Role())
		}
	}
	if !strings.Contains(got["rejected"], "negative") {
		t.Errorf("rejected: %q, want the negative amount named", got["rejected"])
	}
}

// The output is the same on every run and prints no raw Go map. It prints
// resources as String does, entries in the order they were added, so their
// names are not checked for order.
func TestOutputStable(t *testing.T) {
	var first, second bytes.Buffer
	if err := run(&first); err != nil {
		t.Fatal(err)
	}
	if err := run(&second); err != nil {
		t.Fatal(err)
	}
	if first.String() != second.String() || strings.Contains(first.String(), "map[") {
		t.Errorf("output differs between runs or prints a raw map:\n%s\n---\n%s", first.String(), second.String())
	}
}
