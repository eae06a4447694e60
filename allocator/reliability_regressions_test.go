package allocator_test

// Regression tests for accounting bugs found by the property tests, each
// reduced to the few events that showed it.

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// An ancestor's limit binds the guarantees of its descendants: stage one
// must not take "a" past cpus:2 to meet the guarantee of "a/c".
func TestQuotaAncestorLimitBindsGuarantees(t *testing.T) {
	a := newAllocator(t, allocator.Options{Seed: 1})
	require.NoError(t, a.UpdateQuota("a", allocator.Quota{Limits: resources.MustParseLimits("cpus:2")}))
	require.NoError(t, a.UpdateQuota("a/c", allocator.Quota{
		Guarantees: resources.MustParseQuantities("cpus:2"), Limits: resources.MustParseLimits("cpus:2")}))
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:8;mem:8192", ""), nil))
	require.NoError(t, a.AddFramework("fb", allocator.FrameworkInfo{Roles: []string{"a/b"}}, nil, allocator.Active))
	before := allocatortest.Take(a)
	require.NoError(t, allocatortest.CheckRun(before, a.Allocate(), a))

	// "a" is at its limit through a/b; a/c's guarantee must wait.
	require.NoError(t, a.AddFramework("fc", allocator.FrameworkInfo{Roles: []string{"a/c"}}, nil, allocator.Active))
	before = allocatortest.Take(a)
	res := a.Allocate()
	require.NoError(t, allocatortest.CheckRun(before, res, a))
	for _, o := range res.Offers {
		if o.FrameworkID == "fc" {
			t.Errorf("offer to fc beyond a's limit: %s", o.Resources)
		}
	}
}

// A limit set on a role may not fall below a guarantee of a descendant,
// as a guarantee may not exceed an ancestor's limit when it is set.
func TestQuotaLimitBelowDescendantGuarantee(t *testing.T) {
	a := newAllocator(t, allocator.Options{})
	require.NoError(t, a.UpdateQuota("a/c", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:4")}))
	before := a.Describe()
	err := a.UpdateQuota("a", allocator.Quota{Limits: resources.MustParseLimits("cpus:1")})
	if !errors.Is(err, allocator.ErrInvalidQuota) {
		t.Fatalf("UpdateQuota = %v, want %v", err, allocator.ErrInvalidQuota)
	}
	if after := a.Describe(); after != before {
		t.Fatalf("state changed:\n%s\nwas:\n%s", after, before)
	}
}

// sharedAgent has an agent with a shared volume offered to "db".
func sharedAgent(t *testing.T) *allocator.Allocator {
	t.Helper()
	a := newAllocator(t, allocator.Options{Seed: 1})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse(
		"cpus:4;mem:4096;disk(reservations: [(DYNAMIC,db,ops)])[id:s1,principal:ops,path:data]<SHARED>:300", ""), nil))
	require.NoError(t, a.AddFramework("db", allocator.FrameworkInfo{Roles: []string{"db"}, Capabilities: offer.SharedResources}, nil, allocator.Active))
	res := a.Allocate()
	if len(res.Offers) != 1 || res.Offers[0].Resources.Shared().IsEmpty() {
		t.Fatalf("want one offer with the shared volume, got %v", res.Offers)
	}
	return a
}

// An operator cannot destroy a shared volume a framework was offered: the
// offer would hold a volume the agent no longer has.
func TestOperatorDestroyOfOfferedSharedVolume(t *testing.T) {
	a := sharedAgent(t)
	before := a.Describe()
	vol := resources.MustParse("disk(reservations: [(DYNAMIC,db,ops)])[id:s1,principal:ops,path:data]<SHARED>:300", "")
	err := a.UpdateAvailable("a1", []offer.Operation{offer.Destroy{Volumes: vol}})
	if !errors.Is(err, allocator.ErrNotAvailable) {
		t.Errorf("UpdateAvailable = %v, want %v", err, allocator.ErrNotAvailable)
	}
	if after := a.Describe(); after != before {
		t.Errorf("state changed:\n%s\nwas:\n%s", after, before)
	}
	require.NoError(t, allocatortest.Check(a))
}

