package allocator

import (
	"fmt"
	"testing"
	"time"
)

// snapshotSetup is DeclineOffers's cluster after two rounds: every agent
// offered once and declined with a filter, then offered again, the offers
// outstanding.
func snapshotSetup(tb testing.TB, agents, frameworks int) (*Allocator, *benchClock) {
	a, clock := declineSetup(tb, agents, frameworks, "r", "")
	declineAll(tb, a, a.AllocateAll())
	clock.now = clock.now.Add(time.Second)
	if n := len(a.AllocateAll().Offers); n == 0 {
		tb.Fatal("no offers in the second round")
	}
	return a, clock
}

// BenchmarkSnapshot times Snapshot of DeclineOffers's cluster after two
// rounds (see snapshotSetup); bytes/agent is the snapshot's size per agent.
func BenchmarkSnapshot(b *testing.B) {
	for _, size := range [][2]int{{1000, 100}, {10000, 1000}} {
		b.Run(fmt.Sprintf("agents=%d/frameworks=%d", size[0], size[1]), func(b *testing.B) {
			a, _ := snapshotSetup(b, size[0], size[1])
			var data []byte
			var cpu cpuClock
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var err error
				cpu.measure(func() { data, err = a.Snapshot() })
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpu.total.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(len(data))/float64(size[0]), "bytes/agent")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
		})
	}
}

// BenchmarkRestore times Restore of the snapshot BenchmarkSnapshot makes,
// CheckInvariants included.
func BenchmarkRestore(b *testing.B) {
	for _, size := range [][2]int{{1000, 100}, {10000, 1000}} {
		b.Run(fmt.Sprintf("agents=%d/frameworks=%d", size[0], size[1]), func(b *testing.B) {
			a, clock := snapshotSetup(b, size[0], size[1])
			data, err := a.Snapshot()
			if err != nil {
				b.Fatal(err)
			}
			var cpu cpuClock
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				cpu.measure(func() { _, err = Restore(data, RestoreOptions{Clock: clock.Now}) })
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpu.total.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(len(data))/float64(size[0]), "bytes/agent")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
		})
	}
}
