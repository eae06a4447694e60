package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/allot-go/allot/examples/internal/textcheck"
	"github.com/allot-go/allot/resources"
)

func q(text string) resources.Quantities { return resources.MustParseQuantities(text) }

func TestQuota(t *testing.T) {
	var buf bytes.Buffer
	out, err := run(&buf)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	for _, o := range out.OverLimit {
		t.Errorf("over a limit: %s", o)
	}

	// Guarantees first: prod has its guarantee although two roles before
	// it by name want everything. batch is at its limit. Exactly analytics'
	// unmet guarantee is free, held back from dev, which wants it.
	s := out.Start
	if !s.Consumed["prod"].Contains(q("cpus:8;mem:16384")) {
		t.Errorf("prod consumes %s, want at least its guarantee", s.Consumed["prod"])
	}
	if !s.Consumed["batch"].Equal(q("cpus:4;mem:8192")) {
		t.Errorf("batch consumes %s, want its limit", s.Consumed["batch"])
	}
	if !s.Free.Equal(q("cpus:4;mem:8192")) || !s.Headroom.Equal(s.Free) {
		t.Errorf("free %s, held back %s; want both analytics' guarantee cpus:4;mem:8192", s.Free, s.Headroom)
	}

	// analytics gets what was held back, and nothing stays idle.
	s = out.Analytics
	if !s.Consumed["analytics"].Equal(q("cpus:4;mem:8192")) || !s.Free.IsEmpty() {
		t.Errorf("analytics consumes %s with %s free; want its guarantee and nothing free", s.Consumed["analytics"], s.Free)
	}

	// Limits hold even with resources free and wanted.
	s = out.DevLeaves
	if !s.Consumed["prod"].Equal(q("cpus:10;mem:20480")) {
		t.Errorf("prod consumes %s, want its limit cpus:10;mem:20480", s.Consumed["prod"])
	}
	if !s.Consumed["batch"].Equal(q("cpus:4;mem:8192")) {
		t.Errorf("batch consumes %s, want its limit", s.Consumed["batch"])
	}
	if !s.Free.Equal(q("cpus:6;mem:12288")) {
		t.Errorf("free %s, want cpus:6;mem:12288", s.Free)
	}

	// The output tells the story in four steps, with a table per step.
	text := buf.String()
	for _, want := range []string{"\n1. Quota is set once", "\n2. ", "\n3. ", "\n4. ", "free: cpus:6; mem:12288"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "role      guarantees"); n != 3 {
		t.Errorf("%d role tables, want 3", n)
	}
}

// The output is the same on every run, prints no raw Go map, and prints
// resources with their names in order.
func TestOutput(t *testing.T) {
	textcheck.Run(t, func(w io.Writer) error { _, err := run(w); return err })
}
