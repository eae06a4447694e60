package textcheck

import (
	"fmt"
	"io"
	"testing"
)

// recorder is a testing.TB that records failures.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		text string
		fail bool
	}{
		{"offered cpus:4; mem:8192 on agent-1", false},
		{"offered mem:8192; cpus:4 on agent-1", true},
		{"total: cpus:2; disk[id:pg,path:data]:10; mem:4096 reserved [(DYNAMIC,db,ops)] + cpus:1; mem:1 unreserved", false},
		{"total: cpus:2; mem:4096; disk:10000 unreserved", true},
		{"passed over: map[incapable:1]", true},
		{"passed over: incapable 1", false},
		{"free: cpus:4; mem:8192; unmet guarantees (held back): cpus:4; mem:8192", false},
		{"step 1  <9 CPU, 18 GB>   A   launches", false},
	} {
		r := &recorder{TB: t}
		Check(r, tc.text)
		if got := len(r.failed) > 0; got != tc.fail {
			t.Errorf("Check(%q) failed: %v (%q), want %v", tc.text, got, r.failed, tc.fail)
		}
	}
}

func TestRunUnstable(t *testing.T) {
	n := 0
	r := &recorder{TB: t}
	Run(r, func(w io.Writer) error { n++; fmt.Fprint(w, n); return nil })
	if len(r.failed) != 1 {
		t.Errorf("two different runs: %q, want one failure", r.failed)
	}
}
