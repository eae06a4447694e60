package declines

import (
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
)

// FilterNum returns fw's number, handing one out (and setting its bits on
// every agent it already has filters on: after a restore, the snapshot's
// filters) the first time.
func (b *Book) FilterNum(fw *cluster.Framework) int {
	if fw.Num != 0 {
		return fw.Num
	}
	fw.Num = b.filterNums.Take()
	b.RefusersByNum.Set(fw.Num, fw)
	fw.Filters.Each(func(_, agentID string, _ *refusals.Refusal) {
		if ag := b.Cluster.Agents.Get(agentID); ag != nil {
			ag.Filtered.SetFiltered(fw.Num)
		}
	})
	return fw.Num
}

// unfiltered clears fw's bit on ag unless fw still has a filter there in
// some role.
func (b *Book) unfiltered(fw *cluster.Framework, ag *cluster.Agent) {
	if fw.Num != 0 && !fw.Filters.AnyOn(ag.ID) && !fw.Whole.AnyOn(int(ag.Num)) {
		ag.Filtered.ClearFiltered(fw.Num)
	}
}

// ReleaseNum gives a removed framework's number back, once its filters
// are forgotten.
func (b *Book) ReleaseNum(fw *cluster.Framework) {
	if fw.Num == 0 {
		return
	}
	b.RefusersByNum.Set(fw.Num, nil)
	b.filterNums.Give(fw.Num)
	fw.Num = 0
}
