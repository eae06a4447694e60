package sorter

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The Usage sorter's order: the active clients by key, kept between calls.
// The keys of all clients move with the clock, so a new instant re-keys
// and re-sorts them all (O(n log n)); within one instant (an allocation
// run) only the clients whose holdings changed are re-keyed and moved
// (O(n) each, a memmove), which is what a run does between two walks.

// keyOf returns client's ordering key at now: its record plus its current
// share, over its weight.
func (u *Usage) keyOf(client string, r *usageRecord, now time.Time) float64 {
	return (u.historyAt(r, now) + r.share) / u.Weight(client)
}

// entryOf returns client's entry at now.
func (u *Usage) entryOf(client string, now time.Time) usageEntry {
	return usageEntry{client: client, key: u.keyOf(client, u.records[client], now), count: u.AllocationCount(client)}
}

func compareEntries(a, b usageEntry) int {
	return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.count, b.count), strings.Compare(a.client, b.client))
}

// refresh brings the order up to the clock's time.
func (u *Usage) refresh() {
	now := u.now()
	if u.stale(now) {
		u.rebuild(now)
		return
	}
	for _, client := range u.dirty {
		u.move(client, now)
	}
	u.dirty = u.dirty[:0]
}

// stale says the order is best rebuilt at now rather than mended: it was
// never built, it was built at another instant (every key moved), or more
// than a quarter of its entries (plus eight) wait to be moved, when one
// sort costs less than that many moves.
func (u *Usage) stale(now time.Time) bool {
	return !u.valid || !now.Equal(u.orderAt) || len(u.dirty) > len(u.entries)/4+8
}

// rebuild keys every active client at now and sorts them.
func (u *Usage) rebuild(now time.Time) {
	u.order = u.AppendActive(u.order[:0])
	u.entries = u.entries[:0]
	for _, client := range u.order {
		u.entries = append(u.entries, u.entryOf(client, now))
	}
	slices.SortFunc(u.entries, compareEntries)
	u.orderAt, u.valid, u.orderOK = now, true, false
	u.dirty = u.dirty[:0]
}

// move re-keys client, if it is active, and puts it back in its place.
func (u *Usage) move(client string, now time.Time) {
	i := slices.IndexFunc(u.entries, func(e usageEntry) bool { return e.client == client })
	if i < 0 {
		return
	}
	e := u.entryOf(client, now)
	u.entries = slices.Delete(u.entries, i, i+1)
	j, _ := slices.BinarySearchFunc(u.entries, e, compareEntries)
	u.entries = slices.Insert(u.entries, j, e)
	u.orderOK = false
}

// Sort returns the active clients by ascending key, then allocation count,
// then path. The caller must not modify the result; it is valid until the
// next call.
func (u *Usage) Sort() []string {
	u.refresh()
	if !u.orderOK {
		u.order = u.order[:0]
		for _, e := range u.entries {
			u.order = append(u.order, e.client)
		}
		u.orderOK = true
	}
	return u.order
}

// Walk visits the active clients in Sort's order until visit returns
// false. Changes made during the walk take effect from the next Walk or
// Sort.
func (u *Usage) Walk(visit func(client string) bool) {
	u.refresh()
	for _, e := range u.entries {
		if !visit(e.client) {
			return
		}
	}
}

// ShareOf returns the key client is ordered by at the clock's time, (H +
// x) / weight; 0 for a path that is not a client.
func (u *Usage) ShareOf(path string) float64 {
	r, ok := u.records[path]
	if !ok {
		return 0
	}
	return u.keyOf(path, r, u.now())
}

// Record returns client's decayed record H at the clock's time and the
// dominant share x it holds now, both unweighted; false for a client not
// present.
func (u *Usage) Record(client string) (history, share float64, ok bool) {
	r, ok := u.records[client]
	if !ok {
		return 0, 0, false
	}
	return u.historyAt(r, u.now()), r.share, true
}

// Describe renders the sorter as stable text: the pool, then one line per
// client in path order with its record, share, weight, key, allocation
// count and activity, figures with six significant digits:
//
//	pool cpus:10; mem:100
//	a history=0.25 share=0.5 weight=1 key=0.75 count=2
//	b history=0 share=0 weight=2 key=0 count=0 inactive
func (u *Usage) Describe() string {
	now := u.now()
	var b strings.Builder
	fmt.Fprintf(&b, "pool %s\n", u.Pool())
	clients := make([]string, 0, len(u.records))
	for client := range u.records {
		clients = append(clients, client)
	}
	slices.Sort(clients)
	for _, client := range clients {
		r := u.records[client]
		fmt.Fprintf(&b, "%s history=%.6g share=%.6g weight=%g key=%.6g count=%d", client,
			u.historyAt(r, now), r.share, u.Weight(client), u.keyOf(client, r, now), u.AllocationCount(client))
		if !u.Active(client) {
			b.WriteString(" inactive")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