// An agent whose new total lacks a shared volume a framework holds is
// over-allocated until the framework gives the volume back, as it is for
// any other resource in use.
func TestAgentTotalWithoutHeldSharedVolume(t *testing.T) {
	a := sharedAgent(t)
	total := resources.MustParse("cpus:4;mem:4096", "")
	require.NoError(t, a.UpdateAgent("a1", allocator.AgentInfo{}, &total))
	if v, _ := a.Agent("a1"); !v.OverAllocated {
		t.Errorf("agent not over-allocated: offered %s, total %s", v.Offered, v.Total)
	}
	require.NoError(t, allocatortest.Check(a))
}

// A shared volume in use by a task is offered again to the same framework;
// the bookkeeping of the role's allocated reservations must agree with its
// recomputation.
func TestSharedVolumeInUseOfferedAgain(t *testing.T) {
	a := sharedAgent(t)
	v, _ := a.Agent("a1")
	offered := v.Offered["db"]
	task := offer.Launch{Tasks: []offer.Task{{ID: "t", Resources: offered.Shared()}}}
	require.NoError(t, a.Accept("db", "a1", offered, []offer.Operation{task}, nil))
	require.NoError(t, allocatortest.Check(a))
	res := a.AllocateAll()
	if len(res.Offers) != 1 || res.Offers[0].Resources.Shared().IsEmpty() {
		t.Fatalf("want the shared volume offered again, got %v", res.Offers)
	}
	require.NoError(t, allocatortest.Check(a))
}

