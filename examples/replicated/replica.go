package main

import (
	"encoding/json"
	"fmt"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/allot-go/allot/allocator"
)

// A Replica is one member of the group: a raft node, the log it keeps
// (raft's in-memory storage stands for its disk), and the allocator that
// applies the committed entries. Every replica applies the same entries in
// the same order, so every replica's allocator holds the same state; the
// leader's is the one whose offers go out to frameworks.
type Replica struct {
	id      uint64
	node    *raft.RawNode
	storage *raft.MemoryStorage
	alloc   *allocator.Allocator
	opts    allocator.Options

	// confState is the group's membership as of the last applied entry;
	// raft snapshots record it. It is replaced whole, never changed in
	// place, and neither raft nor its storage writes into a ConfState they
	// were given, so a copy of the struct, sharing their slices, is enough.
	confState pb.ConfState
	// applied is the index of the last entry the allocator took.
	applied uint64
	// snapshotIndex is the index of the last raft snapshot taken from
	// the allocator; snapshotEvery entries later the next is taken and
	// the log is compacted.
	snapshotIndex uint64
	snapshotEvery uint64
	// compactions counts the times the log was cut, and restores the
	// times the allocator was rebuilt from a snapshot sent by the leader.
	compactions, restores int

	// onApply is told of every entry applied: its index, the entry, and
	// what applying it gave (a run's offers, or the error of an event the
	// allocator refused).
	onApply func(r *Replica, index uint64, e allocator.Entry, res allocator.Result, err error)
	// send hands messages to the network.
	send func([]pb.Message)
}

// newReplica makes replica id of a group of peers, with an empty log and a
// fresh allocator.
func newReplica(id uint64, peers []uint64, opts allocator.Options, snapshotEvery uint64) (*Replica, error) {
	storage := raft.NewMemoryStorage()
	node, err := raft.NewRawNode(&raft.Config{
		ID:              id,
		ElectionTick:    10,
		HeartbeatTick:   1,
		Storage:         storage,
		MaxSizePerMsg:   1 << 20,
		MaxInflightMsgs: 256,
		Logger:          quietLogger{},
	})
	if err != nil {
		return nil, err
	}
	var ps []raft.Peer
	for _, p := range peers {
		ps = append(ps, raft.Peer{ID: p})
	}
	if err := node.Bootstrap(ps); err != nil {
		return nil, err
	}
	alloc, err := allocator.New(opts)
	if err != nil {
		return nil, err
	}
	return &Replica{id: id, node: node, storage: storage, alloc: alloc, opts: opts, snapshotEvery: snapshotEvery}, nil
}

// isLeader reports whether the replica leads the group.
func (r *Replica) isLeader() bool { return r.node.BasicStatus().RaftState == raft.StateLeader }

// propose asks the group to append an event to the log. Only the leader's
// proposals are appended; the entry is applied, here and everywhere, once
// it is committed.
func (r *Replica) propose(e allocator.Entry) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return r.node.Propose(data)
}

// handleReady does what raft asks of the replica, in the order raft's
// documentation gives: install a snapshot, persist entries and the hard
// state, send messages, apply committed entries, then tell raft it is done.
// It reports whether there was anything to do.
func (r *Replica) handleReady() (bool, error) {
	if !r.node.HasReady() {
		return false, nil
	}
	rd := r.node.Ready()
	if !raft.IsEmptySnap(rd.Snapshot) {
		if err := r.installSnapshot(rd.Snapshot); err != nil {
			return true, err
		}
	}
	if err := r.storage.Append(rd.Entries); err != nil {
		return true, err
	}
	if !raft.IsEmptyHardState(rd.HardState) {
		if err := r.storage.SetHardState(rd.HardState); err != nil {
			return true, err
		}
	}
	r.send(rd.Messages)
	for _, ent := range rd.CommittedEntries {
		if err := r.applyEntry(ent); err != nil {
			return true, err
		}
	}
	if err := r.maybeCompact(); err != nil {
		return true, err
	}
	r.node.Advance(rd)
	return true, nil
}

