package allocator

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/allot-go/allot/allocator/internal/codec"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/internal/wire"
	"github.com/allot-go/allot/sorter"
)

// snapshotMagic starts every snapshot.
const snapshotMagic = "allot-snapshot"

// SnapshotVersion is the version of the snapshot format Snapshot writes and
// Restore reads.
const SnapshotVersion = 5

// Errors of Snapshot and Restore, wrapped with detail; test with errors.Is.
var (
	// ErrInvalidSnapshot: Restore was given bytes that are not a snapshot
	// of this version: another format or version, cut short, damaged (the
	// checksum says so), or a state that breaks an invariant.
	ErrInvalidSnapshot = codec.ErrInvalidSnapshot
	// ErrSnapshotVersion: a snapshot of another version of the format; it
	// also wraps ErrInvalidSnapshot.
	ErrSnapshotVersion = errors.New("allocator: unsupported snapshot version")
	// ErrSnapshotSorter: Snapshot found a sorter that does not implement
	// sorter.Snapshotter, or Restore's sorter factories made a sorter of
	// another type than the one saved.
	ErrSnapshotSorter = codec.ErrSnapshotSorter
)

// RestoreOptions are what Restore cannot read from a snapshot: the options
// that are functions. A nil field means what it means in Options.
type RestoreOptions struct {
	// Clock is the restored allocator's clock (Options.Clock).
	Clock func() time.Time
	// RoleSorter and FrameworkSorter make its sorters: they must make
	// sorters of the types the saved allocator used, which implement
	// sorter.Snapshotter.
	RoleSorter, FrameworkSorter sorter.Factory
	// Journal receives the restored allocator's events (Options.Journal).
	Journal func(Entry)
	// CacheFree restores an allocator without the saved caches, which
	// keeps none from then on (Options.CacheFree): a reference for tests
	// to compare the saved allocator's runs with.
	CacheFree bool
}

