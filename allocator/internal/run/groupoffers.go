package run

import (
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/offer"
)

// offerGroup is a (framework, role) pair of a run's result.
type offerGroup struct{ framework, role string }

// offerGrouping is groupOffers's working storage, kept from run to run
// (emptied after each) so that grouping allocates only what it hands
// out: the offers, their ids, and the room of agents' first outstanding
// offers. A run of 10000 offers to 1000 frameworks used to make about
// 340 KB of it afresh.
type offerGrouping struct {
	index  map[offerGroup]int
	groups []offerGroup
	// of: record -> its group; sorted: output position -> record;
	// order, place, starts and next: see groupOffers.
	of, order, place, starts, sorted, next []int
}

// ints returns buf with length n, reusing its storage when it can.
func ints(buf []int, n int) []int { return slices.Grow(buf[:0], n)[:n] }

// groupOffers turns the run's offers into the result, sorted by framework,
// role and agent, with ids handed out in that order. Groups are sorted by
// name; within a group, agents by their rank in the sorted candidate list,
// which is cheaper than comparing agent ids. Records are made in rank
// order within each stage, so a group needs sorting only when both stages
// offered to it.
func (e *Engine) groupOffers(records []explain.Offer) []offer.Offer {
	g := &e.grouping
	if g.index == nil {
		g.index = map[offerGroup]int{}
	}
	defer func() {
		clear(g.index)
		clear(g.groups)
		g.groups = g.groups[:0]
	}()
	g.of = ints(g.of, len(records))
	for i, rec := range records {
		key := offerGroup{rec.Key.Framework, rec.Key.Role}
		k, ok := g.index[key]
		if !ok {
			k = len(g.groups)
			g.index[key] = k
			g.groups = append(g.groups, key)
		}
		g.of[i] = k
	}
	groups := g.groups
	g.order = ints(g.order, len(groups))
	for i := range g.order {
		g.order[i] = i
	}
	slices.SortFunc(g.order, func(x, y int) int {
		if c := strings.Compare(groups[x].framework, groups[y].framework); c != 0 {
			return c
		}
		return strings.Compare(groups[x].role, groups[y].role)
	})
	// starts[p] is where the group at place p begins in the output.
	g.place = ints(g.place, len(groups))
	g.starts = ints(g.starts, len(groups)+1)
	clear(g.starts)
	for pos, k := range g.order {
		g.place[k] = pos
	}
	for _, k := range g.of {
		g.starts[g.place[k]+1]++
	}
	for p := range groups {
		g.starts[p+1] += g.starts[p]
	}
	g.sorted = ints(g.sorted, len(records))
	g.next = append(g.next[:0], g.starts[:len(groups)]...)
	for i, k := range g.of {
		p := g.place[k]
		g.sorted[g.next[p]] = i
		g.next[p]++
	}
	byRank := func(x, y int) int { return records[x].Rank - records[y].Rank }
	for p := range groups {
		if in := g.sorted[g.starts[p]:g.starts[p+1]]; !slices.IsSortedFunc(in, byRank) {
			slices.SortStableFunc(in, byRank)
		}
	}
	out := make([]offer.Offer, 0, len(records))
	ids := e.OfferIDs.NextN(len(records))
	// Agents with no room for an outstanding offer get it from one
	// allocation for the run, not one each (they keep the room across runs):
	// room has one place for each of their offers, more than the first
	// ones take.
	fresh := 0
	for i := range records {
		if cap(records[i].Ag.Outstanding) == 0 {
			fresh++
		}
	}
	room := make([]cluster.OutstandingOffer, fresh)
	for i, k := range g.sorted {
		rec := &records[k]
		out = append(out, offer.Offer{
			ID: ids[i], FrameworkID: rec.Key.Framework, AgentID: rec.Key.Agent,
			Role: rec.Key.Role, Resources: rec.Res,
		})
		if cap(rec.Ag.Outstanding) == 0 {
			rec.Ag.Outstanding, room = room[:0:1], room[1:]
		}
		rec.Ag.Outstanding = append(rec.Ag.Outstanding, cluster.OutstandingOffer{ID: ids[i], Framework: rec.Key.Framework, Role: rec.Key.Role, Res: rec.Res})
	}
	return out
}
