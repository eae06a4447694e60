package allocator_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/allocatortest"
)

// BenchmarkCheckedEvents runs generated sequences (seed 1, up to 80 events)
// of every configuration through a Harness and reports checked events a
// second: with Fast checks (checks=fast) and with every check after every
// step (checks=full). One op is one sequence.
func BenchmarkCheckedEvents(b *testing.B) {
	for _, checks := range []string{"fast", "full"} {
		for _, c := range propertyConfigs {
			name := "checks=" + checks + "/config=" + strings.ReplaceAll(c.Name, " ", "_")
			b.Run(name, func(b *testing.B) {
				lessGC(b)
				seqs := allocatortest.Sequences(1, 50, c.Mix, 80)
				opts := c.Options
				opts.Fast = checks == "fast"
				for _, s := range seqs[:5] {
					require.NoError(b, allocatortest.RunSequence(opts, s)) // warm the caches
				}
				events := 0
				for i := 0; b.Loop(); i++ {
					s := seqs[i%len(seqs)]
					require.NoError(b, allocatortest.RunSequence(opts, s))
					events += len(s.Events)
				}
				b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			})
		}
	}
}
