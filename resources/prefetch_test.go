package resources

import "testing"

// TestPrefetchChangesNothing: asking for a value's entries ahead leaves the
// value, and what it shares storage with, as it was.
func TestPrefetchChangesNothing(t *testing.T) {
	for _, text := range []string{"", "cpus:4", "cpus(r):4;mem:2048;disk:10;ports:[31000-32000,40000-40010]", "gpus:1;zones:{a,b}"} {
		rs := MustParse(text, "")
		want := rs.String()
		frozen := rs.Clone().Frozen()
		rs.Prefetch()
		frozen.Prefetch()
		Resources{}.Prefetch()
		if got := rs.String(); got != want {
			t.Fatalf("%q after Prefetch: %q", want, got)
		}
		if got := frozen.String(); got != want {
			t.Fatalf("frozen %q after Prefetch: %q", want, got)
		}
	}
}