// Sequences eventcheck found, reduced by shrinking; each runs with every
// check of the Harness (invariants, oracles, snapshot and restore).
func TestEventcheckRegressions(t *testing.T) {
	for _, c := range []struct{ name, config, events string }{{
		// f6 leaves role a while it still holds offers there, declines
		// them with a filter (marked in a0's refusal index under its
		// number in a's framework sorter) and so leaves the sorter; f7,
		// added to a later, gets that number and must not inherit the
		// refusal: the next run offers a0 to f0.
		"a sorter number reused after its framework refused", "one role, many frameworks", `seed 34288
add-agent 97 220 221 45
add-agent 176 93 20 154
add-agent 181 34 65 52
add-framework 219 67 46 131
allocate-all 64 19 3 139
add-framework 46 111 98 149
remove-framework 154 79 188 129
allocate-all 105 169 174 14
update-framework 211 238 248 107
allocate-all 63 57 86 178
decline 29 83 174 234
decline 172 217 226 90
decline 159 169 61 208
add-framework 14 1 166 0
add-framework 15 1 166 0
add-framework 16 1 166 0
add-framework 17 1 166 0
allocate-all 0 0 0 0
decline 86 1 7 0
decline 86 1 7 0
decline 86 1 7 0
allocate-all 0 0 0 0
decline 86 1 7 0
allocate-all 0 0 0 0
decline 86 1 7 0
decline 86 1 7 0
allocate-all 0 0 0 0`,
	}, {
		// A role parked as capped whose last framework leaves is gone
		// from the role sorter: a snapshot must not name it as parked.
		"parked role leaves the sorter", "default role", `seed 56235
add-agent 63 90 48 82
add-framework 243 181 16 180
quota 23 74 242 21
update-framework 22 31 216 83
allocate-all 153 2 24 132
remove-framework 117 46 217 85
snapshot-restore 8 234 51 95`,
	}, {
		// Two preempted tasks in a role the framework left: when the
		// first hold expires, the second still keeps the role tracked.
		"expired hold beside a kept one", "default role", `seed 21133
add-agent 135 17 220 197
add-framework 25 113 35 199
add-framework 53 234 103 180
allocate-all 111 113 97 136
remove-framework 108 220 5 96
accept-each 89 176 52 192
update-framework 58 195 205 222
preempt 107 135 76 133
advance 247 150 58 217
preempt 217 11 168 222
allocate 228 158 92 111`,
	}, {
		// A stage-two offer meets a/b's guarantee: the headroom held for
		// it goes, and "*", parked for that headroom, must be looked at
		// again.
		"stage two meets a guarantee", "default role", `seed 50420
add-agent 150 127 16 10
add-framework 154 139 141 121
update-framework 103 178 128 24
operator-operate 114 226 10 142
add-agent 54 90 228 192
add-framework 83 15 50 129
suppress 11 25 137 150
remove-framework 212 21 247 215
add-framework 171 117 30 0
quota 242 7 246 153
allocate 252 212 219 105
accept 98 237 139 197
remove-agent 89 69 123 31
allocate-all 122 234 145 39`,
	}, {
		// A framework leaves while the agent, shrunk below what is used
		// there, holds preempted resources for it: the hold goes and the
		// agent's available resources stay as they were. The agent's
		// fingerprint must still change, or the fast checks keep its old
		// view and count the hold for the framework that comes back under
		// the same id.
		"hold dropped on an over-allocated agent", "default role", `seed 43495
add-agent 236 142 177 61
add-agent 208 134 129 68
add-framework 48 103 186 228
add-framework 142 43 222 249
remove-agent 2 232 130 48
add-framework 204 255 111 255
add-framework 128 144 160 41
add-framework 197 157 146 165
preempt 14 136 190 59
update-agent 38 63 243 100
remove-framework 79 202 74 56
add-framework 61 153 54 15`,
	}, {
		// A filter covered an offer cut down by the headroom held for a
		// guarantee; the agent was cached as one where nobody could take
		// anything, and stayed so when a new agent's free resources widened
		// the cut: the next run with caches offered less than without.
		"filter over an offer cut by headroom", "default role", `seed 10223
add-agent 200 17 44 238
add-framework 249 177 42 132
operate 108 203 167 192
activate-framework 76 16 168 204
accept-each 245 124 78 220
decline 17 110 187 75
decline 117 220 142 220
accept 117 164 165 115
advance 127 236 22 104
weights 249 40 178 77
allocate 89 236 160 99
end-task 102 236 123 125
recover 145 214 193 249
add-agent 6 106 112 144
decline 241 210 119 221
operate 125 122 89 130
respond-inverse 236 214 189 214
add-agent 181 19 127 170
update-agent 3 199 142 22
allocate 94 150 195 104
add-agent 11 202 162 32
allocate-all 0 0 0 0
overflow 1 4 0 0
allocate-all 0 0 0 0
overflow 0 5 0 0
quota 129 72 0 1
add-agent 81 124 171 30
preempt 133 61 27 178
decline 179 254 128 84
advance 246 72 37 204
accept-each 133 38 234 56
activate-agent 114 174 124 170
respond-inverse 33 159 126 42
accept-each 45 41 68 42
remove-agent 188 20 190 78
accept-each 160 24 251 144
revive 217 248 172 58
add-framework 136 211 81 99
accept-each 187 243 6 108
decline 33 34 28 66
allocate 130 11 57 255
recover 66 76 82 114
bad-input 59 225 122 4
remove-framework 87 177 210 54
quota 154 119 19 213
activate-framework 62 150 84 254
allocate-all 0 0 0 0
accept 10 1 0 7
preempt 92 249 2 0
allocate 0 0 0 0
allocate-all 0 0 0 0
add-agent 121 12 65 25
allocate-all 153 212 82 55
add-agent 189 254 200 233`,
	}, {
		// With an offer share, an offer is cut in an order drawn for the
		// run; a filter that covered one run's cut was cached for the
		// agent, and the next run's cut, which it does not cover, was
		// not offered.
		"filter over an offer cut to an offer share", "beyond Mesos", `seed 38259
add-agent 125 133 219 36
add-framework 2 169 24 96
add-framework 247 36 210 44
add-agent 40 216 44 233
remove-framework 16 73 140 146
allocate-all 0 0 0 0
decline 61 1 7 0
allocate-all 0 0 0 0`,
	}, {
		// A role capped at its limit after one of its frameworks was
		// offered part of the agent: Explain said the others lost to
		// fairness, with resources the role could take still free.
		"capped after an offer on the agent", "all events", `seed 34385
add-agent 195 251 57 63
add-framework 172 185 151 140
add-framework 215 95 38 161
add-framework 121 155 236 235
overflow 73 236 56 232
remove-framework 51 0 0 0
add-framework 51 177 10 0
quota 124 214 254 71
allocate-all 70 172 187 175`,
	}, {
		// A hold that expires at the run gives its resources back, and
		// a guarantee that it met is unmet again: the run holds headroom
		// for it, as Explain says, though the guarantee was met before
		// the run.
		"guarantee unmet by an expired hold", "default role", `seed 26833
add-agent 254 212 71 67
add-framework 199 166 90 107
add-framework 159 41 107 128
add-framework 244 84 233 231
add-agent 98 172 165 111
add-framework 87 6 128 182
allocate-all 0 0 0 0
decline 0 1 7 0
quota 223 34 43 34
accept 168 206 135 190
deactivate-framework 20 194 71 164
preempt 212 248 130 180
advance 143 197 223 184
allocate-all 2 169 103 157`,
	}, {
		// Below the minimum allocatable after a cut to the offer share,
		// an agent was cached as one where nobody of the role could take
		// anything; a guarantee set on the role then made stage one offer
		// it whole, which the cache skipped.
		"minimum after a cut to the offer share", "beyond Mesos", `seed 27471
add-agent 95 98 146 127
add-framework 114 126 180 70
add-framework 195 232 248 12
add-framework 181 233 156 56
quota 58 189 253 173
add-framework 216 92 98 234
update-framework 136 239 66 201
add-framework 21 154 221 85
deactivate-framework 191 193 65 126
add-agent 164 139 107 28
allocate-all 85 33 116 141
overflow 1 121 0 0
allocate-all 0 0 0 0`,
	}, {
		// A replayed AcceptEach is checked before it applies: operation
		// by operation on the state the ones before leave, the volumes in
		// use included. An empty launch on a shared volume a task uses
		// makes it offered, and a destroy that follows then applies; the
		// check must find the same.
		"accept-each checked as it applies", "random sorter", `seed 37992
add-agent 202 232 63 19
add-agent 190 189 237 120
add-agent 214 155 188 198
add-framework 62 0 3 0
allocate 0 0 0 0
accept 12 162 1 0
allocate-all 0 0 0 0
decline 115 91 249 204
accept 166 88 177 117
accept-each 139 170 130 187`,
	}, {
		// A PreemptTask refused because the task's shared volume was
		// given back already must leave the task owning what it owned:
		// EndTask then frees all of it, as the journal's replica (which
		// never sees a refused event) does.
		"refused preemption of a task with a shared volume", "random sorter", `seed 9323
add-agent 144 64 206 213
add-agent 42 250 110 180
add-framework 163 85 184 117
add-framework 222 74 229 213
add-framework 70 72 184 195
allocate 172 60 35 102
decline 135 214 191 43
remove-agent 227 81 181 222
add-agent 196 140 25 227
add-agent 211 155 219 169
overflow 1 82 0 0
allocate-all 0 0 0 0
decline 5 1 6 0
advance 10 0 0 0
allocate-all 0 0 0 0
allocate-all 0 0 0 0
accept 16 200 22 203
accept 57 180 29 130
recover 24 109 77 221
preempt 204 144 224 133
accept-each 161 33 155 155
accept 179 20 217 23
end-task 141 90 114 224
allocate 37 18 199 235`,
	}, {
		// Roles parked as capped while headroom was held for b's unmet
		// guarantee stay capped once an offer meets it, but no longer for
		// the headroom: Explain must not give the old reason (a4's ports
		// are below the minimum allocatable, as nothing scalar is free).
		"parked role's reason after the headroom went", "reclaim", `seed 52696
add-agent 28 244 46 92
add-agent 124 234 77 26
add-framework 24 73 233 254
update-agent 32 201 11 141
quota 7 1 1 1
add-framework 61 60 253 172
allocate-all 108 21 186 43
accept 94 24 55 81
allocate-all 131 110 80 163
advance 250 254 28 12
allocate-all 72 196 250 225
allocate-all 156 136 83 132`,
	}, {
		// A preempted task's hold, below the framework's minimum
		// allocatable resources in its role, goes back to the pool as the
		// run starts; a/b's guarantee, met before the run only with the
		// hold, is unmet then, and the run holds headroom for it although
		// its stage two meets it. Explain's "headroom" is right: the
		// check of work conservation must count the hold as given back.
		"headroom for a guarantee a hold given back left unmet", "operations", `seed 4601
add-agent 111 174 221 180
add-agent 15 244 126 87
add-agent 41 19 218 49
add-framework 94 135 241 231
add-framework 54 172 3 42
add-framework 47 92 242 22
add-agent 5 29 180 114
add-framework 114 0 21 0
allocate-all 0 0 0 0
accept 157 50 124 111
accept-each 47 67 216 162
add-agent 8 241 174 180
allocate 17 57 180 215
recover 41 84 235 86
accept 146 180 110 170
preempt 62 167 81 38
quota 7 3 1 1
allocate-all 0 0 0 0`,
	}, {
		// a room's free part is held when it is chosen (so the harness
		// counts what is held on the agent as free for the room), and the
		// victim here frees cpus:1 of a task of cpus:1.5.
		"the free part of a room held, and counted as free for the room's check", "reclaim", `seed 3937
add-agent 190 182 82 70
add-framework 63 141 48 148
update-demand 67 56 104 212
quota 22 100 35 78
update-demand 105 246 164 231
allocate 2 225 33 20
update-agent 15 157 2 172
accept 139 207 142 35
update-demand 149 115 69 237
allocate 12 211 77 98
update-demand 145 209 181 73
accept 110 23 156 178
allocate-all 30 115 150 151`,
	}, {
		// a fair-share room's free part held in full took the free headroom
		// below what unmet guarantees need.
		"the free part of a fair-share room held only within the spare headroom", "reclaim", `seed 26007
add-agent 145 47 30 74
add-agent 57 28 148 153
add-framework 172 137 92 237
quota 23 39 18 236
allocate-all 38 133 40 112
accept 242 139 150 157
add-framework 172 14 247 159
add-framework 44 236 241 128
allocate-all 215 157 237 230
allocate-all 158 85 2 77
update-demand 14 96 179 147
update-demand 116 176 15 75
accept 26 213 231 127
allocate-all 0 0 0 0`,
	}, {
		// what the run holds for a room's free part raises the role's
		// consumption after the run, not when the room was chosen.
		"a guarantee's room counted before the run's own holds", "reclaim", `seed 54407
add-agent 145 20 208 238
add-agent 121 145 64 154
add-agent 126 5 117 207
add-framework 2 224 6 39
add-framework 122 229 248 89
quota 92 199 152 61
update-demand 225 154 147 149
allocate-all 105 110 161 255
add-framework 118 33 129 76
accept 79 30 231 32
update-demand 7 187 20 241
quota 33 23 191 236
allocate-all 73 212 58 229`,
	}, {
		// the choices lapse after a day, their holds expire at the next run,
		// and the same victims are chosen again with a new hold.
		"a lapsed room chosen again, its hold renewed", "reclaim", `seed 56664
add-agent 176 31 92 46
add-agent 0 59 142 140
add-framework 196 185 63 213
allocate 255 65 209 140
accept-each 34 28 81 159
accept 83 4 242 15
accept 14 84 70 82
update-demand 216 74 116 53
allocate 185 150 115 153
accept-each 124 168 12 166
quota 115 50 138 149
allocate-all 49 219 115 121
advance 222 33 219 81
allocate 232 49 143 211`,
	}, {
		// b's guarantee is met only with the hold of a room's free part
		// (mem:320 on a1). A minute on, the room has lapsed: the run gives
		// the hold back as it starts, holds mem:320 back as headroom for
		// b (f4 is left disk(b):700 on a1, below the minimum), and chooses
		// the same room again at its end, holding mem:320 anew. Explain's
		// "headroom" is right: the check of work conservation must not
		// take the new hold for the old one kept.
		"a room's hold given back and made again in one run", "reclaim", `seed 22312
add-agent 251 81 144 29
add-agent 181 138 63 244
add-framework 29 216 89 181
update-demand 204 153 188 216
quota 137 223 227 250
allocate-all 11 11 24 253
accept 50 173 11 163
update-demand 21 94 29 90
update-demand 146 143 106 253
end-task 222 217 122 4
accept 16 236 154 153
advance 127 189 171 195
allocate-all 189 222 98 222
advance 140 251 2 188
allocate-all 249 119 199 35`,
	}, {
		// a/b's guarantee leaves nothing spare, and b is capped by the
		// headroom: a4 has only ports left for b, which no cut took. The
		// reason there is the minimum allocatable resources, not the cap.
		"a capped role on an agent with only ports left", "all events", `seed 7486
add-agent 28 201 72 168
add-framework 30 223 163 217
quota 7 27 5 1
allocate-all 137 233 47 11`,
	}, {
		// a/b is at its cpus limit through a/b/c/d's task, and a/b's own
		// mem guarantee holds the last mem:1024 back: a/b/c/d is capped.
		// Its limit keeps cpus, of which a0 has none left, and the mem a0
		// has is within the limit: the headroom, not the limit, keeps it.
		"a cap by a limit on an agent whose resources the limit leaves", "nested roles", `seed 12109
add-framework 0 0 0 0
add-framework 0 0 0 0
add-framework 0 12 0 158
add-agent 0 217 0 0
allocate 0 0 0 0
decline 0 1 0 0
allocate-all 0 0 0 0
quota 1 78 1 1
accept 0 4 0 0
update-demand 14 1 1 5
allocate-all 0 0 0 0`,
	}, {
		// f0 declined a4 and is held back in b by the rotation; b is
		// capped (c's guarantee holds what is free) before the walk comes
		// back to f0, whose pass is settled to the cap with no figures of
		// its own: Explain reads it as the cap on a4, with what a4 has.
		"a held-back framework whose role was capped", "beyond Mesos", `seed 48419
add-agent 250 238 69 65
add-framework 200 125 117 248
quota 53 226 29 244
allocate 0 0 0 0
decline 5 1 24 0
allocate-all 0 0 0 0`,
	}, {
		// b is above its disk limit and its own guarantee holds the cpus
		// and mem left: capped for the headroom over the cluster. a1 has
		// only disk left, which the headroom does not hold and the limit
		// does: there the limit is why.
		"a cap for the headroom on an agent with only what the limit keeps", "one role, many frameworks", `seed 58155
add-agent 77 113 113 124
add-framework 11 243 255 194
add-framework 164 235 97 146
allocate-all 57 154 235 165
accept 179 2 219 206
quota 13 3 1 1
allocate-all 0 0 0 0`,
	}, {
		// a/c's limit (cpus:2) cuts the offer on a1 but leaves enough;
		// a/b/c's guarantee then holds the rest back as headroom. The
		// headroom binds there, not the limit.
		"a limit that cuts without binding, and the headroom that does", "all events", `seed 20364
add-agent 0 0 0 0
add-framework 0 123 0 0
add-agent 0 70 0 245
quota 129 0 20 1
quota 2 3 0 1
allocate-all 0 0 0 0`,
	}, {
		// a/b is at its gpus:0 limit, which the agent (no GPUs) never
		// offered; a's cpus:1 limit is the one that binds and the one
		// Explain names.
		"the limit named is the one that binds, not the nearest reached", "nested roles", `seed 30580
quota 1 0 191 1
add-framework 1 0 0 0
add-agent 0 245 0 0
quota 0 1 1 1
allocate-all 0 0 0 0
allocate-all 0 0 0 0`,
	}, {
		// f1 in a/b/c is kept off a1 by two limits together: a's (over
		// its cpus and disk) and a/b/c's (at its mem); each alone would
		// leave enough. The role named is one whose limit the other
		// limits without it would not have made up for.
		"two limits that bind together", "beyond Mesos", `seed 35052
add-agent 80 149 53 28
add-agent 199 86 227 69
add-framework 42 84 128 42
add-framework 146 37 152 249
quota 12 3 1 1
quota 2 2 1 1
allocate-all 0 0 0 0
allocate-all 0 0 0 0`,
	}, {
		// f0 in a/b is passed over for the limits on a0, where a/b's cpus
		// limit binds, and on a3, where only mem is left and a's mem limit
		// binds. Explain names one role for both: the one that binds where
		// something is still free (a3), a.
		"the limit named binds where something is still free", "default role", `seed 24188
add-agent 233 73 24 167
add-agent 252 167 192 32
add-framework 45 135 219 108
add-framework 112 91 71 97
add-agent 102 87 37 144
remove-framework 167 37 243 73
allocate-all 7 246 124 190
add-agent 39 157 44 141
quota 62 60 99 101
allocate-all 2 5 66 169
decline 131 47 60 68
quota 49 119 209 162
add-framework 46 189 109 232
allocate 185 241 98 22
decline 133 76 242 216
add-agent 86 90 195 151
decline 76 138 87 26
allocate-all 83 162 71 155`,
	}} {
		t.Run(c.name, func(t *testing.T) {
			s, err := allocatortest.ParseSequence(c.events)
			if err != nil {
				t.Fatal(err)
			}
			for _, cfg := range allocatortest.Configs() {
				if cfg.Name != c.config {
					continue
				}
				// With every check after every step, and with the fast
				// checks, whose bookkeeping can miss what the full ones see.
				for _, fast := range []bool{false, true} {
					opts := cfg.Options
					opts.Fast = fast
					opts.Allocator.Seed = s.Seed
					h, err := allocatortest.New(opts)
					if err != nil {
						t.Fatal(err)
					}
					if err := h.Run(s.Events); err != nil {
						t.Fatalf("fast %v: %v", fast, err)
					}
				}
				return
			}
			t.Fatalf("no configuration %q", c.config)
		})
	}
}
