package cluster

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// launch records one task of fw on agent a1 and returns it.
func launch(lg *Ledger, fw *Framework, id string) *Task {
	op := offer.Launch{Tasks: []offer.Task{{ID: id, Resources: resources.MustParse("cpus(allocated: r):1", "*")}}}
	lg.Record(fw, "a1", "r", []offer.Operation{op})
	return fw.Tasks[id]
}

// Tasks launched and ended without anybody asking for Live (a host that
// never reclaims) do not pile up: the ledger keeps at most twice the live
// tasks, and Live still lists the live ones in launch order (among ended
// ones not dropped yet).
func TestLedgerDropsEndedTasks(t *testing.T) {
	cs := &State{}
	fw := &Framework{ID: "f"}
	cs.Frameworks.Put(fw)
	lg := NewLedger(cs)
	keep := []*Task{launch(&lg, fw, "keep-1"), launch(&lg, fw, "keep-2")}
	for i := range 10000 {
		lg.Forget(fw, launch(&lg, fw, fmt.Sprintf("t%d", i)))
		require.LessOrEqual(t, len(lg.ledger), 2*len(fw.Tasks)+1, "after %d tasks ended", i+1)
	}
	keep = append(keep, launch(&lg, fw, "keep-3"))
	var live []*Task
	for _, task := range lg.Live() {
		if !task.Ended {
			live = append(live, task)
		}
	}
	require.Equal(t, keep, live)
	require.Equal(t, uint64(10003), lg.TaskSeq)
}