// installSnapshot takes the state the leader sent in place of the entries
// it no longer has: the allocator is rebuilt from the snapshot's data.
func (r *Replica) installSnapshot(snap pb.Snapshot) error {
	md := snap.Metadata
	if md.Index <= r.applied {
		return nil
	}
	if err := r.storage.ApplySnapshot(snap); err != nil {
		return err
	}
	alloc, err := allocator.Restore(snap.Data, allocator.RestoreOptions{
		Clock: r.opts.Clock, RoleSorter: r.opts.RoleSorter, FrameworkSorter: r.opts.FrameworkSorter,
	})
	if err != nil {
		return fmt.Errorf("replica %d: snapshot at %d: %w", r.id, md.Index, err)
	}
	r.alloc = alloc
	r.confState = md.ConfState
	r.applied, r.snapshotIndex = md.Index, md.Index
	r.restores++
	return nil
}

// applyEntry applies one committed entry: a membership change to raft,
// an event to the allocator.
func (r *Replica) applyEntry(ent pb.Entry) error {
	if ent.Index <= r.applied {
		return nil
	}
	r.applied = ent.Index
	switch ent.Type {
	case pb.EntryConfChange:
		var cc pb.ConfChange
		if err := cc.Unmarshal(ent.Data); err != nil {
			return err
		}
		r.confState = *r.node.ApplyConfChange(cc)
		return nil
	case pb.EntryNormal:
		if len(ent.Data) == 0 {
			return nil // what a new leader appends to commit its term
		}
	default:
		return fmt.Errorf("replica %d: entry %d of type %v", r.id, ent.Index, ent.Type)
	}
	var e allocator.Entry
	if err := json.Unmarshal(ent.Data, &e); err != nil {
		return fmt.Errorf("replica %d: entry %d: %w", r.id, ent.Index, err)
	}
	// An event the allocator refuses (a decline of an offer rescinded in
	// the meantime) is refused by every replica alike and changes
	// nothing: it is an answer, not a failure of the replica.
	res, err := r.alloc.Apply(e)
	if r.onApply != nil {
		r.onApply(r, ent.Index, e, res, err)
	}
	return nil
}

// maybeCompact takes a raft snapshot of the allocator every snapshotEvery
// applied entries and drops the log before it: the log stays short, and a
// replica that falls behind is sent the snapshot instead of the entries.
func (r *Replica) maybeCompact() error {
	if r.applied-r.snapshotIndex < r.snapshotEvery {
		return nil
	}
	data, err := r.alloc.Snapshot()
	if err != nil {
		return err
	}
	if _, err := r.storage.CreateSnapshot(r.applied, &r.confState, data); err != nil {
		return err
	}
	if err := r.storage.Compact(r.applied); err != nil {
		return err
	}
	r.snapshotIndex = r.applied
	r.compactions++
	return nil
}

// quietLogger keeps raft's log messages out of the example's output.
type quietLogger struct{}

func (quietLogger) Debug(...any)                   {}
func (quietLogger) Debugf(string, ...any)          {}
func (quietLogger) Error(...any)                   {}
func (quietLogger) Errorf(string, ...any)          {}
func (quietLogger) Info(...any)                    {}
func (quietLogger) Infof(string, ...any)           {}
func (quietLogger) Warning(...any)                 {}
func (quietLogger) Warningf(string, ...any)        {}
func (quietLogger) Fatal(v ...any)                 { panic(fmt.Sprint(v...)) }
func (quietLogger) Fatalf(format string, v ...any) { panic(fmt.Sprintf(format, v...)) }
func (quietLogger) Panic(v ...any)                 { panic(fmt.Sprint(v...)) }
func (quietLogger) Panicf(format string, v ...any) { panic(fmt.Sprintf(format, v...)) }

var _ raft.Logger = quietLogger{}
