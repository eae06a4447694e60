package sim

import (
	"math/bits"
	"slices"
	"time"
)

// DefaultExactWaits is how many waits of a role a run keeps exactly
// (RunOptions.ExactWaits), 512 KiB a role at most: enough for the runs of
// the README and of the tests, and for BenchmarkGoogleMonth's month in
// the lab (about 17,000 launches a role), whose figures are exact.
const DefaultExactWaits = 1 << 16

// WaitHistogram counts waits in buckets whose width is at most 1/256 of
// their lower bound (below 512 ns, one a nanosecond), so that the waits of
// a run of any length take a few KiB a role: a month of trace launches
// millions of tasks, whose waits kept one by one would outweigh the run.
// A percentile read from it is the lower bound of the bucket of the wait
// of that rank: at most the exact figure, by less than 1/256 of it. The
// count, the largest wait and the mean are kept exactly (the mean up to
// the rounding of a float sum).
type WaitHistogram struct {
	n   int
	sum float64
	max time.Duration
	// bands[b] counts the waits of bits.Len64 b+8 (band 0: those below
	// 256 ns), 256 buckets a band, made when a wait falls in it.
	bands [56]*[256]int
}

// bucket returns the band and bucket of wait d (zero or more).
func bucket(d time.Duration) (band, slot int) {
	v := uint64(d)
	n := bits.Len64(v)
	if n <= 8 {
		return 0, int(v)
	}
	band = n - 8
	return band, int(v>>(band-1)) - 256
}

// lowest returns the lower bound of a bucket.
func lowest(band, slot int) time.Duration {
	if band == 0 {
		return time.Duration(slot)
	}
	return time.Duration(uint64(slot+256) << (band - 1))
}

// Add counts a wait; a negative one counts as zero.
func (h *WaitHistogram) Add(d time.Duration) {
	d = max(d, 0)
	band, slot := bucket(d)
	if h.bands[band] == nil {
		h.bands[band] = new([256]int)
	}
	h.bands[band][slot]++
	h.n++
	h.sum += float64(d)
	h.max = max(h.max, d)
}

// Count returns the number of waits counted.
func (h *WaitHistogram) Count() int { return h.n }

// Max returns the largest wait counted, exactly.
func (h *WaitHistogram) Max() time.Duration { return h.max }

// Mean returns the mean wait (0 without waits).
func (h *WaitHistogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.n))
}

// Percentile returns the p-th percentile by nearest rank, as
// WaitStats's: the wait of rank ceil(p/100 · Count), rounded down to its
// bucket's lower bound (the largest is exact). It is 0 without waits.
func (h *WaitHistogram) Percentile(p float64) time.Duration {
	return h.rank(nearestRank(p, h.n))
}

// nearestRank returns the rank, from 1, of the p-th percentile of n
// values by nearest rank: ceil(p/100 · n), at least 1.
func nearestRank(p float64, n int) int {
	rank := int(p * float64(n) / 100)
	if float64(rank)*100 < p*float64(n) {
		rank++
	}
	return min(max(rank, 1), n)
}

// rank returns the wait of a rank (from 1), rounded down to its bucket.
func (h *WaitHistogram) rank(rank int) time.Duration {
	if rank >= h.n {
		return h.max
	}
	seen := 0
	for band, counts := range h.bands {
		if counts == nil {
			continue
		}
		for slot, c := range counts {
			if seen += c; seen >= rank {
				return lowest(band, slot)
			}
		}
	}
	return h.max
}

// waitLog keeps a role's waits: each one while they are at most limit
// (negative: no limit), then, once they are more, a histogram of them.
type waitLog struct {
	exact []time.Duration
	hist  *WaitHistogram
	limit int
}

func (l *waitLog) add(d time.Duration) {
	if l.hist != nil {
		l.hist.Add(d)
		return
	}
	l.exact = append(l.exact, d)
	if l.limit >= 0 && len(l.exact) > l.limit {
		l.hist = &WaitHistogram{}
		for _, w := range l.exact {
			l.hist.Add(w)
		}
		l.exact = nil
	}
}

// stats sums the waits up: exactly from the waits kept, sorted in place,
// or from the histogram.
func (l *waitLog) stats() WaitStats {
	if l.hist == nil {
		slices.Sort(l.exact)
		return waitStats(l.exact)
	}
	h := l.hist
	return WaitStats{
		Tasks: h.n, Mean: h.Mean(), P50: h.Percentile(50), P90: h.Percentile(90), P99: h.Percentile(99), Max: h.max,
	}
}
