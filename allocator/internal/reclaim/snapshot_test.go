package reclaim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// A restored state is refused for each thing a choice or a role's last
// run may not be, naming it; a sound one passes.
func TestCheckRestored(t *testing.T) {
	task := resources.MustParseQuantities("cpus:2")
	sound := func() State {
		st := NewState()
		st.Groups = 2
		st.Choices[TaskRef{Framework: "f", Task: "t"}] = &Choice{ForRole: "team", HeldIn: "team/x", Reason: ForGuarantee,
			Task: task, Room: resources.MustParseQuantities("cpus:1"), Group: 2}
		st.TookAt["team"] = 5
		return st
	}
	st := sound()
	require.NoError(t, st.CheckRestored(5))
	for _, tc := range []struct {
		change func(*State)
		want   string
	}{
		{func(st *State) { st.Choices[TaskRef{"f", "t"}].Reason = 0 }, "for reason 0"},
		{func(st *State) { st.Choices[TaskRef{"f", "t"}].Reason = ForFairShare + 1 }, "for reason 3"},
		{func(st *State) { st.Choices[TaskRef{"f", "t"}].ForRole = "a//b" }, `for role "a//b"`},
		{func(st *State) { st.Choices[TaskRef{"f", "t"}].HeldIn = "other" }, `held in "other" outside it`},
		{func(st *State) { st.Choices[TaskRef{"f", "t"}].HeldIn = "team" }, ""},
		{func(st *State) { st.Choices[TaskRef{"f", "t"}].Group = 0 }, "in group 0 (last 2)"},
		{func(st *State) { st.Choices[TaskRef{"f", "t"}].Group = 3 }, "in group 3 (last 2)"},
		{func(st *State) { st.Choices[TaskRef{"f", "t"}].Room = resources.MustParseQuantities("cpus:3") }, "to make room cpus:3"},
		{func(st *State) { st.TookAt["team"] = 6 }, `role "team" chosen for in run 6 (last run 5)`},
		{func(st *State) { st.TookAt["team"] = 0 }, `role "team" chosen for in run 0`},
	} {
		st := sound()
		tc.change(&st)
		err := st.CheckRestored(5)
		if tc.want == "" {
			require.NoError(t, err)
			continue
		}
		require.ErrorContains(t, err, tc.want)
	}
}
