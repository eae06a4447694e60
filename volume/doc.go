// Package volume models the disk-specific metadata of disk resources: where
// the storage comes from (PATH, MOUNT, BLOCK or RAW sources), whether it is a
// persistent volume (persistence id and principal), and where a volume is
// mounted in a container.
//
// It has no dependencies inside the module; package resources attaches a
// *Disk to "disk" resources and uses Equal and Divisible for its merge rules.
//
// # Usage
//
// Plain disk has no metadata (a nil *Disk). Disk from a whole file system is
// described by its source; a persistent volume by its persistence id and the
// place it is mounted:
//
//	ssd := &volume.Disk{Source: &volume.Source{Type: volume.Mount, Root: "/mnt/ssd"}}
//	pg := &volume.Disk{
//		Persistence: &volume.Persistence{ID: "pg-data", Principal: "ops"},
//		Volume:      &volume.Volume{ContainerPath: "data", Mode: volume.RW},
//	}
//	err := pg.Validate()          // nil
//	pg.IsPersistentVolume()       // true
//	ssd.Divisible()               // false: a MOUNT disk is used whole
//
// # Implementation notes
//
// The rules follow Mesos's DiskInfo:
//
//   - Sources: PATH and MOUNT need a root and have no id; BLOCK and RAW have
//     no root and may have an id. (Mesos lets CSI sources leave the root out;
//     here a root is required.)
//   - Equal is the identity used for resource arithmetic: same source and
//     same persistence id. The volume (container path, mode) and the
//     persistence principal are ignored, as in Mesos: they describe how a
//     volume is used, not what it is.
//   - Divisible is false for MOUNT and BLOCK disks and for RAW disks with an
//     id: such disks are offered, used and merged only whole. Persistent
//     volumes are indivisible too, but that rule belongs to package resources.
//   - A Volume without Persistence is refused ("non-persistent volume not
//     supported"), as in Mesos. Validate accepts the RO mode; refusing
//     read-only persistent volumes on CREATE is the operation validator's job.
//   - Persistence ids name a directory on the agent. ValidatePersistenceID
//     follows Mesos's validateID (not empty, not "." or "..", no '/', '\' or
//     control characters, at most MaxPersistenceIDLength bytes) and also
//     refuses whitespace, which Mesos allows.
//
// Errors wrap ErrInvalidDisk or ErrInvalidPersistenceID and say which rule
// was broken; test with errors.Is.
package volume