// Snapshot writes the allocator's whole state; Restore builds an allocator
// from it that behaves exactly as the saved one would have from there on:
// the same offers, inverse offers, ids and views for the same events. What
// is saved:
//
//   - the options that are not functions (seed, fairness exclusions,
//     minimum allocatable resources, interval, GPU and region settings,
//     offer share, reclaim) and the random source's state;
//   - agents: info, total, available resources (their order of entries
//     included: it decides how offers are cut), offered and allocated
//     resources per framework, outstanding offers, inverse-offer states;
//   - frameworks: info, activity, suppressed and tracked roles, refusal and
//     inverse-offer filters with their expiries, the task ledger;
//   - roles: quota, weights, and the nodes of the role tree;
//   - the run counter, the offer and inverse-offer id counters, the
//     triggers of the next run, the pause, the whitelist, the last run's
//     statistics and skips;
//   - every sorter, through sorter.Snapshotter (allocation counts and
//     random state included);
//   - the caches that let runs skip work (agents' references and versions,
//     the refusal indexes, the (agent, role) pairs known to take nothing,
//     the roles parked as capped): saving them keeps even the RunStats
//     counters of cached skips (Unchanged, Refused, Capped) identical in
//     the runs after a restore;
//   - what Explain reads: the latest run's log, and the passes kept with
//     the (agent, role) pairs known to take nothing;
//   - reclaim: the tasks chosen to end that have not ended (with the
//     pending task each makes room for), and the run that last chose
//     tasks for each role.
//
// What is worked out again instead: cluster totals, free headroom, excess,
// role-tree aggregates, agents' flags and over-allocation, frameworks'
// agent lists. Restore then runs CheckInvariants.
//
// The format, version 5 (numbers are unsigned varints unless said
// otherwise, signed ones zig-zag varints; a time is 0 for the zero time or
// 1 and its Unix nanoseconds as a signed varint, read back in UTC;
// resources, quantities and limits are in package resources' binary form,
// one Encoder for the whole snapshot, so each kind of resource and each
// shared value is written once):
//
//	"allot-snapshot" version
//	options     seed(signed) excluded-names min-allocatable interval(ns)
//	            allow-gpus offer-share(float64 bits) region
//	            charge-beyond-allowance reserved-first reclaim(byte)
//	            reclaim-timeout(ns)
//	random      the PCG source's MarshalBinary
//	counters    runs offer-ids inverse-offer-ids totals-version
//	            cap-epoch parked-epoch periodic-runs task-seq
//	triggers    paused pending-all pending-agents whitelist
//	last run    the RunStats fields in order, then parked roles
//	holds       count (agent framework resources until){count}
//	roles       weights (path float64-bits), nodes (path epoch capped-run
//	            capped-by guarantees limits)
//	agents      by id: id info active total available reference
//	            reference-generation version offered allocated unclaimed
//	            refusal-indexes nobody-cache inverse-states outstanding-offers
//	frameworks  by id: id info active suppressed tracked filters (refused
//	            expiry covered periodic-runs) inverse-filters (agent
//	            expiry periodic-runs) tasks (id agent role uses owns seq)
//	            skips skips-run joined
//	sorters     role sorter (type, totals-version, bytes), then per role
//	            (role salt type totals-version bytes)
//	explain     the latest run's log (its preemptions last) and the nobody
//	            entries' passes (see snapshot_explain.go)
//	reclaim     groups chosen, chosen tasks by framework and task id
//	            (framework task for-role for-framework held-in reason
//	            frees task room group until), then the runs that chose
//	            for each role (role run)
//	CRC-32C     of everything before, 4 bytes little-endian
//
// Maps are written in key order, so the same state gives the same bytes.
// The walks of snapshot_fields.go and snapshot_explain.go are this
// description in code: Snapshot and Restore both run them. Restore accepts
// only the form Snapshot writes: a snapshot it accepts saves back to the
// same bytes.
//
// Snapshot changes nothing. It fails with ErrSnapshotSorter when a sorter
// does not implement sorter.Snapshotter.
func (a *Allocator) Snapshot() ([]byte, error) {
	a.ready()
	c := codec.NewWriter(1024 + 512*a.cs.Agents.Len() + 128*a.cs.Frameworks.Len())
	snapStateOf(a).walk(c)
	if err := c.Err(); err != nil {
		return nil, err
	}
	return binary.LittleEndian.AppendUint32(c.Out.B, crc32.Checksum(c.Out.B, castagnoli)), nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Restore builds an allocator from a snapshot made by Snapshot, with the
// host's clock, sorter factories and journal hook: it behaves exactly as
// the saved allocator would have from the moment of the snapshot. A
// snapshot of another version (ErrSnapshotVersion), cut short, damaged or
// describing a state that breaks an invariant (ErrInvalidSnapshot), or
// sorters that cannot be restored (ErrSnapshotSorter) give an error that
// names the problem; nothing else is returned.
//
// Times come back in UTC, without monotonic clock readings (the allocator
// keeps its clock's readings so; see Options.Clock).
func Restore(snapshot []byte, with RestoreOptions) (*Allocator, error) {
	if !bytes.HasPrefix(snapshot, []byte(snapshotMagic)) {
		return nil, fmt.Errorf("%w: does not start with %q", ErrInvalidSnapshot, snapshotMagic)
	}
	r := wire.NewReader(snapshot[len(snapshotMagic):])
	if v := r.Uvarint(); r.Err() == nil && v != SnapshotVersion {
		return nil, fmt.Errorf("%w: %w: version %d, this library reads version %d", ErrInvalidSnapshot, ErrSnapshotVersion, v, SnapshotVersion)
	}
	if len(snapshot) < len(snapshotMagic)+1+4 {
		return nil, fmt.Errorf("%w: %w: %d bytes", ErrInvalidSnapshot, wire.ErrTruncated, len(snapshot))
	}
	body, sum := snapshot[:len(snapshot)-4], binary.LittleEndian.Uint32(snapshot[len(snapshot)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch: the snapshot is damaged or cut short", ErrInvalidSnapshot)
	}
	return restoreBody(body, with)
}

// restoreBody reads a snapshot without its checksum.
func restoreBody(body []byte, with RestoreOptions) (*Allocator, error) {
	c := codec.NewReader(body)
	sn := &snapState{with: with, nodes: &roles.Nodes{}}
	sn.walk(c)
	if c.Err() == nil && c.In.Left() > 0 {
		c.Failf("%d bytes after the end", c.In.Left())
	}
	err := c.Err()
	if err == nil {
		err = sn.restore(c)
	}
	if err == nil {
		err = sn.a.CheckInvariants()
	}
	if err != nil {
		if errors.Is(err, ErrSnapshotSorter) || errors.Is(err, ErrInvalidSnapshot) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidSnapshot, err)
	}
	return sn.a, nil
}
