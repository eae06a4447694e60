package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

func TestRunPasses(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-sequences", "30", "-workers", "2", "-events", "40"}, &out, &errs, allocatortest.Configs(), time.Now); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "30 of 30 sequences (100.0%)") || !strings.Contains(out.String(), "0 violations") {
		t.Errorf("no final progress line:\n%s", out.String())
	}
}

// leakySorter forgets what is given back, as a sorter with a bookkeeping
// bug would.
type leakySorter struct{ sorter.Sorter }

func (leakySorter) Unallocated(string, string, resources.Resources) error { return nil }

// A broken allocator is found, the sequence shrunk, and the printed line
// replays the violation.
func TestRunFindsShrinksReplays(t *testing.T) {
	leaky := allocatortest.Config{
		Name: "leaky sorter",
		Options: allocatortest.Options{Allocator: allocator.Options{
			RoleSorter: func(c sorter.Config) sorter.Sorter { return leakySorter{sorter.NewDRF(c)} },
		}},
		Mix: allocatortest.DefaultMix(),
	}
	configs := []allocatortest.Config{leaky}
	var out, errs bytes.Buffer
	if code := run([]string{"-sequences", "1000", "-workers", "2"}, &out, &errs, configs, time.Now); code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errs.String())
	}
	text := out.String()
	for _, want := range []string{"violation in sequence", "role sorter", "replay with:", "or, not shrunk:"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	m := regexp.MustCompile(`-config 'leaky sorter' -replay '([^']*)'`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no replay line:\n%s", text)
	}
	s, err := allocatortest.ParseSequence(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Events) > 6 {
		t.Errorf("shrunk to %d events, want a handful: %s", len(s.Events), m[1])
	}
	out.Reset()
	if code := run([]string{"-config", "leaky sorter", "-replay", m[1]}, &out, &errs, configs, time.Now); code != 1 || !strings.Contains(out.String(), "role sorter") {
		t.Errorf("replay: exit %d, want 1 with the violation:\n%s", code, out.String())
	}
	m = regexp.MustCompile(`-seed 1 -events 80 -sequence (\d+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no line to run the sequence again:\n%s", text)
	}
	out.Reset()
	if code := run([]string{"-sequence", m[1]}, &out, &errs, configs, time.Now); code != 1 || !strings.Contains(out.String(), "role sorter") {
		t.Errorf("-sequence %s: exit %d, want 1 with the violation:\n%s", m[1], code, out.String())
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-config", "nothing"}, {"-events", "0"}, {"extra"}, {"-replay", "explode 1 2 3 4"}, {"-nosuchflag"}} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs, allocatortest.Configs(), time.Now); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"-h"}, &out, &errs, allocatortest.Configs(), time.Now); code != 0 || !strings.Contains(errs.String(), "usage: eventcheck") {
		t.Errorf("-h: exit %d, want 0 with the usage:\n%s", code, errs.String())
	}
}
