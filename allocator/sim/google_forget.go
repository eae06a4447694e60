package sim

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultGoogleRemember is how long, in the trace's time, the Google trace
// reader keeps a task whose last run ended (GoogleOptions.Remember).
const DefaultGoogleRemember = 24 * time.Hour

// minSweep is the number of tasks kept after their end below which the
// reader does not look for tasks to forget: a sweep walks them all, so
// one is made when they have doubled since the last.
const minSweep = 4096

// recall returns what is kept of a task whose last run ended, unless the
// trace has moved on more than Remember since then: the latest timestamp
// read, not the sweeps, decides, so that what a record means does not
// depend on when memory was freed.
func (g *googleReader) recall(key [2]uint64) (googleEnded, bool) {
	ended, known := g.ended[key]
	if known && g.expired(ended) {
		g.forget(key, ended)
		return googleEnded{}, false
	}
	return ended, known
}

// expired reports whether an ended task is past remembering. A run that
// ended after the trace (2^63-1) never is: nothing can come after it.
func (g *googleReader) expired(ended googleEnded) bool {
	return g.opts.Remember >= 0 && ended.last != afterTrace && g.latest-ended.last > g.opts.Remember
}

func (g *googleReader) forget(key [2]uint64, ended googleEnded) {
	delete(g.ended, key)
	if ended.made > 0 {
		g.forgotMade = true // a run submitted again may take a number already given
		if g.sink != nil {
			g.sink.forgot(key)
		}
	}
}

// sweep forgets the tasks past remembering once those kept have doubled
// since the last sweep, so that a sweep costs a constant per task ended
// and the map stays within twice the tasks ended within Remember.
func (g *googleReader) sweep() {
	if g.opts.Remember < 0 || len(g.ended) < g.sweepAt {
		return
	}
	for key, ended := range g.ended {
		if g.expired(ended) {
			g.forget(key, ended)
		}
	}
	g.sweepAt = max(minSweep, 2*len(g.ended))
}

// renumber gives new IDs to the runs of each task whose IDs repeat, which
// happens when a task forgotten is submitted again and its runs are
// numbered from the first once more: the task's runs read are numbered
// anew in the order of their submissions, job-index, job-index.2 and on.
// The tasks are in that order already, which the sort by job-index keeps
// within each task.
func (g *googleReader) renumber() {
	base := func(i int) string {
		id := g.tasks[i].ID
		if dot := strings.IndexByte(id, '.'); dot >= 0 {
			return id[:dot]
		}
		return id
	}
	order := make([]int, len(g.tasks))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := strings.Compare(base(a), base(b)); c != 0 {
			return c
		}
		return a - b
	})
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && base(order[hi]) == base(order[lo]) {
			hi++
		}
		if repeats(g.tasks, order[lo:hi]) {
			for n, i := range order[lo:hi] {
				id := base(i)
				if n > 0 {
					id += "." + strconv.Itoa(n+1)
				}
				if id != g.tasks[i].ID {
					g.tasks[i].ID = id
					g.stats.Renumbered++
				}
			}
		}
		lo = hi
	}
}

// repeats reports whether two of the tasks at the indexes have one ID:
// pair by pair for the few runs most tasks have, through a set for more.
func repeats(tasks []Task, indexes []int) bool {
	if len(indexes) > 16 {
		seen := make(map[string]bool, len(indexes))
		for _, i := range indexes {
			if seen[tasks[i].ID] {
				return true
			}
			seen[tasks[i].ID] = true
		}
		return false
	}
	for n, a := range indexes {
		for _, b := range indexes[n+1:] {
			if tasks[a].ID == tasks[b].ID {
				return true
			}
		}
	}
	return false
}
