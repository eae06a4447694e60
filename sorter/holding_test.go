package sorter

import (
	"testing"

	"github.com/allot-go/allot/resources"
)

// A chunk given back is found by identity wherever it lies among the
// holding's chunks, and only that chunk leaves: the others stay unmerged.
func TestTakeChunkFindsEveryChunk(t *testing.T) {
	res := func(s string) resources.Resources { return resources.MustParse(s, "*") }
	for at := range 3 {
		chunks := []resources.Resources{res("cpus:1"), res("cpus:2"), res("cpus:3")}
		h := holding{res: res("mem:10"), more: append([]resources.Resources(nil), chunks...)}
		if !h.takeChunk(chunks[at]) {
			t.Fatalf("chunk %d (%v) not found", at, chunks[at])
		}
		if len(h.more) != 2 {
			t.Fatalf("after taking chunk %d: %d chunks left, want 2", at, len(h.more))
		}
		for _, c := range h.more {
			if c.Identical(chunks[at]) {
				t.Fatalf("chunk %d still held", at)
			}
		}
		if got, want := h.merged(), res("mem:10").Plus(chunks[0]).Plus(chunks[1]).Plus(chunks[2]).Minus(chunks[at]); !got.Equal(want) {
			t.Fatalf("after taking chunk %d the holding is %v, want %v", at, got, want)
		}
	}
}
