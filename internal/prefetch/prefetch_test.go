package prefetch_test

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/allot-go/allot/internal/prefetch"
)

// TestLinesChangesNothing asks for every span of a buffer, aligned or not,
// empty or not, and for memory the program does not own: nothing faults
// and no byte changes.
func TestLinesChangesNothing(t *testing.T) {
	buf := make([]byte, 1024)
	for i := range buf {
		buf[i] = byte(i*7 + 3)
	}
	want := append([]byte(nil), buf...)
	for start := 0; start < 130; start++ {
		for _, n := range []int{0, 1, 63, 64, 65, 127, 128, 129, 700} {
			prefetch.Lines(unsafe.Pointer(&buf[start]), uintptr(n))
		}
	}
	prefetch.Lines(nil, 0)
	prefetch.Lines(nil, 4096)
	for i := range buf {
		if buf[i] != want[i] {
			t.Fatalf("byte %d changed from %d to %d", i, want[i], buf[i])
		}
	}
}

// record stands for an agent's record: four cache lines.
type record struct {
	next  int32
	value int64
	_     [240]byte
}

// chase visits the records in a shuffled order, as the allocator visits its
// agents, reading two fields of each; with ahead, it asks for the next
// record while it reads the current one.
func chase(recs []record, order []int32, ahead bool) int64 {
	var sum int64
	for i, at := range order {
		if ahead && i+1 < len(order) {
			prefetch.Lines(unsafe.Pointer(&recs[order[i+1]]), unsafe.Sizeof(recs[0]))
		}
		r := &recs[at]
		sum += r.value + int64(r.next)
		for k := range 64 { // the visit's own work
			sum ^= int64(k) * r.value
		}
	}
	return sum
}

// BenchmarkChase visits 64 MB of records (beyond this machine's last-level
// cache) in a shuffled order, with and without asking for the next one
// ahead: what the allocator's runs gain at 50000 agents.
func BenchmarkChase(b *testing.B) {
	const n = 1 << 18
	recs := make([]record, n)
	order := make([]int32, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range recs {
		recs[i].value = int64(i)
		order[i] = int32(i)
	}
	rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, ahead := range []bool{false, true} {
		name := "plain"
		if ahead {
			name = "ahead"
		}
		b.Run(name, func(b *testing.B) {
			var sum int64
			for b.Loop() {
				sum += chase(recs, order, ahead)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/record")
			if sum == 0 {
				b.Fatal("no records read")
			}
		})
	}
}

// TestChaseSameEitherWay: asking ahead changes when reads wait, never what
// they read.
func TestChaseSameEitherWay(t *testing.T) {
	recs := make([]record, 5000)
	order := make([]int32, len(recs))
	for i := range recs {
		recs[i].value, recs[i].next = int64(i*i), int32(i)
		order[i] = int32(len(recs) - 1 - i)
	}
	if a, b := chase(recs, order, false), chase(recs, order, true); a != b {
		t.Fatalf("sum %d with prefetching, %d without", b, a)
	}
}
